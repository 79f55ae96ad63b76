"""Capacity collection along a spanning tree, and the echo election on any graph (notes 003).

**Tree election** ("Sur un arbre couvrant").  The initiator sends ``Demande()`` to its
neighbours; a node that gets it from a neighbour takes that neighbour as its *daddy* and
passes ``Demande()`` on to its other neighbours; a leaf answers ``REP(c, i)`` with its
capacity; a node that has the ``REP`` of every other neighbour sends ``REP(c_max,
i_max)`` to its daddy.  When the initiator has every ``REP`` it knows the winner and
proclaims ``ELU(c_max, i_max)`` down the tree; leaves answer ``OK!`` and the ``OK!``s
climb back, so the initiator knows everyone has learnt the result (FIN).  With the
root as initiator this is the notes' first version, exactly 4(N − 1) messages.  With any
other initiator the notes' general version re-orients the tree the same way (their
*ascending* nodes are those whose daddy for this election is one of their children); we
keep the ``OK!`` phase there too, so the count is 4(N − 1) for any single initiator.

**Echo election** ("Sur un graphe générique, sans diffusion").  The same wave on any
connected graph, neighbours only: ask every neighbour; the first asker becomes the
daddy; once every other neighbour has answered, answer ``REP(c_max)`` to the daddy; the
initiator proclaims along the tree that formed.  A later asker gets NOK: here two
neighbours that ask each other each take the other's ``Demande`` as that NOK, so every
link carries exactly two messages and the total is the notes' **M + N − 1** (M directed
links: M for the collection, N − 1 for the proclamation).

**Several initiators.**  Each wave carries its initiator's ``(capacity, id)``; a node
already in a wave that gets the ``Demande`` of a larger one leaves its wave for it, and
ignores the messages of smaller ones (extinction, as on a ring).  Only the largest
initiator's wave completes, and it has visited every node.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import ClassVar

from ._election import Bound, Candidate, Election, Graph, Message, NodeView

__all__ = ["Demande", "Echo", "Elu", "Ok", "Rep", "TreeElection"]


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


@dataclass(frozen=True, slots=True)
class Ok(Message):
    """``OK!``: everyone below the sender knows the winner."""

    kind = "ok"


class Echo(Election):
    name = "echo"
    title = "echo election"
    messages: ClassVar[tuple[type[Message], ...]] = (Demande, Rep, Elu)
    acknowledge = False  # the OK! phase (tree election)

    def __init__(self, node: NodeView, **kwargs: bool) -> None:
        super().__init__(node, **kwargs)
        self.reset()

    def reset(self) -> None:
        self.wave: Candidate | None = None
        self.daddy: int | None = None
        self.waiting: set[int] = set()  # asked, not answered yet
        self.children: list[int] = []  # answered with a REP: below us in the tree
        self.best = self.me
        self.oks = 0

    def start(self) -> None:
        self.join(self.me, None)

    def join(self, wave: Candidate, daddy: int | None) -> None:
        self.wave, self.daddy, self.best, self.children = wave, daddy, self.me, []
        self.waiting = {p for p in self.node.out if p != daddy and p not in self.suspected}
        for peer in sorted(self.waiting, key=self.node.out.index):
            self.send(peer, Demande(wave))
        if not self.waiting:
            self.collected()

    def demande(self, message: Demande, sender: int) -> None:
        if self.wave is None or message.wave > self.wave:
            self.join(message.wave, sender)
        elif message.wave == self.wave:
            self.answered(sender)  # we asked each other: their Demande is our NOK

    def rep(self, message: Rep, sender: int) -> None:
        if message.wave != self.wave:
            return  # an extinguished election
        self.best = max(self.best, message.best)
        self.children.append(sender)
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
        for child in self.children:
            self.send(child, Elu(leader))
        if self.acknowledge and not self.children and self.daddy is not None:
            self.send(self.daddy, Ok())

    def elu(self, message: Elu, sender: int) -> None:
        self.proclaim(message.leader)

    def ok(self, message: Ok, sender: int) -> None:
        self.oks += 1
        if self.oks == len(self.children) and self.daddy is not None:
            self.send(self.daddy, Ok())

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        m = sum(len(peers) for peers in graph.out.values())
        if len(initiators) == 1:
            return Bound("M+N-1", m + n - 1, exact=True)
        return Bound("kM+N-1", len(initiators) * m + n - 1, exact=False)


class TreeElection(Echo):
    name = "tree"
    title = "tree election"
    messages = (Demande, Rep, Elu, Ok)
    acknowledge = True

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        if len(initiators) == 1:
            return Bound("4(N-1)", 4 * (n - 1), exact=True)
        return Bound("2(N-1)(k+1)", 2 * (n - 1) * (len(initiators) + 1), exact=False)
