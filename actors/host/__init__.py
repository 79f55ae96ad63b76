"""The Pykka host: one actor per node, hosting its election on a network of
:mod:`ringleader.transport`.

This is where the network stack comes in (Pykka, ZeroMQ, the codec); the elections in
:mod:`ringleader.actors` never see it.

- :class:`NodeActor` hosts one node: frames in through its :class:`Inbox`, opened by its
  session, handed to the election; the election's actions sealed and sent.
- :class:`Listen`, :class:`Connect`, :class:`Boot`, :class:`Start`, :class:`Crash`, :class:`Resign`,
  :class:`Pause`, :class:`GetStatus`: what whoever runs the cluster tells or asks a node.
- :class:`Leadership`: the node's leader, epoch and lease, published for other threads.
- :class:`Durable`: where a node's state survives it, made durable before it acts.
- :class:`NodeEvent` (as it happens) and :class:`NodeStatus` (when asked): what a node
  reports.
- :data:`OPERATOR`, :class:`StatusQuery`, :class:`StatusAnswer`, :class:`TransferQuery`,
  :class:`TransferAnswer`, :class:`MemberQuery`, :class:`MemberAnswer`,
  :class:`WatchQuery`, :class:`LeadershipNotice`: the
  operator's questions and their answers;
  :func:`wire_kinds`: every kind a node's codec must know.
- :class:`Identity`, :class:`ClusterNotice`: a service node's cluster identity, and the
  notice with which it tells a node of another cluster how the two differ.
"""

import logging

from ._control import Boot, Connect, Crash, GetStatus, Listen, Pause, Resign, Start
from ._durable import Durable
from ._identity import ClusterNotice, Identity
from ._inbox import Inbox, TimerFired
from ._leadership import Leadership
from ._node_actor import NodeActor
from ._queries import (
    OPERATOR,
    WATCH_KINDS,
    WATCHER,
    LeadershipNotice,
    MemberAnswer,
    MemberQuery,
    StatusAnswer,
    StatusQuery,
    TransferAnswer,
    TransferQuery,
    WatchQuery,
    wire_kinds,
)
from ._signals import PROCESS_SIGNALS, leave_signals_to_main
from ._status import NodeEvent, NodeStatus
from ._tally import Tally

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "OPERATOR",
    "PROCESS_SIGNALS",
    "WATCHER",
    "WATCH_KINDS",
    "Boot",
    "ClusterNotice",
    "Connect",
    "Crash",
    "Durable",
    "GetStatus",
    "Identity",
    "Inbox",
    "Leadership",
    "LeadershipNotice",
    "Listen",
    "MemberAnswer",
    "MemberQuery",
    "NodeActor",
    "NodeEvent",
    "NodeStatus",
    "Pause",
    "Resign",
    "Start",
    "StatusAnswer",
    "StatusQuery",
    "Tally",
    "TimerFired",
    "TransferAnswer",
    "TransferQuery",
    "WatchQuery",
    "leave_signals_to_main",
    "wire_kinds",
]
