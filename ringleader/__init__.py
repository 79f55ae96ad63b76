"""ringleader: leader election on the actor model.

Every node is a Pykka actor hosting a sans-IO election algorithm; nodes talk over ZeroMQ
PUSH/PULL links carrying signed frames.  The library API::

    import ringleader
    config = ringleader.load_config("examples/ring.toml")
    report = ringleader.run(config)
    print(report.leader, report.total)

The layers are importable on their own: :mod:`actors` (algorithms and the node actor),
:mod:`transport` (frames and networks), :mod:`topologies` (config and wiring).
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, FrameRejected, RingleaderError, TransportError, UsageError

if TYPE_CHECKING:
    from topologies import Config, Overrides, default_config, load_config

    from ._report import NodeReport, Report
    from ._run import LocalCluster, run

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())

# The rest loads on first use: ``topologies`` and ``transport`` import ``ringleader.errors``,
# so importing them eagerly here would be circular.
_LAZY = {
    "Config": "topologies",
    "Overrides": "topologies",
    "default_config": "topologies",
    "load_config": "topologies",
    "NodeReport": "ringleader._report",
    "Report": "ringleader._report",
    "LocalCluster": "ringleader._run",
    "run": "ringleader._run",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ringleader' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Config",
    "ConfigError",
    "FrameRejected",
    "LocalCluster",
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
