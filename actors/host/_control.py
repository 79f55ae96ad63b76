"""What whoever runs a cluster tells or asks a node actor (never one node another)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "Boot",
    "Connect",
    "Crash",
    "GetStatus",
    "Listen",
    "Pause",
    "PeerDead",
    "Resign",
    "Start",
]


@dataclass(frozen=True, slots=True)
class Listen:
    """Ask: open the node's mailbox at ``address`` (``None``: any free one); returns it."""

    address: str | None = None


@dataclass(frozen=True, slots=True)
class Connect:
    """Ask: link to ``peers`` and wait up to ``timeout`` s; returns the peers not reached."""

    peers: Mapping[int, str]
    timeout: float = 10.0
    #: Every node's address, for links made later (a ring repaired around a crash).
    directory: Mapping[int, str] | None = None


@dataclass(frozen=True, slots=True)
class Start:
    """Tell: this node initiates an election."""


@dataclass(frozen=True, slots=True)
class Boot:
    """Tell: the node is linked; start its failure detector (if configured)."""


@dataclass(frozen=True, slots=True)
class Crash:
    """Tell: die now, as a crash would: close every socket abruptly, say goodbye to
    nobody, drop whatever is queued, and stop."""


@dataclass(frozen=True, slots=True)
class GetStatus:
    """Ask: returns the node's :class:`~ringleader.actors.host.NodeStatus`."""


@dataclass(frozen=True, slots=True)
class Resign:
    """Tell: if this node leads, step down at once (a ``lost`` event, reason
    ``reason``) and sit out until another leads (see ``Member.resign``); under the steady
    rules, hand over to the next (``Member.hand_over``).

    Ask, with ``to``: hand over to node ``to``; returns why it cannot (a sentence), or
    ``None`` once it has handed over."""

    to: int | None = None
    reason: str = "resigned"
    #: The node is about to stop (``Member.hand_over``).
    stopping: bool = False


@dataclass(frozen=True, slots=True)
class Pause:
    """Tell: stand still for ``seconds``, handling nothing (frames and timers wait), as
    a GC pause or ``SIGSTOP`` would stop the node."""

    seconds: float


@dataclass(frozen=True, slots=True)
class PeerDead:
    """Tell (from the transport's link monitor): the connection to ``node`` was refused,
    so its process is gone."""

    node: int
