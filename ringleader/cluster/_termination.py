"""Knowing that an election is over: Mattern's four-counter termination detection."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection

from ringleader.actors.host import NodeStatus
from ringleader.transport import Deadline

__all__ = ["wait_quiet"]


def wait_quiet(
    statuses: Callable[[], list[NodeStatus]], initiators: Collection[int], deadline: Deadline
) -> list[NodeStatus] | None:
    """Mattern's four-counter test: two identical sweeps with sent == received and no
    timer pending anywhere; returns the last sweep (every node's final status: nothing
    moves any more), or ``None`` if the ``deadline`` passes first.

    An election can leave messages in flight after the last node decides (LeLann's
    ids still travelling, say); the counts are only final once nothing moves.
    ``statuses`` sweeps every node; every one of ``initiators`` must have started.
    """
    previous: tuple[int, int] | None = None
    pause = 0.001
    while not deadline.expired():
        sweep = statuses()
        sent = sum(s.sent_total for s in sweep)
        received = sum(s.received for s in sweep)
        started = all(s.started for s in sweep if s.id in initiators)
        idle = not any(s.timers for s in sweep)
        if started and idle and sent == received and previous == (sent, received):
            return sweep
        previous = (sent, received)
        time.sleep(min(pause, deadline.left()))
        pause = min(pause * 2, 0.05)
    return None
