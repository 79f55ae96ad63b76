"""A leader inside a service: one node of a cluster in this process.

- :class:`Node` joins a config's cluster from a service's own process and tells it who
  leads (``is_leader``, ``epoch``, callbacks, :class:`LeaderChange` events).
- :func:`serve` is what ``ringleader node`` runs (its events written out by an
  :class:`EventWriter`); ``_protocol.py`` is that node's protocol with a parent that
  supervises it.
- :func:`ask_status` is ``ringleader status``: the operator asks every node.
- :class:`NodeMetrics` serves a node's Prometheus metrics.
- :class:`StateFile`: what must survive a node of a service (the highest epoch it saw,
  its incarnation counter), under :func:`default_state_dir` or the config's
  ``state_dir``.
"""

from ._metrics import FAILOVER_BUCKETS, NodeMetrics, parse_address
from ._node import LeaderChange, Node, check_standalone, service_settings
from ._operator import ask_status, status_summary
from ._output import EventWriter, describe
from ._protocol import (
    BOOT,
    START,
    STATUS,
    command_line,
    event_dict,
    node_event,
    parse_command,
    status_dict,
    status_from_dict,
)
from ._standalone import (
    BAD_SIGNATURE_EVERY,
    REJECTIONS_PER_SECOND,
    RejectionThrottle,
    die_with_parent,
    serve,
)
from ._state_file import StateFile, default_state_dir, state_path

__all__ = [
    "BAD_SIGNATURE_EVERY",
    "BOOT",
    "FAILOVER_BUCKETS",
    "REJECTIONS_PER_SECOND",
    "START",
    "STATUS",
    "EventWriter",
    "LeaderChange",
    "Node",
    "NodeMetrics",
    "RejectionThrottle",
    "StateFile",
    "ask_status",
    "check_standalone",
    "command_line",
    "default_state_dir",
    "describe",
    "die_with_parent",
    "event_dict",
    "node_event",
    "parse_address",
    "parse_command",
    "serve",
    "service_settings",
    "state_path",
    "status_dict",
    "status_from_dict",
    "status_summary",
]
