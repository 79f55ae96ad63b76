"""What a node's actor publishes about its leadership, for other threads to read at once.

The node's own thread (its Pykka actor) writes; a user's thread reads without asking the
actor, so that a read right after a pause, or while the actor is busy, is answered from
the clock and the last thing published, never from a stale belief.  One tuple, replaced
whole: a read sees one publication or the next, never half of each.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

__all__ = ["Leadership"]


class Leadership:
    """Node ``node``'s leader, epoch and lease, as last published by its actor.

    ``lease_until`` is a :func:`time.monotonic` instant: the node counts as leader only
    before it (``math.inf`` while no lease is configured).  ``on_publish`` is called
    (on the actor's thread) after each publication, so a reader can wait for one.
    """

    __slots__ = ("_on_publish", "_snapshot", "node")

    def __init__(self, node: int, on_publish: Callable[[], None] | None = None) -> None:
        self.node = node
        self._snapshot: tuple[int | None, int, float] = (None, 0, 0.0)
        self._on_publish = on_publish

    def publish(self, leader: int | None, epoch: int, lease_until: float = math.inf) -> None:
        self._snapshot = (leader, epoch, lease_until)
        if self._on_publish is not None:
            self._on_publish()

    def read(self) -> tuple[int | None, int, float]:
        """``(leader, epoch, lease_until)`` as last published."""
        return self._snapshot

    def is_leader(self, now: float | None = None) -> bool:
        """Whether this node leads at ``now`` (default: this instant): it believes it is
        the leader and its lease has not run out."""
        leader, _, until = self._snapshot
        if leader != self.node:
            return False
        return (time.monotonic() if now is None else now) < until
