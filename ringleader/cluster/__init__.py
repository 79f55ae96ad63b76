"""Running a config's cluster and reporting it.

- :func:`run` runs a config in threads (:class:`LocalCluster`), in processes
  (:class:`ProcessCluster`, one ``ringleader node`` child per node) or in the
  simulator (:func:`simulate_run`), and returns its :class:`~ringleader.Report`.
- With a crash schedule, the :class:`SupervisorActor` drives a :class:`Cluster` through
  it and watches what happens.
- :func:`wait_quiet` knows when an election is over (Mattern's four counters).
- :func:`explore_config` explores every ordering of a config's run
  (``ringleader explore``), with :func:`explore_options` read from its ``[[faults]]``.
"""

from ._cluster import Cluster, Progress, SetUpOnEnter, no_progress
from ._explored import explore_config, explore_options
from ._local import LocalCluster
from ._processes import ProcessCluster
from ._run import run
from ._simulated import simulate_run
from ._supervisor import Supervise, SupervisorActor
from ._termination import wait_quiet

__all__ = [
    "Cluster",
    "LocalCluster",
    "ProcessCluster",
    "Progress",
    "SetUpOnEnter",
    "Supervise",
    "SupervisorActor",
    "explore_config",
    "explore_options",
    "no_progress",
    "run",
    "simulate_run",
    "wait_quiet",
]
