"""A deterministic, single-threaded simulator for sans-IO elections.

A discrete-event simulation in virtual time: every message takes a latency drawn from
``latency`` (seconds), links stay FIFO as the notes assume (a message never overtakes an
earlier one on the same link), initiators start at random moments within the first
``latency[1]``, and timers fire at their virtual deadline.  One seed is one reproducible
run; many seeds explore many interleavings.  No actors, sockets or pickling: it runs the
very :class:`~actors.Member` objects the node actors host, fast enough for property tests
and large ``n``.

``faults`` crash and restart nodes at given virtual times: a crashed node's pending
timers and the messages still on their way to it are lost, while what it sent before
crashing is still delivered (as on a real network); a restarted node is a new member
with ``recovering=True``.  With a failure detector (a ``heartbeat`` setting) nothing is
ever quiet, so such runs need ``until``.  ``trace=True`` records every event for
:func:`~actors.write_trace` (``SimulationResult.records``).
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from ._actions import Action, Notice, Send, SetTimer
from ._election import Election, NodeState
from ._member import Member
from ._safety import SafetyChecker
from ._trace import Record
from ._view import NodeView

__all__ = ["Fault", "SimulationResult", "simulate"]


@dataclass(frozen=True)
class Fault:
    """At virtual time ``at``, ``action`` (``"crash"`` or ``"restart"``) node ``node``."""

    at: float
    action: str
    node: int


@dataclass
class SimulationResult:
    """The outcome of one simulated run."""

    nodes: dict[int, Member]
    messages: Counter[str] = field(default_factory=Counter)
    steps: int = 0
    time: float = 0.0  # virtual seconds until the last event
    crashed: set[int] = field(default_factory=set)
    notices: list[tuple[float, int, Notice]] = field(default_factory=list)
    safety: SafetyChecker | None = None
    dropped: int = 0  # messages for or from an older life of a node
    #: Every event, in the order it happened, when the run was traced.
    records: list[Record] | None = None

    @property
    def total(self) -> int:
        return sum(self.messages.values())

    @property
    def live(self) -> dict[int, Member]:
        return {i: a for i, a in self.nodes.items() if i not in self.crashed}

    @property
    def leaders(self) -> list[int]:
        return [i for i, a in self.live.items() if a.state is NodeState.LEADER]

    @property
    def elected(self) -> dict[int, int | None]:
        return {i: a.elected for i, a in self.live.items()}


_FAULT, _START, _DELIVER, _TIMER = 0, 1, 2, 3


def simulate(
    algorithm: type[Election],
    views: Sequence[NodeView],
    initiators: Collection[int],
    *,
    seed: int = 0,
    latency: tuple[float, float] = (0.0001, 0.001),
    faults: Sequence[Fault] = (),
    until: float | None = None,
    max_steps: int = 50_000_000,
    max_time: float = 3600.0,
    trace: bool = False,
) -> SimulationResult:
    """Run ``algorithm`` on ``views`` until no message is in flight and no timer pending
    (or, with ``until``, until that virtual time).

    Raises :class:`RuntimeError` if ``max_steps`` events or ``max_time`` virtual seconds
    do not finish it (an algorithm that re-elects for ever, on a topology it does not fit).
    """
    starting = set(initiators)
    nodes = {v.id: Member(algorithm, v, initiator=v.id in starting) for v in views}
    if until is None and any(a.detector is not None for a in nodes.values()):
        raise ValueError("a run with a failure detector never goes quiet: give `until`")
    run = _Simulation(algorithm, views, nodes, random.Random(seed), latency, trace=trace)
    for member in nodes.values():
        run.act(0.0, member.id, member.handle_boot())
    for view in views:
        if view.id in starting:
            run.push(run.rng.uniform(0, latency[1]), _START, view.id, None)
    for fault in faults:
        run.push(fault.at, _FAULT, fault.node, fault.action)
    return run.until_quiet(max_steps, max_time if until is None else until, until is not None)


class _Simulation:
    def __init__(
        self,
        algorithm: type[Election],
        views: Sequence[NodeView],
        nodes: dict[int, Member],
        rng: random.Random,
        latency: tuple[float, float],
        *,
        trace: bool,
    ) -> None:
        self.algorithm = algorithm
        self.views = {v.id: v for v in views}
        self.nodes = nodes
        self.rng = rng
        self.low, self.high = latency
        self.safety = SafetyChecker({v.id: v.candidate for v in views})
        self.records: list[Record] | None = [] if trace else None
        self.result = SimulationResult(nodes, safety=self.safety, records=self.records)
        self.events: list[tuple[float, int, int, int, object]] = []
        self.last_arrival: dict[tuple[int, int], float] = {}
        self.timers: dict[tuple[int, str], int] = {}  # live generation of each (node, name)
        self.incarnation = dict.fromkeys(nodes, 1)
        # What each node knows of each peer's life, as a Session does: messages carry the
        # receiver's life as the sender last heard it and the sender's own; a message for
        # an older life of its receiver, or from an older life of its sender, is dropped.
        self.known: dict[tuple[int, int], int] = {}
        self.reported = {i: (a.state, a.elected, a.epoch) for i, a in nodes.items()}
        self.order = itertools.count(1)
        self.messages = itertools.count(1)  # message ids, for the trace

    def push(self, when: float, kind: int, node: int, payload: object) -> None:
        heapq.heappush(self.events, (when, next(self.order), kind, node, payload))

    def record(self, now: float, node: int, event: str, *details: object) -> None:
        assert self.records is not None
        self.records.append((now, next(self.order), node, event, *details))

    def act(self, now: float, node: int, actions: list[Action]) -> None:
        incarnation = self.incarnation[node]
        records = self.records
        for action in actions:
            if isinstance(action, Send):
                to, message = action.to, action.message
                link = (node, to)
                arrival = now + self.rng.uniform(self.low, self.high)
                last = self.last_arrival.get(link, 0.0)
                arrival = max(arrival, last)  # FIFO per link
                self.last_arrival[link] = arrival
                # A ping asks whoever is there; everything else is for the life last heard.
                to_life = 0 if message.kind == "ping" else self.known.get((node, to), 0)
                key = None
                if records is not None:
                    key = next(self.messages)
                    self.record(now, node, "send", to, message, action.epoch, key)
                self.push(
                    arrival, _DELIVER, to, (node, message, action.epoch, incarnation, to_life, key)
                )
                self.result.messages[message.kind] += 1
            elif isinstance(action, Notice):
                self.result.notices.append((now, node, action))
                if records is not None and action.kind == "suspect":
                    self.record(now, node, "suspect", action.node, action.epoch)
            else:  # a timer set or cancelled: either way, one pending before is void
                timer = (node, action.name)
                self.timers[timer] = generation = self.timers.get(timer, 0) + 1
                if isinstance(action, SetTimer):
                    self.push(
                        now + action.delay, _TIMER, node, (action.name, generation, incarnation)
                    )
        member = self.nodes[node]
        now_state = (member.state, member.elected, member.epoch)
        if now_state != self.reported[node]:
            self.reported[node] = now_state
            state = str(member.state)
            self.safety.observe(node, incarnation, member.epoch, state, member.elected, now)
            if records is not None:
                self.record(now, node, "state", state, member.elected, member.epoch)

    def fault(self, now: float, node: int, action: str) -> None:
        crashed = self.result.crashed
        if action == "crash" and node not in crashed:
            crashed.add(node)
            self.incarnation[node] += 1  # its timers die with it
            if self.records is not None:
                self.record(now, node, "crash")
        elif action == "restart" and node in crashed:
            crashed.discard(node)
            self.incarnation[node] += 1
            for key in [k for k in self.known if k[0] == node]:
                del self.known[key]  # a new life starts with a new session
            fresh = Member(self.algorithm, self.views[node], recovering=True)
            self.nodes[node] = fresh
            self.reported[node] = (fresh.state, fresh.elected, fresh.epoch)
            if self.records is not None:
                self.record(now, node, "restart")
            self.act(now, node, fresh.handle_boot())

    def until_quiet(self, max_steps: int, max_time: float, timed: bool) -> SimulationResult:
        result, crashed, events = self.result, self.result.crashed, self.events
        while events:
            if result.steps >= max_steps:
                raise RuntimeError(f"no end after {max_steps} events")
            now, _, kind, node, payload = events[0]
            if now > max_time:
                if timed:
                    result.time = max_time
                    return result
                raise RuntimeError(f"no end after {max_time:g} virtual seconds")
            heapq.heappop(events)
            if kind == _FAULT:
                assert isinstance(payload, str)
                self.fault(now, node, payload)
                continue
            if node in crashed:
                continue  # lost with the node
            if kind == _DELIVER:
                actions = self.deliver(now, node, payload)
            elif kind == _TIMER:
                actions = self.fire(now, node, payload)
            else:
                actions = self.nodes[node].handle_start()
            if actions is None:
                continue
            result.steps += 1
            result.time = now
            self.act(now, node, actions)
        return result

    def deliver(self, now: float, node: int, payload: object) -> list[Action] | None:
        """A message arrives at ``node``: its actions, or ``None`` if it was dropped."""
        assert isinstance(payload, tuple)
        sender, message, epoch, life, to_life, key = payload
        known = self.known.get((node, sender), 0)
        if (to_life and to_life != self.incarnation[node]) or life < known:
            self.result.dropped += 1
            return None
        self.known[(node, sender)] = life
        if self.records is not None:
            self.record(now, node, "receive", sender, message, epoch, key)
        return self.nodes[node].handle_message(sender, message, epoch)

    def fire(self, now: float, node: int, payload: object) -> list[Action] | None:
        """A timer of ``node`` is due: its actions, or ``None`` if it was void."""
        assert isinstance(payload, tuple)
        name, generation, incarnation = payload
        timer = (node, name)
        if incarnation != self.incarnation[node] or self.timers.get(timer) != generation:
            return None  # cancelled, replaced, or set by a previous life
        del self.timers[timer]
        if self.records is not None:
            self.record(now, node, "timer", name)
        return self.nodes[node].handle_timer(name)
