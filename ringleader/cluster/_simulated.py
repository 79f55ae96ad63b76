"""``ringleader run --simulate``: a config run in the deterministic simulator.

The same algorithm objects as a real run, in virtual time, reported the same way (the
report's ``mode`` is ``"simulated"``): one election, or, with a crash schedule, the whole
schedule.  ``[[faults]]`` count from the first moment every node agrees on a leader and
may name ``"leader"``, which the simulator cannot know in advance; so the run is made
again, from the start, each time the schedule needs to know something (when the first
leader was agreed on, who leads when a fault strikes).  A run is deterministic, and a
fault added at a moment changes nothing before it, so each new run repeats the last up
to there.  The same seed gives the same report and a byte-identical trace.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ringleader.actors import (
    DETECTOR_KINDS,
    Election,
    Fault,
    Record,
    SimulationResult,
    agreement,
    simulate,
    write_trace,
)
from ringleader.actors.host import NodeStatus
from ringleader.reports import FailoverMetrics, NodeReport, Report
from ringleader.topologies import Config, FaultSpec
from ringleader.traces import open_trace, trace_header

__all__ = ["simulate_run"]

#: The simulated network's latency: each message takes 0.1 to 1 ms, links FIFO.
LATENCY = (0.0001, 0.001)
#: Transports on which a crashed node's peers have proof of its death (a refused
#: connection), which ``fast_failover`` acts on: the simulator tells them too.
PROOF_OF_DEATH = ("tcp", "ipc")
#: Virtual seconds after which a simulation gives up (the config's ``timeout`` is for
#: real runs: 100,000 nodes take longer than that in virtual time, and less in real).
VIRTUAL_LIMIT = 3600.0


class _Timeline:
    """What a traced simulation shows of the nodes' states: every moment the live nodes
    came to agree on one live leader, and who led at a given moment."""

    def __init__(self, records: list[Record], nodes: Iterable[int]) -> None:
        self.records = records
        self.nodes = list(nodes)

    def _walk(self, until: float = math.inf) -> Iterator[tuple[float, _States, set[int]]]:
        states: _States = {}
        down: set[int] = set()
        for t, _, node, event, *details in self.records:
            if t > until:
                return
            if event == "state":
                states[node] = (details[0], details[1], details[2])
            elif event == "crash":
                down.add(node)
            elif event == "restart":
                down.discard(node)
                states.pop(node, None)
            else:
                continue
            yield t, states, down

    def agreements(self) -> list[tuple[float, int]]:
        """``(moment, epoch)`` each time the live nodes came to agree on a live leader."""
        moments, agreed = [], False
        for t, states, down in self._walk():
            leader = _agreed(self.nodes, states, down)
            if leader is not None and not agreed:
                moments.append((t, states[leader][2]))
            agreed = leader is not None
        return moments

    def leader(self, at: float) -> int | None:
        """The one node that said it leads at ``at`` (``None``: none, or several)."""
        states: _States = {}
        down: set[int] = set()
        for _, states, down in self._walk(until=at):  # noqa: B007 -- the last one counts
            pass
        leaders = [n for n in self.nodes if n not in down and states.get(n, ("",))[0] == "leader"]
        return leaders[0] if len(leaders) == 1 else None


_States = dict[int, tuple[str, int | None, int]]


def _agreed(nodes: list[int], states: _States, down: set[int]) -> int | None:
    live = [n for n in nodes if n not in down]
    if any(n not in states for n in live):
        return None
    agreed = agreement({n: states[n] for n in live})
    return None if agreed is None else agreed[0]


def simulate_run(
    config: Config,
    *,
    seed: int = 0,
    algorithm: type[Election] | None = None,
    trace: str | os.PathLike[str] | None = None,
    trace_heartbeats: bool = False,
) -> Report:
    """Run ``config`` in the simulator with ``seed`` and report it as a real run is.

    The cyclic garbage collector is paused meanwhile, as :func:`~ringleader.actors.simulate`
    pauses it: a large run holds millions of objects, none in a cycle, that it would
    otherwise walk again and again while the report is made.
    """
    with _collector_paused():
        return _simulate_run(config, seed, algorithm, trace, trace_heartbeats)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _simulate_run(
    config: Config,
    seed: int,
    algorithm: type[Election] | None,
    trace: str | os.PathLike[str] | None,
    trace_heartbeats: bool,
) -> Report:
    algorithm = algorithm or config.algorithm_class
    if trace is not None:
        open_trace(Path(trace)).close()  # a path that cannot be written: say so first
    views = config.wiring.views(config.settings)
    ids = [v.id for v in views]

    def run(faults: list[Fault], until: float | None, *, record: bool = True) -> SimulationResult:
        return simulate(
            algorithm,
            views,
            config.initiators,
            seed=seed,
            latency=LATENCY,
            faults=faults,
            until=until,
            max_time=VIRTUAL_LIMIT,
            trace=record,
            proof_of_death=config.transport in PROOF_OF_DEATH,
            network=config.network,
        )

    if not config.detector:
        try:
            result, finished = run([], None, record=trace is not None), True
        except RuntimeError:
            result, finished = run([], VIRTUAL_LIMIT, record=trace is not None), False
        faults: list[Fault] = []
    else:
        result, faults, finished = _play_schedule(config, ids, run)
    if trace is not None:
        header = trace_header(config, algorithm=algorithm, seed=seed, mode="simulated")
        _write(result, trace, header, trace_heartbeats)
    return _report(config, algorithm, result, faults, finished)


def _play_schedule(
    config: Config, ids: list[int], run: Callable[[list[Fault], float | None], SimulationResult]
) -> tuple[SimulationResult, list[Fault], bool]:
    """Resolve the config's schedule into faults at virtual times, run by run: first the
    faults that count from the start, then those that count from the first leader."""
    settle = config.settings["suspect_after"] + 2 * config.settings["heartbeat"]
    limit = VIRTUAL_LIMIT
    faults: list[Fault] = []

    def place(specs: Iterable[FaultSpec], origin: float) -> float:
        """Add the faults of ``specs``, ``at`` counted from ``origin``; the last moment."""
        last = origin
        for spec in sorted(specs, key=lambda f: f.at):
            at = origin + spec.at
            if at > limit:
                break
            target = (
                _Timeline(run(faults, at).records or [], ids).leader(at)
                if spec.crash == "leader"
                else int(spec.crash)
            )
            if target is None:
                continue  # no single leader then: a real run skips the fault too
            faults.append(Fault(at, "crash", target))
            last = max(last, at)
            if spec.restart_after is not None:
                faults.append(Fault(at + spec.restart_after, "restart", target))
                last = max(last, at + spec.restart_after)
            faults.sort(key=lambda f: f.at)
        return last

    last = place([f for f in config.faults if f.after == "start"], 0.0)
    until = max(settle, last)
    agreements: list[tuple[float, int]] = []
    while not agreements:  # on until the first leader, looking twice as far each time
        until *= 2
        if until > limit:
            return run(faults, limit), faults, False
        agreements = _Timeline(run(faults, until).records or [], ids).agreements()
    first = agreements[0][0]
    last = max(last, place([f for f in config.faults if f.after == "leader"], first))
    # On until the cluster has agreed after the last fault and run_for is over, then a
    # little longer (as a real run waits for the cluster to stay quiet).
    timeline = _Timeline(run(faults, min(limit, last + 10 * settle)).records or [], ids)
    after = [t for t, _ in timeline.agreements() if t >= last]
    end = max(first + (config.run_for or 0.0), after[0] if after else last)
    return run(faults, min(limit, end + settle)), faults, bool(after) and end + settle <= limit


def _write(
    result: SimulationResult, path: str | os.PathLike[str], header: dict[str, Any], beats: bool
) -> None:
    with open_trace(Path(path)) as out:
        nodes = len(header["nodes"])
        write_trace(result.records or [], out, nodes=nodes, heartbeats=beats, header=header)


def _report(
    config: Config,
    algorithm: type[Election],
    result: SimulationResult,
    faults: list[Fault],
    finished: bool,
) -> Report:
    """The report of a simulated run, as a real run's, from what the simulator saw."""
    by_type: Counter[str] = Counter()
    by_epoch: Counter[int] = Counter()
    for record in result.records or []:  # a run with a schedule is always recorded
        if record[3] == "send" and record[5].kind not in DETECTOR_KINDS:
            by_epoch[record[6]] += 1
    for kind, count in result.messages.items():
        if kind not in DETECTOR_KINDS:
            by_type[kind] += count
    fields: dict[str, Any] = {
        "topology": config.topology,
        "algorithm": algorithm.name,
        "transport": config.transport,
        "bound": algorithm.bound(config.wiring, config.initiators),
        "assumption": algorithm.assumption,
        "elapsed_s": result.time,
        "setup_s": 0.0,
        "finished": finished,
        "mode": "simulated",
    }
    candidates = {spec.id: spec.candidate for spec in config.nodes}
    assert result.safety is not None  # every state of the run went through the checks
    if not config.detector:  # one election, nobody crashed: each node's line, no more
        stale = sum(member.stale for member in result.nodes.values())
        if finished:
            result.safety.check_final(result.elected, set(result.live))
        report = Report(
            n=len(result.nodes),
            nodes=[
                NodeReport(node, str(member.state), member.elected, member.view.capacity)
                for node, member in sorted(result.nodes.items())
            ],
            messages_by_type={},
            expected_leader=max(candidates.values()).id,
            rejected_frames={"stale_epoch": stale} if stale else {},
            safety=result.safety,
            **fields,
        )
    else:
        live = set(result.live)
        first = min(result.nodes)  # the messages by epoch are the whole run's: told once
        statuses = [
            NodeStatus(
                id=node,
                capacity=member.view.capacity,
                state=str(member.state) if node in live else "crashed",
                elected=member.elected,
                epoch=member.epoch,
                incarnation=1,
                address=None,
                rejected={"stale_epoch": member.stale} if member.stale else {},
                started=member.started,
                sent_by_epoch=dict(by_epoch) if node == first else {},
            )
            for node, member in sorted(result.nodes.items())
        ]
        if finished:
            result.safety.check_final(result.elected, live)
        metrics = _metrics(result, faults, config.settings.get("suspect_after"))
        elections = metrics.elections(statuses)
        report = Report.from_run(
            [s for s in statuses if s.id in live],
            crashed={s.id: s for s in statuses if s.id not in live},
            live=live,
            expected_leader=max(candidates[n] for n in live).id if live else None,
            elections=elections,
            faults=list(metrics.faults),
            safety=result.safety,
            first_election_messages=elections[0].messages if elections else 0,
            **fields,
        )
    report.messages_by_type = dict(sorted(by_type.items()))
    report.heartbeats = sum(result.messages[k] for k in DETECTOR_KINDS)
    report.lost = sum(n for kind, n in result.lost.items() if kind not in DETECTOR_KINDS)
    return report


