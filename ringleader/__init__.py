"""ringleader: leader election on the actor model.

Every node is a Pykka actor hosting a sans-IO election algorithm; nodes talk over ZeroMQ
PUSH/PULL links carrying signed frames.  The library API::

    import ringleader
    config = ringleader.load_config("examples/ring.toml")
    report = ringleader.run(config)
    print(report.leader, report.total)

and, for a service that wants one leader among its processes, :class:`Node`::

    with ringleader.Node("cluster.toml", 2, on_elected=start_work, on_lost=stop_work) as node:
        ...  # node.is_leader, node.epoch (the fencing token), node.wait_for_leader(10)

or, in asyncio, :class:`AsyncNode` (``async with``, ``await node.wait_for_leader(10)``,
``async for change in node.changes()``).

The packages, from the top down (imports only ever go down):

- :mod:`ringleader.cli` — the ``ringleader`` command;
- :mod:`ringleader.cluster` — running a config's cluster: threads, processes, the
  simulator, a crash schedule's supervisor;
- :mod:`ringleader.service` — one node in a service's process (:class:`Node`), what
  ``ringleader node`` and ``ringleader status`` run;
- :mod:`ringleader.traces` — traces, and everything drawn or told from them;
- :mod:`ringleader.reports` — what a run reports;
- :mod:`ringleader.topologies` — config and wiring;
- :mod:`ringleader.actors` — the elections, sans-IO, and the simulator (standard library
  only); :mod:`ringleader.actors.host`, the Pykka actor that hosts one;
- :mod:`ringleader.transport` — frames and networks.

This front door imports nothing until a name is asked for, so that importing a lower
package (``import ringleader.actors``) never loads the stack above it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ringleader._lazy import lazy_names

if TYPE_CHECKING:
    from ringleader.cluster import LocalCluster, run
    from ringleader.errors import (
        ConfigError,
        FrameRejected,
        MembershipRefused,
        RingleaderError,
        SetupError,
        StateError,
        TransferRefused,
        TransportError,
        UsageError,
    )
    from ringleader.reports import NodeReport, Report
    from ringleader.service import (
        AsyncNode,
        LeaderChange,
        LeadershipView,
        Node,
        Observer,
        Watched,
    )
    from ringleader.topologies import Config, Overrides, default_config, load_config
    from ringleader.transport import __version__

logging.getLogger(__name__).addHandler(logging.NullHandler())

#: Each name of the front door, and the package it comes from (imported when first asked).
_HOMES = {
    "AsyncNode": "ringleader.service",
    "Config": "ringleader.topologies",
    "ConfigError": "ringleader.errors",
    "FrameRejected": "ringleader.errors",
    "LeaderChange": "ringleader.service",
    "LeadershipView": "ringleader.service",
    "LocalCluster": "ringleader.cluster",
    "MembershipRefused": "ringleader.errors",
    "Node": "ringleader.service",
    "NodeReport": "ringleader.reports",
    "Observer": "ringleader.service",
    "Overrides": "ringleader.topologies",
    "Report": "ringleader.reports",
    "RingleaderError": "ringleader.errors",
    "SetupError": "ringleader.errors",
    "StateError": "ringleader.errors",
    "TransferRefused": "ringleader.errors",
    "TransportError": "ringleader.errors",
    "UsageError": "ringleader.errors",
    "Watched": "ringleader.service",
    "__version__": "ringleader.transport",
    "default_config": "ringleader.topologies",
    "load_config": "ringleader.topologies",
    "run": "ringleader.cluster",
}

__all__ = [
    "AsyncNode",
    "Config",
    "ConfigError",
    "FrameRejected",
    "LeaderChange",
    "LeadershipView",
    "LocalCluster",
    "MembershipRefused",
    "Node",
    "NodeReport",
    "Observer",
    "Overrides",
    "Report",
    "RingleaderError",
    "SetupError",
    "StateError",
    "TransferRefused",
    "TransportError",
    "UsageError",
    "Watched",
    "__version__",
    "default_config",
    "load_config",
    "run",
]
assert set(__all__) == set(_HOMES)


__getattr__, __dir__ = lazy_names(__name__, globals(), _HOMES)
