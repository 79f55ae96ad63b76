"""The echo election on any connected graph (notes 003, "Sur un graphe générique, sans
diffusion").

The initiator asks every neighbour with ``Demande``; a node takes the first asker as its
*daddy* and asks its other neighbours; once every other neighbour has answered, it answers
``REP(c_max, i_max)`` to its daddy; the initiator proclaims ``ELU(c_max, i_max)`` along the
tree that formed.  A later asker gets NOK: here two neighbours that ask each other each
take the other's ``Demande`` as that NOK, so every link carries exactly two messages and
the total is the notes' **M + N − 1** (M directed links: M for the collection, N − 1 for
the proclamation).

**Several initiators.**  Each wave carries its initiator's ``(capacity, id)``; a node
already in a wave that gets the ``Demande`` of a larger one leaves its wave for it, and
ignores the messages of smaller ones (extinction, as on a ring).  Only the largest
initiator's wave completes, and it has visited every node.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, ClassVar

from ringleader.actors.core import Bound, Candidate, Election, Graph, Message, NodeView

__all__ = ["Demande", "Echo", "Elu", "Rep"]


@dataclass(frozen=True, slots=True)
class Demande(Message):
    """``Demande()``: send me your capacities (of the election started by ``wave``)."""

    kind = "demande"
    wave: Candidate


@dataclass(frozen=True, slots=True)
class Rep(Message):
    """``REP(c, i)``: the largest capacity below the sender, for election ``wave``."""

    kind = "rep"
    wave: Candidate
    best: Candidate


@dataclass(frozen=True, slots=True)
class Elu(Message):
    """``ELU(c, i)``: the proclamation of the winner."""

    kind = "elu"
    leader: Candidate


class Echo(Election):
    name = "echo"
    title = "echo election"
    messages: ClassVar[tuple[type[Message], ...]] = (Demande, Rep, Elu)

    def __init__(self, node: NodeView, **kwargs: Any) -> None:
        super().__init__(node, **kwargs)
        self.wave: Candidate | None = None
        self.daddy: int | None = None
        self.waiting: set[int] = set()  # asked, not answered yet
        #: Answered with a REP: below us in the tree.  A set: the order the replies came
        #: in is no part of the state (the ELU go out in link order).
        self.children: set[int] = set()
        self.best = self.me

    def start(self) -> None:
        self.join(self.me, None)

    def join(self, wave: Candidate, daddy: int | None) -> None:
        self.wave, self.daddy, self.best, self.children = wave, daddy, self.me, set()
        self.waiting = {p for p in self.node.out if p != daddy and p not in self.suspected}
        for peer in sorted(self.waiting, key=self.node.out.index):
            self.send(peer, Demande(wave))
        if not self.waiting:
            self.collected()

    def on_demande(self, message: Demande, sender: int) -> None:
        if self.wave is None or message.wave > self.wave:
            self.join(message.wave, sender)
        elif message.wave == self.wave:
            self.answered(sender)  # we asked each other: their Demande is our NOK

    def on_rep(self, message: Rep, sender: int) -> None:
        if message.wave != self.wave:
            return  # an extinguished election
        self.best = max(self.best, message.best)
        self.children.add(sender)
        self.answered(sender)

    def answered(self, sender: int) -> None:
        self.waiting.discard(sender)
        if not self.waiting:
            self.collected()

    def collected(self) -> None:
        assert self.wave is not None
        if self.daddy is None:  # the initiator: proclamation
            self.proclaim(self.best)
        else:
            self.send(self.daddy, Rep(self.wave, self.best))

    def proclaim(self, leader: Candidate) -> None:
        self.decide(leader)
        for child in sorted(self.children, key=self.node.out.index):
            self.send(child, Elu(leader))

    def on_elu(self, message: Elu, sender: int) -> None:
        self.proclaim(message.leader)

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        m = sum(len(peers) for peers in graph.out.values())
        if len(initiators) == 1:
            return Bound("M+N-1", m + n - 1, exact=True)
        return Bound("kM+N-1", len(initiators) * m + n - 1, exact=False)
