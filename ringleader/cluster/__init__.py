"""Running a config's cluster and reporting it.

- :func:`run` runs a config in threads (:class:`LocalCluster`), in processes
  (:class:`ProcessCluster`, one ``ringleader node`` child per node) or in the
  simulator (:func:`simulate_run`), and returns its :class:`~ringleader.Report`.
- With a crash schedule, the :class:`SupervisorActor` drives a :class:`Cluster` through
  it and watches what happens.
- :func:`size_up` estimates a config's run and refuses what cannot fit this machine
  (:func:`machine_limits`), before anything is built.
- :func:`wait_quiet` knows when an election is over (Mattern's four counters).
- :func:`explore_config` explores every ordering of a config's run
  (``ringleader explore``), with :func:`explore_options` read from its ``[[faults]]``;
  :func:`explore_service_config` explores it as ``ringleader node`` runs it
  (``ringleader explore --service``); :class:`RayPool` and :func:`ray_cluster` share
  its search out to a Ray cluster (``ringleader explore --ray``).

Each name is imported when first asked for: a run in threads loads neither the node
processes' machinery nor the supervisor unless it needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ringleader._lazy import lazy_names

if TYPE_CHECKING:
    from ._cluster import Cluster, Progress, SetUpOnEnter, no_progress
    from ._explored import explore_config, explore_options
    from ._explored_service import explore_service_config, service_model, service_timing
    from ._fits import machine_limits, size_up
    from ._local import LocalCluster
    from ._processes import ProcessCluster
    from ._ray import RayPool, ray_cluster
    from ._run import run
    from ._simulated import simulate_run
    from ._supervisor import Supervise, SupervisorActor
    from ._termination import wait_quiet

#: Each name, and the module it comes from.
_HOMES = {
    "Cluster": "._cluster",
    "explore_config": "._explored",
    "explore_options": "._explored",
    "explore_service_config": "._explored_service",
    "service_model": "._explored_service",
    "service_timing": "._explored_service",
    "LocalCluster": "._local",
    "machine_limits": "._fits",
    "size_up": "._fits",
    "ProcessCluster": "._processes",
    "RayPool": "._ray",
    "ray_cluster": "._ray",
    "Progress": "._cluster",
    "SetUpOnEnter": "._cluster",
    "Supervise": "._supervisor",
    "SupervisorActor": "._supervisor",
    "no_progress": "._cluster",
    "run": "._run",
    "simulate_run": "._simulated",
    "wait_quiet": "._termination",
}

__all__ = [
    "Cluster",
    "LocalCluster",
    "ProcessCluster",
    "Progress",
    "RayPool",
    "SetUpOnEnter",
    "Supervise",
    "SupervisorActor",
    "explore_config",
    "explore_options",
    "explore_service_config",
    "machine_limits",
    "no_progress",
    "ray_cluster",
    "run",
    "service_model",
    "service_timing",
    "simulate_run",
    "size_up",
    "wait_quiet",
]


__getattr__, __dir__ = lazy_names(__name__, globals(), _HOMES)
