"""Traces: every event of a run, as JSON lines, in the order they happened.

A host records what each node does as it happens — cheaply, one append per column, on the
node's own thread (:class:`NodeTrace`) — and writes the run's events once it is over
(:func:`write_trace`): in the order they happened, messages numbered, each event stamped
with its node's Lamport clock and (up to :data:`VECTOR_LIMIT` nodes) its vector clock,
counted over the events the trace shows.  One object per line::

    {"event":"send","t":0.000412,"node":4,"peer":9,"kind":"election","epoch":1,
     "fields":{"candidate":{"capacity":4,"id":4}},"msg":1,"lamport":1,"vc":{"4":1}}

``event`` is one of :data:`EVENTS`.  Every event has ``t`` (seconds since the run
began; virtual seconds in the simulator) and ``node``.  ``send``/``receive`` also have
``peer`` (the other end), ``kind`` (the notes' name), ``epoch``, ``fields``, ``msg`` (the
number a send shares with its receive), ``lamport`` and ``vc``; ``timer`` has ``timer``
(its name); ``state`` has ``state``, ``elected`` and ``epoch``; ``suspect`` has ``peer``
and ``epoch``.  The failure detector's traffic and timers carry ``"heartbeat": true`` and
are left out unless asked for.

A node's *part* (``ringleader node --trace``: one node's events, alone in its process)
has absolute ``t`` (wall-clock seconds) and names each message by its wire key —
``"sender:incarnation:receiver:sequence"``, which both ends know — and its clocks count
its own events only; :func:`merge_parts` joins parts into one trace.
"""

from __future__ import annotations

import enum
import heapq
import itertools
import json
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from ._detector import DETECTOR_KINDS
from ._message import Message

__all__ = [
    "EVENTS",
    "VECTOR_LIMIT",
    "NodeTrace",
    "Record",
    "TraceClock",
    "TraceWriter",
    "merge_parts",
    "merge_runs",
    "read_trace",
    "trace_events",
    "write_trace",
]

EVENTS = ("send", "receive", "timer", "state", "suspect", "crash", "restart")
#: Above this many nodes events carry no vector clock (it would hold one entry per node).
VECTOR_LIMIT = 64

#: A recorded event: ``(t, order, node, event, *details)``; see :class:`NodeTrace`.
Record = tuple[Any, ...]
Event = dict[str, Any]


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


class NodeTrace:
    """One node's events as they happen; recorded by the node's thread only.

    Kept in three flat columns rather than as a tuple per event: a long run records a
    million events, and a million tuples kept alive make the garbage collector walk them
    again and again.  Each event appends once to each column: its time to an array of
    floats, its message (timer name, state) to a list, and six numbers, packed, to an
    array of integers (its order in the run, event code, peer, epoch, and a message's
    sender incarnation and sequence number).  :attr:`events` gives them back as records.
    """

    __slots__ = ("_ints", "_now", "_obj", "_order", "_t", "node")

    def __init__(self, node: int, clock: TraceClock) -> None:
        self.node = node
        self._now = clock.now
        self._order = clock.order
        self._t = array("d")
        self._obj: list[Any] = []  # the message, the timer's name, the state
        self._ints = array("q")  # _WIDTH per event: order, code, peer, epoch, inc, seq

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

    def timer(self, name: str) -> None:
        self._record("timer", obj=name)

    def state(self, state: str, elected: int | None, epoch: int) -> None:
        self._record("state", peer=_NOBODY if elected is None else elected, obj=state, epoch=epoch)

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
                out.append((t, order, node, event, peer, obj, epoch, key))
            elif event == "receive":
                key = (peer, inc, node, seq)
                out.append((t, order, node, event, peer, obj, epoch, key))
            elif event == "timer":
                out.append((t, order, node, event, obj))
            elif event == "state":
                elected = None if peer == _NOBODY else peer
                out.append((t, order, node, event, obj, elected, epoch))
            elif event == "suspect":
                out.append((t, order, node, event, peer, epoch))
            else:
                out.append((t, order, node, event))
        return out


def merge_runs(traces: Iterable[list[Record]]) -> Iterator[Record]:
    """The events of several nodes' traces in the order they happened."""
    return heapq.merge(*traces, key=lambda record: (record[0], record[1]))


