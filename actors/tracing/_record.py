"""Recording a run's events as they happen: :class:`NodeTrace`, one per node life.

The format the records become is ``_writer.py``'s; the whole trace format is told in
this package's docs (:mod:`ringleader.actors.tracing`).
"""

from __future__ import annotations

import heapq
import itertools
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ringleader.actors.core import Message

__all__ = ["EVENTS", "NodeTrace", "Record", "TraceClock", "merge_runs"]

EVENTS = (
    "send",
    "receive",
    "timer",
    "state",
    "suspect",
    "crash",
    "restart",
    # what a misbehaving network did (``[[faults]]``, the explorer)
    "partition",
    "heal",
    "pause",
    "resume",
    # a membership change an operator asked a node for, and its answer (the service
    # explorer's runs), and each node's configuration as it changed (as ``ringleader
    # node``'s own lines say it)
    "change",
    "configuration",
    "removed",
    # a check of every state broken (:mod:`ringleader.actors.checks`): when, by whom
    "violation",
    # the first line of a trace: what ran (see ``_writer.py``); never recorded
    "header",
)

#: A recorded event: ``(t, order, node, event, *details)``; see :class:`NodeTrace`.
Record = tuple[Any, ...]


class TraceClock:
    """Where a run's recorded events get their time and their order.

    ``now`` is the host's clock (the monotonic clock, or the simulator's virtual one).
    ``order`` breaks ties between events recorded at the same time (one counter per run).
    """

    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now
        self.order = itertools.count()


#: A node id that no node has (the operator's): "no leader" in a recorded state.
_NOBODY = -(2**63)
_EVENT_CODES = {name: code for code, name in enumerate(EVENTS)}
_SEND, _RECEIVE = _EVENT_CODES["send"], _EVENT_CODES["receive"]
_WIDTH = 6  # numbers packed per event


class _Network:
    """A send as a misbehaving network treated it: lost (and why), or a copy."""

    __slots__ = ("extra", "message")

    def __init__(self, message: Message, extra: tuple[str, ...]) -> None:
        self.message = message
        self.extra = extra


