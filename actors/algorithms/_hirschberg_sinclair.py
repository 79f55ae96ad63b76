"""Hirschberg–Sinclair 1980 on a bidirectional ring (notes 000).

In phases r = 0, 1, 2, … a candidate sends its id both ways as ``probe(id, phase, hop
counter)`` to distance 2^r.  A node that gets a probe with a smaller id than its own
drops it (extinction, as in Chang–Roberts); one with a larger id passes it on, or, if it
is the 2^r-th hop, sends ``reply(id, phase)`` back.  Replies are relayed home.  A
candidate that gets both replies of phase r has the largest id within 2^r hops and
enters phase r + 1; one whose probe comes all the way round to itself has the largest id
of the ring: it is the leader and sends ``elected`` round the ring (one way, n messages).

Every node takes part: an initiator starts at once, any other node on the first message
it gets (the determinism rule: it sends its phase-0 probes before handling that message).

Messages carry their travelling direction, so a two-node ring, where both neighbours are
the same node, works like any other.  Count (notes): at most 8n(log₂ n + 2) + 5n.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

from ringleader.actors.core import Bound, Candidate, Graph, Message

from ._ring import Elected, RingElection

__all__ = ["HirschbergSinclair", "Probe", "Reply"]

CLOCKWISE, ANTICLOCKWISE = 1, -1


@dataclass(frozen=True, slots=True)
class Probe(Message):
    """``probe(id, phase, hop)``: is ``candidate`` the largest within 2^phase hops?"""

    kind = "probe"
    candidate: Candidate
    phase: int
    hop: int
    direction: int


@dataclass(frozen=True, slots=True)
class Reply(Message):
    """``reply(id, phase)``: ``candidate`` is the largest as far as its probe went."""

    kind = "reply"
    candidate: Candidate
    phase: int
    direction: int


class HirschbergSinclair(RingElection):
    name = "hirschberg_sinclair"
    title = "Hirschberg–Sinclair"
    messages = (Probe, Reply, Elected)

    phase = 0
    replies = 0  # replies received in the current phase
    running = True  # still a candidate

    @property
    def predecessor(self) -> int:
        return self.around.predecessor

    def toward(self, direction: int) -> int:
        return self.successor if direction == CLOCKWISE else self.predecessor

    def start(self) -> None:
        self.probe_both_ways()

    def probe_both_ways(self) -> None:
        self.replies = 0
        for direction in (CLOCKWISE, ANTICLOCKWISE):
            self.send(self.toward(direction), Probe(self.me, self.phase, 1, direction))

    def on_probe(self, message: Probe, sender: int) -> None:
        self.ensure_started()
        candidate = message.candidate
        if candidate == self.me:
            if self.elected is None:  # the first of the two probes to come all the way round
                self.decide(self.me)
                self.announce(Elected(self.me))
            return
        if candidate < self.me:
            return  # extinction
        self.running = False
        if message.hop < 2**message.phase:
            self.send(
                self.toward(message.direction),
                Probe(candidate, message.phase, message.hop + 1, message.direction),
            )
        else:
            back = -message.direction
            self.send(self.toward(back), Reply(candidate, message.phase, back))

    def on_reply(self, message: Reply, sender: int) -> None:
        if message.candidate != self.me:
            self.send(self.toward(message.direction), message)
            return
        if message.phase != self.phase or not self.running:
            return
        self.replies += 1
        if self.replies == 2:
            self.phase += 1
            self.probe_both_ways()

    def on_elected(self, message: Elected, sender: int) -> None:
        if message.leader != self.me:
            self.decide(message.leader)
            self.announce(message)

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        value = math.floor(8 * n * (math.log2(n) + 2) + 5 * n)
        return Bound("8n(log2 n+2)+5n", value, exact=False)
