"""What ring algorithms share: the successor, and facts about ring arrangements."""

from __future__ import annotations

from collections.abc import Sequence

from ._election import Candidate, Election, NodeState

__all__ = ["RingElection", "descending_ring", "successor_of"]


class RingElection(Election):
    """An election on a ring: messages go to ``successor`` (out-neighbour 0, i → i+1).

    With the failure detector on, a node watches its successor (notes 002) and, when it
    is suspected, repairs the ring around it: ``successor`` becomes the next node in ring
    order that is not suspected.  The skipped nodes are still pinged, so that a
    restarted one is taken back into the ring as soon as it answers, and the node that
    takes it back starts a new round (only it knows that the ring has its link back).
    """

    watches = "its successor (and pings the crashed nodes it skips)"
    rejoin_by_neighbour = True

    @property
    def successor(self) -> int:
        if not self.suspected:
            return self.node.out[0]
        return self._live(+1)

    def _live(self, step: int) -> int:
        ring = self.node.members
        n = len(ring)
        at = ring.index(self.id)
        for k in range(1, n):
            peer = ring[(at + step * k) % n]
            if peer not in self.suspected:
                return peer
        return self.id  # everyone else is down: a ring of one

    def _gap(self, step: int) -> set[int]:
        """The suspected nodes between this node and the next live one, going ``step``."""
        ring = self.node.members
        n = len(ring)
        at = ring.index(self.id)
        gap = set()
        for k in range(1, n):
            peer = ring[(at + step * k) % n]
            if peer not in self.suspected:
                break
            gap.add(peer)
        return gap

    def watch_set(self) -> set[int]:
        return {self.successor}

    def probe_set(self) -> set[int]:
        return self._gap(+1) if self.suspected else set()

    def rejoin_set(self) -> set[int]:
        return {self.node.out[0]}

    def on_suspect(self, node: int) -> None:
        if node == self.leader or self.state is NodeState.UNDECIDED:
            self.new_election(f"crash of {node}")
        else:
            self.on_repaired()

    def on_recovered(self, node: int) -> None:
        if node in self.watch_set():  # taken back into the ring: a new round with it
            self.new_election(f"recovery of {node}")

    def on_repaired(self) -> None:
        """The ring was repaired while this node was decided (a non-leader crashed).

        An announcement the crashed node had not passed on yet is lost with it; ring
        algorithms that announce the leader send theirs again to the new successor."""


def successor_of(order: Sequence[Candidate], node_id: int) -> int:
    """The id after ``node_id`` in ring order ``order``."""
    ids = [c.id for c in order]
    return ids[(ids.index(node_id) + 1) % len(ids)]


def descending_ring(order: Sequence[Candidate]) -> bool:
    """True if going round the ring the candidates strictly decrease, from some start."""
    n = len(order)
    rises = sum(order[i] < order[(i + 1) % n] for i in range(n))
    return rises <= 1
