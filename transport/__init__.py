"""Moving signed frames between node mailboxes.

- :class:`Codec` seals a message into a frame (versioned header, a compact payload laid
  out from the message class's fields, keyed BLAKE2b tag) and opens it again, checking
  the tag before anything is decoded, and decoding only into the cluster's declared
  message classes (:class:`Unencodable`: a class that has no layout, in a cluster that
  did not opt in to pickle; :func:`layout`: a class's layout); :data:`OPERATOR` is the
  reserved sender id of an operator's tool.
- :class:`Session` is one node's end of the wire: sequence numbers out; replay,
  incarnation and addressing checks in.
- :class:`ZmqNetwork` (``tcp``, ``ipc``, ``inproc``) and :class:`MemoryNetwork` give each
  node a :class:`Mailbox` and one-way :class:`Links` to its out-neighbours.
"""

import logging

from ._base import Links, Mailbox, Network
from ._curve import CurveKeys
from ._deadline import Deadline
from ._errors import FrameRejected, RingleaderError, TransportError, Unencodable
from ._frame import FORMAT_VERSION, OPERATOR, WATCHER, Codec, Header
from ._layout import Layout, layout
from ._limits import Demand, ensure_open_files, estimate
from ._memory import MemoryMailbox, MemoryNetwork
from ._schemes import BETWEEN_PROCESSES, SCHEMES, TRANSPORTS
from ._session import Session
from ._version import __version__
from ._zmq import SocketOptions, ZmqLinks, ZmqMailbox, ZmqNetwork

logging.getLogger(__name__).addHandler(logging.NullHandler())


def open_network(
    scheme: str,
    *,
    nodes: int = 16,
    links: int = 16,
    send_timeout: float | None = None,
    curve: CurveKeys | None = None,
) -> Network:
    """A network for ``scheme`` (one of :data:`TRANSPORTS`), sized for a local cluster.

    ``send_timeout`` replaces :class:`SocketOptions`' default: with a failure detector
    running, a send must never stall a node for longer than a heartbeat.
    """
    if curve is not None and scheme not in BETWEEN_PROCESSES:
        raise TransportError(f"CURVE needs tcp or ipc, not {scheme}")
    if scheme == "memory":
        return MemoryNetwork()
    options = SocketOptions() if send_timeout is None else SocketOptions(send_timeout=send_timeout)
    return ZmqNetwork(scheme, nodes=nodes, links=links, options=options, curve=curve)


__all__ = [
    "BETWEEN_PROCESSES",
    "FORMAT_VERSION",
    "OPERATOR",
    "SCHEMES",
    "TRANSPORTS",
    "WATCHER",
    "Codec",
    "CurveKeys",
    "Deadline",
    "Demand",
    "FrameRejected",
    "Header",
    "Layout",
    "Links",
    "Mailbox",
    "MemoryMailbox",
    "MemoryNetwork",
    "Network",
    "RingleaderError",
    "Session",
    "SocketOptions",
    "TransportError",
    "Unencodable",
    "ZmqLinks",
    "ZmqMailbox",
    "ZmqNetwork",
    "__version__",
    "ensure_open_files",
    "estimate",
    "layout",
    "open_network",
]
