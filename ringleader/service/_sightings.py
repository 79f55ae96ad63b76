"""What an observer makes of its members' words: who leads now, and whether its lease is
held (sans-IO: every decision takes the time it is made at).

Each member an observer watches tells it, at once and at each change, the leader it
names, its epoch, and whether it is that leader holding its lease
(:class:`~ringleader.actors.host.LeadershipNotice`).  A member silent for ``silence``
seconds no longer counts.  Of the members that do:

- a member that leads and holds its lease is the leader, ``held`` (the highest epoch, if
  ever two said so: a lease is only granted by a majority, so the lower one's has run
  out, or runs out before the higher one's began) — until the end of the lease it told
  of (``lease_left`` after its word came), unless a newer word tells of a longer one: a
  leader that stood still (paused) is ``held`` no longer than its lease;
- else the leader named in the highest epoch, ``lost``: named, but nobody heard holds a
  lease (an election or a failover under way, or the leader out of the observer's reach);
- else nobody, ``none``.

An observer never votes: nothing here is sent to the cluster's election.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from ringleader.actors.host import LeadershipNotice

__all__ = ["HELD", "LOST", "NONE", "Sightings", "Watched"]

HELD, LOST, NONE = "held", "lost", "none"


@dataclass(frozen=True, slots=True)
class Watched:
    """Who leads now, as an observer sees it: ``leader`` (``None``: nobody named) in
    ``epoch``, and ``lease``: ``"held"`` (that leader says it leads, holding its lease),
    ``"lost"`` (named, but holding no lease the observer heard of) or ``"none"`` (no
    leader named); ``heard``: the members that count (heard within the silence), ``at``
    when the observer saw it (wall clock), ``mono`` (this machine's monotonic clock)."""

    leader: int | None
    epoch: int
    lease: str
    heard: tuple[int, ...]
    at: float
    mono: float

    @property
    def held(self) -> bool:
        """Whether a leader holds its lease: the one answer to "who leads now"."""
        return self.lease == HELD

    def same(self, other: Watched | None) -> bool:
        """Whether ``other`` says the same (when it was seen aside)."""
        return other is not None and (self.leader, self.epoch, self.lease, self.heard) == (
            other.leader,
            other.epoch,
            other.lease,
            other.heard,
        )

    def as_dict(self) -> dict[str, object]:
        """One ``ringleader watch --json`` line."""
        return {
            "event": "watch",
            "leader": self.leader,
            "epoch": self.epoch,
            "lease": self.lease,
            "heard": list(self.heard),
            "t": round(self.at, 6),
            "mono": round(self.mono, 6),
        }


class Sightings:
    """The last word of each of ``members``, and what they add up to."""

    def __init__(self, members: Iterable[int], silence: float) -> None:
        self.members = tuple(sorted(members))
        self.silence = silence
        self._words: dict[int, tuple[LeadershipNotice, float]] = {}  # node → (notice, when)

    def heard(self, node: int, notice: LeadershipNotice, now: float) -> None:
        """``node`` said ``notice`` at ``now``."""
        if node in self.members:
            self._words[node] = (notice, now)

    def counted(self, now: float) -> dict[int, LeadershipNotice]:
        """The members that count at ``now`` (heard within the silence), and their word."""
        return {
            node: notice
            for node, (notice, when) in self._words.items()
            if now - when < self.silence
        }

    def view(self, now: float, wall: float | None = None) -> Watched:
        """Who leads at ``now`` (see the module's docstring)."""
        counted = self.counted(now)
        heard = tuple(sorted(counted))
        at = time.time() if wall is None else wall
        holders = [
            n
            for node, n in counted.items()
            if n.leading
            and n.leader == node
            and (n.lease_left is None or now < self._words[node][1] + n.lease_left)
        ]
        if holders:
            best = max(holders, key=lambda n: n.epoch)
            return Watched(best.leader, best.epoch, HELD, heard, at, now)
        named = [n for n in counted.values() if n.leader is not None]
        if named:
            best = max(named, key=lambda n: n.epoch)
            return Watched(best.leader, best.epoch, LOST, heard, at, now)
        epoch = max((n.epoch for n in counted.values()), default=0)
        return Watched(None, epoch, NONE, heard, at, now)

    def settled(self, now: float) -> bool:
        """Whether the view at ``now`` is an answer: a leader holds its lease, or every
        member was heard."""
        counted = self.counted(now)
        return len(counted) == len(self.members) or self.view(now).held
