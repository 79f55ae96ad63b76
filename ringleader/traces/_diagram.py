"""A space-time (Lamport) diagram of a trace, drawn with matplotlib (no display needed).

A horizontal line per node (in ring order on a ring, else by id), and an arrow per
message from its send to its receive, in the colour and the line of its kind (the same in
every picture: :mod:`._palette`), labelled with what it carries (``election(P5)``,
``probe(P5 φ1 d2)``).  Along the x axis the events follow one another in the order
they happened, one step each; with ``time_axis`` at their time instead (real or virtual
seconds: a crash schedule's quiet seconds show as they were).  A message that never
arrived ends, without a head, in ⊗ where it was lost; where a ring election swallows a
candidacy (extinction) its arrow ends in a bar; a node with no leader yet is ○ (⊥);
crashes, restarts, suspicions and changes of state are marked on the lines, and every
mark is in the legend.

Made to be projected: 1920×1080 pixels and fonts readable from the back of a room by
default (``size`` for another screen).  Past :data:`MAX_NODES` nodes it shows the nodes
that matter (see :mod:`._order`), past :data:`MAX_MESSAGES` messages the first ones, and
says on the picture what it left out; heartbeats are always left out.
"""

from __future__ import annotations

import math
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ._order import choose_nodes
from ._palette import MARKS, colours, lines
from ._steps import ALGORITHM_KINDS, algorithm_of, algorithm_ran, extinctions
from ._trace_file import Trace, label
from ._words import message_label

__all__ = ["FORMATS", "MAX_MESSAGES", "MAX_NODES", "SIZE", "draw_diagram"]

FORMATS = (".svg", ".png", ".pdf")
MAX_NODES = 32
MAX_MESSAGES = 300
#: The default picture: a projector's 1920×1080 pixels.
SIZE = (1920, 1080)
#: Pixels per inch: sizes are given in pixels, fonts in points of 1/72 inch.
_DPI = 100
#: Up to this many arrows each carries its label (its kind and fields, its epoch).
_ARROW_LABELS = 160
#: The network splitting and healing (``[[faults]]``): a line across every node.
_NETWORK_LINES = {"partition": ("--", "the network splits"), "heal": (":", "it heals")}

Event = dict[str, Any]


def _select(trace: Trace) -> tuple[list[Event], list[Any], list[str]]:
    """The events and nodes to draw, top to bottom, and what was left out, in words."""
    events = trace.without_heartbeats()
    left_out: list[str] = []
    if trace.heartbeats:
        left_out.append(f"{trace.heartbeats} heartbeat events (failure detector)")
    nodes, hidden = choose_nodes(events, trace.nodes, MAX_NODES)
    if hidden:
        shown = set(nodes)
        events = [
            e
            for e in events
            if e["event"] in _NETWORK_LINES
            or (e["node"] in shown and e.get("peer", e["node"]) in shown)
        ]
        left_out.append(hidden)
    sends = [i for i, e in enumerate(events) if e["event"] == "send"]
    if len(sends) > MAX_MESSAGES:
        cut = sends[MAX_MESSAGES]
        kept = {e["msg"] for e in events[:cut] if e["event"] == "send"}
        # The receives (losses) of the messages shown still count; the rest after the cut go.
        tail = [e for e in events[cut:] if e["event"] == "receive" and e["msg"] in kept]
        left_out.append(
            f"the last {len(sends) - MAX_MESSAGES} of {len(sends)} messages "
            f"(from t = {events[cut]['t']:g} s on) and the other events after them"
        )
        events = events[:cut] + tail
    return events, nodes, left_out


class _Style:
    """Font sizes (points) for a picture ``height`` pixels high: 1080 is a projector's."""

    def __init__(self, height: int) -> None:
        scale = max(0.6, height / 1080)
        self.title = round(20 * scale)
        self.text = round(15 * scale)
        self.small = round(13 * scale)
        self.mark = 13 * scale  # marker size
        self.line = 2.2 * scale


def _state_mark(event: Event) -> str:
    return event["state"] if event["state"] in ("leader", "not_leader") else "other"


