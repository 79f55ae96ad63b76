"""The simulator's pending events, taken in the order they happen: a calendar queue.

Events are tuples ``(time, order, …)`` with a unique ``order``, taken smallest first, as
from a heap.  A heap of a million messages in flight costs a cache miss at each of its
twenty levels, for every push and every pop (a 1,000,000-node run spends more than half
its time there).  Here time is cut into *days* of ``width`` virtual seconds: an event is
put, unsorted, into the list of its day, and a day is sorted in one go (list.sort
compares tuples that start with a float in a fast path, walking memory in order) when
the queue comes to it.  An event that falls on the day being served (a timer of 0 s, a
message quicker than ``width``) waits in a small heap beside it.  The order taken is the
heap's exactly: the same runs, the same traces.

The width suits the simulator's latencies: a message is at least ``latency[0]`` ahead,
so a day a fortieth of the largest latency long holds few of them.
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import Any

__all__ = ["EventQueue"]

Event = tuple[Any, ...]


class EventQueue:
    """Events ``(time, order, …)``, popped in ``(time, order)`` order; ``width``: the
    length of a day, in the events' time unit (seconds)."""

    __slots__ = ("_at", "_day", "_days", "_later", "_per", "_size", "_soon", "_today")

    def __init__(self, width: float) -> None:
        if not width > 0:
            raise ValueError(f"a day must last some time, not {width!r}")
        self._per = 1.0 / width  # days per second
        self._later: dict[int, list[Event]] = {}  # day → its events, unsorted
        self._days: list[int] = []  # a heap of the days in _later
        self._today: list[Event] = []  # the day being served, sorted
        self._at = 0  # the next of _today's events
        self._day = -1  # the day being served: events on it or before go to _soon
        self._soon: list[Event] = []  # a heap of events put on the day being served
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, event: Event) -> None:
        self._size += 1
        day = int(event[0] * self._per)
        if day <= self._day:
            heappush(self._soon, event)
            return
        bucket = self._later.get(day)
        if bucket is None:
            self._later[day] = [event]
            heappush(self._days, day)
        else:
            bucket.append(event)

    def pop(self) -> Event:
        """The first event; :class:`IndexError` if there is none."""
        today, at, soon = self._today, self._at, self._soon
        if at == len(today):
            if soon:
                self._size -= 1
                return heappop(soon)
            day = heappop(self._days)  # IndexError: empty
            today = self._today = self._later.pop(day)
            today.sort()
            self._day = day
            at = 0
        if soon and soon[0] < today[at]:
            self._size -= 1
            return heappop(soon)
        self._at = at + 1
        self._size -= 1
        event = today[at]
        today[at] = None  # type: ignore[call-overload]  # let it go once handled
        return event
