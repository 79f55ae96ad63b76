"""A deterministic, single-threaded simulator for sans-IO elections.

Channels are FIFO per link, as the notes assume; which link delivers next, and when each
initiator starts, is drawn from a seeded random generator, so one seed is one
reproducible interleaving and many seeds explore many.  No actors, sockets or pickling:
it runs the very algorithm objects the actors host, fast enough for property tests over
thousands of interleavings and for large ``n``.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from ._election import Election, Message, NodeState, NodeView, Send

__all__ = ["SimulationResult", "simulate"]


@dataclass
class SimulationResult:
    """The outcome of one simulated election."""

    nodes: dict[int, Election]
    messages: Counter[str] = field(default_factory=Counter)
    steps: int = 0

    @property
    def total(self) -> int:
        return sum(self.messages.values())

    @property
    def leaders(self) -> list[int]:
        return [i for i, a in self.nodes.items() if a.state is NodeState.LEADER]

    @property
    def elected(self) -> dict[int, int | None]:
        return {i: a.leader for i, a in self.nodes.items()}


def simulate(
    algorithm: type[Election],
    views: Sequence[NodeView],
    initiators: Collection[int],
    *,
    seed: int = 0,
    max_steps: int = 50_000_000,
) -> SimulationResult:
    """Run ``algorithm`` on ``views`` until no message is in flight.

    Raises :class:`RuntimeError` if ``max_steps`` deliveries do not finish it.
    """
    rng = random.Random(seed)
    nodes = {v.id: algorithm(v, initiator=v.id in initiators) for v in views}
    result = SimulationResult(nodes)
    channels: dict[tuple[int, int], deque[Message]] = {}
    busy: list[tuple[int, int]] = []  # links with something in flight, in no order
    starts = [v.id for v in views if v.id in initiators]

    def post(sender: int, sends: list[Send]) -> None:
        for send in sends:
            link = (sender, send.to)
            queue = channels.setdefault(link, deque())
            if not queue:
                busy.append(link)
            queue.append(send.message)
            result.messages[send.message.kind] += 1

    while busy or starts:
        if result.steps >= max_steps:
            raise RuntimeError(f"no end after {max_steps} deliveries")
        result.steps += 1
        pick = rng.randrange(len(busy) + len(starts))
        if pick >= len(busy):
            node = starts.pop(pick - len(busy))
            post(node, nodes[node].handle_start())
            continue
        link = busy[pick]
        queue = channels[link]
        message = queue.popleft()
        if not queue:
            busy[pick] = busy[-1]
            busy.pop()
        sender, receiver = link
        post(receiver, nodes[receiver].handle_message(sender, message))
    return result
