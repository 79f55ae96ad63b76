"""Bully (Garcia-Molina 1982) on a full mesh: notes 000, 002 and 004.

A node holding an election sends ``election`` to every node of higher priority and waits
``election_timeout`` (the notes' T) for an ``ok`` (000's *reject*, 004's *answer*).  If
none comes, no higher node is alive: it proclaims itself, sending ``coordinator`` to
every lower node.  If one comes, it waits ``coordinator_timeout`` (T′, 000's T_1) for the
``coordinator`` message, and holds a new election if that never arrives.  A node that
gets ``election`` from a lower node answers ``ok`` and holds its own election, once; one
that gets ``coordinator`` from a node lower than itself (or than the leader it follows)
holds an election so it bullies that node (000).  Without crashes that never happens
(``coordinator`` only goes to lower nodes): a node that proclaims itself because T
expired too early is not corrected, so Bully is only safe when T and T′ exceed every
delay (:attr:`Bully.assumption`).  Priority is ``(capacity, id)``.

After a crash, a node proclaims itself only where the round's policy allows it (see
``proclaim_in_own_round`` in ``crashes/_bully_crashes.py``); the slide here asks.  In the
teaching runs a node drawn by a lower node's ``election`` into that node's round holds
its own election in a round of its own at once, as notes 000's walk-through has P3 do
(step 3: it rejects P2 and sends *its own* election; ``Around.own_round``), and a lower
node's ``election`` of an older round is rejected all the same (:meth:`Bully.fenced`).
The service modes' steady rules keep the rounds they were explored with: the election
runs in the round it was drawn into, and a round of its own follows when T runs out.

Counts (notes 002): the lowest node alone initiating, everyone alive: every node below
the top sends one ``election`` to each higher node, each is answered, and the top
announces: N(N−1)/2 + N(N−1)/2 + (N−1) = **N² − 1**.  The top alone: **N − 1**.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ringleader.actors.core import Bound, Election, Graph, Message, NodeState, NodeView

__all__ = ["Bully", "Coordinator", "ElectionCall", "OkAnswer"]


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
    timers = ("answer", "coordinator")  # T: for an ok; T′: for the coordinator
    #: T and T′, in seconds: the config's ``election_timeout`` and ``coordinator_timeout``.
    tunables: ClassVar[Mapping[str, float]] = {"election_timeout": 0.5, "coordinator_timeout": 1.0}
    assumption = (
        "Bully is only safe if every answer arrives within election_timeout (T) and the "
        "coordinator message within coordinator_timeout (T′): raise them for a large or "
        "loaded cluster"
    )

    def __init__(self, node: NodeView, **kwargs: Any) -> None:
        super().__init__(node, **kwargs)
        peers = [node.neighbour(peer) for peer in node.out if peer != node.id]
        self.higher = [p.id for p in peers if p > self.me]
        self.lower = [p.id for p in peers if p < self.me]
        self.t = self.setting("election_timeout")
        self.t_prime = self.setting("coordinator_timeout")
        self.answered = False  # a higher node said ok: waiting T′ for its coordinator

    def start(self) -> None:
        self.hold_election()

    def hold_election(self) -> None:
        """Send ``election`` to every higher node (not known to be down), wait T."""
        self.answered = False
        higher = [peer for peer in self.higher if peer not in self.suspected]
        if not higher:
            self.proclaim()
            return
        for peer in higher:
            self.send(peer, ElectionCall())
        self.set_timer("answer", self.t)

    def proclaim(self) -> None:
        """No higher node answers: this node leads, if its round may have it lead."""
        if self.around.may_proclaim():
            self.become_coordinator()
        else:
            self.around.new_round("no higher node answered")

    def become_coordinator(self) -> None:
        self.cancel_timer("answer")
        self.cancel_timer("coordinator")
        self.decide(self.me)
        for peer in self.lower:
            self.send(peer, Coordinator())

    def on_election(self, message: ElectionCall, sender: int) -> None:
        self.send(sender, OkAnswer())
        if not self.started and self.around.own_round():
            # Notes 000, step 3: it sends its own election.  Drawn into a lower node's
            # round, where it may not proclaim itself, it holds that election in a round
            # of its own at once (not in this one, then in a second when T runs out).
            self.around.new_round(f"election from {sender}")
        else:
            self.ensure_started()

    def fenced(self, sender: int, message: Message, epoch: int) -> None:
        """A lower node's ``election`` of an older round: still rejected (``ok``, in this
        round), as the notes reject every lower node's election (step 7: P3 rejects P1
        and P2 alike, whichever of their rounds it joined).  Unanswered, the lower node
        would proclaim itself when T runs out, beside this one."""
        if isinstance(message, ElectionCall) and self.node.neighbour(sender) < self.me:
            self.send(sender, OkAnswer())

    def on_ok(self, message: OkAnswer, sender: int) -> None:
        self.answered = True
        self.cancel_timer("answer")
        if self.elected is None:
            self.set_timer("coordinator", self.t_prime)

    def on_coordinator(self, message: Coordinator, sender: int) -> None:
        coordinator = self.node.neighbour(sender)
        if coordinator < self.me:
            # A lower node proclaimed itself (it took this node for crashed): bully it,
            # in a new round, so that round's leader is the only one of its epoch.
            self.around.new_round(f"coordinator {sender} is lower")
            return
        if self.elected is not None and coordinator < self.node.neighbour(self.elected):
            # A late proclamation of a node lower than the leader this node follows:
            # following it would split the cluster; a new round settles who leads.
            self.around.new_round(f"coordinator {sender} is below leader {self.elected}")
            return
        self.cancel_timer("answer")
        self.cancel_timer("coordinator")
        self.decide(coordinator)

    def retry(self) -> None:
        """A higher node went down while this one waits for answers (within T): ask
        again, without it.  Once a higher node has answered (ok), this one waits T′ for
        its coordinator, as the notes say, whoever else goes down meanwhile."""
        if self.started and self.state is NodeState.UNDECIDED and not self.answered:
            self.hold_election()

    def on_answer_timeout(self) -> None:
        self.proclaim()  # no higher node answered within T

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
