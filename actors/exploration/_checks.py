"""What the explorer checks, in every state and at every end state: the checks of
:mod:`ringleader.actors.checks`, the very functions the simulator and the hosts run over
a run's states, asked here of an explored state.

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

from ringleader.actors.checks import Stance, leaders_words, two_leaders
from ringleader.actors.checks import end_check as _end_check
from ringleader.actors.core import Bound

from ._model import Model
from ._nodes import CRASHED

__all__ = ["KINDS", "Finding", "bound_check", "end_check", "leaders_clash", "stances"]

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


def stances(model: Model, state: tuple[int, ...]) -> dict[int, Stance]:
    """What each live node says in ``state``, by node id, as the checks read a state."""
    return {
        model.ids[i]: model.nodes[i].stance[state[i]] for i in range(model.n) if state[i] != CRASHED
    }


def leaders_clash(model: Model, state: tuple[int, ...]) -> str:
    """Who leads which epoch together in ``state`` (``""``: nobody shares an epoch)."""
    return leaders_words(two_leaders(stances(model, state)))


def end_check(model: Model, state: tuple[int, ...]) -> tuple[str, str] | None:
    """The first violation of the end-state checks in ``state``, as (kind, detail)."""
    crashed = model.crashed(state)
    best = max(view.candidate for view in model.views)
    found = _end_check(
        stances(model, state), crashed=crashed, expected=None if crashed else best.id
    )
    return None if found is None else (found.kind, found.detail)


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
