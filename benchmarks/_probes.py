"""Sans-IO probes for the benchmarks: a token passed round a ring a set number of hops.

They live in an importable module, not in ``__main__``, so cloudpickle pickles their
messages by reference, as it does ringleader's own.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import ClassVar

from ringleader.actors import Bound, Candidate, Graph, Message, RingElection


@dataclass(frozen=True, slots=True)
class Token(Message):
    kind = "token"
    hops: int
    best: Candidate


class TokenRing(RingElection):
    """Passes a token to the successor until it has made ``limit`` hops.

    The token carries the largest candidate it has met, so after one lap it knows the
    winner; each node decides as the token passes it on its last lap (``limit`` must be
    at least twice the ring size), so the run ends when every node has decided.
    """

    name = "token_ring"
    title = "token ring"
    messages = (Token,)
    limit: ClassVar[int] = 1000
    ring_size: ClassVar[int] = 2

    def start(self) -> None:
        self.send(self.successor, Token(1, self.me))

    def on_token(self, message: Token, sender: int) -> None:
        best = max(message.best, self.me)
        if message.hops > self.limit - self.ring_size:
            self.decide(best)
        if message.hops < self.limit:
            self.send(self.successor, Token(message.hops + 1, best))

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        return Bound("hops", cls.limit, exact=True)


def token_ring(limit: int, ring_size: int) -> type[TokenRing]:
    if limit < 2 * ring_size:
        raise ValueError("the token must make at least two laps")
    return type(f"TokenRing{limit}", (TokenRing,), {"limit": limit, "ring_size": ring_size})