def _metrics(
    result: SimulationResult, faults: list[Fault], suspect_after: float | None
) -> FailoverMetrics:
    """The rounds, faults and their timings, as the supervisor would have seen them."""
    records = result.records or []
    events: list[tuple[float, int, str, Any]] = [
        (t, 0, "fault", fault) for fault in faults for t in (fault.at,)
    ]
    events += [(t, 1, "notice", (node, notice)) for t, node, notice in result.notices]
    events += [
        (t, 2, "leader", (node, details[2]))
        for t, _, node, event, *details in records
        if event == "state" and details[0] == "leader"
    ]
    events += [
        (t, 3, "agreed", epoch) for t, epoch in _Timeline(records, result.nodes).agreements()
    ]
    metrics = FailoverMetrics(suspect_after=suspect_after)
    metrics.begin(0.0)
    for at, _, what, payload in sorted(events, key=lambda e: (e[0], e[1])):
        if what == "fault":
            if payload.action == "crash":
                metrics.crashed(payload.node, payload.node, at)
            else:
                metrics.restarted(payload.node, at)
        elif what == "notice":
            node, notice = payload
            if notice.kind == "election":
                crashed = notice.node if notice.detail.startswith("crash of") else None
                metrics.election(notice.epoch, notice.detail, at, crashed=crashed, node=node)
            elif notice.kind == "suspect" and notice.node is not None:
                metrics.suspected(notice.node, at, notice.detail)
        elif what == "leader":
            metrics.leader(payload[1], payload[0], at)
        elif what == "agreed":
            metrics.agreed(payload, at)
    return metrics
