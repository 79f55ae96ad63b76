"""An in-memory transport: frames are handed straight to the receiver's mailbox.

It moves the same signed bytes as the ZeroMQ transports, so everything above the wire
(codec, sessions, actors, algorithms) runs unchanged in fast unit tests; it is FIFO per
link because a link is only ever used from its sender's thread and a mailbox is a queue.
"""

from __future__ import annotations

import collections
import itertools
import logging
import os
import threading
import weakref
from collections.abc import Callable, Mapping

from ._errors import FrameRejected, TransportError

__all__ = ["MemoryMailbox", "MemoryNetwork"]

log = logging.getLogger(__name__)
_networks = itertools.count(1)


class MemoryMailbox:
    """A queue of frames plus an eventfd that is set whenever a frame is put in."""

    #: Nothing is refused on the way: frames are handed over as they are.
    on_reject: Callable[[FrameRejected], None] | None = None
    #: No blocking wait: the reader polls :attr:`waitable`.
    wakeable = False

    def __init__(self, address: str, network: MemoryNetwork | None = None) -> None:
        self.address = address
        self._network = network
        self._frames: collections.deque[bytes] = collections.deque()
        self._signal = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        # Closed when the mailbox is collected, not by close(): a sender that raced with
        # close() may still signal it, and must not hit a reused descriptor.
        weakref.finalize(self, os.close, self._signal)

    @property
    def waitable(self) -> int:
        return self._signal

    def wait(self, timeout_ms: int) -> bytes | None:
        raise TransportError("a memory mailbox is polled (wakeable is False)")

    def wake(self) -> None:
        raise TransportError("a memory mailbox is polled (wakeable is False)")

    def put(self, frame: bytes) -> None:
        """Any thread: queue ``frame`` and wake the reader."""
        self._frames.append(frame)
        os.eventfd_write(self._signal, 1)

    def receive(self) -> bytes | None:
        frames = self._frames
        if frames:
            return frames.popleft()
        # Clear the signal *before* looking again: a frame put after this point sets it
        # anew, so the reader can never sleep on a frame it has not seen.
        try:
            os.eventfd_read(self._signal)
        except BlockingIOError:
            log.debug("%s: signal already clear", self.address)
        return frames.popleft() if frames else None

    def sender(self) -> str | None:
        return None  # every frame comes from inside this process

    def close(self) -> None:
        if self._network is not None:
            self._network._forget(self.address)
        self._frames.clear()


class MemoryLinks:
    def __init__(self, network: MemoryNetwork, peers: Mapping[int, str]) -> None:
        self._network = network
        self._peers = dict(peers)
        self._closed = False

    def add(self, peer: int, address: str) -> None:
        self._peers[peer] = address

    def __contains__(self, peer: object) -> bool:
        return peer in self._peers

    def on_refused(self, callback: Callable[[int], None]) -> bool:
        return False  # no connections, so no refusals: no proof of death here

    def send(self, peer: int, frame: bytes, *, wait: bool = True) -> bool:
        if self._closed:
            raise TransportError("links are closed")
        mailbox = self._network._mailbox(self._peers[peer])
        if mailbox is None:
            log.debug("dropping a frame for node %s: its mailbox is closed", peer)
            return False
        mailbox.put(frame)
        return True

    def wait_ready(self, timeout: float) -> list[int]:
        return [p for p, a in self._peers.items() if self._network._mailbox(a) is None]

    def close(self, *, abrupt: bool = False) -> None:
        self._closed = True


class MemoryNetwork:
    """Mailboxes in a dictionary, addressed ``memory://<network>/<node>``."""

    scheme = "memory"

    def __init__(self) -> None:
        self._prefix = f"memory://{next(_networks)}/"
        self._lock = threading.Lock()
        self._boxes: dict[str, MemoryMailbox] = {}
        self._closed = False

    def listen(self, node: int, address: str | None) -> MemoryMailbox:
        address = address or f"{self._prefix}{node}"
        if not address.startswith("memory://"):
            raise TransportError(f"node {node}: {address!r} is not a memory:// address")
        with self._lock:
            if self._closed:
                raise TransportError("the network is closed")
            if address in self._boxes:
                raise TransportError(f"node {node}: {address} is already in use")
            mailbox = self._boxes[address] = MemoryMailbox(address, self)
        return mailbox

    def connect(self, peers: Mapping[int, str], *, node: int | None = None) -> MemoryLinks:
        if self._closed:
            raise TransportError("the network is closed")
        return MemoryLinks(self, peers)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._boxes.clear()

    def _mailbox(self, address: str) -> MemoryMailbox | None:
        with self._lock:
            return self._boxes.get(address)

    def _forget(self, address: str) -> None:
        with self._lock:
            self._boxes.pop(address, None)
