"""A student's first ring election: it decides too soon (see docs/your-algorithm.md).

Every node sends its bid to its successor and passes on the bids larger than any it has
seen.  The mistake: a node that gets a *smaller* bid from its predecessor takes it as
proof that nobody before it is larger, and proclaims itself.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ringleader.actors import Bound, Candidate, Elected, Graph, Message, RingElection


@dataclass(frozen=True, slots=True)
class Bid(Message):
    """``bid(P_i)``: P_i would like to lead."""

    kind = "bid"
    candidate: Candidate


class Hasty(RingElection):
    name = "hasty"
    title = "the hasty ring election"
    messages = (Bid, Elected)

    best: Candidate | None = None  # the largest bid seen so far

    def start(self) -> None:
        self.best = self.me
        self.send(self.successor, Bid(self.me))

    def on_bid(self, message: Bid, sender: int) -> None:
        self.ensure_started()
        bid = message.candidate
        if self.best is not None and bid > self.best:
            self.best = bid
            self.send(self.successor, message)  # a larger bid goes on
        elif bid < self.me and self.elected is None:
            self.decide(self.me)  # the mistake: a smaller bid proves nothing
            self.announce(Elected(self.me))

    def on_elected(self, message: Elected, sender: int) -> None:
        if message.leader != self.me:
            self.decide(message.leader)
            self.announce(message)

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        return Bound("n(n+1)/2+n", n * (n + 1) // 2 + n, exact=False)
