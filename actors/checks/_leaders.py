"""At most one leader per epoch: the notes' safety property, per round (the epoch is the
leader's fencing token, so each token has one holder at a time).

A state breaks it when two of its live nodes say they lead one epoch at once.  Only a
node that has just come to lead can make a state break it (the others' stances did not
change, and a crash only takes a leader away), so a host asks :func:`co_leaders` about
that node after each step, and :func:`two_leaders` describes a whole state.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._agreement import Stance

__all__ = ["co_leaders", "leaders_words", "two_leaders"]


def co_leaders(stances: Mapping[int, Stance], node: int) -> tuple[int, ...]:
    """The live nodes (``stances``: the live ones) that lead ``node``'s epoch with it,
    ``node`` among them, in order; ``()`` if it does not lead or leads it alone."""
    state, _, epoch = stances[node]
    if state != "leader" or epoch is None:
        return ()
    together = [
        other
        for other, (its, _, its_epoch) in stances.items()
        if its == "leader" and its_epoch == epoch
    ]
    return tuple(sorted(together)) if len(together) > 1 else ()


def two_leaders(stances: Mapping[int, Stance]) -> list[tuple[int, tuple[int, ...]]]:
    """Every epoch two or more of the live nodes lead at once: ``(epoch, nodes)``."""
    by_epoch: dict[int, list[int]] = {}
    for node, (state, _, epoch) in stances.items():
        if state == "leader" and epoch is not None:
            by_epoch.setdefault(epoch, []).append(node)
    return [
        (epoch, tuple(sorted(nodes))) for epoch, nodes in sorted(by_epoch.items()) if len(nodes) > 1
    ]


def leaders_words(clashes: list[tuple[int, tuple[int, ...]]]) -> str:
    """``P2 and P3 lead epoch 1``; several epochs joined by ``; ``."""
    return "; ".join(f"{_together(nodes)} lead epoch {epoch}" for epoch, nodes in clashes)


def _together(nodes: tuple[int, ...]) -> str:
    """``P2 and P3``; ``P2, P3 and P4``."""
    names = [f"P{node}" for node in nodes]
    return " and ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} and {names[-1]}"
