"""Chang–Roberts 1979 on a unidirectional FIFO ring (notes 000, 002).

Each node is a *participant* or *non-participant*.  An initiator marks itself a
participant and sends ``election(P_i)`` to its successor.  On ``election(P_i)`` node P_j:

- ``P_i > P_j``: forwards ``election(P_i)`` (and is now a participant — Coulouris's rule,
  from which the notes come: once it has passed a larger id on, its own cannot win);
- ``P_i < P_j`` and P_j is not a participant: sends ``election(P_j)`` instead and becomes
  a participant;
- ``P_i < P_j`` and P_j is a participant: drops the message (extinction);
- ``P_i = P_j``: its own message came back, so it is the leader; it becomes a
  non-participant and sends ``elected(P_j)`` round the ring.

On ``elected(P_j)`` a node becomes a non-participant, sets ``elected`` to P_j and
forwards the message unless it is P_j itself.

Counts (notes): one initiator that is the future leader, ``2n``; one initiator that is the
leader's successor (the worst single initiator), ``3n − 1``; every node initiating, ids
descending round the ring, ``n(n+1)/2 + n`` (20 for n = 5).  The criterion is the
:class:`~ringleader.actors.Candidate` ``(capacity, id)``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ringleader.actors.core import Bound, Candidate, Graph, Message

from ._ring import Elected, RingElection, descending_ring, successor_of

__all__ = ["ChangRoberts", "ElectionMessage"]


@dataclass(frozen=True, slots=True)
class ElectionMessage(Message):
    """``election(P_i)``: P_i's bid to lead."""

    kind = "election"
    candidate: Candidate


class ChangRoberts(RingElection):
    name = "chang_roberts"
    title = "Chang–Roberts"
    messages = (ElectionMessage, Elected)

    participant = False

    def start(self) -> None:
        self.participant = True
        self.send(self.successor, ElectionMessage(self.me))

    def on_election(self, message: ElectionMessage, sender: int) -> None:
        candidate = message.candidate
        if candidate > self.me:
            self.participant = True
            self.send(self.successor, message)
        elif candidate < self.me:
            if not self.participant:
                self.participant = True
                self.send(self.successor, ElectionMessage(self.me))
        else:
            self.participant = False
            self.decide(self.me)
            self.announce(Elected(self.me))

    def on_elected(self, message: Elected, sender: int) -> None:
        self.participant = False
        if message.leader != self.me:
            self.decide(message.leader)
            self.announce(message)

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        order = graph.candidates
        n = len(order)
        leader = max(order)
        if len(initiators) == 1:
            (initiator,) = initiators
            if initiator == leader.id:
                return Bound("2n", 2 * n, exact=True)
            worst = initiator == successor_of(order, leader.id)
            return Bound("3n-1", 3 * n - 1, exact=worst)
        everyone = set(initiators) == {c.id for c in order}
        return Bound("n(n+1)/2+n", n * (n + 1) // 2 + n, exact=everyone and descending_ring(order))
