"""Ring repair (notes 002): a ring whose successor crashed goes round it.

With the failure detector on, a node on a ring watches its successor (on a two-way ring,
both neighbours).  When one is suspected the ring is repaired around it: the successor
becomes the next node in ring order that is not suspected.  The skipped nodes are still
pinged, so that a restarted one is taken back into the ring as soon as it answers; the
node that takes it back starts a new round (only it knows that the ring has its link
back).  A decided node whose successor crashed sends its ``elected`` announcement again
across the repaired link: the crashed node may have taken it with it.
"""

from __future__ import annotations

from ringleader.actors.core import NodeState

from ._crash_policy import CrashPolicy, Intent, NewRound, Retry, Situation

__all__ = ["RingRepair"]


class RingRepair(CrashPolicy):
    """The crash policy of ring elections; ``both_ways`` on a two-way ring
    (Hirschberg–Sinclair), whose nodes talk to both neighbours."""

    rejoin_by_neighbour = True

    def __init__(self, *, both_ways: bool = False) -> None:
        self.both_ways = both_ways
        self.watches = (
            "both its neighbours (and pings the crashed nodes it skips)"
            if both_ways
            else "its successor (and pings the crashed nodes it skips)"
        )

    def successor(self, node: Situation) -> int:
        if not node.suspected:
            return node.view.out[0]
        return self._live(node, +1)

    def predecessor(self, node: Situation) -> int:
        if not node.suspected:
            return node.view.out[-1]
        return self._live(node, -1)

    def watch(self, node: Situation) -> set[int]:
        if self.both_ways:
            return {self.successor(node), self.predecessor(node)}
        return {self.successor(node)}

    def steady_watch(self, node: Situation) -> set[int]:
        # The ring's own watch stays on (a node per neighbour): its repair needs it.
        return self.watch(node)

    def probe(self, node: Situation) -> set[int]:
        if not node.suspected:
            return set()
        gap = self._gap(node, +1)
        return gap | self._gap(node, -1) if self.both_ways else gap

    def rejoin(self, node: Situation) -> set[int]:
        return set(node.view.out) if self.both_ways else {node.view.out[0]}

    def on_suspect(self, node: Situation, peer: int) -> Intent:
        if peer == node.elected or node.state is NodeState.UNDECIDED:
            return NewRound(f"crash of {peer}", peer)
        # Decided: pass the announcement on again across the repaired link (the crashed
        # node may have taken it with it).
        return Retry()

    def on_recovered(self, node: Situation, peer: int) -> Intent:
        if peer in self.watch(node):  # taken back into the ring: a new round with it
            return NewRound(f"recovery of {peer}", peer)
        return None

    @staticmethod
    def _live(node: Situation, step: int) -> int:
        """The next node going ``step`` round the ring that is not suspected."""
        ring, me, suspected = node.view.members, node.id, node.suspected
        n, at = len(ring), node.rank
        if at is None:
            return me
        for k in range(1, n):
            peer = ring[(at + step * k) % n]
            if peer not in suspected:
                return peer
        return me  # everyone else is down: a ring of one

    @staticmethod
    def _gap(node: Situation, step: int) -> set[int]:
        """The suspected nodes between this node and the next live one, going ``step``."""
        ring, suspected = node.view.members, node.suspected
        n, at = len(ring), node.rank
        gap: set[int] = set()
        if at is None:
            return gap
        for k in range(1, n):
            peer = ring[(at + step * k) % n]
            if peer not in suspected:
                break
            gap.add(peer)
        return gap
