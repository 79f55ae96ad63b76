"""What every transport provides: a mailbox per node and one-way links out of it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

import zmq

from ._errors import FrameRejected

__all__ = ["Links", "Mailbox", "Network"]


class Mailbox(Protocol):
    """One node's inbound end, read only by the thread that opened it.

    The node's :class:`~ringleader.actors.host.Inbox` either blocks in :meth:`wait`
    (where :attr:`wakeable`: one ``recv``, ended early by :meth:`wake`), or waits on
    :attr:`waitable` (a ZeroMQ socket or a file descriptor, as :class:`zmq.Poller`
    accepts) and calls :meth:`receive` until it returns ``None``.
    """

    address: str
    #: Called with each frame the transport itself refuses before the node sees it (under
    #: CURVE: a frame whose claimed sender is not the key its connection proved); set by
    #: the node.  Transports that refuse nothing never call it.
    on_reject: Callable[[FrameRejected], None] | None

    @property
    def wakeable(self) -> bool:
        """Whether :meth:`wait` and :meth:`wake` may be used instead of :attr:`waitable`."""
        ...

    def wait(self, timeout_ms: int) -> bytes | None:
        """Where :attr:`wakeable`: block for the next frame, up to ``timeout_ms`` (-1: for
        ever); ``None`` when the time is up or :meth:`wake` was called."""
        ...

    def wake(self) -> None:
        """Any thread: end a :meth:`wait` in progress (or the next one) at once."""
        ...

    @property
    def waitable(self) -> zmq.Socket[bytes] | int:
        """What to wait on for frames: readable when :meth:`receive` may return one."""
        ...

    def receive(self) -> bytes | None:
        """The next frame, or ``None`` at once if there is none."""
        ...

    def sender(self) -> str | None:
        """Where the frame :meth:`receive` returned last came from, as the transport
        knows it (an IP address over tcp, the sending process over ipc); ``None`` where
        it does not say (inproc, memory)."""
        ...

    def close(self) -> None:
        """Close the mailbox; frames still queued in it are dropped."""
        ...


class Links(Protocol):
    """One node's outgoing links, one per out-neighbour.

    A ``Links`` belongs to the thread that created it (the node's actor thread): sending
    and closing happen there and nowhere else.
    """

    def send(self, peer: int, frame: bytes, *, wait: bool = True) -> bool:
        """Queue ``frame`` for ``peer``; ``False`` if it was dropped (dead or full peer).

        With ``wait`` false, never block: drop the frame at once if it cannot be queued.
        """
        ...

    def add(self, peer: int, address: str) -> None:
        """Link to one more peer, at ``address`` (replacing a link to it, if any)."""
        ...

    def __contains__(self, peer: object) -> bool:
        """Whether there is a link to ``peer``."""
        ...

    def on_refused(self, callback: Callable[[int], None]) -> bool:
        """Call ``callback(peer)`` (from another thread) when a link's connection is lost
        and refused: proof that the peer's process is gone.  For this and every later
        link; ``False`` where the transport can give no such proof (inproc, memory)."""
        ...

    def wait_ready(self, timeout: float) -> list[int]:
        """Wait up to ``timeout`` s for every link to connect; return the peers that did not."""
        ...

    def close(self, *, abrupt: bool = False) -> None:
        """Close every link; ``abrupt`` drops what is still queued, as a crash would."""
        ...


class Network(Protocol):
    """A transport: binds mailboxes and makes links between them.

    :meth:`listen` and :meth:`connect` return objects owned by the calling thread (a
    node's actor thread); :meth:`close` is called once every node has closed its own.
    """

    scheme: str

    def listen(self, node: int, address: str | None) -> Mailbox:
        """Open ``node``'s mailbox at ``address`` (or a free one)."""
        ...

    def connect(self, peers: Mapping[int, str], *, node: int | None = None) -> Links:
        """Make links from ``node`` to ``peers`` (node id → mailbox address), for the
        calling thread.  (``node`` picks the key pair where links are authenticated.)"""
        ...

    def close(self) -> None:
        """Release the network once its mailboxes and links are closed; idempotent."""
        ...
