"""What the explorer checks, in every state and at every end state.

- ``two_leaders`` (every state): two live nodes lead in one epoch at once — the notes'
  safety property, at most one leader (per round: the epoch is the fencing token).
- At every end state (nothing in flight, no timer to fire, every initiator awake), each
  check on its own (:func:`end_verdicts`): ``undecided``, a live node has no leader (the
  notes' liveness: everyone decides); ``disagreement``, live nodes name different
  leaders (or rounds), or one that does not say it leads; ``crashed_leader``, a live
  node names a node that crashed (nobody noticed: there is no failure detector in an
  explored run); ``wrong_leader``, no node crashed and a live node names another node
  than the largest ``(capacity, id)``, which the notes' elections elect.  A check that
  needs every live node to have decided is *not checked* in an end state where one has
  not; ``wrong_leader`` leaves out the end states where a node crashed.
- ``bound`` (over the complete runs in which no fault struck): the notes' message count,
  exact or an upper bound, against the fewest and the most messages any run sent.

Each check ends :data:`PASSED`, :data:`FAILED` or :data:`NOT_CHECKED` (with why) over a
whole search (:class:`Tally`, :class:`Verdict`): a check is passed only when it was
applied wherever it could have been, and held there.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ringleader.actors.checks import (
    FAILED,
    NOT_CHECKED,
    OUT_OF_SCOPE,
    PASSED,
    Stance,
    leaders_words,
    two_leaders,
)
from ringleader.actors.checks import end_check as _end_check
from ringleader.actors.checks import end_verdicts as _end_verdicts
from ringleader.actors.core import Bound

from ._model import Model
from ._nodes import CRASHED

__all__ = [
    "CHECK_WORDS",
    "FAILED",
    "KINDS",
    "NOT_CHECKED",
    "OUT_OF_SCOPE",
    "PASSED",
    "Finding",
    "Tally",
    "Verdict",
    "bound_check",
    "count_finding",
    "end_check",
    "end_verdicts",
    "leaders_clash",
    "stances",
]

#: Every kind of violation, in the order they are reported.
KINDS = (
    "two_leaders",
    "undecided",
    "disagreement",
    "crashed_leader",
    "wrong_leader",
    "bound",
)
#: The end-state checks, in the order :func:`end_verdicts` applies them.
END_KINDS = KINDS[1:5]
#: What each check is, in words (``explore``'s report, the lab's page).
CHECK_WORDS = {
    "two_leaders": "at most one leader per epoch, in every state",
    "undecided": "every live node decides (every end state)",
    "disagreement": "all live nodes name the same leader (every end state)",
    "crashed_leader": "the leader they name is alive (every end state)",
    "wrong_leader": "without a crash, the largest candidate wins (every end state)",
    "bound": "the message count (complete runs without faults)",
}


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


def count_finding(findings: dict[str, Finding], kind: str, detail: str, state: int) -> None:
    """One more state that violates ``kind``: the first one found is kept, with its words
    (what every search's ``found`` does)."""
    first = findings.get(kind)
    if first is None:
        findings[kind] = Finding(kind, detail, state)
    else:
        findings[kind] = Finding(kind, first.detail, first.state, first.count + 1)


def stances(model: Model, state: tuple[int, ...]) -> dict[int, Stance]:
    """What each live node says in ``state``, by node id, as the checks read a state."""
    return {
        model.ids[i]: model.nodes[i].stance[state[i]] for i in range(model.n) if state[i] != CRASHED
    }


def leaders_clash(model: Model, state: tuple[int, ...]) -> str:
    """Who leads which epoch together in ``state`` (``""``: nobody shares an epoch)."""
    return leaders_words(two_leaders(stances(model, state)))


def _expected(model: Model, state: tuple[int, ...]) -> int | None:
    """The node the notes' elections elect: the largest ``(capacity, id)``; ``None``
    where a node crashed (nobody can notice it in an explored run)."""
    if model.crashed(state):
        return None
    return max(view.candidate for view in model.views).id


def end_verdicts(model: Model, state: tuple[int, ...]) -> list[tuple[str, str, str | None]]:
    """Each end-state check in ``state``, on its own: ``(kind, status, text)``, where
    ``status`` is :data:`PASSED` (``text`` ``None``), :data:`FAILED` (``text`` says
    what is wrong), :data:`NOT_CHECKED` (``text`` says why) or :data:`OUT_OF_SCOPE` —
    :func:`ringleader.actors.checks.end_verdicts`, asked of an explored state."""
    return _end_verdicts(
        stances(model, state), crashed=model.crashed(state), expected=_expected(model, state)
    )


def end_check(model: Model, state: tuple[int, ...]) -> tuple[str, str] | None:
    """The first violation of the end-state checks in ``state``, as (kind, detail)."""
    found = _end_check(
        stances(model, state), crashed=model.crashed(state), expected=_expected(model, state)
    )
    return None if found is None else (found.kind, found.detail)


@dataclass(frozen=True)
class Verdict:
    """What became of one check over a search: ``status`` (:data:`PASSED`,
    :data:`FAILED`, :data:`NOT_CHECKED`), ``reason`` (why not checked) and ``checked``,
    the states (or end states) it was applied to (``None`` for the bound, checked once
    over the complete runs)."""

    status: str
    reason: str | None = None
    checked: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "checked": self.checked}


