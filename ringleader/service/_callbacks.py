"""A node's callbacks thread: the service's callbacks and :meth:`Node.changes`'s
consumers, told every change in the order it happened.

The node's actor hands each leadership event to :meth:`Callbacks.put` and never waits;
this thread turns the events into the service's view — ``on_leader_change``,
``on_elected``, ``on_lost``, ``on_failed`` — one at a time, so that a slow callback delays later
callbacks but never the election, and hands each :class:`LeaderChange` to every asyncio
consumer on its own event loop.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ringleader.actors.host import NodeEvent, leave_signals_to_main

if TYPE_CHECKING:  # imported when used: only a service in asyncio asks for changes()
    import asyncio

__all__ = ["FAILED", "STOPPED", "Callbacks", "LeaderChange"]

#: A failed callback is logged where the docs say (docs/tutorials/service.md).
log = logging.getLogger("ringleader.service._node")

ELECTED, LOST, LEADER = "elected", "lost", "leader"
#: ``on_lost``'s reason when the service stops a node that leads.
STOPPED = "stopped"
#: ``on_lost``'s reason when a leader stopped by itself: it could not keep its state.
FAILED = "failed"


@dataclass(frozen=True, slots=True)
class LeaderChange:
    """One change a node saw, as :meth:`Node.changes` yields it.

    ``kind`` is ``"leader"`` (its view of the leader changed: ``leader`` is the new one,
    ``None`` while an election is under way), ``"elected"`` (this node now leads epoch
    ``epoch``), ``"lost"`` (it no longer leads epoch ``epoch``; ``reason`` says why) or
    ``"failed"`` (it stopped by itself, leader or not: ``reason`` is the error, one line;
    the last change before the iteration ends).  ``is_leader`` is whether this node leads
    just after the change.
    """

    kind: str
    leader: int | None
    epoch: int
    is_leader: bool
    reason: str = ""


_Consumer = tuple["asyncio.AbstractEventLoop", "asyncio.Queue[Any]"]


class Callbacks:
    """Node ``node``'s callbacks, run on a thread of their own (see the module).

    ``leads_at_lease``: with a lease, a node leads (``on_elected``) once its followers
    have acknowledged it, from its ``"lease"`` event, not from its change of state.
    """

    def __init__(
        self,
        node: int,
        *,
        on_elected: Callable[[int], object] | None,
        on_lost: Callable[[int, str], object] | None,
        on_leader_change: Callable[[int | None, int], object] | None,
        leads_at_lease: bool,
        on_failed: Callable[[str], object] | None = None,
    ) -> None:
        self.node = node
        self._on_elected = on_elected
        self._on_lost = on_lost
        self._on_leader_change = on_leader_change
        self._on_failed = on_failed
        self._leads_at_lease = leads_at_lease
        self._events: queue.SimpleQueue[NodeEvent | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        #: The thread, kept after it ends: a stop called from a callback knows it.
        self.thread: threading.Thread | None = None
        self._lock = threading.Lock()  # the consumers, and what they were last told
        self._consumers: list[_Consumer] = []
        self._ended = False  # no more changes: consumers end at once
        self._seen: tuple[int | None, int] | None = None  # (leader, epoch) last told
        self._leading: int | None = None  # the epoch this node was last told it leads

    def start(self) -> None:
        self._thread = self.thread = threading.Thread(
            target=self._run, name=f"ringleader-node-{self.node}-callbacks", daemon=True
        )
        self._thread.start()

    def put(self, event: NodeEvent) -> None:
        """An event from the node's actor (never waits)."""
        self._events.put(event)

    def stop(self, timeout: float) -> None:
        """Run the callbacks still waiting, then ``on_lost(epoch, "stopped")`` if the node
        led, and end the thread (waiting up to ``timeout`` s, unless called on it)."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._events.put(None)
        if thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("node %s: a callback still runs after %s s", self.node, timeout)

    # -- asyncio ----------------------------------------------------------------------------

    async def changes(self) -> AsyncIterator[LeaderChange]:
        """Each change, in order, in the running event loop (see :meth:`Node.changes`)."""
        import asyncio  # noqa: PLC0415 -- only a service in asyncio asks

        loop = asyncio.get_running_loop()
        changes: asyncio.Queue[LeaderChange | None] = asyncio.Queue()
        consumer = (loop, changes)
        with self._lock:
            if self._ended:
                return
            if self._seen is not None:
                leader, epoch = self._seen
                changes.put_nowait(LeaderChange(LEADER, leader, epoch, leader == self.node))
            self._consumers.append(consumer)
        try:
            while (change := await changes.get()) is not None:
                yield change
        finally:
            with self._lock:
                if consumer in self._consumers:
                    self._consumers.remove(consumer)

    def end_changes(self) -> None:
        """The node stopped: every consumer's iteration ends."""
        with self._lock:
            self._ended = True
            consumers, self._consumers = self._consumers, []
            for consumer in consumers:
                self._hand(consumer, None)

    # -- the thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        """Each event's callbacks, in order, until stopped.  It leaves SIGINT and SIGTERM
        to the main thread: a Ctrl-C handed to it (as the kernel may do after a SIGCONT)
        would wait for a main thread blocked in :meth:`Node.wait_for_leader` without a
        timeout, for ever."""
        leave_signals_to_main()
        while (event := self._events.get()) is not None:
            if event.kind == "failed":
                if self._leading is not None:
                    self._lost(self._leading, FAILED)
                self._tell(LeaderChange(FAILED, None, event.epoch, False, event.detail))
                self.end_changes()  # it acts on nothing more
                self._call(self._on_failed, event.detail)
                continue
            if event.kind == "lost":
                if self._leading == event.epoch:  # not an epoch it never held a lease in
                    self._lost(event.epoch, event.detail)
                continue
            leader = None if event.state == "undecided" else event.elected
            if event.kind == "state" and (leader, event.epoch) != self._seen:
                mine = leader == self.node and not self._leads_at_lease  # else at its lease
                self._tell(LeaderChange(LEADER, leader, event.epoch, mine))
                self._call(self._on_leader_change, leader, event.epoch)
            leads = event.kind == ("lease" if self._leads_at_lease else "state")
            if leads and event.state == "leader" and self._leading != event.epoch:
                self._leading = event.epoch
                self._tell(LeaderChange(ELECTED, self.node, event.epoch, True))
                self._call(self._on_elected, event.epoch)
        if self._leading is not None:
            self._lost(self._leading, STOPPED)

    def _lost(self, epoch: int, reason: str) -> None:
        self._leading = None
        leader = None if self._seen is None else self._seen[0]
        self._tell(LeaderChange(LOST, leader, epoch, False, reason))
        self._call(self._on_lost, epoch, reason)

    def _call(self, callback: Callable[..., object] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except BaseException:  # SystemExit too: it would end this thread, and every callback
            log.exception("node %s: callback %r failed; the node carries on", self.node, callback)

    def _tell(self, change: LeaderChange) -> None:
        with self._lock:
            if change.kind == LEADER:
                self._seen = (change.leader, change.epoch)
            for consumer in list(self._consumers):
                self._hand(consumer, change)

    def _hand(self, consumer: _Consumer, change: LeaderChange | None) -> None:
        loop, changes = consumer
        try:
            loop.call_soon_threadsafe(changes.put_nowait, change)
        except RuntimeError:  # its loop is closed: nobody reads it any more
            if consumer in self._consumers:
                self._consumers.remove(consumer)
