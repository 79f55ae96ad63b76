"""How Bully lives with crashes: its watch, and its proclamation rule after a crash.

**The watch.**  A node watches every higher node (the leader is the highest live one, so
this watches it, and a node waiting for answers learns at once that a higher one is
gone).  The leader heartbeats every lower node and they do not ping it: they all last
heard from it at the same moment, so if it dies they suspect it together (within a
network delay, not a heartbeat of each other) and the rounds they start end at once.

**The proclamation rule** (:func:`proclaim_in_own_round`).  Every epoch after the first
has a single initiator (epochs are dealt by rank), so a node proclaims itself there only
if it started that round; drawn into a lower node's round by its ``election``, it holds
its own election in a round of its own at once in the teaching runs (notes 000, step 3:
P3 rejects P2 and sends its own election), and one that finds no higher node alive in a
round it did not start (the service modes) starts its own then.  Otherwise
a late frame could draw it into a round whose initiator already leads (it suspected this
node across a partition, say) and the epoch would have two leaders.  Epoch 1, the start
every initiator shares, is the notes' plain Bully and keeps its message counts: there a
node proclaims unless it skipped a higher node as crashed.
"""

from __future__ import annotations

from ringleader.actors.core import NodeState

from ._crash_policy import CrashPolicy, Intent, NewRound, Retry, Situation

__all__ = ["BullyCrashes", "proclaim_in_own_round"]


def proclaim_in_own_round(node: Situation) -> bool:
    """Bully's proclamation rule after a crash: only in a round of one's own after epoch
    1; in epoch 1, unless a higher node was skipped as crashed."""
    if node.epoch > 1:
        return node.initiator
    return not (node.above & node.suspected)


class BullyCrashes(CrashPolicy):
    """Bully's crash policy: watch every higher node, the leader heartbeats the lower
    ones, proclaim only by :func:`proclaim_in_own_round`."""

    watches = "every higher node (the leader among them)"

    def watch(self, node: Situation) -> set[int]:
        return set(node.above)

    def ping(self, node: Situation, watched: set[int]) -> set[int]:
        if node.state is NodeState.LEADER:
            return watched | node.below
        if node.elected is not None and node.elected in watched:
            return watched - {node.elected}
        return watched

    def on_suspect(self, node: Situation, peer: int) -> Intent:
        if peer == node.elected:
            return NewRound(f"crash of {peer}", peer)
        if node.state is NodeState.UNDECIDED and node.started:
            return Retry()  # ask again, without the crashed node
        return None

    def may_proclaim(self, node: Situation) -> bool:
        return proclaim_in_own_round(node)
