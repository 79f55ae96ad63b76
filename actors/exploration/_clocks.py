"""The time left on each node's pending timers, numbered: timers fire in deadline order.

With the timer rule ``"quiet"`` (the notes' synchrony assumption: every timeout is
longer than any chain of message delays), every message is delivered before any timer
fires, so the pending timers are those set "at the same time" as far as the timeouts
can tell, and the one with the least time left fires first.  Each node's pending timers,
with the microseconds left on each, are one number of this table; firing a timer moves
every node's clock on by the time it had left.  (With ``"any"`` there is no clock: any
pending timer may fire at any moment.)
"""

from __future__ import annotations

__all__ = ["Clocks"]

#: One node's pending timers: ``(name, µs left)`` pairs, by name.
Clock = tuple[tuple[str, int], ...]


class Clocks:
    """Every clock seen, numbered (0: no timer pending), with memoised moves."""

    def __init__(self) -> None:
        self.contents: list[Clock] = [()]
        #: Per clock number: the least time left on any of its timers (-1: none).
        self.least: list[int] = [-1]
        self._ids: dict[Clock, int] = {(): 0}
        self._after: dict[tuple[int, tuple[str, ...], tuple[tuple[str, int], ...]], int] = {}
        self._advanced: dict[tuple[int, int], int] = {}

    def __len__(self) -> int:
        return len(self.contents)

    def _number(self, clock: Clock) -> int:
        number = self._ids.get(clock)
        if number is None:
            number = self._ids[clock] = len(self.contents)
            self.contents.append(clock)
            self.least.append(min(left for _, left in clock) if clock else -1)
        return number

    def left(self, number: int, name: str) -> int:
        """The time left on timer ``name`` of clock ``number``."""
        for timer, left in self.contents[number]:
            if timer == name:
                return left
        return -1

    def after(
        self, number: int, pending: tuple[str, ...], sets: tuple[tuple[str, int], ...]
    ) -> int:
        """Clock ``number`` once a step leaves ``pending`` timers, having (re)set
        ``sets`` (the others keep their time left)."""
        key = (number, pending, sets)
        found = self._after.get(key)
        if found is None:
            was, new = dict(self.contents[number]), dict(sets)
            clock = tuple(sorted((name, new.get(name, was.get(name, 0))) for name in pending))
            found = self._after[key] = self._number(clock)
        return found

    def advance(self, number: int, elapsed: int) -> int:
        """Clock ``number`` ``elapsed`` µs later (a timer at zero stays at zero: it is due,
        and fires when its node can)."""
        if not number or not elapsed:
            return number
        key = (number, elapsed)
        found = self._advanced.get(key)
        if found is None:
            clock = tuple((name, max(0, left - elapsed)) for name, left in self.contents[number])
            found = self._advanced[key] = self._number(clock)
        return found
