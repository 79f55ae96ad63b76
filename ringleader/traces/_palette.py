"""One colour and one line per message kind, the same in every picture and on the page.

The colours are Okabe and Ito's, chosen so that the colours a picture shows together stay
apart for the colour-blind (``tests/traces/test_pictures.py`` simulates protanopia, deuteranopia
and tritanopia and measures them in CIELAB), and they follow a message's part in the
election: a candidacy (``election``, ``elect``, ``probe``, ``el``, ``demande``) is blue
and solid, an answer (``reply``, ``ack``, ``rep``) reddish purple and dotted, an ``ok``
black and dash-dotted, the announcement (``elected``, ``coordinator``, ``elu``)
vermillion, dashed and thicker, the failure detector's ``ping``/``pong`` dark grey.  No
meaning rests on colour alone: every kind has its own line, every arrow its label
(``election(P5)``, ``probe(P5 φ1 d2)``), every mark a shape of its own and a word in the
legend.  Kinds the notes do not have (your own algorithm's) get the palette's other
colours and lines, in the order they first appear.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "KIND_COLOURS",
    "KIND_LINES",
    "MARKS",
    "OKABE_ITO",
    "OTHER_COLOURS",
    "colours",
    "kind_colour",
    "kind_line",
    "lines",
]

#: Okabe & Ito (2008), "Color Universal Design".
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
_GREY = "#555555"

#: A message's part in the election → its colour and its line: the dashes (on, off,
#: … in line widths; empty: solid) and how thick, relative to the others.
_ROLES: dict[str, tuple[str, tuple[float, ...], float]] = {
    "candidacy": (OKABE_ITO["blue"], (), 1.0),
    "answer": (OKABE_ITO["reddish purple"], (1.0, 1.2), 1.3),
    "ok": (OKABE_ITO["black"], (5.0, 1.5, 1.0, 1.5), 1.0),
    "announcement": (OKABE_ITO["vermillion"], (4.0, 1.5), 1.6),
    "heartbeat": (_GREY, (1.0, 3.0), 0.8),
}
_KIND_ROLES = {
    "election": "candidacy",
    "elect": "candidacy",
    "probe": "candidacy",
    "el": "candidacy",
    "demande": "candidacy",
    "reply": "answer",
    "ack": "answer",
    "rep": "answer",
    "ok": "ok",
    "elected": "announcement",
    "coordinator": "announcement",
    "elu": "announcement",
    "ping": "heartbeat",
    "pong": "heartbeat",
}

#: The notes' message kinds and their colours.
KIND_COLOURS = {kind: _ROLES[role][0] for kind, role in _KIND_ROLES.items()}
#: The notes' message kinds and their lines: (dashes, width), as in :data:`_ROLES`.
KIND_LINES = {kind: _ROLES[role][1:] for kind, role in _KIND_ROLES.items()}
#: For kinds the notes do not have, in the order they first appear: the first is as
#: far from the notes' colours for the colour-blind as Okabe–Ito's palette allows.
OTHER_COLOURS = (
    OKABE_ITO["sky blue"],
    OKABE_ITO["orange"],
    OKABE_ITO["bluish green"],
    "#8C6D1F",  # a dark yellow: Okabe–Ito's yellow is too pale on white
)
_OTHERS = OTHER_COLOURS
#: Their lines, in the same order.
_OTHER_LINES: tuple[tuple[tuple[float, ...], float], ...] = (
    ((2.5, 1.5), 1.3),
    ((6.0, 1.5, 1.0, 1.5, 1.0, 1.5), 1.0),
    ((1.0, 1.2), 1.0),
    ((), 1.0),
)

#: The marks on a node's line: event (or state) → (matplotlib marker, fill, the page's
#: symbol, legend text).  Told apart by shape first; the fill only helps.  ``⊥`` is only
#: ever "no leader yet" (``elected`` unset); an extinction is a bar across the arrow.
MARKS: dict[str, tuple[str, str, str, str]] = {
    "crash": ("X", OKABE_ITO["black"], "✖", "crash"),
    "restart": ("^", OKABE_ITO["sky blue"], "▲", "restart"),
    "suspect": ("D", OKABE_ITO["orange"], "◆", "suspects (peer named)"),
    "leader": ("*", OKABE_ITO["yellow"], "★", "becomes leader"),
    "not_leader": ("o", "#555555", "●", "learns the leader"),
    "other": ("o", "white", "○", "no leader yet (elected = ⊥): undecided"),
    "pause": ("s", "#999999", "‖", "pauses (stands still)"),
    "resume": (">", "#999999", "▶", "resumes"),
    "lost": (r"$\otimes$", OKABE_ITO["black"], "⊗", "lost: never arrived (why: replay)"),
    "extinction": ("|", OKABE_ITO["black"], "┃", "extinction: a candidacy swallowed here"),
    "violation": ("H", OKABE_ITO["vermillion"], "✗", "unsafe: a check broken (replay says which)"),
}


def kind_colour(kind: str, others: dict[str, str] | None = None) -> str:
    """The colour of message ``kind``; ``others`` keeps those of unknown kinds."""
    known = KIND_COLOURS.get(kind)
    if known is not None:
        return known
    if others is None:
        return _OTHERS[0]
    if kind not in others:
        others[kind] = _OTHERS[len(others) % len(_OTHERS)]
    return others[kind]


def kind_line(kind: str, order: int = 0) -> tuple[tuple[float, ...], float]:
    """The line of message ``kind``: its dashes (in line widths; empty: solid) and its
    width relative to the others; a kind the notes do not have, by its ``order`` among
    those (the order they first appear)."""
    known = KIND_LINES.get(kind)
    if known is not None:
        return known
    return _OTHER_LINES[order % len(_OTHER_LINES)]


def colours(events: Iterable[dict[str, Any]]) -> dict[str, str]:
    """A colour for each message kind sent in ``events``, in the order they first
    appear: the notes' kinds always their own, others from the rest of the palette."""
    kinds: dict[str, str] = {}
    others: dict[str, str] = {}
    for event in events:
        if event["event"] == "send" and event["kind"] not in kinds:
            kinds[event["kind"]] = kind_colour(event["kind"], others)
    return kinds


def lines(events: Iterable[dict[str, Any]]) -> dict[str, tuple[tuple[float, ...], float]]:
    """A line for each message kind sent in ``events`` (as :func:`colours` colours them)."""
    kinds: dict[str, tuple[tuple[float, ...], float]] = {}
    others = 0
    for event in events:
        kind = event["kind"] if event["event"] == "send" else None
        if kind is None or kind in kinds:
            continue
        kinds[kind] = kind_line(kind, others)
        others += kind not in KIND_LINES
    return kinds
