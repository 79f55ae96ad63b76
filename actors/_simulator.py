"""A deterministic, single-threaded simulator for sans-IO elections.

A discrete-event simulation in virtual time: every message takes a latency drawn from
``latency`` (seconds), links stay FIFO as the notes assume (a message never overtakes an
earlier one on the same link), initiators start at random moments within the first
``latency[1]``, and timers fire at their virtual deadline.  One seed is one reproducible
run; many seeds explore many interleavings.  No actors, sockets or pickling: it runs the
very algorithm objects the actors host, fast enough for property tests and large ``n``.

``faults`` crash and restart nodes at given virtual times: a crashed node's pending
timers and the messages still on their way to it are lost, while what it sent before
crashing is still delivered (as on a real network); a restarted node is a new object
with ``recovering=True``.  With a failure detector (a ``heartbeat`` setting) nothing is
ever quiet, so such runs need ``until``.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from ._actions import Action, Notice, Send, SetTimer
from ._election import Election, NodeState
from ._member import Member
from ._message import Message
from ._safety import SafetyChecker
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
) -> SimulationResult:
    """Run ``algorithm`` on ``views`` until no message is in flight and no timer pending
    (or, with ``until``, until that virtual time).

    Raises :class:`RuntimeError` if ``max_steps`` events or ``max_time`` virtual seconds
    do not finish it (an algorithm that re-elects for ever, on a topology it does not fit).
    """
    initiators = set(initiators)
    nodes = {v.id: Member(algorithm, v, initiator=v.id in initiators) for v in views}
    if until is None and any(a.detector is not None for a in nodes.values()):
        raise ValueError("a run with a failure detector never goes quiet: give `until`")
    run = _Simulation(algorithm, {v.id: v for v in views}, nodes, random.Random(seed), latency)
    for member in nodes.values():
        run.act(0.0, member.id, member.handle_boot())
    for node in (v.id for v in views if v.id in initiators):
        run.push(run.rng.uniform(0, latency[1]), _START, node, None)
    for fault in faults:
        run.push(fault.at, _FAULT, fault.node, fault.action)
    return run.until_quiet(max_steps, max_time if until is None else until, until is not None)


class _Simulation:
    def __init__(
        self,
        algorithm: type[Election],
        views: dict[int, NodeView],
        nodes: dict[int, Member],
        rng: random.Random,
        latency: tuple[float, float],
    ) -> None:
        self.algorithm = algorithm
        self.views = views
        self.nodes = nodes
        self.rng = rng
        self.low, self.high = latency
        self.safety = SafetyChecker({v.id: v.candidate for v in views.values()})
        self.result = SimulationResult(nodes, safety=self.safety)
        self.events: list[tuple[float, int, int, int, object]] = []
        self.last_arrival: dict[tuple[int, int], float] = {}
        self.timers: dict[tuple[int, str], int] = {}  # live generation of each (node, name)
        self.incarnation = dict.fromkeys(nodes, 1)
        # What each node knows of each peer's life, as a Session does: messages carry the
        # receiver's life as the sender last heard it and the sender's own; a message for
        # an older life of its receiver, or from an older life of its sender, is dropped.
        self.known: dict[tuple[int, int], int] = {}
        self.reported = {i: (a.state, a.elected, a.epoch) for i, a in nodes.items()}
        self.order = 0

    def push(self, when: float, kind: int, node: int, payload: object) -> None:
        self.order += 1
        heapq.heappush(self.events, (when, self.order, kind, node, payload))

    def act(self, now: float, node: int, actions: list[Action]) -> None:
        incarnation = self.incarnation[node]
        for action in actions:
            if isinstance(action, Send):
                link = (node, action.to)
                arrival = now + self.rng.uniform(self.low, self.high)
                arrival = max(arrival, self.last_arrival.get(link, 0.0))  # FIFO per link
                self.last_arrival[link] = arrival
                # A ping asks whoever is there; everything else is for the life last heard.
                ping = action.message.kind == "ping"
                to_life = 0 if ping else self.known.get((node, action.to), 0)
                self.push(
                    arrival,
                    _DELIVER,
                    action.to,
                    (node, action.message, action.epoch, incarnation, to_life),
                )
                self.result.messages[action.message.kind] += 1
            elif isinstance(action, Notice):
                self.result.notices.append((now, node, action))
            else:
                key = (node, action.name)
                self.timers[key] = generation = self.timers.get(key, 0) + 1
                if isinstance(action, SetTimer):
                    self.push(
                        now + action.delay, _TIMER, node, (action.name, generation, incarnation)
                    )
        member = self.nodes[node]
        now_state = (member.state, member.elected, member.epoch)
        if now_state != self.reported[node]:
            self.reported[node] = now_state
            self.safety.observe(
                node, incarnation, member.epoch, str(member.state), member.elected, now
            )

    def fault(self, now: float, node: int, action: str) -> None:
        crashed = self.result.crashed
        if action == "crash" and node not in crashed:
            crashed.add(node)
            self.incarnation[node] += 1  # its timers die with it
        elif action == "restart" and node in crashed:
            crashed.discard(node)
            self.incarnation[node] += 1
            for key in [k for k in self.known if k[0] == node]:
                del self.known[key]  # a new life starts with a new session
            fresh = Member(self.algorithm, self.views[node], recovering=True)
            self.nodes[node] = fresh
            self.reported[node] = (fresh.state, fresh.elected, fresh.epoch)
            self.act(now, node, fresh.handle_boot())

    def until_quiet(self, max_steps: int, max_time: float, timed: bool) -> SimulationResult:
        result, nodes, crashed = self.result, self.nodes, self.result.crashed
        while self.events:
            if result.steps >= max_steps:
                raise RuntimeError(f"no end after {max_steps} events")
            now, _, kind, node, payload = self.events[0]
            if now > max_time:
                if timed:
                    result.time = max_time
                    return result
                raise RuntimeError(f"no end after {max_time:g} virtual seconds")
            heapq.heappop(self.events)
            if kind == _FAULT:
                assert isinstance(payload, str)
                self.fault(now, node, payload)
                continue
            if node in crashed:
                continue  # lost with the node
            if kind == _TIMER:
                assert isinstance(payload, tuple)
                name, generation, incarnation = payload
                if (
                    incarnation != self.incarnation[node]
                    or self.timers.get((node, name)) != generation
                ):
                    continue  # cancelled, replaced, or set by a previous life
                del self.timers[(node, name)]
                actions = nodes[node].handle_timer(name)
            elif kind == _DELIVER:
                assert isinstance(payload, tuple)
                sender, message, epoch, life, to_life = payload
                assert isinstance(message, Message)
                known = self.known.get((node, sender), 0)
                if to_life not in (0, self.incarnation[node]) or life < known:
                    result.dropped += 1
                    continue
                self.known[(node, sender)] = life
                actions = nodes[node].handle_message(sender, message, epoch)
            else:
                actions = nodes[node].handle_start()
            result.steps += 1
            result.time = now
            self.act(now, node, actions)
        return result
