"""The safety checker: watches every node's state changes during a run.

Every state change makes a new state of the run, and each is checked as the explorer
checks its states, with the same functions (:mod:`ringleader.actors.checks`):

- ``two_leaders``: two live nodes lead one epoch at once (:func:`co_leaders`);
- ``reused_epoch``: a node leads an epoch another node, or another life of it, led
  before (the epoch is the leader's fencing token: each token must have one holder);
  only a run that remembers its past can see it, the explorer's states cannot;
- ``older_epoch``: a node acted in an epoch older than one it had already acted in
  (it acted on a message of an older epoch);
- ``previous_life``: a node's older incarnation acted after a newer one had (a
  message addressed to a previous life was acted on);
- once the run is over and quiet (:meth:`SafetyChecker.check_final`), the end-state
  checks (:func:`end_check`): ``undecided``, ``disagreement``, ``crashed_leader``,
  ``wrong_leader`` (they agree on another than the largest live node).

The checker is plain and single-threaded; hosts feed it :meth:`SafetyChecker.observe`
(and :meth:`SafetyChecker.down` when a node crashes).  Each :class:`Violation` has its
moment (``at``, seconds from ``began``), the nodes and the epoch concerned; two leaders
at once also say ``until`` when one of them stopped leading.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ringleader.actors.core import Candidate

from ._agreement import Stance
from ._end import end_check
from ._leaders import co_leaders, leaders_words

__all__ = ["SafetyChecker", "Violation"]


@dataclass(frozen=True)
class Violation:
    """One check broken: ``kind``, in words (``detail``), when (``at``, ``None`` at the
    end of the run), which ``nodes``, in which ``epoch``; ``until``: when it stopped
    holding (two leaders at once: one stopped leading), if it did."""

    kind: str
    detail: str
    at: float | None = None
    nodes: tuple[int, ...] = ()
    epoch: int | None = None
    until: float | None = None
    #: The node whose state change broke it (``None``: the end state did).
    node: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "detail": self.detail,
            "at": None if self.at is None else round(self.at, 6),
            "until": None if self.until is None else round(self.until, 6),
            "nodes": list(self.nodes),
            "epoch": self.epoch,
            "node": self.node,
        }

    def __str__(self) -> str:
        if self.at is None:
            return f"{self.kind}: {self.detail}"
        span = f"{self.at:.4f} s" if self.until is None else f"{self.at:.4f}–{self.until:.4f} s"
        return f"{self.kind} at {span}: {self.detail}"


class SafetyChecker:
    """Feed it every state change; read :attr:`violations` and :attr:`max_leaders_per_epoch`.

    ``began``: the moment the run began, on the clock of the ``at`` given to
    :meth:`observe`; violations count their times from it.
    """

    def __init__(self, candidates: Mapping[int, Candidate], *, began: float = 0.0) -> None:
        self.candidates = dict(candidates)
        self.began = began
        self.violations: list[Violation] = []
        #: What each live node says now: the run's state, as the explorer's states hold it.
        self.stances: dict[int, Stance] = {}
        self._held: defaultdict[int, set[tuple[int, int]]] = defaultdict(set)  # epoch → lives
        self._last: dict[int, tuple[int, int]] = {}  # node → (incarnation, epoch)
        self._open: dict[int, int] = {}  # epoch → index of its two_leaders still under way
        self._pending: list[tuple[float, int, Any]] = []  # told by later(), not yet checked
        self._most = 0

    def observe(  # noqa: PLR0917 -- one state change, as every host reports it
        self,
        node: int,
        incarnation: int,
        epoch: int,
        state: str,
        leader: int | None,
        at: float | None = None,
    ) -> None:
        """Node ``node`` (life ``incarnation``) is now ``state`` with ``leader``, in ``epoch``."""
        when = None if at is None else at - self.began
        last = self._last.get(node)
        if last is not None:
            last_incarnation, last_epoch = last
            if incarnation == last_incarnation and epoch < last_epoch:
                self._flag(
                    Violation(
                        "older_epoch",
                        f"P{node} acted in epoch {epoch} after epoch {last_epoch}",
                        when,
                        (node,),
                        epoch,
                        node=node,
                    )
                )
            elif incarnation < last_incarnation:
                self._flag(
                    Violation(
                        "previous_life",
                        f"P{node}'s incarnation {incarnation} acted",
                        when,
                        (node,),
                        epoch,
                        node=node,
                    )
                )
                return  # a dead life: not part of the state
        if last is None or incarnation > last[0] or epoch > last[1]:
            self._last[node] = (incarnation, epoch)
        previous = self.stances.get(node)
        # One string per state word, not one per node (a simulated run has 100,000).
        self.stances[node] = (sys.intern(str(state)), leader, epoch)
        if previous is not None and previous[0] == "leader":
            self._close(previous[2], when)
        if state == "leader":
            self._lead(node, incarnation, epoch, when)

    def later(  # noqa: PLR0917 -- observe()'s arguments
        self, node: int, incarnation: int, epoch: int, state: str, leader: int | None, at: float
    ) -> None:
        """:meth:`observe`, once :meth:`settle` is called: a host whose nodes report from
        threads or processes of their own hears of their changes out of order, and the
        run's states are those changes in the order of their ``at``."""
        self._pending.append((at, len(self._pending), (node, incarnation, epoch, state, leader)))

    def later_down(self, node: int, at: float) -> None:
        """:meth:`down`, once :meth:`settle` is called (see :meth:`later`)."""
        self._pending.append((at, len(self._pending), node))

    def settle(self) -> None:
        """Check the changes told by :meth:`later` and :meth:`later_down`, in time order."""
        pending, self._pending = sorted(self._pending, key=lambda p: (p[0], p[1])), []
        for at, _, what in pending:
            if isinstance(what, tuple):
                node, incarnation, epoch, state, leader = what
                self.observe(node, incarnation, epoch, state, leader, at)
            else:
                self.down(what, at)

    def down(self, node: int, at: float | None = None) -> None:
        """Node ``node`` crashed: it is no longer part of the state."""
        previous = self.stances.pop(node, None)
        if previous is not None and previous[0] == "leader":
            self._close(previous[2], None if at is None else at - self.began)

    def _lead(self, node: int, incarnation: int, epoch: int, when: float | None) -> None:
        held = self._held[epoch]
        before = {life for life in held if life != (node, incarnation)}
        held.add((node, incarnation))
        together = co_leaders(self.stances, node)
        self._most = max(self._most, len(together) or 1)
        if together:
            detail = leaders_words([(epoch, together)])
            if epoch in self._open:  # one more joins a clash under way
                index = self._open[epoch]
                self.violations[index] = replace(
                    self.violations[index], nodes=together, detail=detail
                )
            else:
                self._open[epoch] = len(self.violations)
                self._flag(Violation("two_leaders", detail, when, together, epoch, node=node))
        elif before:
            who = ", ".join(sorted({f"P{n}" for n, _ in before}))
            self._flag(
                Violation(
                    "reused_epoch",
                    f"P{node} leads epoch {epoch}, which {who} led before",
                    when,
                    tuple(sorted({node} | {n for n, _ in before})),
                    epoch,
                    node=node,
                )
            )

    def _close(self, epoch: int | None, when: float | None) -> None:
        """A leader of ``epoch`` stopped leading: a clash in it may be over."""
        index = self._open.get(epoch) if epoch is not None else None
        if index is None:
            return
        still = [
            n for n, (state, _, its) in self.stances.items() if state == "leader" and its == epoch
        ]
        if len(still) < 2:
            del self._open[epoch]  # type: ignore[arg-type]
            self.violations[index] = replace(self.violations[index], until=when)

    def check_final(self, elected: Mapping[int, int | None], live: Collection[int]) -> None:
        """Once quiet: the end-state checks over the live nodes, who must agree on the
        largest live candidate (``elected``: whom each names at the end)."""
        if not live:
            return
        best = max(self.candidates[n] for n in live).id
        stances: dict[int, Stance] = {}
        for node in sorted(live):
            state, _, epoch = self.stances.get(node, ("undecided", None, None))
            choice = elected.get(node)
            stances[node] = (state if choice is not None else "undecided", choice, epoch)
        crashed = set(self.candidates) - set(live)
        found = end_check(stances, crashed=crashed, expected=best)
        if found is not None:
            self._flag(Violation(found.kind, found.detail, None, found.nodes, found.epoch))

    @property
    def max_leaders_per_epoch(self) -> int:
        """The most live nodes that led one epoch at once."""
        return self._most

    def leaders_by_epoch(self) -> dict[int, list[int]]:
        """Every node that led each epoch, at any time of the run."""
        return {e: sorted({n for n, _ in v}) for e, v in sorted(self._held.items())}

    def as_dict(self) -> dict[str, Any]:
        return {
            "max_leaders_per_epoch": self.max_leaders_per_epoch,
            "violations": [v.as_dict() for v in self.violations],
        }

    def _flag(self, violation: Violation) -> None:
        self.violations.append(violation)
