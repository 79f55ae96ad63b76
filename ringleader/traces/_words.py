"""The words every view of a trace uses for what is not a message: timers, losses.

The replay, the step-through page, the diagram and the ShiViz log all say a timer and a
lost message the same way, in the notes' words (T, T′, suspect_after …), never by the
internal names of the parts (``rounds:behind``, ``detector:suspect:4``).
"""

from __future__ import annotations

from typing import Any

from ._trace_file import candidate, label

__all__ = ["event_words", "lost_words", "message_words", "timer_words"]

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


def lost_words(lost: dict[str, Any]) -> str:
    """Why the message of ``lost`` (a ``lost`` event) never arrived: ``P1 is down``."""
    reason, peer, node = lost.get("reason"), label(lost.get("peer")), label(lost.get("node"))
    if reason == "down":
        return f"{peer} is down"
    if reason == "old_life":
        return f"{peer} has restarted since: it was for its previous life"
    if reason == "old_sender":
        return f"{node} has restarted since it sent it"
    if reason == "unsent":
        return f"no connection to {peer}"
    return str(reason) if reason else "it never arrived"


def message_words(event: dict[str, Any]) -> str:
    """A message as the notes write it: its kind and the id it carries, ``election(P5)``."""
    who = candidate(event.get("fields"))
    return str(event["kind"]) + (f"({label(who)})" if who is not None else "")


def event_words(  # noqa: PLR0911 -- one sentence per kind of event
    event: dict[str, Any], lost: dict[str, Any] | None = None
) -> str:
    """One event in words (``lost``: the ``lost`` event of a send, if it was lost)."""
    me, kind = label(event["node"]), event["event"]
    epoch = f" (epoch {event.get('epoch')})" if "epoch" in event else ""
    if kind == "send":
        gone = f" — lost: {lost_words(lost)}" if lost is not None else ""
        return f"{me} sends {message_words(event)} to {label(event['peer'])}{epoch}{gone}"
    if kind == "receive":
        return f"{me} receives {message_words(event)} from {label(event['peer'])}{epoch}"
    if kind == "lost":
        return (
            f"{message_words(event)} from {me} to {label(event['peer'])} is lost: "
            f"{lost_words(event)}"
        )
    if kind == "state":
        elected = event.get("elected")
        shown = label(elected) if elected is not None else "⊥"
        return f"{me}: state {event['state']}, elected = {shown}{epoch}"
    if kind == "suspect":
        return f"{me} suspects {label(event['peer'])} has crashed"
    if kind == "timer":
        return f"{me}: {timer_words(str(event['timer']))}"
    if kind == "crash":
        return f"{me} crashes"
    if kind == "restart":
        return f"{me} restarts (recovers)"
    return f"{me}: {kind}"
