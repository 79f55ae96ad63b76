"""What the lab does alike over any model it steps (an election's or a service's): the
changes of the last step, and the auto-play policies that need no explored graph.

A model here is the explorer's flat state (``n`` nodes' parts, then ``L`` links'), its
``ids`` and its ``events`` (``(kind, link or node, …)``, ``kind`` ``"deliver"`` for a
delivery); a step is ``(event number, successor, …)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

__all__ = ["changed", "orderings", "random_step", "round_robin_step"]


def changed(model: Any, states: Sequence[tuple[int, ...]]) -> dict[str, list[int]]:
    """The nodes and links the last step of ``states`` changed."""
    if len(states) < 2:
        return {"nodes": [], "links": []}
    before, after = states[-2], states[-1]
    nodes = [model.ids[i] for i in range(model.n) if before[i] != after[i]]
    links = [k for k in range(model.L) if before[model.n + k] != after[model.n + k]]
    return {"nodes": nodes, "links": links}


def orderings(model: Any, steps: Sequence[Any], faults: Any) -> list[int]:
    """The steps that order what happens anyway (no fault of ``faults``): what
    auto-play chooses among."""
    return [k for k, step in enumerate(steps) if model.events[step[0]][0] not in faults]


def random_step(seed: int, path: Sequence[int], choices: Sequence[int]) -> int:
    """A seeded random choice, the same again for the same seed and path."""
    return random.Random(f"{seed}:{'.'.join(map(str, path))}").choice(choices)


def round_robin_step(
    model: Any, events: Sequence[int], steps: Sequence[Any], choices: Sequence[int]
) -> int:
    """The delivery on the next link after the last one delivered on (FIFO links taken
    in turn); the first of ``choices`` if none is a delivery."""
    last = -1
    for number in reversed(events):
        if model.events[number][0] == "deliver":
            last = model.events[number][1]
            break
    deliveries = [
        (model.events[steps[k][0]][1], k)
        for k in choices
        if model.events[steps[k][0]][0] == "deliver"
    ]
    if deliveries:
        after = [pair for pair in deliveries if pair[0] > last]
        return min(after or deliveries)[1]
    return choices[0]
