"""What is in flight on a link: its frames in order, each with its age in ticks.

A link's contents are one number (0: empty), as in the notes' explorer (``Channels``),
but each frame in it is a *flight*: the message, how many ticks it has been on its
way, and its *tag* (the nodes whose lease had ended on their clock before it was sent,
as far as its sender had heard: ``_model.py``).  With a bound on delays (``delay``
ticks), a frame as old as that must be delivered (or lost) before time goes on; without
one, no frame ages.  The moves are memoised, so the search handles numbers only.
"""

from __future__ import annotations

from collections.abc import Callable

from .._channels import EMPTY, Channels

__all__ = ["EMPTY", "Flights"]


class Flights:
    """Every link content seen, of frames that may take up to ``delay`` ticks (``None``:
    any time)."""

    def __init__(self, delay: int | None) -> None:
        self.delay = delay
        self.channels = Channels()
        #: Per flight number: (message number, age in ticks, tag).
        self.frames: list[tuple[int, int, int]] = []
        self._ids: dict[tuple[int, int, int], int] = {}
        self._aged: dict[int, int] = {EMPTY: EMPTY}
        self._due: dict[int, bool] = {EMPTY: False}
        self._untagged: dict[tuple[int, int], int] = {}

    def __len__(self) -> int:
        return len(self.channels)

    def _flight(self, message: int, age: int, tag: int = 0) -> int:
        key = (message, age, tag)
        number = self._ids.get(key)
        if number is None:
            number = self._ids[key] = len(self.frames)
            self.frames.append(key)
        return number

    def messages(self, content: int) -> list[int]:
        """The messages on a link, in order."""
        frames = self.frames
        return [frames[f][0] for f in self.channels.contents[content]]

    def length(self, content: int) -> int:
        return len(self.channels.contents[content])

    def head(self, content: int) -> tuple[int, int, int] | None:
        """``(the first message, its tag, the number of what is left)``, or ``None`` if
        empty."""
        head = self.channels.heads[content]
        if head is None:
            return None
        message, _, tag = self.frames[head[0]]
        return message, tag, head[1]

    def push(self, content: int, message: int, tag: int = 0) -> int:
        """Link ``content`` with ``message`` just sent on it, tagged ``tag``."""
        return self.channels.push(content, self._flight(message, 0, tag))

    def due(self, content: int) -> bool:
        """Whether the first frame has been on its way as long as a frame may be."""
        found = self._due.get(content)
        if found is None:
            head = self.channels.heads[content]
            found = (
                self.delay is not None
                and head is not None
                and self.frames[head[0]][1] >= self.delay
            )
            self._due[content] = found
        return found

    def aged(self, content: int) -> int:
        """Link ``content`` a tick later."""
        found = self._aged.get(content)
        if found is None:
            if self.delay is None:
                found = content
            else:
                found = self._rebuild(content, lambda m, age, tag: (m, age + 1, tag))
            self._aged[content] = found
        return found

    def rewritten(self, content: int, message: Callable[[int], int]) -> int:
        """Link ``content`` with each frame's message ``m`` written ``message(m)``."""
        if content == EMPTY:
            return content
        return self._rebuild(content, lambda m, age, tag: (message(m), age, tag))

    def untagged(self, content: int, bits: int) -> int:
        """Link ``content`` with ``bits`` taken out of every frame's tag."""
        if content == EMPTY:
            return content
        found = self._untagged.get((content, bits))
        if found is None:
            found = self._rebuild(content, lambda m, age, tag: (m, age, tag & ~bits))
            self._untagged[content, bits] = found
        return found

    def _rebuild(
        self, content: int, change: Callable[[int, int, int], tuple[int, int, int]]
    ) -> int:
        frames, flights = self.frames, self.channels.contents[content]
        new = [self._flight(*change(*frames[f])) for f in flights]
        if new == list(flights):
            return content
        number = EMPTY
        for f in new:
            number = self.channels.push(number, f)
        return number
