"""Configurations and the wiring they describe.

- :func:`load_config` reads a TOML file (or the built-in default) into a validated
  :class:`Config`, with command-line :class:`Overrides`; the keys, their defaults and
  limits are the schema's (e.g. :data:`DETECTOR_DEFAULTS`).
- The cluster secret and CURVE keys: which secret a node signs with
  (:func:`node_secret`, :func:`run_secret`, :func:`secret_env`), and new ones
  (:func:`make_keys`); the cluster's codec (:func:`cluster_codec`).
- A builder turns the configured nodes into a :class:`Wiring` (who sends to whom); it
  never opens a socket.
- :func:`estimate_size` says what a run of a config will take (links, messages, memory,
  open files) without building its wiring; :func:`size_refusal` says why that cannot
  fit a machine's :class:`Limits`.
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
from ._codec import cluster_codec
from ._config import Config, FaultSpec, Overrides
from ._errors import ConfigError, StateError, WiringError
from ._keys import SECRET_ENV, make_keys, read_secret
from ._registry import TOPOLOGIES, Topology
from ._schema import (
    DEFAULT_NODES,
    DETECTOR_DEFAULTS,
    MAX_SETTING,
    MODES,
    SECURITY,
    TRANSPORT_NAMES,
)
from ._secrets import node_secret, run_secret, secret_env
from ._size import Limits, Size
from ._size import estimate as estimate_size
from ._size import refusal as size_refusal
from ._validate import default_config, load_config
from ._wiring import NodeSpec, Wiring

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "DEFAULT_NODES",
    "DETECTOR_DEFAULTS",
    "MAX_SETTING",
    "MODES",
    "SECRET_ENV",
    "SECURITY",
    "TOPOLOGIES",
    "TRANSPORT_NAMES",
    "Config",
    "ConfigError",
    "FaultSpec",
    "Limits",
    "NodeSpec",
    "Overrides",
    "Size",
    "StateError",
    "Topology",
    "Wiring",
    "WiringError",
    "bidirectional_ring",
    "cluster_codec",
    "default_config",
    "estimate_size",
    "full_mesh",
    "graph",
    "load_config",
    "make_keys",
    "node_secret",
    "read_secret",
    "run_secret",
    "secret_env",
    "size_refusal",
    "spanning_tree",
    "unidirectional_ring",
]
