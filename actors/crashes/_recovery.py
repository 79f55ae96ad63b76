"""Recovery: a restarted node joins the cluster as a newcomer (notes 000: a recovered
process starts an election).

A restarted node knows no current epoch: at most a *floor*, the highest epoch its
previous lives saw, if its host kept one in stable storage (0 without).  It pings its
neighbours, acts on no election message until it has learnt the current epoch from a
``ping`` or ``pong``, then starts a round above both (or, on a ring, waits for its
predecessor to take it back and start one).  Nothing its previous life saw or sent can
then affect it: any election message of an epoch it learnt of, or of its floor, or older,
may have been meant for that life.
"""

from __future__ import annotations

__all__ = ["Recovery"]

#: The recovery's timer: how long to wait for an epoch before starting afresh.
REJOIN = "recovery:rejoin"


class Recovery:
    """A restarted node until it has joined a round."""

    def __init__(self, floor: int = 0) -> None:
        self.learned: int | None = None  # the newest epoch heard of
        self.floor = floor  # the newest epoch a previous life saw (kept by the host)

    def learn(self, epoch: int) -> None:
        self.learned = max(self.learned or 0, epoch)

    def admits(self, epoch: int) -> bool:
        """Whether an election message of round ``epoch`` may be acted on: only of a round
        newer than any this node has learnt of, and than its floor."""
        return self.learned is not None and epoch > max(self.learned, self.floor)