class Tally:
    """The end-state checks' verdicts as a search meets end states (:meth:`add`), then
    every check's :class:`Verdict` once it is over (:meth:`verdicts`)."""

    def __init__(self) -> None:
        self.ends = 0
        self.checked = dict.fromkeys(END_KINDS, 0)
        #: kind -> (end states in which it could not be applied, the first one's why)
        self.missed: dict[str, tuple[int, str]] = {}
        self.out: dict[str, tuple[int, str]] = {}

    def add(self, verdicts: list[tuple[str, str, str | None]]) -> list[tuple[str, str]]:
        """Count one end state's verdicts; its failures, as (kind, detail)."""
        self.ends += 1
        failures = []
        for kind, status, text in verdicts:
            if status in (PASSED, FAILED):
                self.checked[kind] += 1
                if status == FAILED:
                    assert text is not None
                    failures.append((kind, text))
            else:
                table = self.missed if status == NOT_CHECKED else self.out
                count, why = table.get(kind, (0, text or ""))
                table[kind] = (count + 1, why)
        return failures

    def verdicts(
        self,
        failed: Collection[str],
        *,
        states: int,
        stopped: str | None,
        bound: Bound | None,
        bound_held: bool | None,
        bound_unchecked: str | None = None,
    ) -> dict[str, Verdict]:
        """Every check's verdict: ``failed`` holds the kinds violated somewhere."""
        out = {"two_leaders": Verdict(FAILED if "two_leaders" in failed else PASSED, None, states)}
        for kind in END_KINDS:
            checked = self.checked[kind]
            if kind in failed:
                out[kind] = Verdict(FAILED, None, checked)
            elif not self.ends:
                out[kind] = Verdict(NOT_CHECKED, _no_end(states, stopped), 0)
            elif kind in self.missed:
                count, why = self.missed[kind]
                where = f"{count:,} of {self.ends:,} end states"
                out[kind] = Verdict(NOT_CHECKED, f"{why} in {where}", checked)
            elif not checked:
                out[kind] = Verdict(NOT_CHECKED, "no end state without a crash", 0)
            else:
                out[kind] = Verdict(PASSED, None, checked)
        if bound is not None:
            if "bound" in failed:
                out["bound"] = Verdict(FAILED)
            elif bound_held:
                out["bound"] = Verdict(PASSED)
            else:
                why = bound_unchecked or (
                    "no complete run without a fault"
                    if stopped is None
                    else "no complete run without a fault found before the search stopped"
                )
                out["bound"] = Verdict(NOT_CHECKED, why)
        return out


def _no_end(states: int, stopped: str | None) -> str:
    if stopped == "max_states":
        return f"no end state reached before --max-states stopped the search at {states:,} states"
    if stopped == "max_depth":
        return "no end state reached within --max-depth steps"
    return "no end state: every run goes on for ever"


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
