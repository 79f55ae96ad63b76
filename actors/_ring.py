"""What ring algorithms share: the successor, and facts about ring arrangements."""

from __future__ import annotations

from collections.abc import Sequence

from ._election import Candidate, Election

__all__ = ["RingElection", "descending_ring", "successor_of"]


class RingElection(Election):
    """An election on a ring: messages go to ``successor`` (out-neighbour 0, i → i+1)."""

    @property
    def successor(self) -> int:
        return self.node.out[0]


def successor_of(order: Sequence[Candidate], node_id: int) -> int:
    """The id after ``node_id`` in ring order ``order``."""
    ids = [c.id for c in order]
    return ids[(ids.index(node_id) + 1) % len(ids)]


def descending_ring(order: Sequence[Candidate]) -> bool:
    """True if going round the ring the candidates strictly decrease, from some start."""
    n = len(order)
    rises = sum(order[i] < order[(i + 1) % n] for i in range(n))
    return rises <= 1
