"""Reading a written trace back, and joining nodes' parts into one."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO

from ._record import EVENTS
from ._writer import Event, TraceWriter

__all__ = ["merge_parts", "read_trace"]


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


def merge_parts(
    parts: Iterable[Iterable[Event]], out: IO[str], *, header: Event | None = None
) -> int:
    """Join nodes' parts into one trace written to ``out``: events in time order (``t``
    from the earliest), messages numbered, clocks counted over the whole run; return how
    many events.  ``header``: the trace's first line (else the first part's, if any)."""
    every = [dict(event) for part in parts for event in part]
    headers = [event for event in every if event["event"] == "header"]
    header = header if header is not None else (headers[0] if headers else None)
    events = sorted((e for e in every if e["event"] != "header"), key=lambda e: e["t"])
    began = events[0]["t"] if events else 0.0
    for event in events:
        event["t"] = round(event["t"] - began, 6)
    writer = TraceWriter(out, nodes=len({event["node"] for event in events}), header=header)
    writer.write(events)
    writer.close()
    return writer.written
