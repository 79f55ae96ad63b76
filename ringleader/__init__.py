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

The layers are importable on their own: :mod:`actors` (algorithms and the node actor),
:mod:`transport` (frames and networks), :mod:`topologies` (config and wiring).
"""

from __future__ import annotations

import logging

from topologies import Config, Overrides, default_config, load_config
from transport import __version__

from ._local import LocalCluster
from ._node import LeaderChange, Node
from ._report import NodeReport, Report
from ._run import run
from .errors import ConfigError, FrameRejected, RingleaderError, TransportError, UsageError

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "Config",
    "ConfigError",
    "FrameRejected",
    "LeaderChange",
    "LocalCluster",
    "Node",
    "NodeReport",
    "Overrides",
    "Report",
    "RingleaderError",
    "TransportError",
    "UsageError",
    "__version__",
    "default_config",
    "load_config",
    "run",
]
