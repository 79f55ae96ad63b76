"""What is in flight on a link, numbered: a FIFO queue, or a bag when order is lifted.

A global state holds one number per link.  Number 0 is the empty link.  A FIFO link's
contents are the message numbers in the order sent; an unordered link's are sorted, so
that two bags with the same messages are one state.  Pushing a message and taking one
out are memoised, so the search handles numbers only.
"""

from __future__ import annotations

__all__ = ["EMPTY", "Channels"]

#: The number of an empty link.
EMPTY = 0


class Channels:
    """Every link content seen, numbered, with the moves between them."""

    def __init__(self) -> None:
        self.contents: list[tuple[int, ...]] = [()]
        self._ids: dict[tuple[int, ...], int] = {(): EMPTY}
        #: Per content number: ``(first message, the rest's number)`` (``None`` if empty).
        self.heads: list[tuple[int, int] | None] = [None]
        #: Per content number: message → the number once it is pushed (FIFO), as far as
        #: pushed so far (the search reads it directly; :meth:`push` fills it).
        self.pushed: list[dict[int, int]] = [{}]
        self._added: dict[tuple[int, int], int] = {}
        self._choices: dict[int, tuple[tuple[int, int], ...]] = {}

    def __len__(self) -> int:
        return len(self.contents)

    def _number(self, contents: tuple[int, ...]) -> int:
        number = self._ids.get(contents)
        if number is None:
            rest = self._number(contents[1:])  # first: it may be new too
            number = self._ids[contents] = len(self.contents)
            self.contents.append(contents)
            self.heads.append((contents[0], rest))
            self.pushed.append({})
        return number

    def push(self, number: int, message: int) -> int:
        """A FIFO link ``number`` with ``message`` sent on it."""
        pushed = self.pushed[number].get(message)
        if pushed is None:
            pushed = self._number((*self.contents[number], message))
            self.pushed[number][message] = pushed
        return pushed

    def add(self, number: int, message: int) -> int:
        """An unordered link ``number`` with ``message`` sent on it."""
        key = (number, message)
        added = self._added.get(key)
        if added is None:
            added = self._added[key] = self._number(
                tuple(sorted((*self.contents[number], message)))
            )
        return added

    def choices(self, number: int) -> tuple[tuple[int, int], ...]:
        """An unordered link's distinct messages, each with the number of what is left
        once it is taken out."""
        choices = self._choices.get(number)
        if choices is None:
            contents, seen, found = self.contents[number], set(), []
            for at, message in enumerate(contents):
                if message not in seen:
                    seen.add(message)
                    found.append((message, self._number(contents[:at] + contents[at + 1 :])))
            choices = self._choices[number] = tuple(found)
        return choices
