"""The safety checker: watches every node's state changes during a run.

It flags what the notes call unsafe, and what fencing tokens must prevent:

- ``two_leaders``: two nodes claimed leadership in the same epoch (the epoch is the
  leader's fencing token, so each token must have one holder);
- ``older_epoch``: a node acted in an epoch older than one it had already acted in
  (it acted on a message of an older epoch);
- ``previous_life``: a node's older incarnation acted after a newer one had (a
  message addressed to a previous life was acted on);
- ``wrong_leader`` (at the end, once the cluster is quiet): a live node agrees on a
  crashed node, or on a lower ``(capacity, id)`` than the largest live node.

The checker is plain and single-threaded; hosts feed it :meth:`SafetyChecker.observe`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from ringleader.actors.core import Candidate

__all__ = ["SafetyChecker", "Violation"]


@dataclass(frozen=True)
class Violation:
    kind: str
    detail: str
    at: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "detail": self.detail, "at": self.at}

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


class SafetyChecker:
    """Feed it every state change; read :attr:`violations` and :attr:`max_leaders_per_epoch`."""

    def __init__(self, candidates: Mapping[int, Candidate]) -> None:
        self.candidates = dict(candidates)
        self.violations: list[Violation] = []
        self._leaders: defaultdict[int, set[tuple[int, int]]] = defaultdict(set)
        self._last: dict[int, tuple[int, int]] = {}  # node → (incarnation, epoch)

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
        last = self._last.get(node)
        if last is not None:
            last_incarnation, last_epoch = last
            if incarnation == last_incarnation and epoch < last_epoch:
                self._flag(
                    "older_epoch",
                    f"node {node} acted in epoch {epoch} after epoch {last_epoch}",
                    at,
                )
            elif incarnation < last_incarnation:
                self._flag("previous_life", f"node {node}'s incarnation {incarnation} acted", at)
        if last is None or incarnation > last[0] or epoch > last[1]:
            self._last[node] = (incarnation, epoch)
        if state == "leader":
            # Counted per life: two lives of one node holding the same epoch would hold
            # the same fencing token.
            leaders = self._leaders[epoch]
            leaders.add((node, incarnation))
            if len(leaders) == 2:
                who = ", ".join(f"{n} (incarnation {i})" for n, i in sorted(leaders))
                self._flag("two_leaders", f"{who} led in epoch {epoch}", at)

    def check_final(self, elected: Mapping[int, int | None], live: Collection[int]) -> None:
        """Once quiet: every live node must agree on the largest live candidate."""
        if not live:
            return
        best = max(self.candidates[n] for n in live).id
        wrong = sorted(n for n in live if elected.get(n) != best)
        for node in wrong:
            choice = elected.get(node)
            if choice is None:
                what = "has no leader"
            elif choice not in live:
                what = f"agrees on node {choice}, which crashed"
            else:
                what = f"agrees on node {choice}, which is not the largest live node"
            self._flag("wrong_leader", f"node {node} {what}; the largest live node is {best}")

    @property
    def max_leaders_per_epoch(self) -> int:
        return max((len(v) for v in self._leaders.values()), default=0)

    def leaders_by_epoch(self) -> dict[int, list[int]]:
        return {e: sorted(n for n, _ in v) for e, v in sorted(self._leaders.items())}

    def as_dict(self) -> dict[str, Any]:
        return {
            "max_leaders_per_epoch": self.max_leaders_per_epoch,
            "violations": [v.as_dict() for v in self.violations],
        }

    def _flag(self, kind: str, detail: str, at: float | None = None) -> None:
        self.violations.append(Violation(kind, detail, at))
