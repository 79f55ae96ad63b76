"""``ringleader.run``: run a config and report it, in threads or in processes, with or
without a crash schedule."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

import pykka

from ringleader.actors import Election
from ringleader.errors import TransportError, UsageError
from ringleader.reports import Report
from ringleader.topologies import Config

from ._cluster import Progress
from ._local import LocalCluster

if TYPE_CHECKING:
    from ringleader.traces import RunTrace

__all__ = ["run"]

log = logging.getLogger(__name__)


def run(
    config: Config,
    *,
    progress: Progress | None = None,
    algorithm: type[Election] | None = None,
    trace: str | os.PathLike[str] | None = None,
    trace_heartbeats: bool = False,
    simulate: bool = False,
    seed: int = 0,
) -> Report:
    """Run ``config`` and report it.

    Without faults and ``run_for`` this is one election, every node in this process.
    Otherwise a :class:`~ringleader.cluster.SupervisorActor` runs the cluster (threads or
    processes, as ``mode`` says) through the crash schedule.  ``algorithm`` replaces the
    config's algorithm with any :class:`~ringleader.actors.Election` subclass, e.g. one of your own.
    ``trace``: write every event of the run to this file as JSON lines (see
    :mod:`ringleader.actors.tracing`); ``trace_heartbeats``: the failure detector's too.
    ``simulate``: run it in the deterministic simulator instead, in virtual time, with
    ``seed`` (the report's ``mode`` is ``"simulated"``).
    """
    config.check_no_spares("ringleader run")
    if simulate:
        from ._simulated import simulate_run  # noqa: PLC0415 -- only for a simulated run

        return simulate_run(
            config, seed=seed, algorithm=algorithm, trace=trace, trace_heartbeats=trace_heartbeats
        )
    if config.mode == "processes":  # each child writes its part; they are merged
        return _run(
            config,
            progress,
            algorithm,
            run_trace=None,
            trace_path=trace,
            trace_heartbeats=trace_heartbeats,
        )
    run_trace = None
    if trace is not None:
        from ringleader.traces import RunTrace, trace_header  # noqa: PLC0415 -- traced runs

        header = trace_header(config, algorithm=algorithm)
        run_trace = RunTrace(trace, nodes=config.n, heartbeats=trace_heartbeats, header=header)
    try:
        report = _run(
            config,
            progress,
            algorithm,
            run_trace=run_trace,
            trace_path=None,
            trace_heartbeats=trace_heartbeats,
        )
    except BaseException:
        if run_trace is not None:  # what happened up to the failure, if it can be written
            try:
                run_trace.write()
            except Exception:
                log.exception("the trace of the failed run could not be written")
        raise
    if run_trace is not None:
        run_trace.write()
    return report


def _run(
    config: Config,
    progress: Progress | None,
    algorithm: type[Election] | None,
    *,
    run_trace: RunTrace | None,
    trace_path: str | os.PathLike[str] | None,
    trace_heartbeats: bool,
) -> Report:
    """Threads: ``run_trace`` is the :class:`RunTrace` the nodes record into; processes:
    ``trace_path`` is where the children's parts are merged."""
    processes = config.mode == "processes"
    if not config.detector and not processes:
        with LocalCluster(config, progress=progress, algorithm=algorithm, trace=run_trace) as local:
            return local.elect()
    if processes and algorithm is not None and algorithm is not config.algorithm_class:
        raise UsageError(
            'mode = "processes" runs the config\'s algorithm in each node process; '
            "a custom algorithm class runs in threads mode"
        )
    # Only a supervised run (faults, run_for, processes) needs these.
    from ._processes import ProcessCluster  # noqa: PLC0415
    from ._supervisor import Supervise, SupervisorActor  # noqa: PLC0415

    algorithm = algorithm or config.algorithm_class
    supervisor = SupervisorActor.start(config, algorithm, progress)
    try:
        cluster: LocalCluster | ProcessCluster
        if processes:
            cluster = ProcessCluster(
                config, events=supervisor.tell, trace=trace_path, trace_heartbeats=trace_heartbeats
            )
        else:
            cluster = LocalCluster(
                config,
                progress=progress,
                algorithm=algorithm,
                events=supervisor.tell,
                trace=run_trace,
            )
        with cluster:
            supervisor.proxy().attach(cluster).get()
            done: pykka.Future[Report] = pykka.ThreadingFuture()
            supervisor.tell(Supervise(done))
            try:
                report = done.get(timeout=config.timeout + 30.0)
            except pykka.Timeout:  # the supervisor ends a run at its timeout: it is stuck
                raise TransportError(
                    f"the run did not end within its {config.timeout:g} s timeout and 30 s more"
                ) from None
            if report.safety is not None:
                cluster.trace_violations(report.safety)
            return report
    finally:
        supervisor.stop()
