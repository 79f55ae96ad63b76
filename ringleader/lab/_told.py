"""A run's records as the page tells and draws it: each step in the notes' words (the
narration of ``replay``), the space-time diagram's arrows and marks, the palette of its
kinds and the pictures' marks, and the violations the trace records — from the very
records the explorers' traces are made of, written and read back as a trace file is."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from ringleader.actors import write_trace
from ringleader.actors.tracing import Event, Record, read_trace
from ringleader.traces import MARKS, colours, story
from ringleader.traces import lines as kind_lines

__all__ = ["marks", "told"]


def marks() -> dict[str, dict[str, str]]:
    """The pictures' marks, as the page shows them: symbol, fill and words by name."""
    return {
        name: {"symbol": symbol, "fill": fill, "words": words}
        for name, (_, fill, symbol, words) in MARKS.items()
    }


def _field(name: str, value: Any) -> str:
    """A message's field as the notes write it: a node (its info, or its id) as ``P4``."""
    if isinstance(value, dict) and "id" in value and "capacity" in value:
        return f"P{value['id']}"
    if name in ("candidate", "id", "sender", "origin"):
        return f"P{value}"
    return str(value)


def told(
    records: Iterable[Record], *, nodes: int, header: Event, heartbeats: bool = False
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run of ``records`` (step k stamped at k thousandths of a second) as the page
    shows it — ``kinds``, ``narration``, ``summary``, ``diagram`` — and the violations
    its trace records (step, kind, detail); ``heartbeats``: a service's pings and pongs
    are drawn too (the lease is made of them; the narration leaves them out)."""
    buffer = io.StringIO()
    write_trace(records, buffer, nodes=nodes, heartbeats=heartbeats, header=header)
    written = buffer.getvalue().splitlines()
    trace = [e for e in read_trace(written, source="lab") if e.get("event") != "header"]

    def step_of(event: dict[str, Any]) -> int:
        return round(float(event.get("t", 0.0)) * 1000)

    story_told = story(trace, header)
    narration = [{"step": round(t * 1000), "text": sentence} for t, sentence, _ in story_told.steps]
    sends: dict[Any, dict[str, Any]] = {}
    marks: list[dict[str, Any]] = []
    violations: list[dict[str, Any]] = []
    for event in trace:
        what, at, node = event.get("event"), step_of(event), event.get("node")
        if what == "send":
            fields = event.get("fields") or {}
            shown = ", ".join(_field(k, v) for k, v in fields.items())
            sends[event.get("msg")] = {
                "from": node,
                "to": event.get("peer"),
                "sent": at,
                "received": None,
                "kind": event.get("kind"),
                "label": f"{event.get('kind')}({shown})",
                "lost": bool(event.get("lost")),
            }
        elif what == "receive":
            send = sends.get(event.get("msg"))
            if send is not None and send["received"] is None:
                send["received"] = at
        elif what == "state":
            mark = {"leader": "leader", "not_leader": "not_leader"}.get(
                str(event.get("state")), "other"
            )
            marks.append({"node": node, "step": at, "mark": mark})
        elif what in ("crash", "restart", "pause", "resume"):
            marks.append({"node": node, "step": at, "mark": what})
        elif what == "violation":
            marks.append({"node": node, "step": at, "mark": "violation"})
            violations.append(
                {"step": at, "kind": event.get("kind"), "detail": event.get("detail")}
            )
    styles = kind_lines(trace)
    kinds = {
        kind: {"colour": colour, "dash": list(styles[kind][0]), "width": styles[kind][1]}
        for kind, colour in colours(trace).items()
    }
    page = {
        "kinds": kinds,
        "narration": narration,
        "summary": story_told.summary,
        "diagram": {"messages": list(sends.values()), "marks": marks},
    }
    return page, violations
