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

from typing import TYPE_CHECKING

from ._crash_policy import CrashPolicy
from ._election import NodeState
from ._ring import RingElection

if TYPE_CHECKING:
    from ._member import Member

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

    def successor(self, member: Member) -> int:
        if not member.suspected:
            return member.view.out[0]
        return self._live(member, +1)

    def predecessor(self, member: Member) -> int:
        if not member.suspected:
            return member.view.out[-1]
        return self._live(member, -1)

    def watch(self, member: Member) -> set[int]:
        if self.both_ways:
            return {self.successor(member), self.predecessor(member)}
        return {self.successor(member)}

    def probe(self, member: Member) -> set[int]:
        if not member.suspected:
            return set()
        gap = self._gap(member, +1)
        return gap | self._gap(member, -1) if self.both_ways else gap

    def rejoin(self, member: Member) -> set[int]:
        return set(member.view.out) if self.both_ways else {member.view.out[0]}

    def on_suspect(self, member: Member, node: int) -> None:
        if node == member.elected or member.state is NodeState.UNDECIDED:
            member.new_round(f"crash of {node}", node)
            return
        election = member.election
        if isinstance(election, RingElection) and election.announcement is not None:
            election.send(self.successor(member), election.announcement)

    def on_recovered(self, member: Member, node: int) -> None:
        if node in self.watch(member):  # taken back into the ring: a new round with it
            member.new_round(f"recovery of {node}", node)

    @staticmethod
    def _live(member: Member, step: int) -> int:
        """The next node going ``step`` round the ring that is not suspected."""
        ring, me, suspected = member.view.members, member.id, member.suspected
        n, at = len(ring), member.rounds.rank
        if at is None:
            return me
        for k in range(1, n):
            peer = ring[(at + step * k) % n]
            if peer not in suspected:
                return peer
        return me  # everyone else is down: a ring of one

    @staticmethod
    def _gap(member: Member, step: int) -> set[int]:
        """The suspected nodes between this node and the next live one, going ``step``."""
        ring, suspected = member.view.members, member.suspected
        n, at = len(ring), member.rounds.rank
        gap: set[int] = set()
        if at is None:
            return gap
        for k in range(1, n):
            peer = ring[(at + step * k) % n]
            if peer not in suspected:
                break
            gap.add(peer)
        return gap
