"""What must hold once a run is over (nothing in flight, every timer that will fire
fired): the notes' liveness and the outcome they promise.

In order, the first that fails: ``undecided`` (a live node has no leader: everyone
decides), ``disagreement`` (live nodes name different leaders or rounds, or the one they
name does not say it leads), ``crashed_leader`` (they agree on a node that crashed),
``wrong_leader`` (they agree on another node than the one the run must elect, when it
knows which: the largest ``(capacity, id)`` among the live nodes).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ._agreement import Stance

__all__ = ["EndFinding", "end_check"]


@dataclass(frozen=True)
class EndFinding:
    """What is wrong at the end: its ``kind``, in words, the nodes concerned, the epoch."""

    kind: str
    detail: str
    nodes: tuple[int, ...]
    epoch: int | None = None


def end_check(
    stances: Mapping[int, Stance], *, crashed: Collection[int] = (), expected: int | None
) -> EndFinding | None:
    """The first end-state check that ``stances`` (the live nodes') break, if any.

    ``crashed``: the nodes down at the end; ``expected``: the node that must win
    (``None``: no one in particular, e.g. a leader crashed and nobody could notice).
    """
    if not stances:
        return None  # everyone crashed: nobody left to decide
    undecided = sorted(node for node, (s, elected, _) in stances.items() if s == "undecided")
    if undecided:
        who = ", ".join(f"P{node}" for node in undecided)
        verb = "it is" if len(undecided) == 1 else "they are"
        return EndFinding("undecided", f"{who} never decided ({verb} live)", tuple(undecided))
    named = {(elected, epoch) for _, elected, epoch in stances.values()}
    if len(named) > 1:
        views = ", ".join(
            f"P{node} names P{elected} (epoch {epoch})"
            for node, (_, elected, epoch) in sorted(stances.items())
        )
        return EndFinding("disagreement", views, tuple(sorted(stances)))
    ((leader, epoch),) = named
    return _agreed_on(stances, leader, epoch, crashed, expected)


def _agreed_on(
    stances: Mapping[int, Stance],
    leader: int | None,
    epoch: int | None,
    crashed: Collection[int],
    expected: int | None,
) -> EndFinding | None:
    """What is wrong with every live node naming ``leader`` in ``epoch``, if anything."""
    everyone = tuple(sorted(stances))
    if leader is not None and leader in crashed:
        return EndFinding(
            "crashed_leader", f"every live node names P{leader}, which crashed", everyone, epoch
        )
    if leader is None or leader not in stances or stances[leader][0] != "leader":
        return EndFinding(
            "disagreement",
            f"every live node names P{leader}, which does not say it leads",
            everyone,
            epoch,
        )
    if expected is not None and leader != expected:
        return EndFinding(
            "wrong_leader",
            f"P{leader} was elected, not P{expected}, the largest",
            (leader, expected),
            epoch,
        )
    return None
