"""A Pykka actor inbox that also waits on the node's mailbox.

A node's actor thread is the only thread that reads its mailbox.  Instead of a receiver
thread that hands each frame to the actor (a second thread wake-up per hop), the actor's
own inbox waits on two things at once: an eventfd that Pykka ``tell``/``ask`` signal, and
the mailbox (a ZeroMQ PULL socket, or the memory transport's eventfd).  ``zmq_poll`` is
given exactly these two items, so a wake-up costs the same whether the process hosts ten
nodes or a thousand, and a frame reaches the handler with one wake-up: the receiving
actor's.

Control messages (``Start``, ``GetStatus``, Pykka's stop …) are served before frames, so
a flooded mailbox cannot keep a node from stopping.  Frames come out of :meth:`get` as
envelopes whose ``message`` is the raw ``bytes``.
"""

from __future__ import annotations

import collections
import os
import weakref
from typing import Any

import zmq

from ._base import Mailbox

__all__ = ["Inbox"]


class _FrameEnvelope:
    """What Pykka's actor loop reads from an inbox: ``message`` and ``reply_to``."""

    __slots__ = ("message",)
    reply_to = None

    def __init__(self, frame: bytes) -> None:
        self.message = frame


class Inbox:
    """Pykka's inbox interface (``put``, ``get``, ``empty``) over control messages and a mailbox.

    ``put`` may be called from any thread; ``get``, :meth:`attach` and :meth:`detach`
    only from the actor's own thread.
    """

    def __init__(self) -> None:
        self._control: collections.deque[Any] = collections.deque()
        self._wake = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        # Closed when the inbox is collected, not when the actor stops: a ``tell`` that
        # raced with the stop may still signal it, and must not hit a reused descriptor.
        weakref.finalize(self, os.close, self._wake)
        self._poller = zmq.Poller()
        self._poller.register(self._wake, zmq.POLLIN)
        self._mailbox: Mailbox | None = None

    # -- Pykka's side -------------------------------------------------------------------

    def put(self, envelope: Any, block: bool = True, timeout: float | None = None) -> None:
        self._control.append(envelope)
        os.eventfd_write(self._wake, 1)

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        control = self._control
        while True:
            if control:
                return control.popleft()
            mailbox = self._mailbox
            if mailbox is not None:
                frame = mailbox.receive()
                if frame is not None:
                    return _FrameEnvelope(frame)
            for target, _ in self._poller.poll():
                if target == self._wake:
                    # Only this thread reads, and poll saw it set: this cannot block.
                    os.eventfd_read(self._wake)

    def empty(self) -> bool:
        return not self._control

    # -- the node's side ------------------------------------------------------------------

    def attach(self, mailbox: Mailbox) -> None:
        """Wait on ``mailbox`` too, from now on."""
        self.detach()
        self._mailbox = mailbox
        self._poller.register(mailbox.waitable, zmq.POLLIN)

    def detach(self) -> None:
        """Stop waiting on the mailbox (before it is closed)."""
        if self._mailbox is not None:
            self._poller.unregister(self._mailbox.waitable)
            self._mailbox = None
