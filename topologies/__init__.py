"""Configurations and the wiring they describe.

- :func:`load_config` reads a TOML file (or the built-in default) into a validated
  :class:`Config`, with command-line :class:`Overrides`.
- A builder turns the configured nodes into a :class:`Wiring` (who sends to whom); it
  never opens a socket.
- :data:`TOPOLOGIES` maps each topology to its builder, its default algorithm and every
  algorithm that fits it.
"""

import logging

from ._builders import (
    bidirectional_ring,
    full_mesh,
    graph,
    spanning_tree,
    unidirectional_ring,
)
from ._config import (
    DEFAULT_NODES,
    MODES,
    SECRET_ENV,
    SECURITY,
    TRANSPORT_NAMES,
    Config,
    FaultSpec,
    Overrides,
    default_config,
    load_config,
)
from ._errors import ConfigError, WiringError
from ._registry import TOPOLOGIES, Topology
from ._wiring import NodeSpec, Wiring

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "DEFAULT_NODES",
    "MODES",
    "SECRET_ENV",
    "SECURITY",
    "TOPOLOGIES",
    "TRANSPORT_NAMES",
    "Config",
    "ConfigError",
    "FaultSpec",
    "NodeSpec",
    "Overrides",
    "Topology",
    "Wiring",
    "WiringError",
    "bidirectional_ring",
    "default_config",
    "full_mesh",
    "graph",
    "load_config",
    "spanning_tree",
    "unidirectional_ring",
]
