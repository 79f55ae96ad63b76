"""A trace's run as the notes' steps, and what ran it.

A *step* is what one node does on one trigger — a message received, a timer, a
suspicion, a crash or a restart, an operator's request for a membership change (or
nothing: an initiator starting) — with the sends and
the change of state that follow it on that node (:func:`steps`).  A trace's header names
the algorithm that ran (:func:`algorithm_ran`); a trace without one (written before
traces had one) has it guessed from its message kinds (:func:`algorithm_of`).  A message
lost because its receiver crashed belongs with the crash (:func:`causal`).  Pure: events
in, steps out; :mod:`._narration` tells them in words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ._trace_file import candidate, label

__all__ = [
    "ALGORITHM_KINDS",
    "MEMBERSHIP",
    "NETWORK",
    "RINGS",
    "Event",
    "Step",
    "algorithm_of",
    "algorithm_ran",
    "candidates",
    "carried",
    "causal",
    "extinctions",
    "idle",
    "steps",
]

Event = dict[str, Any]

#: The message kinds of each algorithm of the notes, and its name there.
ALGORITHM_KINDS: dict[str, tuple[frozenset[str], str]] = {
    "lelann": (frozenset({"elect"}), "LeLann"),
    "hirschberg_sinclair": (frozenset({"probe", "reply", "elected"}), "Hirschberg–Sinclair"),
    "chang_roberts": (frozenset({"election", "elected"}), "Chang–Roberts"),
    "bully": (frozenset({"election", "ok", "coordinator"}), "Bully"),
    "bully_broadcast": (frozenset({"el", "ack"}), "Bully with broadcast"),
    "tree": (frozenset({"demande", "rep", "elu", "ok"}), "the spanning-tree election"),
    "echo": (frozenset({"demande", "rep", "elu"}), "the echo election"),
}
RINGS = {"lelann", "hirschberg_sinclair", "chang_roberts"}
#: What sets off a step: an operator's request for a membership ``change`` too.
TRIGGERS = {"receive", "timer", "suspect", "crash", "restart", "change"}
NETWORK = {"partition", "heal", "pause", "resume"}  # what a misbehaving network did
#: A node's configuration changed (learned on a heartbeat, left out): a step of its own.
MEMBERSHIP = {"configuration", "removed"}


def algorithm_of(kinds: Iterable[str]) -> str | None:
    """The algorithm whose messages these are (``None``: not one of the notes').

    A run need not use every kind (Bully started by its top process sends only
    coordinator), so each algorithm is known by a kind only it has.
    """
    seen = frozenset(kinds)
    for name, (known, _) in ALGORITHM_KINDS.items():
        if seen == known:
            return name
    signs = [
        ("probe", "hirschberg_sinclair"),
        ("elect", "lelann"),
        ("el", "bully_broadcast"),
        ("coordinator", "bully"),
        ("elected", "chang_roberts"),
    ]
    for kind, name in signs:
        if kind in seen and seen <= ALGORITHM_KINDS[name][0]:
            return name
    if "demande" in seen:
        return "tree" if "ok" in seen and seen <= ALGORITHM_KINDS["tree"][0] else "echo"
    return None


def algorithm_ran(events: Iterable[Event], header: Event | None) -> tuple[str | None, str]:
    """The algorithm a run is told as (a key of :data:`ALGORITHM_KINDS`, ``None``: told
    in neutral words) and its name in the story's heading: the header's, if the trace
    has one, else guessed from the message kinds."""
    if header is not None and isinstance(header.get("algorithm"), str):
        ran = header["algorithm"]
        if ran in ALGORITHM_KINDS:
            return ran, ALGORITHM_KINDS[ran][1]
        title = header.get("title")
        named = f"{title} ({ran})" if isinstance(title, str) and title else ran
        return None, f"{named}, an algorithm the notes do not tell"
    kinds = {e["kind"] for e in events if e["event"] == "send" and not e.get("heartbeat")}
    guessed = algorithm_of(kinds)
    return guessed, ALGORITHM_KINDS[guessed][1] if guessed else "an algorithm the notes do not name"


@dataclass
class Step:
    node: Any
    t: float
    trigger: Event | None  # None: the node acts of its own accord (it initiates)
    sends: list[Event] = field(default_factory=list)
    states: list[Event] = field(default_factory=list)
    events: list[int] = field(default_factory=list)  # their places in the run
    #: The node's round (epoch) before this step, as far as the trace shows it.
    epoch: Any = None
    #: The node's election variables before this step, if the trace records them.
    variables: dict[str, Any] | None = None
    #: Messages to this node, sent while it was up, lost when it crashed (this step).
    lost: list[Event] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        """A message of an older round than its receiver's, which changed nothing."""
        trigger = self.trigger
        return (
            trigger is not None
            and trigger["event"] == "receive"
            and isinstance(trigger.get("epoch"), int)
            and isinstance(self.epoch, int)
            and trigger["epoch"] < self.epoch
            and not self.sends
            and not self.states
        )


def lost_in_crash(event: Event) -> bool:
    """Whether a send was lost because its receiver was down or crashed."""
    why = event.get("lost")
    return isinstance(why, str) and why.startswith(f"{label(event['peer'])} ")


def causal(events: list[Event]) -> tuple[list[Event], dict[int, list[Event]]]:
    """``events`` with a send to a node that crashed while the message was on its way
    told without its loss, and the places of those crashes with the sends they lost: a
    loss caused by a crash is told after the crash."""
    shown = list(events)
    later: dict[int, list[Event]] = {}
    pending: dict[Any, list[int]] = {}  # node → its messages on their way, lost later
    for index, event in enumerate(events):
        kind = event["event"]
        if kind == "send" and lost_in_crash(event):
            pending.setdefault(event["peer"], []).append(index)
        elif kind == "crash":
            lost = pending.pop(event["node"], [])
            for place in lost:
                shown[place] = {k: v for k, v in events[place].items() if k != "lost"}
            if lost:
                later[index] = [events[place] for place in lost]
        elif kind == "restart":
            pending.pop(event["node"], None)
    return shown, later


def steps(events: list[Event]) -> list[Step]:
    """The run's steps, each with the places of its events in ``events``."""
    found: list[Step] = []
    current: dict[Any, Step] = {}
    epochs: dict[Any, Any] = {}  # node → its round, as far as its events show it
    variables: dict[Any, dict[str, Any]] = {}  # node → its election's variables
    for index, event in enumerate(events):
        node, kind = event["node"], event["event"]
        if kind == "violation":  # a check the last state broke: told after its step
            found.append(Step(node, event["t"], event, events=[index]))
            continue
        if kind in NETWORK:  # a step of its own: what follows is the node's
            found.append(Step(node, event["t"], event, events=[index]))
            current.pop(node, None)
            continue
        if kind in MEMBERSHIP:  # a step of its own, in the middle of a node's
            found.append(Step(node, event["t"], event, events=[index]))
            continue
        if kind in TRIGGERS:
            step = current[node] = Step(
                node, event["t"], event, epoch=epochs.get(node), variables=variables.get(node)
            )
            found.append(step)
            step.events.append(index)
            if kind == "restart":
                epochs.pop(node, None)
                variables.pop(node, None)
            continue
        step = current.get(node) or Step(
            node, event["t"], None, epoch=epochs.get(node), variables=variables.get(node)
        )
        if node not in current:
            current[node] = step
            found.append(step)
        step.events.append(index)
        (step.sends if kind == "send" else step.states).append(event)
        if isinstance(event.get("epoch"), int):
            epochs[node] = event["epoch"]
        if kind == "state" and isinstance(event.get("vars"), dict):
            variables[node] = event["vars"]
    return found


def carried(fields: object, who: int | None) -> tuple[Any, Any] | None:
    """The candidate a message carries as ``(capacity, id)``, the notes' criterion."""
    if not isinstance(fields, dict) or who is None:
        return None
    for value in fields.values():
        if isinstance(value, dict) and value.get("id") == who:
            return (value.get("capacity", who), who)
    return (who, who)


def candidates(events: list[Event], header: Event | None) -> dict[Any, tuple[Any, Any]]:
    """Each node as a candidate ``(capacity, id)``: the header's, else as its own
    messages carry it."""
    own: dict[Any, tuple[Any, Any]] = {}
    if header is not None and isinstance(header.get("nodes"), list):
        for spec in header["nodes"]:
            if isinstance(spec, dict) and "id" in spec:
                own[spec["id"]] = (spec.get("capacity", spec["id"]), spec["id"])
    for event in events:
        if event["event"] == "send" and event["node"] not in own:
            fields = event.get("fields")
            if candidate(fields) == event["node"]:
                found = carried(fields, event["node"])
                if found is not None:
                    own[event["node"]] = found
    return own


#: The candidacies that a ring election swallows (extinction, notes 000).
_CANDIDACIES = {"chang_roberts": "election", "hirschberg_sinclair": "probe"}


def extinctions(events: list[Event], header: Event | None = None) -> set[Any]:
    """The messages (their ``msg``) in which a candidacy died: an ``election`` (a
    ``probe``) that its receiver swallowed, passing on nothing that carries its id (not
    one of an older round, which its receiver ignored)."""
    shown = [e for e in events if not e.get("heartbeat")]
    kind = _CANDIDACIES.get(algorithm_ran(shown, header)[0] or "")
    if kind is None:
        return set()
    swallowed = set()
    for step in steps(shown):
        trigger = step.trigger
        if trigger is None or trigger["event"] != "receive" or trigger["kind"] != kind:
            continue
        who = candidate(trigger.get("fields"))
        if who is None or who == step.node or step.stale:
            continue
        if not any(candidate(send.get("fields")) == who for send in step.sends):
            swallowed.add(trigger.get("msg"))
    return swallowed


def idle(step: Step) -> bool:
    """A step of a crash-handling timer that sent nothing and changed nothing."""
    trigger = step.trigger
    return (
        trigger is not None
        and trigger["event"] == "timer"
        and ":" in str(trigger["timer"])
        and not step.sends
        and not step.states
    )
