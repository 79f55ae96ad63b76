"""One colour per message kind, the same in every picture and on the page.

The colours are Okabe and Ito's, chosen to stay apart for the colour-blind, and they
follow a message's part in the election: a candidacy (``election``, ``elect``,
``probe``, ``el``, ``demande``) is blue, an answer (``reply``, ``ack``, ``rep``) orange,
an ``ok`` bluish green, the announcement (``elected``, ``coordinator``, ``elu``)
vermillion, the failure detector's ``ping``/``pong`` grey.  No meaning rests on colour
alone: every mark has a shape of its own and a word in the legend.  Kinds the notes do
not have (your own algorithm's) get the palette's other colours, in the order they first
appear.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["KIND_COLOURS", "MARKS", "OKABE_ITO", "colours", "kind_colour"]

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
_GREY = "#999999"

#: The notes' message kinds and their colours.
KIND_COLOURS = {
    # a candidacy
    "election": OKABE_ITO["blue"],
    "elect": OKABE_ITO["blue"],
    "probe": OKABE_ITO["blue"],
    "el": OKABE_ITO["blue"],
    "demande": OKABE_ITO["blue"],
    # an answer
    "reply": OKABE_ITO["orange"],
    "ack": OKABE_ITO["orange"],
    "rep": OKABE_ITO["orange"],
    "ok": OKABE_ITO["bluish green"],
    # the announcement
    "elected": OKABE_ITO["vermillion"],
    "coordinator": OKABE_ITO["vermillion"],
    "elu": OKABE_ITO["vermillion"],
    # the failure detector
    "ping": _GREY,
    "pong": _GREY,
}
#: For kinds the notes do not have, in the order they first appear.
_OTHERS = (
    OKABE_ITO["reddish purple"],
    OKABE_ITO["sky blue"],
    OKABE_ITO["black"],
    "#8C6D1F",  # a dark yellow: Okabe–Ito's yellow is too pale on white
)

#: The marks on a node's line: event (or state) → (matplotlib marker, fill, the page's
#: symbol, legend text).  Told apart by shape first; the fill only helps.
MARKS: dict[str, tuple[str, str, str, str]] = {
    "crash": ("X", OKABE_ITO["black"], "✖", "crash"),
    "restart": ("^", OKABE_ITO["sky blue"], "▲", "restart"),
    "suspect": ("D", OKABE_ITO["orange"], "◆", "suspects (peer named)"),
    "leader": ("*", OKABE_ITO["yellow"], "★", "becomes leader"),
    "not_leader": ("o", "#555555", "●", "learns the leader"),
    "other": ("o", "white", "○", "other state (e.g. undecided)"),
    "pause": ("s", "#999999", "‖", "pauses (stands still)"),
    "resume": (">", "#999999", "▶", "resumes"),
    "lost": (r"$\otimes$", OKABE_ITO["black"], "⊗", "lost: never arrived (why: replay)"),
    "extinction": ("|", OKABE_ITO["black"], "⊥", "extinction: a candidacy swallowed"),
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


def colours(events: Iterable[dict[str, Any]]) -> dict[str, str]:
    """A colour for each message kind sent in ``events``, in the order they first
    appear: the notes' kinds always their own, others from the rest of the palette."""
    kinds: dict[str, str] = {}
    others: dict[str, str] = {}
    for event in events:
        if event["event"] == "send" and event["kind"] not in kinds:
            kinds[event["kind"]] = kind_colour(event["kind"], others)
    return kinds
