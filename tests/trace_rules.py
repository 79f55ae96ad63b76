"""A written trace read back, and the rules every whole trace keeps (``check_trace``):
every receive names a send that came first, clocks only grow, message ids are unique."""

from __future__ import annotations

import json
from typing import Any

from ringleader.actors import EVENTS


def events_of(text: str) -> list[dict[str, Any]]:
    """A written trace's events, its header (the first line: what ran) left out."""
    events = [json.loads(line) for line in text.splitlines()]
    assert all(e["event"] != "header" for e in events[1:]), "a header after the first line"
    return events[1:] if events and events[0]["event"] == "header" else events


def check_trace(events: list[dict[str, Any]], *, total: int, vectors: bool = True) -> None:
    """The rules every whole trace keeps."""
    assert events, "an empty trace"
    assert all(e["event"] in EVENTS for e in events)
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    sends = {e["msg"]: e for e in events if e["event"] == "send"}
    assert len(sends) == sum(1 for e in events if e["event"] == "send")  # msg ids unique
    assert sum(1 for e in sends.values() if not e.get("heartbeat")) == total
    position = {id(e): k for k, e in enumerate(events)}
    for event in events:
        if event["event"] == "receive":
            send = sends[event["msg"]]  # every receive names a send, which came first
            assert position[id(send)] < position[id(event)]
            assert (send["node"], send["peer"], send["kind"]) == (
                event["peer"],
                event["node"],
                event["kind"],
            )
            assert event["lamport"] > send["lamport"]
            if vectors:
                assert all(event["vc"].get(k, 0) >= v for k, v in send["vc"].items())
    received = {e["msg"] for e in events if e["event"] == "receive"}
    for send in sends.values():  # a message lost (and why) was never received
        assert not (send.get("lost") and send["msg"] in received), send
    own: dict[int, int] = {}
    for event in events:  # a node's own entry counts its events from 1
        own[event["node"]] = own.get(event["node"], 0) + 1
        if vectors:
            assert event["vc"][str(event["node"])] == own[event["node"]]
