"""Writing recorded events as a trace: JSON lines, messages numbered, clocks stamped."""

from __future__ import annotations

import enum
import itertools
import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from ringleader.actors.core import Message
from ringleader.actors.crashes import DETECTOR_KINDS

from ._record import Record

__all__ = ["VECTOR_LIMIT", "Event", "TraceWriter", "trace_events", "write_trace"]

#: Above this many nodes events carry no vector clock (it would hold one entry per node).
VECTOR_LIMIT = 64

#: One event of a written trace, as a dict (see the package's docs for its keys).
Event = dict[str, Any]


def _variable(value: Any) -> Any:
    """An election's variable (or a header's value) as JSON: sets as sorted lists, dicts
    with text keys, a message as its kind and fields, the rest as :func:`_jsonable`."""
    if isinstance(value, set | frozenset):
        return sorted((_variable(v) for v in value), key=lambda v: (str(type(v)), str(v)))
    if isinstance(value, dict):
        return {str(k): _variable(v) for k, v in value.items()}
    if isinstance(value, Message):
        names = value.__match_args__
        return {"kind": value.kind, **{n: _variable(getattr(value, n)) for n in names}}
    if isinstance(value, list) or (type(value) is tuple):
        return [_variable(v) for v in value]
    return _jsonable(value)


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


#: The network's own events, and what their detail is.
_NETWORK = {"partition": "groups", "heal": "groups", "pause": "seconds", "resume": "seconds"}


#: The members changing: an operator's request, and a node's configuration.
_MEMBERSHIP = ("change", "configuration", "removed")


def _membership(line: Event, details: list[Any]) -> None:
    """An operator's ``change`` (what, of which node, the answer: the new configuration
    or why not, the epoch), or a node's ``configuration`` or ``removed`` (the
    configuration in words, the epoch)."""
    if line["event"] != "change":
        line.update(configuration=details[0], epoch=details[1])
        return
    what, peer, refused, configuration, epoch = details
    line.update(change=what, peer=peer, epoch=epoch)
    if refused is None:
        line["configuration"] = configuration
    else:
        line["refused"] = refused


def _is_heartbeat_timer(name: str) -> bool:
    return name.startswith("detector:")


def _network(line: Event, said: list[Any]) -> None:
    """What the network did to a message: lost (and why), delivered several times (a
    send's ``copies``), or this receive is of a copy."""
    if said[0] == "lost":
        line["lost"] = said[1]
    elif said[0] == "copies":
        line["copies"] = said[1]
    elif said[0] == "duplicate":
        line["duplicate"] = True


def _message(
    line: Event, details: list[Any], fields: dict[Message, dict[str, Any]], heartbeats: bool
) -> bool:
    """Fill in a send's or a receive's ``line``; ``False`` to leave it out (a heartbeat,
    unless asked for).  ``fields`` keeps each message's fields, made once."""
    peer, message, epoch, key, *network = details
    heartbeat = message.kind in DETECTOR_KINDS
    if heartbeat and not heartbeats:
        return False
    shown = fields.get(message)
    if shown is None:
        names = message.__match_args__
        shown = fields[message] = {n: _jsonable(getattr(message, n)) for n in names}
    if type(key) is tuple:  # a wire key: sender, its incarnation, receiver, seq
        key = ":".join(map(str, key))
    line.update(peer=peer, kind=message.kind, epoch=epoch, fields=shown, msg=key)
    if heartbeat:
        line["heartbeat"] = True
    if network:
        _network(line, network)
    return True


def _events(records: Iterable[Record], began: float, heartbeats: bool) -> Iterator[Event]:
    """Recorded events as trace objects (``msg`` still the wire key)."""
    fields: dict[Message, dict[str, Any]] = {}  # a forwarded message is one object
    for t, _, node, event, *details in records:
        line: Event = {"event": event, "t": round(t - began, 6), "node": node}
        if event in ("send", "receive"):
            if not _message(line, details, fields, heartbeats):
                continue
        elif event == "timer":
            name = details[0]
            if _is_heartbeat_timer(name):
                if not heartbeats:
                    continue
                line["heartbeat"] = True
            line["timer"] = name
        elif event == "state":
            line.update(state=details[0], elected=details[1], epoch=details[2])
            if len(details) > 3:  # the election's variables
                line["vars"] = _variable(details[3])
        elif event == "suspect":
            line.update(peer=details[0], epoch=details[1])
        elif event in _MEMBERSHIP:
            _membership(line, details)
        elif event == "violation":  # a Violation, or its fields
            found = details[0]
            line.update(
                check=found.kind, nodes=list(found.nodes), epoch=found.epoch, detail=found.detail
            )
        elif details and event in _NETWORK:  # partition, heal: groups; pause: seconds
            line[_NETWORK[event]] = details[0]
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

    def __init__(
        self, out: IO[str], *, nodes: int, part: bool = False, header: Event | None = None
    ) -> None:
        self._out = out
        self._part = part
        self._clocks = _Clocks(vectors=nodes <= VECTOR_LIMIT)
        self._sent: dict[Any, tuple[Any, int, dict[int, int] | None]] = {}  # key → msg, clocks
        self._waiting: dict[Any, list[Event]] = {}
        self._copies: dict[Any, int] = {}  # key → receives still to come, if several
        self._numbers = itertools.count(1)
        self._down: set[int] = set()  # crashed and not restarted, as far as written
        self.written = 0
        if header is not None:  # the first line: what ran (not counted as an event)
            line = {"event": "header", **{k: v for k, v in header.items() if k != "event"}}
            out.write(json.dumps(_variable(line), separators=(",", ":"), ensure_ascii=False))
            out.write("\n")

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

    def _who_is_down(self, event: Event) -> None:
        """Follow crashes and restarts; a message lost for a node that was down then is
        lost because it was down, whatever its host saw (no connection, a failed send)."""
        kind = event["event"]
        if kind == "crash":
            self._down.add(event["node"])
        elif kind == "restart":
            self._down.discard(event["node"])
        elif "lost" in event and event["peer"] in self._down:
            event["lost"] = f"P{event['peer']} is down"

    def _emit(self, event: Event) -> None:
        clocks, node, key = self._clocks, event["node"], event.get("msg")
        self._who_is_down(event)
        if event["event"] == "send":
            lamport, vc = clocks.local(node)
            event["msg"] = key if self._part else next(self._numbers)
            self._sent[key] = (event["msg"], lamport, vc)
            if event.get("copies", 1) > 1:
                self._copies[key] = event["copies"]
        elif event["event"] == "receive" and key in self._sent:
            copies = self._copies.get(key)
            if copies is None:
                event["msg"], lamport_at, vc_at = self._sent.pop(key)
            else:  # a message the network delivered more than once: kept for each copy
                event["msg"], lamport_at, vc_at = self._sent[key]
                if copies > 1:
                    self._copies[key] = copies - 1
                else:
                    del self._copies[key], self._sent[key]
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
    header: Event | None = None,
) -> int:
    """Write ``records`` (in the order they happened) as JSON lines; return how many.

    ``began``: when the run began, on the records' clock.  ``nodes``: how many nodes the
    run has (vector clocks only up to :data:`VECTOR_LIMIT`).  ``heartbeats``: keep the
    failure detector's traffic.  ``part``: one node's part (see the module's docs).
    ``header``: what ran, written first (see the package's docs).
    """
    writer = TraceWriter(out, nodes=nodes, part=part, header=header)
    writer.write(_events(records, began, heartbeats))
    writer.close()
    return writer.written