def _arrow_text(send: Event, epochs: bool) -> str:
    """What an arrow carries: its kind and fields (``election(P5)``) and, in a run of
    several, the epoch."""
    text = message_label(send)
    return f"{text} e{send.get('epoch')}" if epochs else text


def _dashes(dashes: tuple[float, ...]) -> Any:
    """A matplotlib line style for ``dashes`` (in line widths; empty: solid)."""
    return (0, dashes) if dashes else "-"


class _Scale:
    """Roughly how many pixels an x unit and a row are, to keep labels apart."""

    def __init__(self, size: tuple[int, int], span: float, rows: int, font: float) -> None:
        self.x = size[0] * 0.85 / span
        self.y = size[1] * 0.7 / max(1, rows)
        self.font = font
        self.height = font * _DPI / 72 * 1.25  # a label's height, in pixels
        self.char = font * _DPI / 72 * 0.6  # a character's width, roughly


#: Where along its arrow a label may go, the middle first.
_ALONG = (0.5, 0.35, 0.65, 0.22, 0.78)

#: A label placed: its centre, half its length, and points along it (pixels).
_Placed = tuple[tuple[float, float], float, list[tuple[float, float]]]


def _arrow_label(  # noqa: PLR0917 -- one label, where it goes
    axes: Any,
    text: str,
    start: tuple[float, float],
    end: tuple[float, float],
    colour: str,
    placed: list[_Placed],
    scale: _Scale,
) -> bool:
    """Write ``text`` along the arrow from ``start`` to ``end``, in the middle or, if that
    overlaps a label already ``placed``, the first place along it that does not; if none
    does, or the arrow is too short to carry it, leave it out (return False)."""
    (x0, y0), (x1, y1) = start, end
    dx, dy = (x1 - x0) * scale.x, (y1 - y0) * scale.y
    length = math.hypot(dx, dy)
    half = len(text) * scale.char / 2
    if length < half * 1.6:
        return False
    ux, uy = dx / length, dy / length
    points = [t / 4 - 0.5 for t in range(5)]  # along the label, -½ … ½ of its length

    def at(f: float) -> _Placed:
        cx, cy = (x0 + (x1 - x0) * f) * scale.x, (y0 + (y1 - y0) * f) * scale.y
        return (cx, cy), half, [(cx + ux * t * 2 * half, cy + uy * t * 2 * half) for t in points]

    def free(mine: _Placed) -> bool:
        (cx, cy), own, pts = mine
        for (qx, qy), other, others in placed:
            if math.hypot(cx - qx, cy - qy) > own + other + scale.height:
                continue  # too far apart to touch
            if any(
                math.hypot(px - ox, py - oy) < scale.height for px, py in pts for ox, oy in others
            ):
                return False
        return True

    spot = next((f for f in _ALONG if free(at(f))), None)
    if spot is None:
        return False
    placed.append(at(spot))
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0)) if x1 != x0 else -90.0
    axes.text(
        x0 + (x1 - x0) * spot,
        y0 + (y1 - y0) * spot,
        text,
        fontsize=scale.font,
        color=colour,
        ha="center",
        va="center",
        rotation=angle,
        rotation_mode="anchor",
        transform_rotates_text=True,
        zorder=3,
        bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.85},
    )
    return True


def _title(trace: Trace) -> str:
    events = trace.without_heartbeats()
    sends = [e for e in events if e["event"] == "send"]
    lost = sum(1 for e in sends if e.get("lost"))
    if trace.header is not None:  # what ran, as the header names it
        ran = algorithm_ran(events, trace.header)[0]
        name = f"{ALGORITHM_KINDS[ran][1] if ran else trace.header['algorithm']}, "
    else:
        algorithm = algorithm_of({e["kind"] for e in sends})
        name = f"{ALGORITHM_KINDS[algorithm][1]}, " if algorithm else ""
    epochs = {e.get("epoch") for e in sends}
    one = f", all in epoch {next(iter(epochs))}" if len(epochs) == 1 else ""
    lost_text = f" ({lost} lost)" if lost else ""
    return (
        f"{Path(trace.source).name}: {name}{len(trace.nodes)} nodes, "
        f"{len(sends)} messages{lost_text}{one}"
    )


