"""A trace as a ShiViz log (https://bestchai.bitbucket.io/shiviz/), ready to open as it is.

The first line is the parsing regex (JavaScript syntax, as ShiViz reads it), the second
the empty execution delimiter, then two lines per event: its host and vector clock as
JSON, and what happened.  The host's own entry counts its events from 1; the others are
the trace's ``vc``.
"""

from __future__ import annotations

import json
from typing import Any

from ._trace_file import Trace, TraceError, label
from ._words import event_words, message_words, timer_words

__all__ = ["REGEX", "shiviz_log"]

#: ShiViz's parsing regex, with its named groups host, clock and event.
REGEX = r"(?<host>\S+) (?<clock>{.*})\n(?<event>.*)"


def _describe(event: dict[str, Any]) -> str:
    kind = event["event"]
    if kind in ("send", "receive"):
        message = message_words(event)
        way = "to" if kind == "send" else "from"
        gone = f" — lost: {event['lost']}" if event.get("lost") else ""
        return f"{kind} {message} {way} {label(event['peer'])} (epoch {event.get('epoch')}){gone}"
    if kind == "state":
        elected = event.get("elected")
        shown = label(elected) if elected is not None else "⊥"
        return f"state {event['state']}, elected = {shown} (epoch {event.get('epoch')})"
    if kind == "suspect":
        return f"suspects {label(event['peer'])}"
    if kind == "timer":
        return f"timer: {timer_words(str(event['timer']))}"
    return event_words(event)


def shiviz_log(trace: Trace) -> str:
    """The ShiViz log of ``trace`` (every event it holds, heartbeats included)."""
    lines = [REGEX, ""]
    own: dict[Any, int] = {}
    for number, event in enumerate(trace.events, 1):
        vc = event.get("vc")
        if not isinstance(vc, dict):
            raise TraceError(
                f"{trace.source}: event {number} has no vector clock 'vc' (traces of more "
                "than 64 nodes carry none), and ShiViz needs one on every event"
            )
        node = event["node"]
        own[node] = own.get(node, 0) + 1
        clock = {label(peer): count for peer, count in vc.items() if str(peer) != str(node)}
        clock[label(node)] = own[node]
        lines.append(f"{label(node)} {json.dumps(clock, sort_keys=True)}")
        lines.append(_describe(event))
    return "\n".join(lines) + "\n"
