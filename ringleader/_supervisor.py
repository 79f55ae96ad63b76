"""The supervisor: runs a cluster through a crash schedule and reports what happened.

:class:`SupervisorActor` is a Pykka actor.  It starts the nodes (threads in this process,
or one OS process each), is the only thing that crashes or restarts them, plays the
config's ``[[faults]]`` on its own timers, receives every node's events (state changes,
suspicions, elections started) as they happen, feeds them to the
:class:`~actors.SafetyChecker`, and ends the run when the schedule has played out and
the cluster is quiet again, or at the timeout.

Times in ``[[faults]]`` count from the first moment every node agrees on a leader.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

import pykka

from actors import Election, SafetyChecker
from actors.host import Inbox, NodeEvent, NodeStatus, TimerFired
from topologies import DETECTOR_DEFAULTS, Config

from ._cluster import Cluster
from ._report import ElectionReport, FaultReport, Report

__all__ = ["Supervise", "SupervisorActor"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Supervise:
    """Ask the supervisor to run; ``done`` is resolved with the :class:`Report`."""

    done: pykka.Future[Report]


@dataclass
class _Round:
    epoch: int
    trigger: str
    started: float
    leader: int | None = None
    agreed_at: float | None = None
    detection_s: float | None = None


@dataclass
class _Node:
    state: str = "undecided"
    elected: int | None = None
    epoch: int = 1
    crashed: bool = False
    last: NodeStatus | None = None  # counters just before a crash
    earlier: list[NodeStatus] = field(default_factory=list)  # counters of crashed lives


class SupervisorActor(pykka.ThreadingActor):
    """Runs ``config`` on ``cluster`` (already set up) and reports.

    ``progress(phase, done, total)`` is called from the supervisor's thread.
    """

    actor_inbox: Inbox

    @staticmethod
    def _create_actor_inbox() -> Inbox:
        return Inbox()  # for its timers: the fault schedule, the settle checks

    def __init__(self, config: Config, algorithm: type[Election], progress: Any = None) -> None:
        super().__init__()
        self.config = config
        self.algorithm = algorithm
        self.cluster: Cluster | None = None
        self._progress = progress or (lambda phase, done, total: None)
        self._nodes = {spec.id: _Node() for spec in config.nodes}
        self._safety = SafetyChecker({spec.id: spec.candidate for spec in config.nodes})
        self._rounds: dict[int, _Round] = {}
        self._faults: list[FaultReport] = []
        self._crashed_at: dict[int, float] = {}
        self._detections: dict[int, float] = {}  # crashed node → crash to first suspicion
        self._open_crashes: dict[int, int] = {}  # index in _faults → crashed node, until agreed
        self._began = 0.0
        self._first_leader: float | None = None
        self._pending = 0  # faults and restarts still to play
        self._last_change = 0.0
        self._done: pykka.Future[Report] | None = None
        self._deadline = 0.0
        detector = {**DETECTOR_DEFAULTS, **config.settings}
        self._settle = detector["suspect_after"] + 2 * detector["heartbeat"]

    def attach(self, cluster: Cluster) -> None:
        self.cluster = cluster

    # -- messages -------------------------------------------------------------------

    def on_receive(self, message: Any) -> Any:
        if isinstance(message, NodeEvent):
            self._event(message)
        elif isinstance(message, TimerFired):
            self._timer(message.name)
        elif isinstance(message, Supervise):
            self._begin(message.done)
        return None

    def _begin(self, done: pykka.Future[Report]) -> None:
        assert self.cluster is not None
        self._done = done
        self._began = self._last_change = time.monotonic()
        self._deadline = self._began + self.config.timeout - self.cluster.setup_s
        self._rounds[1] = _Round(1, "start", self._began)
        self.cluster.start_initiators()
        log.info("electing: %d nodes, %d initiators", self.config.n, len(self.config.initiators))
        self._progress("electing", 0, self.config.n)
        self.actor_inbox.schedule("check", 0.01)

    def _event(self, event: NodeEvent) -> None:
        node = self._nodes[event.node]
        if node.crashed:
            return  # a frame handled just before the crash took effect
        if event.kind == "state":
            node.state, node.elected, node.epoch = event.state, event.elected, event.epoch
            self._last_change = event.at
            self._safety.observe(
                event.node, event.incarnation, event.epoch, event.state, event.elected, event.at
            )
            if event.state == "leader":
                round_ = self._rounds.setdefault(event.epoch, _Round(event.epoch, "?", event.at))
                round_.leader = event.node
            self._check_agreement(event.at)
        elif event.kind == "election":
            self._last_change = event.at
            if event.epoch not in self._rounds:
                round_ = _Round(event.epoch, event.detail, event.at)
                subject = _subject(event.detail)
                if event.detail.startswith("crash of") and subject is not None:
                    round_.detection_s = self._detections.get(subject)
                self._rounds[event.epoch] = round_
                log.info("node %s starts election %d: %s", event.node, event.epoch, event.detail)
        elif event.kind == "suspect" and event.subject is not None:
            crashed = self._crashed_at.get(event.subject)
            if crashed is not None and event.subject not in self._detections:
                self._detections[event.subject] = event.at - crashed
                for index, victim in self._open_crashes.items():
                    if victim == event.subject and self._faults[index].detection_s is None:
                        self._faults[index] = replace(
                            self._faults[index], detection_s=event.at - crashed
                        )
                log.info("node %s suspects node %s", event.node, event.subject)

    def _live(self) -> list[int]:
        return [i for i, n in self._nodes.items() if not n.crashed]

    def _agreed(self) -> tuple[int, int] | None:
        """(leader, epoch) if every live node agrees on one leader in one epoch."""
        live = [self._nodes[i] for i in self._live()]
        if not live:
            return None
        first = live[0]
        if first.elected is None or any(
            (n.elected, n.epoch) != (first.elected, first.epoch) for n in live
        ):
            return None
        if self._nodes[first.elected].crashed or self._nodes[first.elected].state != "leader":
            return None
        return first.elected, first.epoch

    def _check_agreement(self, at: float) -> None:
        decided = sum(1 for i in self._live() if self._nodes[i].state != "undecided")
        if self._first_leader is None:
            self._progress("electing", decided, self.config.n)
        agreed = self._agreed()
        if agreed is None:
            return
        leader, epoch = agreed
        round_ = self._rounds.get(epoch)
        if round_ is not None and round_.agreed_at is None:
            round_.agreed_at = at
            log.info("every live node agrees: node %s leads, epoch %d", leader, epoch)
        for index, node in self._open_crashes.items():
            crashed = self._crashed_at.get(node)
            if crashed is not None and at > crashed:
                self._faults[index] = replace(self._faults[index], failover_s=at - crashed)
        self._open_crashes.clear()
        if self._first_leader is None:
            self._first_leader = at
            self._schedule_faults()

    def _schedule_faults(self) -> None:
        for index, fault in enumerate(self.config.faults):
            self.actor_inbox.schedule(f"fault.{index}", fault.at)
            self._pending += 1
        if self.config.run_for is not None:
            self.actor_inbox.schedule("run_for", self.config.run_for)
            self._pending += 1

    # -- timers ----------------------------------------------------------------------

    def _timer(self, name: str) -> None:
        if name == "check":
            self._maybe_finish()
        elif name == "run_for":
            self._pending -= 1
        elif name.startswith("fault."):
            self._pending -= 1
            self._crash(self.config.faults[int(name.split(".")[1])], int(name.split(".")[1]))
        elif name.startswith("restart."):
            self._pending -= 1
            self._restart(int(name.split(".")[1]))

    def _crash(self, fault: Any, index: int) -> None:
        assert self.cluster is not None
        now = time.monotonic()
        target = fault.crash
        if target == "leader":
            agreed = [i for i in self._live() if self._nodes[i].state == "leader"]
            target = agreed[0] if len(agreed) == 1 else None
        node = self._nodes.get(target) if target is not None else None
        if node is None or node.crashed:
            why = "no single leader" if target is None else f"node {target} is already down"
            self._faults.append(FaultReport(now - self._began, "crash", fault.crash, None, why))
            log.warning("fault %d skipped: %s", index, why)
            return
        log.info("crashing node %s", target)
        node.last = self.cluster.crash(target)
        node.crashed = True
        self._crashed_at[target] = now
        self._detections.pop(target, None)
        self._last_change = now
        self._open_crashes[len(self._faults)] = target
        self._faults.append(FaultReport(now - self._began, "crash", fault.crash, target))
        if fault.restart_after is not None:
            self.actor_inbox.schedule(f"restart.{target}", fault.restart_after)
            self._pending += 1

    def _restart(self, target: int) -> None:
        assert self.cluster is not None
        node = self._nodes[target]
        now = time.monotonic()
        log.info("restarting node %s", target)
        if node.last is not None:
            node.earlier.append(node.last)
            node.last = None
        node.crashed = False
        node.state, node.elected = "undecided", None
        self.cluster.restart(target)
        self._last_change = now
        self._faults.append(FaultReport(now - self._began, "restart", target, target))

    def _maybe_finish(self) -> None:
        now = time.monotonic()
        if now >= self._deadline:
            self._finish(finished=False)
            return
        quiet = now - self._last_change >= self._settle
        if (
            self._first_leader is not None
            and self._pending == 0
            and (quiet or not self.config.detector)
            and self._agreed() is not None
        ):
            self._finish(finished=True)
            return
        self.actor_inbox.schedule("check", min(0.02, max(0.001, self._deadline - now)))

    def _finish(self, *, finished: bool) -> None:
        assert self.cluster is not None and self._done is not None
        statuses = {s.id: s for s in self.cluster.statuses()}
        live = self._live()
        if finished:
            self._safety.check_final({i: statuses[i].elected for i in live}, live)
        report = self._report(statuses, finished)
        self._done.set(report)
        self._done = None

    def _report(self, statuses: dict[int, NodeStatus], finished: bool) -> Report:
        config = self.config
        every: list[NodeStatus] = list(statuses.values())
        crashed = {}
        for i, node in self._nodes.items():
            every.extend(node.earlier)
            if node.crashed and node.last is not None:
                every.append(node.last)
                crashed[i] = node.last
        by_epoch: dict[int, int] = {}
        for status in every:
            for epoch, count in status.sent_by_epoch.items():
                by_epoch[epoch] = by_epoch.get(epoch, 0) + count
        elections = []
        for epoch in sorted(self._rounds, key=lambda e: (self._rounds[e].started, e)):
            round_ = self._rounds[epoch]
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
                )
            )
        live = set(self._live())
        first = elections[0].messages if elections else 0
        return Report.from_run(
            [statuses[i] for i in sorted(statuses)],
            crashed=crashed,
            live=live,
            expected_leader=max(spec.candidate for spec in config.nodes if spec.id in live).id
            if live
            else None,
            topology=config.topology,
            algorithm=self.algorithm.name,
            transport=config.transport,
            bound=self.algorithm.bound(config.wiring, config.initiators),
            assumption=self.algorithm.assumption,
            elapsed_s=time.monotonic() - self._began,
            setup_s=self.cluster.setup_s if self.cluster else 0.0,
            finished=finished,
            elections=elections,
            faults=list(self._faults),
            safety=self._safety,
            first_election_messages=first,
            mode=config.mode,
        )


def _subject(trigger: str) -> int | None:
    word = trigger.rsplit(" ", 1)[-1]
    try:
        return int(word)
    except ValueError:
        return None