def _figure(  # noqa: PLR0912, PLR0915 -- one picture, drawn in order
    trace: Trace, size: tuple[int, int], time_axis: bool
) -> Figure:
    events, nodes, left_out = _select(trace)
    style = _Style(size[1])
    figure = Figure(figsize=(size[0] / _DPI, size[1] / _DPI), dpi=_DPI, layout="constrained")
    axes = figure.add_subplot()
    row = {node: i for i, node in enumerate(nodes)}
    xs = [e["t"] for e in events] if time_axis else list(range(len(events)))
    span = (max(xs) - min(xs)) if xs else 1.0
    span = span or 1.0
    for y in row.values():
        axes.axhline(y, color="#bbbbbb", linewidth=1.0, zorder=0)
    axes.set_yticks(list(row.values()), [label(n) for n in nodes], fontsize=style.text)
    axes.set_ylim(len(nodes) - 0.4, -0.6)  # the first node on top
    # Room on the right for the last marks' labels.
    axes.set_xlim(min(xs, default=0) - span * 0.02, max(xs, default=1) + span * 0.08)
    kinds = colours(events)
    styles = lines(events)
    swallowed = extinctions(events, trace.header)
    epochs = len({e.get("epoch") for e in events if e["event"] == "send"}) > 1
    messages = sum(e["event"] == "send" for e in events)
    labelled = messages <= _ARROW_LABELS
    # Where the labels go: pixels per x unit and per row, and the labels placed so far.
    scale = _Scale(size, span * 1.1, len(nodes), style.small * (1.0 if messages <= 40 else 0.85))
    placed: list[_Placed] = []
    unlabelled = 0
    sent: dict[Any, tuple[float, Event]] = {}
    ended: set[Any] = set()
    shown_marks: set[str] = set()
    reach = 0.5 if not time_axis else span * 0.012  # how far a lost message goes (half a step)
    for x, event in zip(xs, events, strict=True):
        kind = event["event"]
        if kind in _NETWORK_LINES:  # the network splits or heals: a line across them all
            ls, _ = _NETWORK_LINES[kind]
            axes.axvline(x, ls=ls, color="#555555", lw=style.line * 0.8, zorder=1)
            shown_marks.add(kind)
            continue
        if kind == "violation":  # a check broken: the moment, across them all
            _violation(axes, x, event, row, style)
            shown_marks.add(kind)
            continue
        if kind == "send":
            sent[event["msg"]] = (x, event)
            if not event.get("lost"):
                continue
            ended.add(event["msg"])  # lost on its way: it ends, ⊗, where it was going
            x0, send, end = x, event, x + reach
        elif kind == "receive" and event["msg"] in sent:
            x0, send = sent[event["msg"]]
            ended.add(event["msg"])
            end = x
        else:
            continue
        lost = kind == "send"
        colour = kinds[send["kind"]]
        dashes, width = styles[send["kind"]]
        y0, y1 = row[send["node"]], row[send["peer"]]
        axes.annotate(
            "",
            xy=(end, y1),
            xytext=(x0, y0),
            arrowprops={
                "arrowstyle": "-" if lost else "-|>",
                "color": colour,
                "lw": style.line * width,
                "ls": _dashes(dashes),
                "mutation_scale": 4 * style.line + 8,
                "shrinkA": 0,
                "shrinkB": 0,
            },
            zorder=2,
        )
        if lost:
            marker, fill, _, _ = MARKS["lost"]
            axes.plot(
                [end], [y1], marker=marker, color=fill, mew=0, ms=style.mark * 1.3, ls="", zorder=4
            )
            shown_marks.add("lost")
        elif event["msg"] in swallowed:
            marker, fill, _, _ = MARKS["extinction"]
            axes.plot([x], [y1], marker=marker, color=fill, ms=style.mark * 1.4, mew=3, zorder=4)
            shown_marks.add("extinction")
        text = _arrow_text(send, epochs)
        if labelled and text:
            unlabelled += not _arrow_label(axes, text, (x0, y0), (end, y1), colour, placed, scale)
    for msg, (x0, send) in sent.items():  # never ended: still in flight when the run ended
        if msg not in ended and send["peer"] in row:
            y0, y1 = row[send["node"]], row[send["peer"]]
            axes.plot(
                [x0, x0 + span * 0.015],
                [y0, y0 + (y1 - y0) * 0.35],
                ls=_dashes(styles[send["kind"]][0]),
                lw=style.line * styles[send["kind"]][1],
                color=kinds[send["kind"]],
                marker="o",
                markevery=[1],
                mfc="white",
                ms=style.mark * 0.6,
            )
            shown_marks.add("in flight")
    shown_marks |= _marks(axes, events, xs, row, style=style, span=span)
    if time_axis:
        axes.set_xlabel("t (seconds since the run began; virtual seconds in the simulator) →")
    else:
        steps = len(events)
        every = max(1, round(steps / 12))
        ticks = list(range(0, steps, every))
        axes.set_xticks(ticks, [f"{x}\n{events[x]['t']:.4g} s" for x in ticks])
        axes.set_xlabel("events in the order they happened (step, and t in seconds) →")
    axes.xaxis.label.set_fontsize(style.text)
    axes.tick_params(axis="x", labelsize=style.small)
    _legend(figure, kinds, styles, shown_marks, style)
    if unlabelled:
        left_out.append(f"the labels of {unlabelled} arrows, too short or too close to carry one")
    title = _title(trace)
    if left_out:
        width = max(40, int(size[0] * 0.95 / (style.text * _DPI / 72 * 0.56)))
        note = textwrap.fill("Left out: " + "; ".join(left_out) + ".", width)
        title += "\n" + note
    axes.set_title(title, fontsize=style.title if not left_out else style.text, loc="left")
    return figure


