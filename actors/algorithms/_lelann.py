"""LeLann 1977 on a unidirectional FIFO ring (notes 000).

Every node sends its id once round the ring and collects the ids that pass by in its
*list of active processes*.  An initiator starts by sending ``elect(i)``; a node that
is not yet taking part joins on the first ``elect(j)`` it gets.  A node forwards every
``elect(j)`` with ``j ≠ i``; when ``elect(i)`` comes back, its list holds every id on the
ring, it decides for the largest and forwards nothing.

A node that joins sends its own ``elect(i)`` *before* forwarding the ``elect(j)`` that
woke it.  The notes list the two sends without an order, but only this one is correct:
on FIFO links each node's id then runs ahead of every id it forwards, so everyone's id
has reached P_i before P_i's own id comes back.

Count (notes): every id travels the whole ring, exactly ``n²`` messages.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ringleader.actors.core import Bound, Candidate, Graph, Message

from ._ring import RingElection

__all__ = ["Elect", "LeLann"]


@dataclass(frozen=True, slots=True)
class Elect(Message):
    """``elect(j)``: P_j's id on its way round the ring."""

    kind = "elect"
    candidate: Candidate


class LeLann(RingElection):
    name = "lelann"
    title = "LeLann"
    messages = (Elect,)

    def start(self) -> None:
        self.active = {self.me}  # the list of active processes
        self.send(self.successor, Elect(self.me))

    def on_elect(self, message: Elect, sender: int) -> None:
        j = message.candidate
        self.ensure_started()
        if j == self.me:
            self.decide(max(self.active))
        else:
            self.active.add(j)
            self.send(self.successor, message)

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        return Bound("n^2", n * n, exact=True)
