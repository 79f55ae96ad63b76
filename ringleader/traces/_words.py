"""The words every view of a trace uses for an event, and for a timer: the notes'.

The replay, the step-through page, the diagram and the ShiViz log all say a timer and a
lost message the same way, in the notes' words (T, T′, suspect_after …), never by the
internal names of the parts (``rounds:behind``, ``detector:suspect:4``).
"""

from __future__ import annotations

from typing import Any

from ._trace_file import candidate, label

__all__ = ["event_words", "message_label", "message_words", "timer_words"]

#: The algorithms' own timers, as the notes name them.
_ALGORITHM_TIMERS = {
    "answer": "T runs out (no answer from a higher process)",
    "coordinator": "T′ runs out (no coordinator)",
}

#: The crash-handling parts' timers.
_PART_TIMERS = {
    "rounds:stall": "reelect_after runs out: no leader yet",
    "rounds:behind": "it heard of a newer round than its own and saw none of it",
    "recovery:rejoin": "it heard of no round since it recovered",
    "detector:heartbeat": "time for a heartbeat",
    "lease:sit_out": "its time out after resigning is over",
}
_SUSPECT = "detector:suspect:"


def timer_words(name: str) -> str:
    """What timer ``name`` firing means, as a clause: ``T′ runs out (no coordinator)``."""
    if name in _ALGORITHM_TIMERS:
        return _ALGORITHM_TIMERS[name]
    if name in _PART_TIMERS:
        return _PART_TIMERS[name]
    if name.startswith(_SUSPECT):
        peer = name[len(_SUSPECT) :]
        return f"suspect_after has passed without a word from {label(peer)}"
    return f"its timer {name} fires"


def message_words(event: dict[str, Any]) -> str:
    """A message as the notes write it: its kind and the id it carries, ``election(P5)``."""
    who = candidate(event.get("fields"))
    return str(event["kind"]) + (f"({label(who)})" if who is not None else "")


#: Fields a message's label writes short, as the notes do (Hirschberg–Sinclair's phase
#: and distance); a field named here with ``None`` is left out (the arrow shows it).
_SHORT: dict[str, str | None] = {"phase": "φ", "hop": "d", "direction": None}


def message_label(event: dict[str, Any]) -> str:
    """What a message's arrow says: its kind and what it carries, the id it is about
    first: ``election(P5)``, ``elected(P5)``, ``probe(P5 φ1 d2)``, ``rep(P5 wave P3)``."""
    fields = event.get("fields")
    fields = fields if isinstance(fields, dict) else {}
    who = candidate(fields)
    parts = [label(who)] if who is not None else []
    first = who is not None
    for name, value in fields.items():
        short = _SHORT.get(name, name)
        if short is None or value is None:
            continue
        if isinstance(value, dict) and isinstance(value.get("id"), int):
            if first and value["id"] == who:
                first = False  # the id it is about, said first
                continue
            parts.append(f"{short} {label(value['id'])}")
        elif isinstance(value, bool) or not isinstance(value, int | float | str):
            parts.append(f"{short}={value}")
        elif first and value == who:
            first = False
        else:
            parts.append(f"{short}{value}" if name in _SHORT else f"{short}={value}")
    return f"{event['kind']}({' '.join(parts)})" if parts else str(event["kind"])


def event_words(event: dict[str, Any]) -> str:  # noqa: PLR0911 -- a sentence per kind
    """One event in words."""
    me, kind = label(event["node"]), event["event"]
    epoch = f" (epoch {event.get('epoch')})" if "epoch" in event else ""
    if kind == "send":
        gone = f" — lost: {event['lost']}" if event.get("lost") else ""
        return f"{me} sends {message_words(event)} to {label(event['peer'])}{epoch}{gone}"
    if kind == "receive":
        copy = " — a copy (the network duplicated it)" if event.get("duplicate") else ""
        return f"{me} receives {message_words(event)} from {label(event['peer'])}{epoch}{copy}"
    if kind == "state":
        elected = event.get("elected")
        shown = label(elected) if elected is not None else "⊥"
        return f"{me}: state {event['state']}, elected = {shown}{epoch}"
    if kind == "suspect":
        return f"{me} suspects {label(event['peer'])} has crashed"
    if kind == "timer":
        return f"{me}: {timer_words(str(event['timer']))}"
    if kind in ("partition", "heal"):
        sides = " | ".join(" ".join(label(n) for n in g) for g in event.get("groups", []))
        verb = "splits" if kind == "partition" else "heals"
        return f"the network {verb}: {sides} | the rest"
    if kind == "change":
        what = "add" if event.get("change") == "add" else "remove"
        answer = (
            f"refused: {event['refused']}"
            if event.get("refused") is not None
            else f"configuration {event.get('configuration')}"
        )
        return f"an operator asks {me} to {what} {label(event.get('peer'))}: {answer}"
    if kind == "configuration":
        return f"{me}: configuration {event.get('configuration')}"
    if kind == "removed":
        return f"{me} is removed ({event.get('configuration')})"
    words = {"crash": "crashes", "restart": "restarts (recovers)", "pause": "pauses (stands still)"}
    return f"{me} {words.get(kind, kind + 's')}"
