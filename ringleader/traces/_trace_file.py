"""A written trace, loaded: its events, its nodes, and the names the pictures use.

The format is :mod:`ringleader.actors.tracing`'s (JSON lines, one event each).  :func:`load_trace`
reads a file and checks what the pictures and the narration rely on, so a bad file is
one line naming the file and the line, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ringleader.actors import read_trace
from ringleader.errors import UsageError

__all__ = [
    "Trace",
    "TraceError",
    "candidate",
    "label",
    "load_trace",
    "parse_trace",
]

Event = dict[str, Any]

_NEEDS = {
    "send": ("peer", "kind", "msg"),
    "receive": ("peer", "kind", "msg"),
    "state": ("state",),
    "suspect": ("peer",),
    "timer": ("timer",),
    "change": ("change", "peer"),
    "configuration": ("configuration",),
    "removed": ("configuration",),
}


class TraceError(UsageError):
    """A trace file that cannot be read: missing, not JSON, or not trace events."""


@dataclass(frozen=True)
class Trace:
    """A run's events in the order they happened, and its nodes in id order.

    ``header``: what ran (the trace's first line: algorithm, topology, nodes, config,
    seed, version); ``None`` for a trace written before traces had one.
    """

    source: str
    events: list[Event]
    nodes: list[int]
    header: Event | None = None

    @property
    def heartbeats(self) -> int:
        """How many of the events are the failure detector's."""
        return sum(1 for event in self.events if event.get("heartbeat"))

    def without_heartbeats(self) -> list[Event]:
        return [event for event in self.events if not event.get("heartbeat")]


def label(node: object) -> str:
    """A node as the notes name processes: ``P4``."""
    return f"P{node}"


def candidate(fields: object) -> int | None:
    """The id a message carries (a candidate, a wave, ...), if it carries one."""
    if not isinstance(fields, dict):
        return None
    named = [fields[n] for n in ("candidate", "best", "leader", "elected", "id") if n in fields]
    for value in [*named, *fields.values()]:  # the id the message is about comes first
        if isinstance(value, dict) and isinstance(value.get("id"), int):
            return int(value["id"])
        if isinstance(value, int) and not isinstance(value, bool) and value in named:
            return value
    return None


def _check(event: Event, source: str, number: int) -> None:
    where = f"{source}: line {number}"
    if not isinstance(event.get("t"), int | float) or isinstance(event.get("t"), bool):
        raise TraceError(f"{where}: {event['event']} event without a time 't'")
    if not isinstance(event.get("node"), int | str):
        raise TraceError(f"{where}: {event['event']} event without a 'node'")
    for key in _NEEDS.get(event["event"], ()):
        if key not in event:
            raise TraceError(f"{where}: {event['event']} event without '{key}'")


def parse_trace(lines: list[str], source: str = "trace") -> Trace:
    """The trace in ``lines``; :class:`TraceError` names ``source`` and the line."""
    events: list[Event] = []
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    try:
        parsed = list(read_trace((line for _, line in numbered), source=source))
    except ValueError as exc:  # "source: line k: ..." counts non-blank lines only
        message = str(exc)
        prefix = f"{source}: line "
        if message.startswith(prefix):
            k, _, rest = message[len(prefix) :].partition(":")
            if k.isdigit() and int(k) <= len(numbered):
                message = f"{prefix}{numbered[int(k) - 1][0]}:{rest}"
        raise TraceError(message) from None
    header = None
    for place, ((number, _), event) in enumerate(zip(numbered, parsed, strict=True)):
        if event["event"] == "header":
            if place:
                raise TraceError(f"{source}: line {number}: a header after the first line")
            header = event
            continue
        _check(event, source, number)
        events.append(event)
    if not events:
        raise TraceError(f"{source}: no events (an empty trace)")
    nodes = {event["node"] for event in events}
    nodes |= {event["peer"] for event in events if "peer" in event}
    if header is not None and isinstance(header.get("nodes"), list):
        nodes |= {n["id"] for n in header["nodes"] if isinstance(n, dict) and "id" in n}
    return Trace(source, events, sorted(nodes, key=lambda n: (str(type(n)), n)), header)


def load_trace(path: str | Path) -> Trace:
    """Read the trace file at ``path``; :class:`TraceError` for anything unreadable."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not a text file (a trace is JSON lines)") from None
    except OSError as exc:
        raise TraceError(f"{path}: cannot read it ({exc.strerror})") from None
    return parse_trace(text.splitlines(), str(path))
