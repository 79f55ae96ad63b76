"""The supervisor: runs a cluster through a crash schedule and reports what happened.

:class:`SupervisorActor` is a Pykka actor.  It starts the nodes (threads in this process,
or one OS process each), is the only thing that crashes or restarts them, plays the
config's ``[[faults]]`` on its own timers, receives every node's events (state changes,
suspicions, elections started) as they happen, feeds them to the
:class:`~ringleader.actors.SafetyChecker`, and ends the run when the schedule has played out and
the cluster is quiet again, or at the timeout.  What it times is kept by
:class:`~ringleader.reports._failover.FailoverMetrics`, and
:func:`~ringleader.reports._run_report.supervised_report` makes the report.

Times in ``[[faults]]`` count from the first moment every node agrees on a leader.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

import pykka

from ringleader.actors import Election, SafetyChecker, agreement
from ringleader.actors.host import Inbox, NodeEvent, NodeStatus, TimerFired, leave_signals_to_main
from ringleader.reports import FailoverMetrics, Report, supervised_report
from ringleader.topologies import DETECTOR_DEFAULTS, Config
from ringleader.transport import Deadline

from ._cluster import Cluster

__all__ = ["Supervise", "SupervisorActor"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Supervise:
    """Ask the supervisor to run; ``done`` is resolved with the :class:`Report`."""

    done: pykka.Future[Report]


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
        self._metrics = FailoverMetrics(suspect_after=config.settings.get("suspect_after"))
        self._began = 0.0
        self._first_leader: float | None = None
        self._pending = 0  # faults and restarts still to play
        self._last_change = 0.0
        self._done: pykka.Future[Report] | None = None
        self._deadline = Deadline(0.0)
        detector = {**DETECTOR_DEFAULTS, **config.settings}
        self._settle = detector["suspect_after"] + 2 * detector["heartbeat"]

    def attach(self, cluster: Cluster) -> None:
        self.cluster = cluster

    # -- messages -------------------------------------------------------------------

    def on_start(self) -> None:
        leave_signals_to_main()

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
        self._safety.began = self._began
        self._deadline = Deadline(self.config.timeout - self.cluster.setup_s)
        self._metrics.begin(self._began)
        self.cluster.start_initiators()
        log.info("electing: %d nodes, %d initiators", self.config.n, len(self.config.initiators))
        self._progress("electing", 0, self.config.n)
        self._schedule_faults(after="start")
        self.actor_inbox.schedule("check", 0.01)

    def _event(self, event: NodeEvent) -> None:
        node = self._nodes[event.node]
        if node.crashed:
            return  # a frame handled just before the crash took effect
        if event.kind == "state":
            node.state, node.elected, node.epoch = event.state, event.elected, event.epoch
            self._last_change = event.at
            self._safety.later(  # the nodes tell it out of order: checked in time order
                event.node, event.incarnation, event.epoch, event.state, event.elected, event.at
            )
            if event.state == "leader":
                self._metrics.leader(event.epoch, event.node, event.at)
            self._check_agreement(event.at)
        elif event.kind == "election":
            self._last_change = event.at
            # The node whose crash (or return) set the round off, if any, comes with it.
            crashed = event.subject if event.detail.startswith("crash of") else None
            metrics = self._metrics
            if metrics.election(
                event.epoch, event.detail, event.at, crashed=crashed, node=event.node
            ):
                log.info("node %s starts election %d: %s", event.node, event.epoch, event.detail)
        elif (
            event.kind == "suspect"
            and event.subject is not None
            and self._metrics.suspected(event.subject, event.at, event.detail)
        ):
            log.info("node %s suspects node %s", event.node, event.subject)

    def _live(self) -> list[int]:
        return [i for i, n in self._nodes.items() if not n.crashed]

    def _agreed(self) -> tuple[int, int] | None:
        """(leader, epoch) if every live node agrees on one leader in one epoch."""
        nodes = self._nodes
        agreed = agreement(
            {i: (nodes[i].state, nodes[i].elected, nodes[i].epoch) for i in self._live()}
        )
        if agreed is None:
            return None
        leader, epoch = agreed
        assert epoch is not None
        return leader, epoch

    def _check_agreement(self, at: float) -> None:
        decided = sum(1 for i in self._live() if self._nodes[i].state != "undecided")
        if self._first_leader is None:
            self._progress("electing", decided, self.config.n)
        agreed = self._agreed()
        if agreed is None:
            return
        leader, epoch = agreed
        if self._metrics.agreed(epoch, at):
            log.info("every live node agrees: node %s leads, epoch %d", leader, epoch)
        if self._first_leader is None:
            self._first_leader = at
            self._schedule_faults()

    def _schedule_faults(self, after: str = "leader") -> None:
        """Set the timers of the faults that count from ``after`` (the first leader, or the
        run's start), and of ``run_for`` (from the first leader)."""
        for index, fault in enumerate(self.config.faults):
            if fault.after == after:
                self.actor_inbox.schedule(f"fault.{index}", fault.at)
                self._pending += 1
        if after != "leader":
            return
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
            self._metrics.skipped(fault.crash, why, now)
            log.warning("fault %d skipped: %s", index, why)
            return
        log.info("crashing node %s", target)
        node.last = self.cluster.crash(target)
        node.crashed = True
        self._safety.later_down(target, now)
        self._metrics.crashed(fault.crash, target, now)
        self._last_change = now
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
        self._metrics.restarted(target, now)

    def _maybe_finish(self) -> None:
        now = time.monotonic()
        if self._deadline.expired():
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
        self.actor_inbox.schedule("check", min(0.02, max(0.001, self._deadline.left())))

    def _finish(self, *, finished: bool) -> None:
        assert self.cluster is not None and self._done is not None
        statuses = {s.id: s for s in self.cluster.statuses()}
        live = self._live()
        self._safety.settle()
        if finished:
            self._safety.check_final({i: statuses[i].elected for i in live}, live)
        report = self._report(statuses, finished)
        self._done.set(report)
        self._done = None

    def _report(self, statuses: dict[int, NodeStatus], finished: bool) -> Report:
        crashed = {
            i: node.last
            for i, node in self._nodes.items()
            if node.crashed and node.last is not None
        }
        return supervised_report(
            self.config,
            self.algorithm,
            statuses=statuses,
            crashed=crashed,
            earlier=[status for node in self._nodes.values() for status in node.earlier],
            live=set(self._live()),
            metrics=self._metrics,
            safety=self._safety,
            elapsed_s=time.monotonic() - self._began,
            setup_s=self.cluster.setup_s if self.cluster else 0.0,
            finished=finished,
        )
