"""Bully (Garcia-Molina 1982) on a full mesh: notes 000, 002 and 004; and the broadcast
variant with states Peut-être / Enquête / Perdu (notes 003).

**Bully.**  A node holding an election sends ``election`` to every node of higher
priority and waits ``election_timeout`` (the notes' T) for an ``ok`` (000's *reject*,
004's *answer*).  If none comes, no higher node is alive: it sends ``coordinator`` to every
lower node and leads.  If one comes, it waits ``coordinator_timeout`` (T′, 000's T_1) for
the ``coordinator`` message, and holds a new election if that never arrives.  A node that
gets ``election`` from a lower node answers ``ok`` and holds its own election, once; one
that gets ``coordinator`` from a lower node holds an election so it bullies that node
(000).  Without crashes this never happens (``coordinator`` only goes to lower nodes):
a node that proclaims itself because T expired too early is not corrected, so Bully is
only safe when T and T′ exceed every delay (:attr:`Bully.assumption`).  Priority is
``(capacity, id)``.

Counts (notes 002): the lowest node alone initiating, everyone alive: every node below
the top sends one ``election`` to each higher node, each is answered, and the top
announces: N(N−1)/2 + N(N−1)/2 + (N−1) = **N² − 1**.  The top alone: **N − 1**.

**Broadcast Bully** (003, "Sur un graphe générique, avec diffusion").  An initiator
broadcasts ``El(c, i)`` and enters *Enquête*.  On ``El(c_k, k)`` a node in *Peut-être*
answers ``Ack`` if c_k is larger (and has lost: *Perdu*), else broadcasts its own ``El``
and enters *Enquête*; in *Enquête* it ignores a smaller c_k and otherwise answers ``Ack``
and enters *Perdu*; in *Perdu* it answers ``Ack`` to a larger c_k.  A node in *Enquête*
with an ``Ack`` from every other node is the leader.  Nobody proclaims: a node that lost
records as its leader the largest candidate it has acknowledged, which, once the cluster
is quiet, is the leader.  At most **3N(N−1)/2** messages.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass

from ._election import Bound, Candidate, Election, Graph, Message, NodeState, NodeView

__all__ = ["Ack", "Bully", "BullyBroadcast", "Coordinator", "El", "ElectionCall", "OkAnswer"]

#: Default timeouts, in seconds; the config's ``election_timeout``/``coordinator_timeout``.
ELECTION_TIMEOUT = 0.5
COORDINATOR_TIMEOUT = 1.0


@dataclass(frozen=True, slots=True)
class ElectionCall(Message):
    """``election(P_i)``: P_i holds an election; sent to every higher node."""

    kind = "election"


@dataclass(frozen=True, slots=True)
class OkAnswer(Message):
    """``ok`` (000: *reject*, 004: *answer*): a higher node is alive and takes over."""

    kind = "ok"


@dataclass(frozen=True, slots=True)
class Coordinator(Message):
    """``coordinator(P_j)``: P_j leads; sent to every lower node."""

    kind = "coordinator"


class Bully(Election):
    name = "bully"
    title = "Bully"
    messages = (ElectionCall, OkAnswer, Coordinator)
    assumption = (
        "Bully is only safe if every answer arrives within election_timeout (T) and the "
        "coordinator message within coordinator_timeout (T′): raise them for a large or "
        "loaded cluster"
    )

    watches = "every higher node (the leader among them)"

    def __init__(self, node: NodeView, **kwargs: bool) -> None:
        super().__init__(node, **kwargs)
        peers = [node.neighbour(peer) for peer in node.out if peer != node.id]
        self.higher = [p.id for p in peers if p > self.me]
        self.lower = [p.id for p in peers if p < self.me]
        self.t = self.setting("election_timeout", ELECTION_TIMEOUT)
        self.t_prime = self.setting("coordinator_timeout", COORDINATOR_TIMEOUT)

    def reset(self) -> None:
        self.cancel_timer("answer")
        self.cancel_timer("coordinator")

    def watch_set(self) -> set[int]:
        # The leader is the highest live node, so watching every higher node watches it;
        # and a node waiting for answers learns at once that a higher one is gone.
        return set(self.higher)

    def ping_set(self, watched: set[int]) -> set[int]:
        # The leader heartbeats every lower node and they do not ping it: they all last
        # heard from it at the same moment, so if it dies they suspect it together (within
        # a network delay, not a heartbeat of each other) and the rounds they start end
        # at once instead of one heartbeat later.
        if self.state is NodeState.LEADER:
            return watched | set(self.lower)
        if self.leader is not None and self.leader in watched:
            return watched - {self.leader}
        return watched

    def on_suspect(self, node: int) -> None:
        if node == self.leader:
            self.new_election(f"crash of {node}")
        elif self.state is NodeState.UNDECIDED and self.started:
            self.hold_election()  # ask again, without the crashed node

    def start(self) -> None:
        self.hold_election()

    def hold_election(self) -> None:
        higher = [peer for peer in self.higher if peer not in self.suspected]
        if not higher:
            self.claim()
            return
        for peer in higher:
            self.send(peer, ElectionCall())
        self.set_timer("answer", self.t)

    def claim(self) -> None:
        """No higher node answers: lead, but only in a round of this node's own.

        Every epoch after the first has a single initiator (epochs are dealt by rank), so
        a node proclaims itself there only if it started that round; drawn into another
        node's round, it starts its own.  Otherwise a late frame could draw it into a
        round whose initiator already leads (it suspected this node across a partition,
        say) and the epoch would have two leaders.  Epoch 1, the start every initiator
        shares, is the notes' plain Bully, and keeps its message counts: there a node
        proclaims unless it skipped a higher node as crashed.
        """
        own = self.initiator and self.epoch > 1
        plain = self.epoch <= 1 and not (self.suspected & set(self.higher))
        if own or plain:
            self.become_coordinator()
        else:
            self.new_election("no higher node answered")

    def become_coordinator(self) -> None:
        self.cancel_timer("answer")
        self.cancel_timer("coordinator")
        self.decide(self.me)
        for peer in self.lower:
            self.send(peer, Coordinator())

    def election(self, message: ElectionCall, sender: int) -> None:
        self.send(sender, OkAnswer())
        self.ensure_started()

    def ok(self, message: OkAnswer, sender: int) -> None:
        self.cancel_timer("answer")
        if self.leader is None:
            self.set_timer("coordinator", self.t_prime)

    def coordinator(self, message: Coordinator, sender: int) -> None:
        if self.node.neighbour(sender) < self.me:
            # A lower node proclaimed itself (it took this node for crashed): bully it,
            # in a new round, so that round's leader is the only one of its epoch.
            self.new_election(f"coordinator {sender} is lower")
            return
        if self.leader is not None and self.node.neighbour(sender) < self.node.neighbour(
            self.leader
        ):
            # A late proclamation of a lower node in this epoch: this node already follows
            # a higher one.  Following it would split the cluster for good; a new round
            # settles who leads.
            self.new_election(f"coordinator {sender} is below leader {self.leader}")
            return
        self.cancel_timer("answer")
        self.cancel_timer("coordinator")
        self.decide(self.node.neighbour(sender))

    def on_answer_timeout(self) -> None:
        self.claim()  # no higher node answered within T

    def on_coordinator_timeout(self) -> None:
        self.hold_election()  # the higher node that answered never took over

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        order = sorted(graph.candidates)
        n = len(order)
        if set(initiators) == {order[-1].id}:
            return Bound("N-1", n - 1, exact=True)
        if set(initiators) == {order[0].id}:
            return Bound("N^2-1", n * n - 1, exact=True)
        return Bound("N^2-1", n * n - 1, exact=False)


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

    watches = "every other node"

    def __init__(self, node: NodeView, **kwargs: bool) -> None:
        super().__init__(node, **kwargs)
        self.peers = [peer for peer in node.out if peer != node.id]
        self.reset()

    def reset(self) -> None:
        self.phase = Phase.PEUT_ETRE
        self.acks: set[int] = set()
        self.best: Candidate | None = None

    def on_suspect(self, node: int) -> None:
        if node == self.leader or self.state is NodeState.UNDECIDED:
            self.new_election(f"crash of {node}")
        else:
            self.check_won()  # no Ack will come from the crashed node

    def start(self) -> None:
        self.phase = Phase.ENQUETE
        self.acks = set()
        for peer in self.peers:
            if peer not in self.suspected:
                self.send(peer, El(self.me))
        self.check_won()

    def el(self, message: El, sender: int) -> None:
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

    def ack(self, message: Ack, sender: int) -> None:
        if self.phase is Phase.ENQUETE:
            self.acks.add(sender)
            self.check_won()

    def check_won(self) -> None:
        won = self.phase is Phase.ENQUETE and self.acks >= set(self.peers) - self.suspected
        if won and self.state is not NodeState.LEADER:
            self.decide(self.me)

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        return Bound("3N(N-1)/2", 3 * n * (n - 1) // 2, exact=False)