def _violation(axes: Any, x: float, event: Event, row: dict[Any, int], style: _Style) -> None:
    """A broken check at ``x``: a red line across every node, a ✗ on each it names."""
    marker, fill, _, _ = MARKS["violation"]
    axes.axvline(x, color=fill, lw=style.line * 1.2, alpha=0.6, zorder=1)
    nodes = [row[n] for n in event.get("nodes") or [event["node"]] if n in row]
    xs = [x] * len(nodes)
    axes.plot(xs, nodes, marker=marker, mfc=fill, mec="black", ms=style.mark, ls="", zorder=6)
    axes.annotate(
        f"✗ {event.get('check')}: {event.get('detail')}",
        (x, min(nodes, default=0)),
        xytext=(4, 14),
        textcoords="offset points",
        fontsize=style.small,
        color=fill,
        zorder=7,
        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
    )


def _legend(
    figure: Figure,
    kinds: dict[str, str],
    styles: dict[str, tuple[tuple[float, ...], float]],
    marks: set[str],
    style: _Style,
) -> None:
    handles: list[Any] = [
        Line2D(
            [],
            [],
            color=c,
            lw=style.line * 1.3 * styles[k][1],
            ls=_dashes(styles[k][0]),
            label=k,
        )
        for k, c in kinds.items()
    ]
    for key, (marker, fill, _, text) in MARKS.items():
        if key not in marks:
            continue
        if key == "lost":
            handles.append(
                Line2D(
                    [],
                    [],
                    color="#555555",
                    lw=style.line,
                    marker=marker,
                    mec=fill,
                    mfc=fill,
                    ms=style.mark,
                    mew=0,
                    label=text,
                )
            )
        elif key == "extinction":
            handles.append(
                Line2D([], [], ls="", marker=marker, mec=fill, ms=style.mark, mew=3, label=text)
            )
        else:
            handles.append(
                Line2D(
                    [],
                    [],
                    ls="",
                    marker=marker,
                    mfc=fill,
                    mec="black",
                    ms=style.mark * 0.8,
                    label=text,
                )
            )
    for key, (ls, text) in _NETWORK_LINES.items():
        if key in marks:
            handles.append(Line2D([], [], color="#555555", ls=ls, lw=style.line, label=text))
    if "in flight" in marks:
        handles.append(
            Line2D(
                [],
                [],
                color="#555555",
                lw=style.line,
                marker="o",
                mfc="white",
                ms=style.mark * 0.6,
                label="still in flight at the end",
            )
        )
    figure.legend(
        handles=handles,
        loc="outside lower center",
        ncol=min(len(handles), 5),
        fontsize=style.small,
        frameon=False,
        handlelength=3.5,
    )


