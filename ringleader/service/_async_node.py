"""A node for a service written in asyncio: :class:`AsyncNode`, a :class:`Node` whose
every wait is awaited and never holds up the event loop.

What blocks in a :class:`Node` — importing the stack below it (the first time, about half
a second), reading its config, opening its state file (an ``fsync``), binding, starting
its actor and asking it to listen and link, stopping it (a leader hands over first) —
runs in a thread of the loop's default executor (:func:`asyncio.to_thread`);
:meth:`AsyncNode.wait_for_leader` waits on the loop itself, woken by the node's
publications (:meth:`Node.watch`); and what is read at once (:meth:`AsyncNode.leadership`,
:attr:`AsyncNode.is_leader`, :attr:`AsyncNode.epoch`) never waits at all.  So this module
imports nothing but the standard library's: ``ringleader.AsyncNode(...)`` first named in
a coroutine costs the loop nothing, and the :class:`Node` is built when it starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ringleader.actors.host import NodeStatus
    from ringleader.errors import RingleaderError
    from ringleader.topologies import Config

    from ._callbacks import LeaderChange
    from ._node import Node
    from ._view import LeadershipView

__all__ = ["AsyncNode"]


def _build(config: Any, node_id: int, options: dict[str, Any]) -> Node:
    """The :class:`Node` (its module imported here: in a thread, the first time)."""
    from ._node import Node  # noqa: PLC0415 — the stack below, off the loop

    return Node(config, node_id, **options)


class AsyncNode:
    """Node ``node_id`` of ``config`` in this process, for asyncio::

        async with ringleader.AsyncNode("cluster.toml", 2) as node:
            leader = await node.wait_for_leader(10)
            async for change in node.changes():
                ...

    The keywords are :class:`Node`'s for a service (``on_elected``, ``on_lost``,
    ``on_leader_change``, ``on_failed``, ``metrics``, ``secret``, ``fresh_state``,
    ``steady``); its callbacks run on the node's callbacks thread, not on the loop: in
    the loop, follow :meth:`changes`.  :attr:`node` is the :class:`Node` itself, built
    in a thread by :meth:`start` — so a config that cannot be loaded, or an id it does
    not list, raises there, in ``async with`` — or when :attr:`node` is first read
    before that (on the caller's thread).
    """

    def __init__(
        self,
        config: Config | str | os.PathLike[str],
        node_id: int,
        *,
        on_elected: Callable[[int], object] | None = None,
        on_lost: Callable[[int, str], object] | None = None,
        on_leader_change: Callable[[int | None, int], object] | None = None,
        on_failed: Callable[[RingleaderError], object] | None = None,
        metrics: str | None = None,
        secret: bytes | None = None,
        fresh_state: bool = False,
        steady: bool = True,
    ) -> None:
        self.id = node_id
        self._config = config
        self._options: dict[str, Any] = {
            "on_elected": on_elected,
            "on_lost": on_lost,
            "on_leader_change": on_leader_change,
            "on_failed": on_failed,
            "metrics": metrics,
            "secret": secret,
            "fresh_state": fresh_state,
            "steady": steady,
        }
        self._node: Node | None = None
        self._stopped = False  # stopped before it was built: its start says so, as Node's

    @property
    def node(self) -> Node:
        """The :class:`Node` itself (built here, on this thread, if :meth:`start` has not
        built it yet)."""
        if self._node is None:
            self._node = _build(self._config, self.id, self._options)
        return self._node

    def _built_and_started(self) -> Node:
        """Build the node unless built, and start it (in a thread of the loop's)."""
        node = self.node
        if self._stopped:
            node.stop()  # as if it had been built: its start raises what Node's does
        return node.start()

    # -- running ----------------------------------------------------------------------------

    async def start(self) -> AsyncNode:
        """:meth:`Node.start` in a thread: bind, link, join the election; returns the node
        (the leader comes later: :meth:`wait_for_leader`).  Cancelled (a timeout, Ctrl-C),
        it stops the node it was starting, so that nothing is left bound or running: the
        thread cannot be interrupted, so the node is stopped once that thread is done."""
        starting = asyncio.ensure_future(asyncio.to_thread(self._built_and_started))
        try:
            await asyncio.shield(starting)
        except asyncio.CancelledError:
            await asyncio.shield(self._undo(starting))
            raise
        return self

    async def _undo(self, starting: asyncio.Future[Node]) -> None:
        """Stop the node once ``starting`` (its start, in a thread) is done, whatever it
        did (an error of its own is the caller's no more: it cancelled)."""
        with contextlib.suppress(Exception):
            await starting
        if self._node is not None:
            await asyncio.to_thread(self._node.stop)

    async def stop(self) -> None:
        """:meth:`Node.stop` in a thread (a leader hands over first); safe twice.  Shielded:
        a stop that was asked for finishes, even if the task awaiting it is cancelled."""
        if self._node is None:  # never built: nothing to stop, nor to start after this
            self._stopped = True
            return
        await asyncio.shield(asyncio.to_thread(self._node.stop))

    async def __aenter__(self) -> AsyncNode:
        return await self.start()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- waiting, on the loop ------------------------------------------------------------

    async def wait_for_leader(self, timeout: float | None = None) -> int:
        """The leader's id once this node knows one (itself: once its lease is granted),
        waiting up to ``timeout`` s (``None``: for ever) without holding up the loop.
        Raises :class:`TimeoutError`, or as :meth:`Node.wait_for_leader` does."""
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()

        def wake() -> None:  # on the node's threads
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(changed.set)

        unwatch = self.node.watch(wake)
        try:
            async with asyncio.timeout(timeout):
                while (leader := self.node.known_leader()) is None:
                    await changed.wait()
                    changed.clear()
                return leader
        except TimeoutError:
            raise TimeoutError(f"node {self.id}: no leader within {timeout} s") from None
        finally:
            unwatch()

    def changes(self) -> AsyncIterator[LeaderChange]:
        """Each change this node sees, in order (:meth:`Node.changes`): ``async for``."""
        return self.node.changes()

    async def resign(self, to: int | None = None, *, timeout: float = 10.0) -> None:
        """:meth:`Node.resign`, its answer awaited in a thread."""
        await asyncio.to_thread(self.node.resign, to, timeout=timeout)

    async def status(self, timeout: float = 10.0) -> NodeStatus:
        """:meth:`Node.status`, asked of the actor in a thread."""
        return await asyncio.to_thread(self.node.status, timeout)

    # -- reading at once ---------------------------------------------------------------------

    def leadership(self) -> LeadershipView:
        """Leader, epoch, lease end and is-leader, read at once (:meth:`Node.leadership`)."""
        return self.node.leadership()

    @property
    def is_leader(self) -> bool:
        """Whether this node leads at this instant (:attr:`Node.is_leader`)."""
        return self.node.is_leader

    @property
    def leader(self) -> int | None:
        """The node this one believes leads (:attr:`Node.leader`)."""
        return self.node.leader

    @property
    def epoch(self) -> int:
        """The epoch this node knows, the fencing token (:attr:`Node.epoch`)."""
        return self.node.epoch

    @property
    def running(self) -> bool:
        """Between :meth:`start` and :meth:`stop` (:attr:`Node.running`)."""
        return self._node is not None and self._node.running

    @property
    def failure(self) -> RingleaderError | None:
        """Why the node stopped by itself, if it did (:attr:`Node.failure`)."""
        return None if self._node is None else self._node.failure

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """``(host, port)`` the metrics are served on (:attr:`Node.metrics_address`)."""
        return self.node.metrics_address
