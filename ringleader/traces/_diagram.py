"""A space-time (Lamport) diagram of a trace, drawn with matplotlib (no display needed).

A horizontal line per node, time flowing left to right — one step per event, in the
order they happened (the seconds are on the axis too: a crash schedule leaves long quiet
gaps that would squeeze every message into a hair) — and an arrow per message from its
send to its receive, coloured by kind.  Crashes, restarts, suspicions and changes of
state are marked; epochs are written on the arrows (or on the marks, when there are
many arrows).  Past :data:`MAX_NODES` nodes or :data:`MAX_MESSAGES` messages it draws
what fits and says on the picture what it left out; heartbeats are always left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ._trace_file import Trace, candidate, colours, label

__all__ = ["FORMATS", "MAX_MESSAGES", "MAX_NODES", "draw_diagram"]

FORMATS = (".svg", ".png", ".pdf")
MAX_NODES = 32
MAX_MESSAGES = 300
#: Up to this many arrows each carries its epoch; beyond, only the marks do.
_EPOCH_LABELS = 80

Event = dict[str, Any]

_MARKS = {  # event (or state) → marker, colour, legend text
    "crash": ("X", "#d62728", "crash"),
    "restart": ("^", "#2ca02c", "restart"),
    "suspect": ("d", "#ff7f0e", "suspects (peer named)"),
    "leader": ("*", "#e6b800", "becomes leader"),
    "not_leader": ("o", "#555555", "learns the leader"),
    "other": ("o", "white", "other state (e.g. undecided)"),
    "pause": ("s", "#999999", "pauses (stands still)"),
    "resume": (">", "#999999", "resumes"),
    "lost": ("x", "#d62728", "message lost (see why in replay)"),
}
#: The network splitting and healing: a line across every node.
_NETWORK_LINES = {"partition": ("--", "network splits"), "heal": (":", "network heals")}


def _select(trace: Trace) -> tuple[list[Event], list[Any], list[str]]:
    """The events and nodes to draw, and what was left out, in words."""
    events = trace.without_heartbeats()
    left_out: list[str] = []
    if trace.heartbeats:
        left_out.append(f"{trace.heartbeats} heartbeat events (failure detector)")
    nodes = trace.nodes
    if len(nodes) > MAX_NODES:
        hidden = nodes[MAX_NODES:]
        nodes = nodes[:MAX_NODES]
        shown = set(nodes)
        events = [e for e in events if e["node"] in shown and e.get("peer", e["node"]) in shown]
        left_out.append(
            f"{len(hidden)} of {len(trace.nodes)} nodes ({label(hidden[0])}–{label(hidden[-1])}) "
            "and every message to or from them"
        )
    sends = [i for i, e in enumerate(events) if e["event"] == "send"]
    if len(sends) > MAX_MESSAGES:
        cut = sends[MAX_MESSAGES]
        kept = {e["msg"] for e in events[:cut] if e["event"] == "send"}
        # The receives of the messages shown still count; everything else after the cut goes.
        tail = [e for e in events[cut:] if e["event"] == "receive" and e["msg"] in kept]
        left_out.append(
            f"the last {len(sends) - MAX_MESSAGES} of {len(sends)} messages "
            f"(from t = {events[cut]['t']:g} s on) and the other events after them"
        )
        events = events[:cut] + tail
    return events, nodes, left_out


def _figure(events: list[Event], nodes: list[Any], left_out: list[str], title: str) -> Figure:
    steps = max(len(events), 1)
    width = min(max(8.0, 2.5 + steps * 0.07), 40.0)
    height = min(max(3.0, 1.8 + len(nodes) * 0.38), 16.0)
    figure = Figure(figsize=(width, height), layout="constrained")
    axes = figure.add_subplot()
    row = {node: i for i, node in enumerate(nodes)}
    for y in row.values():
        axes.axhline(y, color="#bbbbbb", linewidth=0.8, zorder=0)
    axes.set_yticks(list(row.values()), [label(n) for n in nodes])
    axes.set_ylim(len(nodes) - 0.4, -0.6)  # the lowest id on top
    # Steps per point of the axes' width (about 70 % of the figure's, the rest is legend).
    per_point = (steps + 1) / (width * 72 * 0.7)
    axes.set_xlim(-1, steps + 8 * _CHAR_PT * per_point)  # room for the last labels
    kinds = colours(events)
    sent: dict[Any, tuple[int, Event]] = {}
    received: set[Any] = set()
    epochs = {e.get("epoch") for e in events if e["event"] == "send"}
    label_arrows = sum(e["event"] == "send" for e in events) <= _EPOCH_LABELS
    for x, event in enumerate(events):
        if event["event"] == "send":
            sent[event["msg"]] = (x, event)
        elif event["event"] == "receive" and event["msg"] in sent:
            x0, send = sent[event["msg"]]
            received.add(event["msg"])
            y0, y1 = row[send["node"]], row[event["node"]]
            axes.annotate(
                "",
                xy=(x, y1),
                xytext=(x0, y0),
                arrowprops={"arrowstyle": "-|>", "color": kinds[send["kind"]], "lw": 1.1},
            )
            text = _arrow_text(send, len(epochs) > 1)
            if label_arrows and text:
                axes.text(
                    (x0 + x) / 2,
                    (y0 + y1) / 2,
                    text,
                    fontsize=6,
                    color=kinds[send["kind"]],
                    ha="center",
                    va="center",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
                )
    for msg, (x0, send) in sent.items():  # never received: lost, or received after the end
        if msg not in received and send["peer"] in row:
            y0, y1 = row[send["node"]], row[send["peer"]]
            end = (x0 + 1.5, y0 + (y1 - y0) * 0.35)
            axes.plot([x0, end[0]], [y0, end[1]], ls=":", color=kinds[send["kind"]])
            if send.get("lost"):  # the network (or a crash) lost it: say so with a cross
                axes.plot([end[0]], [end[1]], marker="x", color="#d62728", ms=7, mew=2, ls="")
    _network_lines(axes, events)
    _marks(axes, events, row, per_point)
    ticks = list(range(0, steps, max(1, round(steps / (width / 1.1)))))
    axes.set_xticks(ticks, [f"{x}\n{events[x]['t']:.4g} s" for x in ticks], fontsize=7)
    axes.set_xlabel("events in the order they happened (step, and t in seconds) →")
    handles: list[Any] = [Line2D([], [], color=c, lw=2, label=k) for k, c in kinds.items()]
    shown = {e["event"] if e["event"] != "state" else _state_mark(e) for e in events}
    shown |= {"lost" for e in events if e["event"] == "send" and e.get("lost")}
    for key, (marker, colour, text) in _MARKS.items():
        if key in shown:
            handles.append(
                Line2D([], [], ls="", marker=marker, mfc=colour, mec="black", label=text)
            )
    axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    one_epoch = f" — all in epoch {next(iter(epochs))}" if len(epochs) == 1 else ""
    axes.set_title(title + one_epoch, fontsize=10)
    if left_out:
        figure.text(
            0.01, 0.005, "Left out: " + "; ".join(left_out) + ".", color="#b00000", fontsize=8
        )
    return figure


def _network_lines(axes: Any, events: list[Event]) -> None:
    """A line across every node where the network split or healed."""
    for x, event in enumerate(events):
        line = _NETWORK_LINES.get(event["event"])
        if line is not None:
            axes.axvline(x, ls=line[0], color="#777777", lw=1, zorder=1)
            axes.annotate(line[1], (x, -0.5), xytext=(2, 0), textcoords="offset points", fontsize=6)


def _arrow_text(send: Event, epochs: bool) -> str:
    """What an arrow carries: the id in it (``P5``) and, in a run of several, the epoch."""
    who = candidate(send.get("fields"))
    parts = ([label(who)] if who is not None else []) + (
        [f"e{send.get('epoch')}"] if epochs else []
    )
    return " ".join(parts)


def _state_mark(event: Event) -> str:
    return event["state"] if event["state"] in ("leader", "not_leader") else "other"


#: Where a mark's label goes, in points from the mark: below the line, above it, lower.
_LANES = ((3, -9), (3, 4), (3, -16))
#: A label's width in points per character (fontsize 6), and its margin.
_CHAR_PT, _MARGIN_PT = 3.4, 4.0


def _marks(axes: Any, events: list[Event], row: dict[Any, int], per_point: float) -> None:
    """Mark crashes, restarts, suspicions and changes of view on the nodes' lines, each
    labelled in the first lane of its line where the label overlaps no earlier one."""
    last: dict[Any, tuple[str, Any]] = {}
    ends: dict[Any, list[float]] = {}  # node → where each lane's last label ends (steps)
    for x, event in enumerate(events):
        kind, y = event["event"], row[event["node"]]
        text = ""
        if kind == "state":
            key = _state_mark(event)
            seen = (event["state"], event.get("elected"))
            if last.get(event["node"]) == seen:
                continue  # the same view again (a new epoch): one mark per change is enough
            last[event["node"]] = seen
            elected = event.get("elected")
            names = {"leader": "leader", "not_leader": f"→{label(elected)}"}
            text = f"{names.get(key, event['state'])} e{event.get('epoch')}"
        elif kind in ("crash", "restart", "suspect", "pause", "resume"):
            key = kind
            text = {
                "crash": "crash",
                "restart": "restart",
                "pause": "pause",
                "resume": "resume",
            }.get(kind, f"?{label(event.get('peer'))}")
        else:
            continue
        marker, colour, _ = _MARKS[key]
        axes.plot([x], [y], marker=marker, mfc=colour, mec="black", ms=9, ls="", zorder=3)
        lanes = ends.setdefault(event["node"], [-1.0] * len(_LANES))
        lane = next((i for i, end in enumerate(lanes) if end < x), None)
        if lane is None:
            lane = min(range(len(lanes)), key=lanes.__getitem__)
        lanes[lane] = x + (len(text) * _CHAR_PT + _MARGIN_PT) * per_point
        offset = _LANES[lane]
        axes.annotate(text, (x, y), xytext=offset, textcoords="offset points", fontsize=6)


def draw_diagram(trace: Trace, out: str | Path) -> None:
    """Draw ``trace`` into ``out``; the format (svg, png, pdf) is the file's suffix."""
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"no picture format for {suffix!r}")
    events, nodes, left_out = _select(trace)
    title = f"{Path(trace.source).name}: {len(trace.nodes)} nodes, " + (
        f"{sum(e['event'] == 'send' for e in trace.without_heartbeats())} messages"
    )
    figure = _figure(events, nodes, left_out, title)
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "ringleader"}):
        figure.savefig(out, format=suffix[1:], dpi=110)  # SVG text stays text
