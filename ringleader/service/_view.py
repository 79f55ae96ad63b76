"""What a node knows of its leadership at one instant, read at once:
:class:`LeadershipView`, what :meth:`Node.leadership` returns.

The node's actor publishes its leader, epoch and lease end as one tuple, replaced whole
(:class:`~ringleader.actors.host.Leadership`); a view is made from one read of it and one
read of the clock, so that its fields always go together: never the epoch of one
publication beside the leader of the next, nor ``is_leader`` true past ``lease_until``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ringleader.actors.host import Leadership

__all__ = ["LeadershipView", "view_of"]


@dataclass(frozen=True, slots=True)
class LeadershipView:
    """Node ``node``'s leadership as it stood at ``at`` (a :func:`time.monotonic`
    instant).

    ``leader`` is the node it believes leads (``None`` while an election is under way),
    ``epoch`` the epoch it knows (the fencing token), ``lease_until`` the monotonic
    instant this node's own lease ends (``0.0`` while it holds none; ``math.inf`` when
    the config has no lease, ``quorum = false``), and ``is_leader`` whether it led at
    ``at``: it names itself and ``at`` is before ``lease_until``.
    """

    node: int
    leader: int | None
    epoch: int
    lease_until: float
    is_leader: bool
    at: float

    @property
    def lease_left(self) -> float:
        """Seconds of this node's lease left at ``at`` (0 when it holds none;
        ``math.inf`` without a lease)."""
        if not self.is_leader:
            return 0.0
        return math.inf if math.isinf(self.lease_until) else self.lease_until - self.at


def view_of(leadership: Leadership, now: float | None = None) -> LeadershipView:
    """``leadership`` as last published, read once, at ``now`` (default: this instant)."""
    leader, epoch, until = leadership.read()  # one tuple: one publication
    at = time.monotonic() if now is None else now
    leads = leader == leadership.node and at < until
    return LeadershipView(leadership.node, leader, epoch, until, leads, at)
