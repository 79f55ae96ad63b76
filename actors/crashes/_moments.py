"""Moments on a node's clock, compared as one clock tells them apart.

The time a host gives a member is a float of seconds, and float arithmetic is not exact:
a moment computed as ``since + vouch`` and a clock that reads the same moment may differ
in their last bits.  On a real clock two events that close are one instant anyway; a
host that counts time in ticks (the explorer, the simulator) meets such moments exactly,
from either side.  So every comparison of moments in the member's parts goes through
here: moments closer than :data:`SAME_MOMENT` are one.
"""

from __future__ import annotations

__all__ = ["SAME_MOMENT", "after", "reached"]

#: Two moments closer than this (seconds) are one: far below any clock's resolution.
SAME_MOMENT = 1e-9


def reached(now: float, moment: float) -> bool:
    """Whether ``moment`` has come at ``now`` (it is now, or past)."""
    return now >= moment - SAME_MOMENT


def after(now: float, moment: float) -> bool:
    """Whether ``now`` is strictly later than ``moment``."""
    return now > moment + SAME_MOMENT