#: Past this many nodes learning one leader, only the first mark is labelled.
_NAMED_LEARNERS = 6
#: Where a mark's label goes, in points from the mark: below the line, above it, lower.
_LANES = ((4, -14), (4, 6), (4, -26))


def _marks(
    axes: Any,
    events: list[Event],
    xs: list[float],
    row: dict[Any, int],
    *,
    style: _Style,
    span: float,
) -> set[str]:
    """Mark crashes, restarts, suspicions and changes of view on the nodes' lines, each
    labelled in the first lane of its line where the label overlaps no earlier one;
    return which marks were drawn."""
    last: dict[Any, tuple[str, Any]] = {}
    ends: dict[Any, list[float]] = {}  # node → where each lane's last label ends (x)
    # A leader learnt by many nodes is named at the first of them only.
    learnt = Counter(
        (e.get("elected"), e.get("epoch"))
        for e in events
        if e["event"] == "state" and e["state"] == "not_leader"
    )
    named: set[tuple[Any, Any]] = set()
    # x per point of text: the axes are about 85 % of the figure's width.
    width_pt = axes.figure.get_figwidth() * 72 * 0.85
    per_point = span * 1.1 / width_pt
    drawn: set[str] = set()
    for x, event in zip(xs, events, strict=True):
        kind = event["event"]
        if kind in _NETWORK_LINES:
            continue
        y = row[event["node"]]
        if kind == "state":
            key = _state_mark(event)
            seen = (event["state"], event.get("elected"))
            if last.get(event["node"]) == seen:
                continue  # the same view again (a new epoch): one mark per change is enough
            last[event["node"]] = seen
            names = {
                "leader": "leader",
                "not_leader": f"→{label(event.get('elected'))}",
                "other": f"{event['state']} (⊥)",
            }
            text = f"{names.get(key, event['state'])} e{event.get('epoch')}"
            view = (event.get("elected"), event.get("epoch"))
            if key == "not_leader" and learnt[view] > _NAMED_LEARNERS:
                text = "" if view in named else f"{text} (and every ● after it)"
                named.add(view)
        elif kind in ("crash", "restart", "suspect", "pause", "resume"):
            key = kind
            text = kind if kind != "suspect" else f"?{label(event.get('peer'))}"
        else:
            continue
        drawn.add(key)
        marker, fill, _, _ = MARKS[key]
        axes.plot([x], [y], marker=marker, mfc=fill, mec="black", ms=style.mark, ls="", zorder=5)
        if not text:
            continue
        lanes = ends.setdefault(event["node"], [-float("inf")] * len(_LANES))
        lane = next((i for i, end in enumerate(lanes) if end < x), None)
        if lane is None:
            lane = min(range(len(lanes)), key=lanes.__getitem__)
        lanes[lane] = x + (len(text) * style.small * 0.6 + 6) * per_point
        axes.annotate(
            text,
            (x, y),
            xytext=_LANES[lane],
            textcoords="offset points",
            fontsize=style.small,
            zorder=6,
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.7},
        )
    return drawn


def draw_diagram(
    trace: Trace,
    out: str | Path,
    *,
    time_axis: bool = False,
    size: tuple[int, int] = SIZE,
) -> None:
    """Draw ``trace`` into ``out``; the format (svg, png, pdf) is the file's suffix.

    ``time_axis``: the events at their time (seconds) rather than one step each;
    ``size``: width and height in pixels (fonts grow with the height).
    """
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"no picture format for {suffix!r}")
    figure = _figure(trace, size, time_axis)
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "ringleader"}):
        figure.savefig(out, format=suffix[1:], dpi=_DPI)  # SVG text stays text
