"""Wirings for tests: any topology over given ids, with seeded random trees and graphs."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ringleader.actors import NodeState
from ringleader.topologies import TOPOLOGIES, NodeSpec, Wiring

#: Every (topology, algorithm) pair the registry allows.
PAIRS = [(t, a) for t, topology in TOPOLOGIES.items() for a in topology.algorithms]


def random_edges(ids: Sequence[int], extra: int, rng: random.Random) -> list[tuple[int, int]]:
    """A random tree over ``ids`` plus up to ``extra`` more distinct edges."""
    edges = [(ids[rng.randrange(k)], ids[k]) for k in range(1, len(ids))]
    seen = {frozenset(e) for e in edges}
    for _ in range(extra):
        a, b = rng.sample(list(ids), 2) if len(ids) > 1 else (ids[0], ids[0])
        if a != b and frozenset((a, b)) not in seen:
            seen.add(frozenset((a, b)))
            edges.append((a, b))
    return edges


def build(
    topology: str,
    ids: Sequence[int],
    capacities: Sequence[float] | None = None,
    *,
    seed: int = 0,
    extra: int | None = None,
) -> Wiring:
    specs = [NodeSpec(i, c) for i, c in zip(ids, capacities or ids, strict=True)]
    edges = None
    if topology in ("spanning_tree", "graph"):
        more = 0 if topology == "spanning_tree" else (len(ids) if extra is None else extra)
        edges = random_edges(ids, more, random.Random(seed))
    return TOPOLOGIES[topology].build(specs, edges)


def check_outcome(result, wiring) -> None:  # type: ignore[no-untyped-def]
    winner = max(wiring.candidates).id
    assert result.leaders == [winner]
    assert set(result.elected.values()) == {winner}
    for node_id, node in result.nodes.items():
        expected = NodeState.LEADER if node_id == winner else NodeState.NOT_LEADER
        assert node.state is expected
