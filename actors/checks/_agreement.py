"""When a cluster has a leader: every live node names the same one, in the same round,
and that node says it leads.  Written once here; every host and report asks it."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["Stance", "agreement"]

#: What one node says: its state (``"leader"``, ``"not_leader"``, ``"undecided"``), the
#: leader it names (``None``: none yet) and its epoch (``None`` where it is not known).
Stance = tuple[str, int | None, int | None]


def agreement(stances: Mapping[int, Stance]) -> tuple[int, int | None] | None:
    """``(leader, epoch)`` if the nodes given (the live ones) all name one leader in one
    epoch and that leader is among them and says it leads; else ``None``."""
    views = iter(stances.values())
    first = next(views, None)
    if first is None:
        return None
    _, leader, epoch = first
    if leader is None:
        return None
    for _, elected, other in views:
        if elected != leader or other != epoch:
            return None
    own = stances.get(leader)
    if own is None or own[0] != "leader":
        return None
    return leader, epoch
