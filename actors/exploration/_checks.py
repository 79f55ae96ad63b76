"""What the explorer checks, in every state and at every end state.

- ``two_leaders`` (every state): two live nodes lead in one epoch at once — the notes'
  safety property, at most one leader (per round: the epoch is the fencing token).
- At every end state (nothing in flight, no timer to fire, every initiator awake):
  ``undecided``, a live node has no leader (the notes' liveness: everyone decides);
  ``disagreement``, live nodes name different leaders (or rounds); ``crashed_leader``,
  they agree on a node that crashed (nobody noticed: there is no failure detector in an
  explored run); ``wrong_leader``, no node crashed and they agree on another node than
  the largest ``(capacity, id)``, which the notes' elections elect.
- ``bound`` (over the complete runs in which no fault struck): the notes' message count,
  exact or an upper bound, against the fewest and the most messages any run sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ringleader.actors.core import Bound, NodeState

from ._model import Model
from ._nodes import CRASHED

__all__ = ["KINDS", "Finding", "bound_check", "end_check", "leaders_clash"]

#: Every kind of violation, in the order they are reported.
KINDS = (
    "two_leaders",
    "undecided",
    "disagreement",
    "crashed_leader",
    "wrong_leader",
    "bound",
)


@dataclass(frozen=True)
class Finding:
    """The first state (or run) found that violates ``kind``; ``count`` states (or
    runs) do in all, of those explored."""

    kind: str
    detail: str
    state: int
    count: int = 1

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "detail": self.detail, "count": self.count}


def _stances(model: Model, state: tuple[int, ...]) -> dict[int, tuple[NodeState, int | None, int]]:
    return {
        model.ids[i]: model.nodes[i].stance[state[i]] for i in range(model.n) if state[i] != CRASHED
    }


def leaders_clash(model: Model, state: tuple[int, ...]) -> str:
    """Who leads which epoch together in ``state`` (which :meth:`Model.expand` flagged)."""
    by_epoch: dict[int, list[int]] = {}
    for node, (stance, _, epoch) in _stances(model, state).items():
        if stance is NodeState.LEADER:
            by_epoch.setdefault(epoch, []).append(node)
    clashes = [
        f"{' and '.join(f'P{node}' for node in nodes)} lead epoch {epoch}"
        for epoch, nodes in sorted(by_epoch.items())
        if len(nodes) > 1
    ]
    return "; ".join(clashes)


def end_check(model: Model, state: tuple[int, ...]) -> tuple[str, str] | None:
    """The first violation of the end-state checks in ``state``, as (kind, detail)."""
    stances = _stances(model, state)
    if not stances:
        return None  # everyone crashed: nobody left to decide
    undecided = sorted(node for node, (s, _, _) in stances.items() if s is NodeState.UNDECIDED)
    if undecided:
        who = ", ".join(f"P{node}" for node in undecided)
        verb = "it is" if len(undecided) == 1 else "they are"
        return "undecided", f"{who} never decided ({verb} live)"
    named = {(elected, epoch) for _, elected, epoch in stances.values()}
    if len(named) > 1:
        views = ", ".join(
            f"P{node} names P{elected} (epoch {epoch})"
            for node, (_, elected, epoch) in sorted(stances.items())
        )
        return "disagreement", views
    ((leader, _),) = named
    return _agreed_on(model, state, stances, leader)


def _agreed_on(
    model: Model,
    state: tuple[int, ...],
    stances: dict[int, tuple[NodeState, int | None, int]],
    leader: int | None,
) -> tuple[str, str] | None:
    """What is wrong with every live node naming ``leader``, if anything."""
    crashed = model.crashed(state)
    if leader in crashed:
        return "crashed_leader", f"every live node names P{leader}, which crashed"
    if leader not in stances or stances[leader][0] is not NodeState.LEADER:
        return "disagreement", f"every live node names P{leader}, which does not say it leads"
    best = max(view.candidate for view in model.views)
    if not crashed and leader != best.id:
        return "wrong_leader", f"P{leader} was elected, not P{best.id}, the largest"
    return None


def bound_check(
    bound: Bound, fewest: int, most: int | None, *, free_starts: bool = False
) -> str | None:
    """What is wrong with the complete runs' message counts against ``bound``, if anything.

    ``free_starts``: initiators wake at any moment (``starts = "any"``).  The notes
    count an exact case with every initiator starting before anything reaches it; when
    a message may reach one first, it is drawn in and sends no bid of its own, so the
    exact count is then the most any run sends, and fewer is no fault.
    """
    if most is None:
        return f"some run never ends: the count is unbounded, the notes say {bound.formula}"
    if bound.exact and free_starts and most != bound.value:
        return (
            f"the most any run sent is {most} messages; the notes say {bound.formula} = "
            f"{bound.value} when every initiator starts before anything reaches it"
        )
    if bound.exact and not free_starts and (fewest != bound.value or most != bound.value):
        counts = str(fewest) if fewest == most else f"{fewest} to {most}"
        return f"runs sent {counts} messages; the notes say exactly {bound.formula} = {bound.value}"
    if not bound.exact and most > bound.value:
        return f"a run sent {most} messages, above {bound.formula} = {bound.value}"
    return None
