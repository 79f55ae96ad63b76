"""How Bully lives with crashes: its watch, and its proclamation rule after a crash.

**The watch.**  A node watches every higher node (the leader is the highest live one, so
this watches it, and a node waiting for answers learns at once that a higher one is
gone).  The leader heartbeats every lower node and they do not ping it: they all last
heard from it at the same moment, so if it dies they suspect it together (within a
network delay, not a heartbeat of each other) and the rounds they start end at once.

**The proclamation rule** (:func:`proclaim_in_own_round`).  Every epoch after the first
has a single initiator (epochs are dealt by rank), so a node proclaims itself there only
if it started that round; drawn into another node's round, it starts its own.  Otherwise
a late frame could draw it into a round whose initiator already leads (it suspected this
node across a partition, say) and the epoch would have two leaders.  Epoch 1, the start
every initiator shares, is the notes' plain Bully and keeps its message counts: there a
node proclaims unless it skipped a higher node as crashed.
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING

from ._bully import Bully
from ._crash_policy import CrashPolicy
from ._election import Election, NodeState

if TYPE_CHECKING:
    from ._member import Member

__all__ = ["BullyCrashes", "proclaim_in_own_round"]


def proclaim_in_own_round(bully: Bully, suspected: Set[int]) -> bool:
    """Bully's proclamation rule after a crash: only in a round of one's own after epoch
    1; in epoch 1, unless a higher node was skipped as crashed."""
    if bully.epoch > 1:
        return bully.initiator
    return not any(peer in suspected for peer in bully.higher)


class BullyCrashes(CrashPolicy):
    """Bully's crash policy: watch every higher node, the leader heartbeats the lower
    ones, proclaim only by :func:`proclaim_in_own_round`."""

    watches = "every higher node (the leader among them)"

    def watch(self, member: Member) -> set[int]:
        election = member.election
        return set(election.higher) if isinstance(election, Bully) else set()

    def ping(self, member: Member, watched: set[int]) -> set[int]:
        election = member.election
        if member.state is NodeState.LEADER and isinstance(election, Bully):
            return watched | set(election.lower)
        if member.elected is not None and member.elected in watched:
            return watched - {member.elected}
        return watched

    def on_suspect(self, member: Member, node: int) -> None:
        election = member.election
        if node == member.elected:
            member.new_round(f"crash of {node}", node)
        elif (
            member.state is NodeState.UNDECIDED and election.started and isinstance(election, Bully)
        ):
            election.hold_election()  # ask again, without the crashed node

    def may_proclaim(self, member: Member, election: Election) -> bool:
        if not isinstance(election, Bully):
            return True
        return proclaim_in_own_round(election, member.suspected)
