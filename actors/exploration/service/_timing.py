"""The explorer's clocks, for the service's rules: ticks, timers, and clocks that drift.

True time goes on in whole **ticks**.  Every node's timers fire at a whole tick (by
default the tick is the largest that divides every timing the config sets — heartbeat,
``suspect_after``, ``lease``, ``reelect_after``, the algorithm's timeouts — so every
timer fires exactly on time) and every message may take any number of ticks, or none.
A node's clock is its own: the time its member is given reads ticks since its last
event, so only what the member can tell apart on its clock is in a state.

**Drift.**  A node's clock may run a little fast or slow: up to ``drift`` (ρ) of true
time.  What the service promises across nodes rests on one comparison made on two
clocks: a leader counts its lease on its own (``lease`` after the heartbeat it rests on
left), while each follower that acknowledged that heartbeat counts, on its own, how
long it goes on standing by that leader.  A slow leader clock and fast follower clocks
stretch the first against the second by up to (1 + ρ)/(1 − ρ); so the explorer holds
every lease, for the checks on two leases at one instant, that much longer (rounded up
to a whole tick) than the leader itself counts it: its **shadow**.  Every other timer is
compared only with messages, which may take any time anyway.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ringleader.actors.crashes import DetectorSettings, LeaseSettings

__all__ = ["FOREVER", "Timing", "default_drift", "default_tick"]

#: A lease with no end (no lease configured: a leader's word alone counts).
FOREVER = 1 << 40
#: Timings are taken to the microsecond.
_US = 1_000_000


def default_tick(settings: Mapping[str, float], timeouts: Iterable[float] = ()) -> float:
    """The largest tick that divides every timing of a node with ``settings`` (and the
    algorithm's ``timeouts``), to the microsecond."""
    detector = DetectorSettings.of(settings)
    lease = LeaseSettings.of(settings)
    values = [*timeouts]
    if detector is not None:
        values += [detector.heartbeat, detector.suspect_after, detector.reelect_after]
        values.append(detector.standstill)
    if lease is not None:
        values.append(lease.lease)
    micros = [round(v * _US) for v in values if v > 0]
    if not micros:
        return 1.0
    return math.gcd(*micros) / _US


def default_drift(settings: Mapping[str, float]) -> float:
    """The drift the lease's safety assumes: the margin the config leaves between its
    lease and ``suspect_after`` less a heartbeat (which it must not exceed) — the ρ at
    which the lease, stretched by (1 + ρ)/(1 − ρ), is as long as that."""
    detector = DetectorSettings.of(settings)
    lease = LeaseSettings.of(settings)
    if detector is None or lease is None:
        return 0.0
    margin = detector.suspect_after - detector.heartbeat
    return max(0.0, (margin - lease.lease) / (margin + lease.lease))


@dataclass(frozen=True)
class Timing:
    """``tick`` seconds a tick; clocks that drift up to ``drift``; a ``lease`` of that many
    seconds (0: none)."""

    tick: float
    drift: float = 0.0
    lease: float = 0.0

    def __post_init__(self) -> None:
        if self.tick <= 0:
            raise ValueError("the tick must be above 0 seconds")
        if not 0 <= self.drift < 1:
            raise ValueError("the drift must be at least 0 and below 1")

    def ticks(self, seconds: float) -> int:
        """Whole ticks until a timer of ``seconds`` fires (at the first tick at or after
        its moment)."""
        return max(0, math.ceil(seconds / self.tick - 1e-9))

    @property
    def stretch(self) -> float:
        """How much longer a lease may last in true time than its leader counts it,
        against its followers' clocks."""
        return (1 + self.drift) / (1 - self.drift)

    @property
    def shadow(self) -> int:
        """A lease, in true ticks, as long as it may last against the others' clocks."""
        return self.ticks(self.lease * self.stretch)
