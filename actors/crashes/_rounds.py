"""Election rounds: numbered by epoch, fenced, dealt out by rank.

Notes 002: when a process detects a crash it starts a new election.  Here each election
round has a number, its *epoch*; every message carries its sender's, so that a message of
an older round is dropped (:attr:`Rounds.stale`: it is fenced off) and one of a newer
round makes the node leave its round and join that one.  The winning round's epoch is
the leader's fencing token.

Epochs after the first are dealt out by rank: with N members, the node at position r of
``members`` starts only rounds whose epoch is r modulo N.  Two nodes that start a round at
the same moment (both suspect the leader) therefore never share an epoch: the newer round
supersedes the other, and every epoch has one initiator, so at most one leader.
"""

from __future__ import annotations

from ringleader.actors.core import NodeView

__all__ = ["Rounds"]

#: The rounds' timers (their own name space).
STALL = "rounds:stall"
BEHIND = "rounds:behind"


class Rounds:
    """One node's epochs: the one it is in, the largest it has heard of, the largest it
    has acknowledged, its next own."""

    __slots__ = ("_node", "_rank", "acked", "acked_leader", "epoch", "seen", "stale")

    def __init__(self, node: NodeView, epoch: int) -> None:
        self.epoch = epoch
        self.seen = epoch  # the largest epoch in any message received
        #: The largest epoch whose leader this node acknowledged (a ``pong`` in that
        #: leader's epoch), or in which it held a lease itself, and that leader (``None``:
        #: not known; see ``Member``'s ``acknowledged``): it never
        #: acknowledges another leader of that epoch, and with a quorum never follows a
        #: leader of an older one (see ``Member``).
        self.acked = 0
        self.acked_leader: int | None = None
        self.stale = 0  # election messages dropped for an older epoch
        self._node = node
        self._rank: int | None = -1  # not looked up yet

    @property
    def rank(self) -> int | None:
        """This node's position in ``members`` (``None`` if it is alone or not listed),
        looked up when first asked for: that takes O(n), and most nodes never ask."""
        if self._rank == -1:
            members, me = self._node.members, self._node.id
            self._rank = members.index(me) if len(members) > 1 and me in members else None
        return self._rank

    def heard_of(self, epoch: int) -> None:
        self.seen = max(self.seen, epoch)

    def acknowledge(self, epoch: int, leader: int) -> None:
        """This node acknowledges ``leader`` of round ``epoch`` (or leads it, with a
        lease)."""
        if epoch > self.acked:
            self.acked, self.acked_leader = epoch, leader

    def may_acknowledge(self, epoch: int, leader: int) -> bool:
        """Whether acknowledging ``leader`` of round ``epoch`` keeps to one leader per
        round (a round of the notes' Bully can end with two, on either side of a cut
        link): not if this node acknowledged another leader of that round, or one it
        does not know (a restarted node whose host kept no more than its epoch)."""
        return epoch != self.acked or self.acked_leader == leader

    def enter(self, epoch: int) -> None:
        self.epoch = epoch
        self.heard_of(epoch)

    def next_epoch(self) -> int:
        """The smallest epoch of this node's own above every epoch it has seen."""
        floor = max(self.epoch, self.seen) + 1
        rank = self.rank
        if rank is None:
            return floor
        return floor + (rank - floor) % len(self._node.members)
