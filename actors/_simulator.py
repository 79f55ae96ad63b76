"""A deterministic, single-threaded simulator for sans-IO elections.

A discrete-event simulation in virtual time: every message takes a latency drawn from
``latency`` (seconds), links stay FIFO as the notes assume (a message never overtakes an
earlier one on the same link), initiators start at random moments within the first
``latency[1]``, and timers fire at their virtual deadline.  One seed is one reproducible
run; many seeds explore many interleavings.  No actors, sockets or pickling: it runs the
very algorithm objects the actors host, fast enough for property tests and large ``n``.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from ._election import Action, Election, Message, NodeState, NodeView, Send, SetTimer

__all__ = ["SimulationResult", "simulate"]


@dataclass
class SimulationResult:
    """The outcome of one simulated election."""

    nodes: dict[int, Election]
    messages: Counter[str] = field(default_factory=Counter)
    steps: int = 0
    time: float = 0.0  # virtual seconds until the last event

    @property
    def total(self) -> int:
        return sum(self.messages.values())

    @property
    def leaders(self) -> list[int]:
        return [i for i, a in self.nodes.items() if a.state is NodeState.LEADER]

    @property
    def elected(self) -> dict[int, int | None]:
        return {i: a.leader for i, a in self.nodes.items()}


_START, _DELIVER, _TIMER = 0, 1, 2


def simulate(
    algorithm: type[Election],
    views: Sequence[NodeView],
    initiators: Collection[int],
    *,
    seed: int = 0,
    latency: tuple[float, float] = (0.0001, 0.001),
    max_steps: int = 50_000_000,
    max_time: float = 3600.0,
) -> SimulationResult:
    """Run ``algorithm`` on ``views`` until no message is in flight and no timer pending.

    Raises :class:`RuntimeError` if ``max_steps`` events or ``max_time`` virtual seconds
    do not finish it (an algorithm that re-elects for ever, on a topology it does not fit).
    """
    nodes = {v.id: algorithm(v, initiator=v.id in initiators) for v in views}
    run = _Simulation(nodes, random.Random(seed), latency)
    for node in (v.id for v in views if v.id in initiators):
        run.push(run.rng.uniform(0, latency[1]), _START, node, None)
    return run.until_quiet(max_steps, max_time)


class _Simulation:
    def __init__(
        self, nodes: dict[int, Election], rng: random.Random, latency: tuple[float, float]
    ) -> None:
        self.nodes = nodes
        self.rng = rng
        self.low, self.high = latency
        self.result = SimulationResult(nodes)
        self.events: list[tuple[float, int, int, int, object]] = []
        self.last_arrival: dict[tuple[int, int], float] = {}
        self.timers: dict[tuple[int, str], int] = {}  # live generation of each (node, name)
        self.order = 0

    def push(self, when: float, kind: int, node: int, payload: object) -> None:
        self.order += 1
        heapq.heappush(self.events, (when, self.order, kind, node, payload))

    def act(self, now: float, node: int, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, Send):
                link = (node, action.to)
                arrival = now + self.rng.uniform(self.low, self.high)
                arrival = max(arrival, self.last_arrival.get(link, 0.0))  # FIFO per link
                self.last_arrival[link] = arrival
                self.push(arrival, _DELIVER, action.to, (node, action.message))
                self.result.messages[action.message.kind] += 1
            else:
                key = (node, action.name)
                self.timers[key] = generation = self.timers.get(key, 0) + 1
                if isinstance(action, SetTimer):
                    self.push(now + action.delay, _TIMER, node, (action.name, generation))

    def until_quiet(self, max_steps: int, max_time: float) -> SimulationResult:
        result, nodes = self.result, self.nodes
        while self.events:
            if result.steps >= max_steps:
                raise RuntimeError(f"no end after {max_steps} events")
            now, _, kind, node, payload = heapq.heappop(self.events)
            if now > max_time:
                raise RuntimeError(f"no end after {max_time:g} virtual seconds")
            if kind == _TIMER:
                assert isinstance(payload, tuple)
                name, generation = payload
                if self.timers.get((node, name)) != generation:
                    continue  # cancelled or replaced
                del self.timers[(node, name)]
                actions = nodes[node].handle_timer(name)
            elif kind == _DELIVER:
                assert isinstance(payload, tuple)
                sender, message = payload
                assert isinstance(message, Message)
                actions = nodes[node].handle_message(sender, message)
            else:
                actions = nodes[node].handle_start()
            result.steps += 1
            result.time = now
            self.act(now, node, actions)
        return result
