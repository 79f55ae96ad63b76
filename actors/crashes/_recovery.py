"""Recovery: a restarted node joins the cluster as a newcomer (notes 000: a recovered
process starts an election).

With no stable storage, a restarted node knows no epoch (0).  It pings its neighbours,
acts on no election message until it has learnt the current epoch from a ``ping`` or
``pong``, then starts a round above it (or, on a ring, waits for its predecessor to take
it back and start one).  Nothing its previous life saw or sent can then affect it: any
election message of an epoch it learnt of, or older, may have been meant for that life.
"""

from __future__ import annotations

__all__ = ["Recovery"]

#: The recovery's timer: how long to wait for an epoch before starting afresh.
REJOIN = "recovery:rejoin"


class Recovery:
    """A restarted node until it has joined a round."""

    def __init__(self) -> None:
        self.learned: int | None = None  # the newest epoch heard of

    def learn(self, epoch: int) -> None:
        self.learned = max(self.learned or 0, epoch)

    def admits(self, epoch: int) -> bool:
        """Whether an election message of round ``epoch`` may be acted on: only of a round
        newer than any this node has learnt of."""
        return self.learned is not None and epoch > self.learned
