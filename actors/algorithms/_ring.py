"""What ring elections share: the successor, the ``elected`` announcement, ring facts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ringleader.actors.core import Candidate, Election, Message

__all__ = ["Elected", "RingElection", "descending_ring", "successor_of"]


@dataclass(frozen=True, slots=True)
class Elected(Message):
    """``elected(P_j)``: the announcement, round the ring, that P_j leads."""

    kind = "elected"
    leader: Candidate


class RingElection(Election):
    """An election on a ring: messages go to the :attr:`successor` (i → i+1).

    The successor is asked of :attr:`around`: the wired one, or, once a crash has been
    detected, the next live node (notes 002's repaired ring).  :attr:`announcement` is
    the ``elected`` message this node passed on in this round, if any (ring repair sends
    it again across a repaired link: the crashed node may have taken it with it).
    """

    announcement: Elected | None = None

    @property
    def successor(self) -> int:
        return self.around.successor

    def announce(self, message: Elected) -> None:
        """Send ``elected`` on round the ring (and remember that this node did)."""
        self.announcement = message
        self.send(self.successor, message)

    def retry(self) -> None:
        """The successor went down: send the announcement again, across the repaired
        link (the crashed node may have taken it with it)."""
        if self.announcement is not None:
            self.send(self.successor, self.announcement)


def successor_of(order: Sequence[Candidate], node_id: int) -> int:
    """The id after ``node_id`` in ring order ``order``."""
    ids = [c.id for c in order]
    return ids[(ids.index(node_id) + 1) % len(ids)]


def descending_ring(order: Sequence[Candidate]) -> bool:
    """True if going round the ring the candidates strictly decrease, from some start."""
    n = len(order)
    rises = sum(order[i] < order[(i + 1) % n] for i in range(n))
    return rises <= 1
