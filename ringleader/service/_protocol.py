"""The node's protocol with whoever runs it, both ends of it.

A ``ringleader node`` prints one JSON object per line on stdout: each
:class:`~ringleader.actors.host.NodeEvent` as :func:`event_dict` makes it (a supervisor reads it
back with :func:`node_event`), its own ``listening``, ``ready`` and ``stopped`` lines,
and, when asked, its status (:func:`status_dict`, read back with
:func:`status_from_dict`).  A supervised node also says ``linked`` (after ``link``) and,
if it cannot start, ``failed`` (with ``error``: what went wrong) before it exits.  It
reads commands on stdin, one per line (:func:`command_line`, :func:`parse_command`):

- ``link ADDRESSES``: every node's address (a JSON object, node id → address), when the
  nodes picked their own ports (see :class:`~ringleader.Node`'s ``fresh``) and the
  supervisor gathered them from their ``listening`` lines: link to the neighbours there,
  then print a ``linked`` line;
- ``boot [SECONDS]``: link, waiting up to SECONDS for the neighbours, then start the
  failure detector;
- ``start``: initiate an election;
- ``status``: print a ``status`` line.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from ringleader.actors.core import Difference
from ringleader.actors.crashes import Configuration
from ringleader.actors.host import NodeEvent, NodeStatus

from ._view import LeadershipView

__all__ = [
    "BOOT",
    "LINK",
    "START",
    "STATUS",
    "command_line",
    "event_dict",
    "leads_dict",
    "link_addresses",
    "link_line",
    "node_event",
    "parse_command",
    "status_dict",
    "status_from_dict",
]

BOOT, LINK, START, STATUS = "boot", "link", "start", "status"

#: A node event's kind → its ``event`` in a line, where the two differ.
_EVENT_NAMES = {"state": "leader", "rejected": "rejected_frame"}
_KINDS = {name: kind for kind, name in _EVENT_NAMES.items()}


def event_dict(event: NodeEvent) -> dict[str, Any]:
    """A node event as one ``--json`` line's object.

    ``t`` is wall-clock time (comparable across machines as far as their clocks agree),
    ``mono`` this machine's monotonic clock (comparable between its processes).
    """
    data: dict[str, Any] = {
        "event": _EVENT_NAMES.get(event.kind, event.kind),
        "node": event.node,
        "t": round(time.time(), 6),
        "mono": event.at,
        "epoch": event.epoch,
        "incarnation": event.incarnation,
    }
    if event.kind == "state":
        data["leader"] = event.elected
        data["state"] = event.state
    elif event.kind in ("suspect", "recovered"):
        data["peer"] = event.subject
        if event.detail:  # a suspicion on proof of death: "connection refused"
            data["reason"] = event.detail
    elif event.kind == "election":
        data["trigger"] = event.detail
        if event.subject is not None:  # the node whose crash or return set it off
            data["peer"] = event.subject
    elif event.kind in ("lost", "failed"):
        data["reason"] = event.detail
    elif event.kind == "lease" and event.since is not None:
        # From the end of the leadership before it (see NodeEvent.since).
        data["failover_s"] = round(event.at - event.since, 6)
    elif event.kind in ("prevote", "handover"):
        data["reason"] = event.detail
        if event.subject is not None:  # the node whose silence set it off; the successor
            data["peer"] = event.subject
    elif event.kind == "rejected":
        reason, _, detail = event.detail.partition(": ")
        data["reason"] = reason
        data["detail"] = detail
        data["address"] = event.address  # where it came from; None if unknown
    elif event.kind in ("configuration", "removed"):
        # The configuration now in effect, in words ("version 2 (round 7): voters 1,2,3").
        data["configuration"] = event.detail
    elif event.kind == "other_cluster":
        data["peer"] = event.subject
        data["address"] = event.address
        data["detail"] = event.detail
        data["differences"] = {
            d.aspect: {"theirs": d.theirs, "mine": d.mine} for d in event.differences
        }
    return data


def leads_dict(view: LeadershipView) -> dict[str, Any]:
    """A line's ``leads``: who leads in this node's view, in which epoch, and whether it
    holds its lease — ``{"leader": 3, "epoch": 7, "lease_held": true}``.

    ``leader`` is ``None`` while an election is under way; ``lease_held`` says whether
    this node holds its own lease when it names itself, and is ``None`` when it names
    another node or none: a follower cannot read its leader's lease (that leader's own
    lines say)."""
    held = view.is_leader if view.leader == view.node else None
    return {"leader": view.leader, "epoch": view.epoch, "lease_held": held}


def node_event(data: dict[str, Any]) -> NodeEvent:
    """The inverse of :func:`event_dict`: a line back into the event it came from."""
    kind = _KINDS.get(data["event"], data["event"])
    detail = data.get("trigger", "")
    if kind in ("lost", "suspect", "recovered", "failed", "prevote", "handover"):
        detail = data.get("reason", "")
    elif kind == "rejected":
        detail = f"{data['reason']}: {data['detail']}"
    elif kind == "other_cluster":
        detail = data["detail"]
    differences = tuple(
        Difference(aspect, sides["theirs"], sides["mine"])
        for aspect, sides in data.get("differences", {}).items()
    )
    return NodeEvent(
        node=data["node"],
        kind=kind,
        state=data.get("state", ""),
        elected=data.get("leader"),
        epoch=data.get("epoch", 0),
        at=data["mono"],
        incarnation=data["incarnation"],
        subject=data.get("peer"),
        detail=detail,
        address=data.get("address"),
        differences=differences,
        since=None if "failover_s" not in data else data["mono"] - data["failover_s"],
    )


def status_dict(status: NodeStatus) -> dict[str, Any]:
    """A node's status as the line that answers ``status`` (its configuration as the
    state file writes it)."""
    data = asdict(status)
    configuration = status.configuration
    data["configuration"] = None if configuration is None else configuration.to_json()
    return {"event": STATUS, **data}


def status_from_dict(data: dict[str, Any]) -> NodeStatus:
    """The inverse of :func:`status_dict` (JSON turns int keys to str)."""
    fields = {k: v for k, v in data.items() if k in NodeStatus.__dataclass_fields__}
    for name in ("sent_by_epoch", "other_clusters"):
        fields[name] = {int(k): v for k, v in fields.get(name, {}).items()}
    configuration = fields.get("configuration")
    if configuration is not None:
        fields["configuration"] = Configuration.from_json(configuration)
    return NodeStatus(**fields)


def command_line(name: str, wait: float | None = None) -> str:
    """One command line: ``command_line(BOOT, 1.25)`` → ``boot 1.250``; ``command_line(START)``."""
    return name if wait is None else f"{name} {wait:.3f}"


def parse_command(line: str) -> tuple[str, float]:
    """``(name, seconds)`` from one command line: ``seconds`` is ``boot``'s wait (0 when
    not given, or for another command); a blank line gives ``("", 0.0)``."""
    name, _, argument = line.strip().partition(" ")
    return name, float(argument or 0) if name == BOOT else 0.0


def link_line(addresses: Mapping[int, str]) -> str:
    """The ``link`` command giving ``addresses``: ``link {"1": "tcp://127.0.0.1:40001", …}``."""
    return f"{LINK} " + json.dumps({str(node): address for node, address in addresses.items()})


def link_addresses(line: str) -> dict[int, str]:
    """The addresses a ``link`` line gives."""
    text = line.strip().partition(" ")[2]
    return {int(node): str(address) for node, address in json.loads(text).items()}
