"""The words every view of a trace uses for what is not a message: timers, losses.

The replay, the step-through page, the diagram and the ShiViz log all say a timer and a
lost message the same way, in the notes' words (T, T′, suspect_after …), never by the
internal names of the parts (``rounds:behind``, ``detector:suspect:4``).
"""

from __future__ import annotations

from typing import Any

from ._trace_file import label

__all__ = ["lost_words", "timer_words"]

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
