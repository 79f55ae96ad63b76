"""A Pykka actor inbox that also waits on the node's mailbox.

A node's actor thread is the only thread that reads its mailbox.  Instead of a receiver
thread that hands each frame to the actor (a second thread wake-up per hop), the actor's
own inbox waits on two things at once: an eventfd that Pykka ``tell``/``ask`` signal, and
the mailbox (a ZeroMQ PULL socket, or the memory transport's eventfd).  ``zmq_poll`` is
given exactly these two items, so a wake-up costs the same whether the process hosts ten
nodes or a thousand, and a frame reaches the handler with one wake-up: the receiving
actor's.

A ZeroMQ mailbox that can be woken (every one but CURVE's) is read more cheaply still:
the actor blocks in one ``recv`` on it, and :meth:`Inbox.put` wakes it by sending the
mailbox an empty frame over inproc (:meth:`~ringleader.transport.ZmqMailbox.wake`).  A blocking
``recv`` returns with the frame in hand; ``zmq_poll`` on two items, then ``recv``, took
a quarter more per hop.

Control messages (``Start``, ``GetStatus``, Pykka's stop …) are served before frames, so
a flooded mailbox cannot keep a node from stopping.  Frames come out of :meth:`Inbox.get` as
envelopes whose ``message`` is the raw ``bytes``.

The inbox also keeps the actor's timers: :meth:`Inbox.schedule` a name, and when its moment
comes :meth:`Inbox.get` returns an envelope whose ``message`` is a :class:`TimerFired`.  The
wait in ``zmq_poll`` simply ends at the next deadline, so timers cost no thread.  A timer
set again for later (the failure detector's, on every message from a peer it watches)
only has its deadline changed: the heap keeps its earlier entry, which, when it comes
up, is put back at the new deadline.
"""

from __future__ import annotations

import collections
import heapq
import itertools
import os
import time
import weakref
from dataclasses import dataclass
from typing import Any

import zmq

from ringleader.transport import Mailbox

__all__ = ["Inbox", "TimerFired"]

#: zmq_poll takes a C int of milliseconds: longer waits are cut and simply resumed.
_MAX_WAIT_MS = 2**31 - 1
#: A year: far beyond any election, short enough for every clock and poll.
_MAX_DELAY = 365 * 24 * 3600.0


@dataclass(frozen=True, slots=True)
class TimerFired:
    """The message an actor receives when a timer it scheduled is due."""

    name: str


class _Envelope:
    """What Pykka's actor loop reads from an inbox: ``message`` and ``reply_to``.

    Pykka's loop is done with an envelope before it asks for the next one, so an inbox
    hands out the same envelope for every frame and timer, its ``message`` replaced:
    one object fewer made per hop."""

    __slots__ = ("message",)
    reply_to = None

    def __init__(self, message: bytes | TimerFired | None = None) -> None:
        self.message = message


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
        self._blocking: Mailbox | None = None  # the mailbox, if it can be waited on and woken
        self._envelope = _Envelope()  # handed out again for every frame and timer
        # Each pending timer's deadline, and a heap with an entry at or before it for
        # each (older entries, of timers cancelled, fired or set later, are skipped).
        self._deadlines: dict[str, float] = {}
        self._timers: list[tuple[float, int, str]] = []  # (deadline, order, name)
        self._order = itertools.count()

    # -- Pykka's side -------------------------------------------------------------------

    def put(self, envelope: Any, block: bool = True, timeout: float | None = None) -> None:
        self._control.append(envelope)
        os.eventfd_write(self._wake, 1)
        blocking = self._blocking  # read once: the actor may detach it meanwhile
        if blocking is not None:
            blocking.wake()

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        control = self._control
        while True:
            if control:
                return control.popleft()
            wait_ms: int | None = None
            if self._timers:
                fired, wait_ms = self._due()
                if fired is not None:
                    return self._handing(fired)
            blocking = self._blocking
            if blocking is not None:
                # put() appends, then wakes: a control message that came after the look
                # above has its wake-up queued in the mailbox, and this recv returns.
                frame = blocking.wait(-1 if wait_ms is None else wait_ms)
                if frame is not None:
                    return self._handing(frame)
                continue
            mailbox = self._mailbox
            if mailbox is not None:
                frame = mailbox.receive()
                if frame is not None:
                    return self._handing(frame)
            for target, _ in self._poller.poll(wait_ms):
                if target == self._wake:
                    # Only this thread reads, and poll saw it set: this cannot block.
                    os.eventfd_read(self._wake)

    def _handing(self, message: bytes | TimerFired) -> _Envelope:
        envelope = self._envelope
        envelope.message = message
        return envelope

    def empty(self) -> bool:
        return not self._control

    # -- the node's side ------------------------------------------------------------------

    def attach(self, mailbox: Mailbox) -> None:
        """Wait on ``mailbox`` too, from now on."""
        self.detach()
        self._mailbox = mailbox
        if mailbox.wakeable:
            self._blocking = mailbox
        else:
            self._poller.register(mailbox.waitable, zmq.POLLIN)

    def schedule(self, name: str, delay: float) -> None:
        """Fire ``name`` after ``delay`` s, replacing a pending timer of that name.

        ``delay`` must be a finite number of seconds (a ``ValueError`` otherwise, raised
        here, in the handler's guarded call, never later in :meth:`Inbox.get`).
        """
        if not 0 <= delay < _MAX_DELAY:
            raise ValueError(f"timer {name!r}: {delay!r} is not a delay in [0, {_MAX_DELAY:g}) s")
        deadline = time.monotonic() + delay
        pending = self._deadlines.get(name)
        self._deadlines[name] = deadline
        if pending is None or deadline < pending:  # else its entry comes first: moved then
            heapq.heappush(self._timers, (deadline, next(self._order), name))

    def cancel(self, name: str) -> None:
        """Forget the pending timer ``name``, if any."""
        self._deadlines.pop(name, None)

    @property
    def timers(self) -> int:
        """How many timers are pending."""
        return len(self._deadlines)

    def _due(self) -> tuple[TimerFired | None, int | None]:
        """The timer due now, if any; else how long to wait for the next one (ms)."""
        timers, deadlines = self._timers, self._deadlines
        now = time.monotonic()
        while timers:
            deadline, _, name = timers[0]
            current = deadlines.get(name)
            if current != deadline:  # cancelled, fired, or set again
                heapq.heappop(timers)
                if current is not None and current > deadline:  # set for later: move it
                    heapq.heappush(timers, (current, next(self._order), name))
                continue
            if deadline <= now:
                heapq.heappop(timers)
                del deadlines[name]  # consumed: never fires again
                return TimerFired(name), None
            return None, min(_MAX_WAIT_MS, max(1, int((deadline - now) * 1000) + 1))
        return None, None

    def detach(self) -> None:
        """Stop waiting on the mailbox (before it is closed)."""
        if self._blocking is not None:
            self._blocking = None
        elif self._mailbox is not None:
            self._poller.unregister(self._mailbox.waitable)
        self._mailbox = None
