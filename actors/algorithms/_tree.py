"""Capacity collection along a spanning tree (notes 003, "Sur un arbre couvrant").

The initiator sends ``Demande()`` to its neighbours; a node that gets it from a neighbour
takes that neighbour as its *daddy* and passes ``Demande()`` on to its other neighbours; a
leaf answers ``REP(c, i)`` with its capacity; a node that has the ``REP`` of every other
neighbour sends ``REP(c_max, i_max)`` to its daddy.  When the initiator has every ``REP``
it knows the winner and proclaims ``ELU(c_max, i_max)`` down the tree; leaves answer
``OK!`` and the ``OK!``s climb back, so the initiator knows everyone has learnt the result
(FIN).  With the root as initiator this is the notes' first version, exactly 4(N − 1)
messages.  With any other initiator the notes' general version re-orients the tree the
same way (their *ascending* nodes are those whose daddy for this election is one of their
children); we keep the ``OK!`` phase there too, so the count is 4(N − 1) for any single
initiator.  It is the echo election (``_echo.py``) on a tree, plus ``OK!``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ringleader.actors.core import Bound, Candidate, Graph, Message

from ._echo import Demande, Echo, Elu, Rep

__all__ = ["Ok", "TreeElection"]


@dataclass(frozen=True, slots=True)
class Ok(Message):
    """``OK!``: everyone below the sender knows the winner."""

    kind = "ok"


class TreeElection(Echo):
    name = "tree"
    title = "tree election"
    messages = (Demande, Rep, Elu, Ok)

    oks = 0  # OK!s received from children

    def proclaim(self, leader: Candidate) -> None:
        super().proclaim(leader)
        if not self.children and self.daddy is not None:
            self.send(self.daddy, Ok())  # a leaf: OK!

    def on_ok(self, message: Ok, sender: int) -> None:
        self.oks += 1
        if self.oks == len(self.children) and self.daddy is not None:
            self.send(self.daddy, Ok())

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        n = len(graph.candidates)
        if len(initiators) == 1:
            return Bound("4(N-1)", 4 * (n - 1), exact=True)
        return Bound("2(N-1)(k+1)", 2 * (n - 1) * (len(initiators) + 1), exact=False)
