"""A leader inside a service: one node of a cluster in this process.

- :class:`Node` joins a config's cluster from a service's own process and tells it who
  leads (``is_leader``, ``epoch``, callbacks, :class:`LeaderChange` events).
- :func:`serve` is what ``ringleader node`` runs (its events written out by an
  :class:`EventWriter`); ``_protocol.py`` is that node's protocol with a parent that
  supervises it.
- :func:`ask_status` is ``ringleader status``: the operator asks every node;
  :func:`transfer` is ``ringleader transfer``: it asks the leader to hand over.
- :class:`NodeMetrics` serves a node's Prometheus metrics.
"""

from ._metrics import FAILOVER_BUCKETS, NodeMetrics, parse_address
from ._node import LeaderChange, Node, check_standalone
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
from ._transfer import Transfer, transfer

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
    "Transfer",
    "ask_status",
    "check_standalone",
    "command_line",
    "describe",
    "die_with_parent",
    "event_dict",
    "node_event",
    "parse_address",
    "parse_command",
    "serve",
    "status_dict",
    "status_from_dict",
    "status_summary",
    "transfer",
]