def _jsonable(value: Any) -> Any:
    """A message field as JSON: candidates as objects, enums by value, the rest as is."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: _jsonable(v) for k, v in value._asdict().items()}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def _is_heartbeat_timer(name: str) -> bool:
    return name.startswith("detector:")


def _events(records: Iterable[Record], began: float, heartbeats: bool) -> Iterator[Event]:
    """Recorded events as trace objects (``msg`` still the wire key)."""
    fields: dict[Message, dict[str, Any]] = {}  # a forwarded message is one object
    for t, _, node, event, *details in records:
        line: Event = {"event": event, "t": round(t - began, 6), "node": node}
        if event in ("send", "receive"):
            peer, message, epoch, key = details
            heartbeat = message.kind in DETECTOR_KINDS
            if heartbeat and not heartbeats:
                continue
            shown = fields.get(message)
            if shown is None:
                names = message.__match_args__
                shown = fields[message] = {n: _jsonable(getattr(message, n)) for n in names}
            if type(key) is tuple:  # a wire key: sender, its incarnation, receiver, seq
                key = ":".join(map(str, key))
            line.update(peer=peer, kind=message.kind, epoch=epoch, fields=shown, msg=key)
            if heartbeat:
                line["heartbeat"] = True
        elif event == "timer":
            name = details[0]
            if _is_heartbeat_timer(name):
                if not heartbeats:
                    continue
                line["heartbeat"] = True
            line["timer"] = name
        elif event == "state":
            line.update(state=details[0], elected=details[1], epoch=details[2])
        elif event == "suspect":
            line.update(peer=details[0], epoch=details[1])
        yield line


class _Clocks:
    """Lamport and vector clocks, advanced event by event in a causal order."""

    def __init__(self, vectors: bool) -> None:
        self.vectors = vectors
        self.lamport: dict[int, int] = {}
        self.vc: dict[int, dict[int, int]] = {}

    def local(self, node: int) -> tuple[int, dict[int, int] | None]:
        lamport = self.lamport[node] = self.lamport.get(node, 0) + 1
        if not self.vectors:
            return lamport, None
        vc = self.vc.setdefault(node, {})
        vc[node] = vc.get(node, 0) + 1
        return lamport, dict(vc)

    def receive(
        self, node: int, lamport: int, vc: dict[int, int] | None
    ) -> tuple[int, dict[int, int] | None]:
        self.lamport[node] = max(self.lamport.get(node, 0), lamport)
        if vc is not None:
            own = self.vc.setdefault(node, {})
            for peer, count in vc.items():
                if count > own.get(peer, 0):
                    own[peer] = count
        return self.local(node)


class TraceWriter:
    """Writes events, in the order they happened, as JSON lines to ``out``: messages
    numbered (or, in a ``part``, named by their wire keys), clocks stamped.

    Call :meth:`write` as often as events come (a node writing its part as it goes),
    then :meth:`close`.  A receive seen before its send (the clocks of two machines)
    waits for it; in a ``part`` a receive's send is not there, and it counts as one of
    the node's own events.
    """

    def __init__(self, out: IO[str], *, nodes: int, part: bool = False) -> None:
        self._out = out
        self._part = part
        self._clocks = _Clocks(vectors=nodes <= VECTOR_LIMIT)
        self._sent: dict[Any, tuple[Any, int, dict[int, int] | None]] = {}  # key → msg, clocks
        self._waiting: dict[Any, list[Event]] = {}
        self._numbers = itertools.count(1)
        self.written = 0

    def write(self, events: Iterable[Event]) -> None:
        sent, waiting = self._sent, self._waiting
        for event in events:
            key = event.get("msg")
            if event["event"] == "receive" and key not in sent and not self._part:
                waiting.setdefault(key, []).append(event)
                continue
            self._emit(event)
            if event["event"] == "send" and key in waiting:
                for late in waiting.pop(key):
                    self._emit(late)

    def close(self) -> None:
        """Write the receives whose sends never came (as far as this trace knows)."""
        for late in itertools.chain.from_iterable(self._waiting.values()):
            self._emit(late)
        self._waiting.clear()

    def _emit(self, event: Event) -> None:
        clocks, node, key = self._clocks, event["node"], event.get("msg")
        if event["event"] == "send":
            lamport, vc = clocks.local(node)
            event["msg"] = key if self._part else next(self._numbers)
            self._sent[key] = (event["msg"], lamport, vc)
        elif event["event"] == "receive" and key in self._sent:
            event["msg"], lamport_at, vc_at = self._sent.pop(key)
            lamport, vc = clocks.receive(node, lamport_at, vc_at)
        else:
            lamport, vc = clocks.local(node)
        event["lamport"] = lamport
        if vc is not None:
            event["vc"] = {str(k): v for k, v in sorted(vc.items())}
        else:
            event.pop("vc", None)
        self._out.write(json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n")
        self.written += 1


def trace_events(
    records: Iterable[Record], *, began: float = 0.0, heartbeats: bool = False
) -> Iterator[Event]:
    """Recorded events as trace objects (``msg`` still the wire key), ``t`` counted from
    ``began``; the failure detector's left out unless ``heartbeats``."""
    return _events(records, began, heartbeats)


def write_trace(
    records: Iterable[Record],
    out: IO[str],
    *,
    began: float = 0.0,
    nodes: int,
    heartbeats: bool = False,
    part: bool = False,
) -> int:
    """Write ``records`` (in the order they happened) as JSON lines; return how many.

    ``began``: when the run began, on the records' clock.  ``nodes``: how many nodes the
    run has (vector clocks only up to :data:`VECTOR_LIMIT`).  ``heartbeats``: keep the
    failure detector's traffic.  ``part``: one node's part (see the module's docs).
    """
    writer = TraceWriter(out, nodes=nodes, part=part)
    writer.write(_events(records, began, heartbeats))
    writer.close()
    return writer.written


def read_trace(lines: Iterable[str], *, source: str = "trace") -> Iterator[Event]:
    """The events of a written trace (or part), one dict each; blank lines are skipped.

    Raises :class:`ValueError` naming ``source`` and the line for anything else.
    """
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: line {number}: not JSON ({exc.msg})") from None
        if not isinstance(event, dict) or event.get("event") not in EVENTS:
            raise ValueError(f"{source}: line {number}: not a trace event")
        yield event


def merge_parts(parts: Iterable[Iterable[Event]], out: IO[str]) -> int:
    """Join nodes' parts into one trace written to ``out``: events in time order (``t``
    from the earliest), messages numbered, clocks counted over the whole run; return how
    many events."""
    events = sorted((dict(event) for part in parts for event in part), key=lambda e: e["t"])
    began = events[0]["t"] if events else 0.0
    for event in events:
        event["t"] = round(event["t"] - began, 6)
    writer = TraceWriter(out, nodes=len({event["node"] for event in events}))
    writer.write(events)
    writer.close()
    return writer.written