class NodeTrace:
    """One node's events as they happen; recorded by the node's thread only.

    Kept in three flat columns rather than as a tuple per event: a long run records a
    million events, and a million tuples kept alive make the garbage collector walk them
    again and again.  Each event appends once to each column: its time to an array of
    floats, its message (timer name, state) to a list, and six numbers, packed, to an
    array of integers (its order in the run, event code, peer, epoch, and a message's
    sender incarnation and sequence number).  :attr:`events` gives them back as records.
    """

    __slots__ = ("_ints", "_lost", "_now", "_obj", "_order", "_t", "node")

    def __init__(self, node: int, clock: TraceClock) -> None:
        self.node = node
        self._now = clock.now
        self._order = clock.order
        self._t = array("d")
        self._obj: list[Any] = []  # the message, the timer's name, the state
        self._ints = array("q")  # _WIDTH per event: order, code, peer, epoch, inc, seq
        self._lost = 0  # sends a misbehaving network lost (numbered -1, -2 …)

    def __len__(self) -> int:
        # The column each event writes last, in one call: another thread reading this
        # many finds every column of every one of them written.
        return len(self._ints) // _WIDTH

    def _record(
        self,
        event: str,
        *,
        peer: int = 0,
        obj: Any = None,
        epoch: int = 0,
    ) -> None:
        self._t.append(self._now())
        self._obj.append(obj)
        self._ints.extend((next(self._order), _EVENT_CODES[event], peer, epoch, 0, 0))

    def now(self) -> tuple[float, int]:
        """The moment of an event still to be recorded (a send, once it has left)."""
        return self._now(), next(self._order)

    def send(
        self,
        peer: int,
        message: Message,
        epoch: int,
        *,
        incarnation: int,
        seq: int,
        at: tuple[float, int],
    ) -> None:
        """``message`` left for ``peer`` (this node's ``incarnation``, its ``seq``-th frame
        to ``peer``) at ``at``, taken with :meth:`now` before it left, so that its
        receive, recorded by another thread, never comes first."""
        self._t.append(at[0])
        self._obj.append(message)
        self._ints.extend((at[1], _SEND, peer, epoch, incarnation, seq))

    def receive(
        self, peer: int, message: Message, epoch: int, *, incarnation: int, seq: int
    ) -> None:
        """``message`` came from ``peer`` (its ``incarnation``, its ``seq``-th frame here)."""
        self.received(peer, message, epoch, incarnation, seq)

    def received(self, peer: int, message: Message, epoch: int, incarnation: int, seq: int) -> None:
        """:meth:`receive` with every argument positional (the node's hot path)."""
        self._t.append(self._now())
        self._obj.append(message)
        self._ints.extend((next(self._order), _RECEIVE, peer, epoch, incarnation, seq))

    def sent(  # noqa: PLR0917 -- the hot path: positional, one append per column
        self,
        at: tuple[float, int],
        peer: int,
        message: Message,
        epoch: int,
        incarnation: int,
        seq: int,
    ) -> None:
        """:meth:`send` with every argument positional (the node's hot path)."""
        self._t.append(at[0])
        self._obj.append(message)
        self._ints.extend((at[1], _SEND, peer, epoch, incarnation, seq))

    def lost(
        self, at: tuple[float, int], peer: int, message: Message, epoch: int, why: str
    ) -> None:
        """``message`` for ``peer`` was lost by a misbehaving network, ``why`` in words
        (it never left: it has no sequence number, and no receive will match it)."""
        self._lost += 1
        self._t.append(at[0])
        self._obj.append(_Network(message, ("lost", why)))
        self._ints.extend((at[1], _SEND, peer, epoch, 0, -self._lost))

    def mark_copy(self, recorded: int) -> None:
        """The send recorded as event number ``recorded`` (``len(self)`` before it) was
        a copy a misbehaving network made of a message."""
        if recorded < len(self) and EVENTS[self._ints[recorded * _WIDTH + 1]] == "send":
            self._obj[recorded] = _Network(self._obj[recorded], ("duplicate",))

    def pause(self, seconds: float) -> None:
        """This node stands still for ``seconds`` (a pause in ``[[faults]]``)."""
        self._record("pause", obj=seconds)

    def resume(self) -> None:
        self._record("resume")

    def timer(self, name: str) -> None:
        self._record("timer", obj=name)

    def state(
        self,
        state: str,
        elected: int | None,
        epoch: int,
        variables: dict[str, Any] | None = None,
    ) -> None:
        """The node's state changed; ``variables``: its election's own (its
        :meth:`~ringleader.actors.Election.variables`), if known."""
        obj = state if variables is None else (state, variables)
        self._record("state", peer=_NOBODY if elected is None else elected, obj=obj, epoch=epoch)

    def suspect(self, peer: int, epoch: int) -> None:
        self._record("suspect", peer=peer, epoch=epoch)

    def crash(self) -> None:
        self._record("crash")

    def restart(self) -> None:
        self._record("restart")

    @property
    def events(self) -> list[Record]:
        """Every event recorded so far, as records."""
        return self.records(0, len(self))

    def records(self, start: int, end: int) -> list[Record]:
        """Events ``start`` to ``end`` (recorded so far) as records: ``(t, order, node,
        event, *details)``, messages keyed by their wire key."""
        node, ints = self.node, self._ints
        out: list[Record] = []
        for k in range(start, end):
            order, code, peer, epoch, inc, seq = ints[k * _WIDTH : (k + 1) * _WIDTH]
            event, t, obj = EVENTS[code], self._t[k], self._obj[k]
            if event == "send":
                key = (node, inc, peer, seq)
                if type(obj) is _Network:
                    out.append((t, order, node, event, peer, obj.message, epoch, key, *obj.extra))
                else:
                    out.append((t, order, node, event, peer, obj, epoch, key))
            elif event == "receive":
                key = (peer, inc, node, seq)
                out.append((t, order, node, event, peer, obj, epoch, key))
            elif event == "timer":
                out.append((t, order, node, event, obj))
            elif event == "state":
                elected = None if peer == _NOBODY else peer
                if type(obj) is tuple:  # the state and the election's variables
                    out.append((t, order, node, event, obj[0], elected, epoch, obj[1]))
                else:
                    out.append((t, order, node, event, obj, elected, epoch))
            elif event == "suspect":
                out.append((t, order, node, event, peer, epoch))
            elif event == "pause":
                out.append((t, order, node, event, obj))
            else:
                out.append((t, order, node, event))
        return out


def merge_runs(traces: Iterable[list[Record]]) -> Iterator[Record]:
    """The events of several nodes' traces in the order they happened."""
    return heapq.merge(*traces, key=lambda record: (record[0], record[1]))
