"""The report of a supervised run, made from what its supervisor saw; the report of a
run whose cluster could not be set up."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ringleader.actors import Election, SafetyChecker
from ringleader.actors.host import NodeStatus
from ringleader.topologies import Config

from ._failover import FailoverMetrics
from ._report import NodeReport, Report

__all__ = ["setup_failed_report", "supervised_report"]


def supervised_report(
    config: Config,
    algorithm: type[Election],
    *,
    statuses: Mapping[int, NodeStatus],
    crashed: Mapping[int, NodeStatus],
    earlier: Iterable[NodeStatus],
    live: set[int],
    metrics: FailoverMetrics,
    safety: SafetyChecker,
    elapsed_s: float,
    setup_s: float,
    finished: bool,
) -> Report:
    """``statuses``: the ``live`` nodes' now; ``crashed``: the nodes down at the end, as
    last seen; ``earlier``: the lives of restarted nodes, as they were when they ended."""
    earlier = list(earlier)
    elections = metrics.elections([*statuses.values(), *earlier, *crashed.values()])
    first = elections[0].messages if elections else 0
    return Report.from_run(
        [statuses[i] for i in sorted(statuses)],
        crashed=dict(crashed),
        earlier=earlier,
        live=live,
        expected_leader=max(spec.candidate for spec in config.nodes if spec.id in live).id
        if live
        else None,
        topology=config.topology,
        algorithm=algorithm.name,
        transport=config.transport,
        bound=algorithm.bound(config.wiring, config.initiators),
        assumption=algorithm.assumption,
        elapsed_s=elapsed_s,
        setup_s=setup_s,
        finished=finished,
        elections=elections,
        faults=list(metrics.faults),
        safety=safety,
        first_election_messages=first,
        mode=config.mode,
    )


def setup_failed_report(
    config: Config,
    algorithm: type[Election],
    *,
    node: int | None,
    reason: str,
    setup_s: float,
) -> Report:
    """The report of a run that never began: ``node`` (``None``: no one node) failed to
    set up, because of ``reason``, after ``setup_s`` s."""
    return Report(
        topology=config.topology,
        algorithm=algorithm.name,
        transport=config.transport,
        n=config.n,
        nodes=[NodeReport(n.id, "not_started", None, n.capacity) for n in config.nodes],
        messages_by_type={},
        bound=algorithm.bound(config.wiring, config.initiators),
        expected_leader=max(config.wiring.candidates).id,
        assumption=algorithm.assumption,
        setup_s=setup_s,
        finished=False,
        mode=config.mode,
        setup_failed=(node, reason),
    )
