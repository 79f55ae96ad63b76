"""``ringleader.run``: run a config and report it, in threads or in processes, with or
without a crash schedule."""

from __future__ import annotations

import pykka

from actors import Election
from ringleader.errors import UsageError
from topologies import Config

from ._cluster import Progress
from ._local import LocalCluster
from ._processes import ProcessCluster
from ._report import Report
from ._supervisor import Supervise, SupervisorActor

__all__ = ["run"]


def run(
    config: Config,
    *,
    progress: Progress | None = None,
    algorithm: type[Election] | None = None,
) -> Report:
    """Run ``config`` and report it.

    Without faults and ``run_for`` this is one election, every node in this process.
    Otherwise a :class:`~ringleader.SupervisorActor` runs the cluster (threads or
    processes, as ``mode`` says) through the crash schedule.  ``algorithm`` replaces the
    config's algorithm with any :class:`~actors.Election` subclass, e.g. one of your own.
    """
    processes = config.mode == "processes"
    if not config.detector and not processes:
        with LocalCluster(config, progress=progress, algorithm=algorithm) as local:
            return local.elect()
    if processes and algorithm is not None and algorithm is not config.algorithm_class:
        raise UsageError(
            'mode = "processes" runs the config\'s algorithm in each node process; '
            "a custom algorithm class runs in threads mode"
        )
    algorithm = algorithm or config.algorithm_class
    supervisor = SupervisorActor.start(config, algorithm, progress)
    try:
        cluster: LocalCluster | ProcessCluster
        if processes:
            cluster = ProcessCluster(config, events=supervisor.tell)
        else:
            cluster = LocalCluster(
                config, progress=progress, algorithm=algorithm, events=supervisor.tell
            )
        with cluster:
            supervisor.proxy().attach(cluster).get()
            done: pykka.Future[Report] = pykka.ThreadingFuture()
            supervisor.tell(Supervise(done))
            return done.get(timeout=config.timeout + 30.0)
    finally:
        supervisor.stop()
