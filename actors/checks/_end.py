"""What must hold once a run is over (nothing in flight, every timer that will fire
fired): the notes' liveness and the outcome they promise.

Each check on its own (:func:`end_verdicts`), in this order: ``undecided`` (a live node
has no leader: everyone decides), ``disagreement`` (live nodes name different leaders or
rounds, or the one they name does not say it leads), ``crashed_leader`` (a live node
names a node that crashed), ``wrong_leader`` (a live node names another node than the
one the run must elect, when it knows which: the largest ``(capacity, id)``).  A check
that needs every live node to have decided is :data:`NOT_CHECKED` where one has not;
``wrong_leader`` is :data:`OUT_OF_SCOPE` where no winner is known (a node crashed in an
explored run, which has no failure detector to notice).  :func:`end_check` is the first
that fails, for a run's verdict.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ._agreement import Stance

__all__ = [
    "FAILED",
    "NOT_CHECKED",
    "OUT_OF_SCOPE",
    "PASSED",
    "EndFinding",
    "end_check",
    "end_verdicts",
]

#: A check held where it was applied.
PASSED = "passed"
#: A check failed (its text says what is wrong).
FAILED = "failed"
#: A check could not be applied here (its text says why): a live node never decided.
NOT_CHECKED = "not_checked"
#: The check does not apply here, and is not missed (its text says why).
OUT_OF_SCOPE = "out_of_scope"

#: Why a check that needs every live node's decision was not applied.
NO_DECISION = "a live node never decided"

#: One end-state check's verdict: ``(kind, status, text)``.
Verdict = tuple[str, str, str | None]


@dataclass(frozen=True)
class EndFinding:
    """What is wrong at the end: its ``kind``, in words, the nodes concerned, the epoch."""

    kind: str
    detail: str
    nodes: tuple[int, ...]
    epoch: int | None = None


def end_verdicts(
    stances: Mapping[int, Stance], *, crashed: Collection[int] = (), expected: int | None
) -> list[Verdict]:
    """Each end-state check over ``stances`` (the live nodes'), on its own, in order.

    ``crashed``: the nodes down at the end; ``expected``: the node that must win
    (``None``: no one in particular, and ``wrong_leader`` is out of scope).
    """
    if not stances:  # everyone crashed: nobody left to decide, or to name anyone
        return [
            ("undecided", PASSED, None),
            ("disagreement", PASSED, None),
            ("crashed_leader", PASSED, None),
            ("wrong_leader", OUT_OF_SCOPE, "every node crashed"),
        ]
    undecided = sorted(node for node, (s, _, _) in stances.items() if s == "undecided")
    decided = {node: view for node, view in stances.items() if node not in undecided}
    down = set(crashed)
    verdicts: list[Verdict] = []
    if undecided:
        who = ", ".join(f"P{node}" for node in undecided)
        verb = "it is" if len(undecided) == 1 else "they are"
        verdicts.append(("undecided", FAILED, f"{who} never decided ({verb} live)"))
    else:
        verdicts.append(("undecided", PASSED, None))
    verdicts.append(("disagreement", *_agreement(stances, decided, down, bool(undecided))))
    verdicts.append(("crashed_leader", *_alive(stances, decided, down)))
    verdicts.append(("wrong_leader", *_largest(stances, decided, expected, bool(undecided))))
    return verdicts


def end_check(
    stances: Mapping[int, Stance], *, crashed: Collection[int] = (), expected: int | None
) -> EndFinding | None:
    """The first end-state check that ``stances`` (the live nodes') break, if any, with
    the nodes it concerns and their epoch (see :func:`end_verdicts`)."""
    for kind, status, text in end_verdicts(stances, crashed=crashed, expected=expected):
        if status != FAILED:
            continue
        assert text is not None
        epochs = {epoch for _, _, epoch in stances.values()}
        epoch = next(iter(epochs)) if len(epochs) == 1 else None
        if kind == "undecided":
            nodes = tuple(sorted(n for n, (s, _, _) in stances.items() if s == "undecided"))
            return EndFinding(kind, text, nodes)
        if kind == "wrong_leader" and expected is not None:
            named = {elected for _, elected, _ in stances.values()}
            if len(named) == 1:
                (leader,) = named
                if leader is not None:
                    return EndFinding(kind, text, (leader, expected), epoch)
        return EndFinding(kind, text, tuple(sorted(stances)), epoch)
    return None


_Stances = Mapping[int, Stance]


def _agreement(
    stances: _Stances, decided: _Stances, crashed: set[int], undecided: bool
) -> tuple[str, str | None]:
    """All live nodes name one leader in one epoch, which says it leads (or crashed:
    that is ``crashed_leader``'s)."""
    named = {(elected, epoch) for _, elected, epoch in decided.values()}
    if len(named) > 1:
        views = ", ".join(
            f"P{node} names P{elected} (epoch {epoch})"
            for node, (_, elected, epoch) in sorted(decided.items())
        )
        return FAILED, views
    if undecided:
        return NOT_CHECKED, NO_DECISION
    ((leader, _),) = named
    if leader not in crashed and (
        leader is None or leader not in stances or stances[leader][0] != "leader"
    ):
        return FAILED, f"every live node names P{leader}, which does not say it leads"
    return PASSED, None


def _alive(stances: _Stances, decided: _Stances, crashed: set[int]) -> tuple[str, str | None]:
    """No live node names a node that crashed."""
    dead = sorted({elected for _, elected, _ in decided.values() if elected in crashed})
    if not dead:
        return PASSED, None
    leader = dead[0]
    naming = sorted(node for node, (_, elected, _) in decided.items() if elected == leader)
    if len(naming) == len(stances):
        return FAILED, f"every live node names P{leader}, which crashed"
    who = ", ".join(f"P{node}" for node in naming)
    return FAILED, f"{who} name{'s' * (len(naming) == 1)} P{leader}, which crashed"


def _largest(
    stances: _Stances, decided: _Stances, expected: int | None, undecided: bool
) -> tuple[str, str | None]:
    """Every live node names ``expected`` (the largest ``(capacity, id)``), and it leads."""
    if expected is None:
        return OUT_OF_SCOPE, "a node crashed"
    others = {node: elected for node, (_, elected, _) in decided.items() if elected != expected}
    if others and len(others) == len(stances) and len(set(others.values())) == 1:
        return FAILED, f"P{next(iter(others.values()))} was elected, not P{expected}, the largest"
    if others:
        views = ", ".join(f"P{node} names P{elected}" for node, elected in sorted(others.items()))
        return FAILED, f"{views}; the largest is P{expected}"
    if undecided:
        return NOT_CHECKED, NO_DECISION
    if expected not in stances or stances[expected][0] != "leader":
        return (
            FAILED,
            f"every live node names P{expected}, the largest, which does not say it leads",
        )
    return PASSED, None
