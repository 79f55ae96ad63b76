"""Bully with broadcast, states Peut-être / Enquête / Perdu (notes 003, "Sur un graphe
générique, avec diffusion").

An initiator broadcasts ``El(c, i)`` and enters *Enquête*.  On ``El(c_k, k)`` a node in
*Peut-être* answers ``Ack`` if c_k is larger (and has lost: *Perdu*), else broadcasts its
own ``El`` and enters *Enquête*; in *Enquête* it ignores a smaller c_k and otherwise
answers ``Ack`` and enters *Perdu*; in *Perdu* it answers ``Ack`` to a larger c_k.  A node
in *Enquête* with an ``Ack`` from every other node is the leader.  Nobody proclaims: a
node that lost records as ``elected`` the largest candidate it has acknowledged, which,
once the cluster is quiet, is the leader.  At most **3N(N−1)/2** messages.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ringleader.actors.core import Bound, Candidate, Election, Graph, Message, NodeState, NodeView

__all__ = ["Ack", "BullyBroadcast", "El", "Phase"]


class Phase(enum.StrEnum):
    """The broadcast variant's states (notes 003)."""

    PEUT_ETRE = "peut-être"
    ENQUETE = "enquête"
    PERDU = "perdu"


@dataclass(frozen=True, slots=True)
class El(Message):
    """``El(c_i, i)``: P_i's bid, broadcast to every node."""

    kind = "el"
    candidate: Candidate


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """``Ack(i)``: P_i gives way to the bid it answers."""

    kind = "ack"


class BullyBroadcast(Election):
    name = "bully_broadcast"
    title = "Bully with broadcast"
    messages = (El, Ack)

    def __init__(self, node: NodeView, **kwargs: Any) -> None:
        super().__init__(node, **kwargs)
        self.peers = [peer for peer in node.out if peer != node.id]
        self.phase = Phase.PEUT_ETRE
        self.acks: set[int] = set()
        self.best: Candidate | None = None

    def start(self) -> None:
        self.phase = Phase.ENQUETE
        self.acks = set()
        for peer in self.peers:
            if peer not in self.suspected:
                self.send(peer, El(self.me))
        self.check_won()

    def on_el(self, message: El, sender: int) -> None:
        bid = message.candidate
        if self.phase is Phase.PEUT_ETRE:
            if self.me <= bid:
                self.give_way(sender, bid)
            else:
                self.ensure_started()
        elif self.phase is Phase.ENQUETE:
            if self.me <= bid:
                self.give_way(sender, bid)
        elif self.me <= bid:
            self.give_way(sender, bid)

    def give_way(self, sender: int, bid: Candidate) -> None:
        self.send(sender, Ack())
        self.phase = Phase.PERDU
        if self.best is None or bid > self.best:
            self.best = bid
            self.decide(bid)  # provisional: the largest bid acknowledged so far

    def on_ack(self, message: Ack, sender: int) -> None:
        if self.phase is Phase.ENQUETE:
            self.acks.add(sender)
            self.check_won()

    def check_won(self) -> None:
        """An ``Ack`` from every other node (none will come from a crashed one)."""
        won = self.phase is Phase.ENQUETE and self.acks >= set(self.peers) - self.suspected
        if won and self.state is not NodeState.LEADER:
            self.decide(self.me)

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        return Bound("3N(N-1)/2", 3 * n * (n - 1) // 2, exact=False)
