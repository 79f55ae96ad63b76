"""The hasty ring election, fixed (see docs/your-algorithm.md): a node proclaims itself
only when its own bid comes back, having gone all the way round."""

from __future__ import annotations

from collections.abc import Collection

from hasty import Bid, Hasty

from ringleader.actors import Bound, Elected, Graph


class Patient(Hasty):
    name = "patient"
    title = "the patient ring election"

    def on_bid(self, message: Bid, sender: int) -> None:
        self.ensure_started()
        bid = message.candidate
        if self.best is not None and bid > self.best:
            self.best = bid
            self.send(self.successor, message)
        elif bid == self.me:  # round the whole ring: nobody is larger
            self.decide(self.me)
            self.announce(Elected(self.me))

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        return Bound("n(n+1)/2+n", n * (n + 1) // 2 + n, exact=False)
