"""The network's verdict on each message: lost, late, twice, or out of order.

:class:`Misbehaving` is sans-IO like the elections: a host asks it, for each message a
node sends, what the network does to it at that moment (:meth:`Misbehaving.fate`), and
carries out the answer — the simulator in virtual time, a node actor with its own timers.
It keeps what a network keeps: when the last message on each link arrives, so that a
delayed link stays FIFO unless a ``reorder`` entry lifts it.  A host with no entries
never asks it (no cost at all when no fault is configured).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from ._entries import Delay, Duplicate, Loss, NetworkFault, Partition, Pause, Reorder

__all__ = ["Fate", "Misbehaving"]


@dataclass(frozen=True, slots=True)
class Fate:
    """What the network does to one message: each copy's extra delay in seconds (none:
    lost, and ``lost`` says why; two: delivered twice, the second a ``duplicate``)."""

    copies: tuple[float, ...]
    lost: str | None = None
    #: False when a ``reorder`` entry lets later messages overtake this one.
    fifo: bool = True


_ON_TIME = Fate((0.0,))


class Misbehaving:
    """The entries of a run's ``[[faults]]`` that misbehave, asked message by message.

    ``rng`` draws the chances and the delays (the simulator passes its own, so a seed is
    one run).  Times are seconds since the nodes were up.
    """

    def __init__(self, entries: Iterable[NetworkFault], rng: random.Random | None = None) -> None:
        self.entries = tuple(entries)
        self.rng = rng or random.Random()
        self.partitions = [e for e in self.entries if isinstance(e, Partition)]
        self.pauses = [e for e in self.entries if isinstance(e, Pause)]
        self._links = [e for e in self.entries if not isinstance(e, Partition | Pause)]
        self._last: dict[tuple[int, int], float] = {}  # link → the last copy's delay end
        #: When the entries' clock started, on the host's clock (a host sets it when the
        #: nodes are up; a node restarted later is given the same).
        self.began: float | None = None

    def __bool__(self) -> bool:
        return bool(self.entries)

    def apart(self, sender: int, receiver: int, now: float) -> bool:
        """Whether a partition separates the two at ``now``."""
        return any(p.active(now) and p.apart(sender, receiver) for p in self.partitions)

    def paused_until(self, node: int, now: float) -> float | None:
        """When ``node``'s pause under way at ``now`` ends (``None``: it is not paused)."""
        for pause in self.pauses:
            if pause.node == node and pause.active(now):
                return pause.end
        return None

    def fate(self, sender: int, receiver: int, now: float) -> Fate:
        """What the network does to a message ``sender`` sends ``receiver`` at ``now``."""
        if self.partitions and self.apart(sender, receiver, now):
            return Fate((), "the network is partitioned")
        if not self._links:
            return _ON_TIME
        rng = self.rng
        extra, copies, fifo = 0.0, 1, True
        for entry in self._links:
            if not (entry.active(now) and entry.on(sender, receiver)):
                continue
            if isinstance(entry, Loss):
                if rng.random() < entry.probability:
                    return Fate((), "lost by the network")
            elif isinstance(entry, Delay):
                extra += entry.delay.draw(rng)
            elif isinstance(entry, Duplicate):
                if rng.random() < entry.probability:
                    copies = 2
            elif isinstance(entry, Reorder):
                extra += rng.uniform(0.0, entry.window)
                fifo = False
        link = (sender, receiver)
        arrives = now + extra
        if fifo:
            arrives = max(arrives, self._last.get(link, arrives))
        self._last[link] = max(arrives, self._last.get(link, arrives))
        first = arrives - now
        if copies == 1:
            return Fate((first,), fifo=fifo)
        return Fate((first, first + rng.uniform(0.0, max(extra, 1e-4))), fifo=fifo)
