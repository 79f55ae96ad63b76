"""The times a supervised run reports: each election round's (what set it off, how long
until every live node agreed, who won) and each fault's (for a crash, how long until a
node suspected it, and until the cluster agreed on a live leader again)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ringleader.actors.host import NodeStatus

from ._report import ElectionReport, FaultReport

__all__ = ["FailoverMetrics"]


@dataclass
class _Round:
    epoch: int
    trigger: str
    started: float
    leader: int | None = None
    agreed_at: float | None = None
    detection_s: float | None = None
    started_by: int | None = None
    proof: str = ""  # the crashed node was suspected on proof ("connection refused")


def worded(
    trigger: str, started_by: int | None, suspect_after: float | None, proof: str = ""
) -> str:
    """What set a round off, as it was observed: ``crash of 5`` → ``5 suspected: silent for
    0.30 s`` (or ``5 suspected: connection refused``, on that ``proof``); ``recovery of 5``
    → ``5 restarted`` (said by 5) or ``5 is back``."""
    word, _, subject = trigger.rpartition(" ")
    if trigger == "start":
        return "first start"
    if word == "crash of" and proof:
        return f"{subject} suspected: {proof}"
    if word == "crash of":
        silent = f": silent for {suspect_after:.2f} s" if suspect_after is not None else ""
        return f"{subject} suspected{silent}"
    if word == "recovery of":
        return f"{subject} restarted" if subject == str(started_by) else f"{subject} is back"
    if word == "behind epoch":
        return f"heard of round {subject}, which it missed"
    return trigger


class FailoverMetrics:
    """What the supervisor saw, as it saw it, on the monotonic clock; the run began at
    :meth:`begin`."""

    def __init__(self, *, suspect_after: float | None = None) -> None:
        self.suspect_after = suspect_after  # to say how long a suspected node was silent
        self.faults: list[FaultReport] = []
        self._rounds: dict[int, _Round] = {}
        self._began = 0.0
        self._crashed_at: dict[int, float] = {}
        self._detections: dict[int, float] = {}  # crashed node → crash to first suspicion
        self._proofs: dict[int, str] = {}  # crashed node → proof of its first suspicion
        self._open_crashes: dict[int, int] = {}  # index in faults → crashed node, until agreed

    def begin(self, at: float) -> None:
        """The run, and its first election, begin."""
        self._began = at
        self._rounds[1] = _Round(1, "start", at)

    # -- elections --------------------------------------------------------------------

    def election(
        self, epoch: int, trigger: str, at: float, *, crashed: int | None, node: int | None = None
    ) -> bool:
        """``node`` starts round ``epoch`` (set off by the crash of ``crashed``, if any);
        ``True`` if it is the first to."""
        if epoch in self._rounds:
            return False
        round_ = _Round(epoch, trigger, at, started_by=node)
        if crashed is not None:
            round_.detection_s = self._detections.get(crashed)
            round_.proof = self._proofs.get(crashed, "")
        self._rounds[epoch] = round_
        return True

    def leader(self, epoch: int, node: int, at: float) -> None:
        """``node`` says it leads round ``epoch``."""
        round_ = self._rounds.setdefault(epoch, _Round(epoch, "?", at))
        round_.leader = node

    def agreed(self, epoch: int, at: float) -> bool:
        """Every live node agrees on a live leader in round ``epoch``: the crashes so far
        have failed over.  ``True`` if the round had not been agreed on before."""
        for index, node in self._open_crashes.items():
            crashed = self._crashed_at.get(node)
            if crashed is not None and at > crashed:
                self.faults[index] = replace(self.faults[index], failover_s=at - crashed)
        self._open_crashes.clear()
        round_ = self._rounds.get(epoch)
        if round_ is None or round_.agreed_at is not None:
            return False
        round_.agreed_at = at
        return True

    def elections(self, lives: Iterable[NodeStatus]) -> list[ElectionReport]:
        """Every round in the order they began, with the election messages that every
        life of every node (``lives``) sent in it."""
        by_epoch: dict[int, int] = {}
        for status in lives:
            for epoch, count in status.sent_by_epoch.items():
                by_epoch[epoch] = by_epoch.get(epoch, 0) + count
        elections = []
        number, cause, settled = 0, "", -1.0  # the election being told, and when it ended
        for epoch in sorted(self._rounds, key=lambda e: (self._rounds[e].started, e)):
            round_ = self._rounds[epoch]
            if number == 0 or (0 <= settled < round_.started):
                # A round after the cluster settled: a new election, with its own cause.
                number += 1
                cause = worded(round_.trigger, round_.started_by, self.suspect_after, round_.proof)
                settled = -1.0
            if round_.agreed_at is not None and settled < 0:
                settled = round_.agreed_at
            elections.append(
                ElectionReport(
                    epoch=epoch,
                    leader=round_.leader if round_.agreed_at is not None else None,
                    trigger=round_.trigger,
                    detection_s=round_.detection_s,
                    duration_s=None
                    if round_.agreed_at is None
                    else round_.agreed_at - round_.started,
                    messages=by_epoch.get(epoch, 0),
                    started_by=round_.started_by,
                    at=round_.started - self._began,
                    election=number,
                    cause=cause,
                )
            )
        return elections

    # -- faults -------------------------------------------------------------------------

    def crashed(self, target: int | str, node: int, at: float) -> None:
        """The fault aimed at ``target`` crashed ``node``."""
        self._crashed_at[node] = at
        self._detections.pop(node, None)
        self._proofs.pop(node, None)
        self._open_crashes[len(self.faults)] = node
        self.faults.append(FaultReport(at - self._began, "crash", target, node))

    def skipped(self, target: int | str, why: str, at: float) -> None:
        """The fault aimed at ``target`` hit nobody, because of ``why``."""
        self.faults.append(FaultReport(at - self._began, "crash", target, None, why))

    def restarted(self, node: int, at: float) -> None:
        self.faults.append(FaultReport(at - self._began, "restart", node, node))

    def suspected(self, node: int, at: float, proof: str = "") -> bool:
        """Some node suspects ``node`` (on ``proof``, if any: ``connection refused``);
        ``True`` if that is the first suspicion since ``node`` crashed."""
        crashed = self._crashed_at.get(node)
        if crashed is None or node in self._detections:
            return False
        self._detections[node] = at - crashed
        self._proofs[node] = proof
        for index, victim in self._open_crashes.items():
            if victim == node and self.faults[index].detection_s is None:
                self.faults[index] = replace(self.faults[index], detection_s=at - crashed)
        return True
