"""The states still to explore, first in first out, spilled to a file past a bound.

Every state of one model is a tuple of the same length, of small integers; the frontier
keeps them packed back to back (``array('i')``, 4 bytes an integer), not as tuples.
Past ``bound`` bytes in memory, what is queued is written to an anonymous temporary
file (:func:`tempfile.TemporaryFile`: removed by the system when it is closed, or when
the process ends however it ends, Ctrl-C included) and read back in order, a block at a
time.
"""

from __future__ import annotations

import tempfile
from array import array
from typing import IO

__all__ = ["Frontier"]

#: Bytes a frontier keeps in memory before it spills to disk, by default: a buffer (the
#: system's page cache keeps what was written, as long as it has room).
BOUND = 1 << 18
#: States read back from the file at a time.
_BLOCK = 2048


class Frontier:
    """A queue of states of ``width`` integers each."""

    def __init__(self, width: int, bound: int = BOUND) -> None:
        self.width = max(1, width)
        self.bound = max(bound, 4 * self.width)
        #: States read back from the file at a time: at most half the bound.
        self.block = max(1, min(_BLOCK, self.bound // (8 * self.width)))
        self._tail = array("i")  # queued last, in memory
        self._head = array("i")  # read back from the file, still to pop
        self._at = 0  # where the next state to pop starts in _head
        self._file: IO[bytes] | None = None
        self._read = 0  # bytes of the file read back
        self._written = 0  # bytes of the file written
        self._count = 0
        #: The most bytes it held in memory at once, and wrote to disk in all.
        self.peak = 0
        self.spilled = 0

    def __len__(self) -> int:
        return self._count

    def push(self, state: tuple[int, ...]) -> None:
        tail = self._tail
        tail.extend(state)
        self._count += 1
        held = (len(tail) + len(self._head)) * 4
        self.peak = max(self.peak, held)
        if held >= self.bound:
            self._spill()

    def push_packed(self, packed: bytes | memoryview | array[int]) -> None:
        """Queue a state given packed, as :meth:`push` stores it (``width`` integers of
        4 bytes, in the machine's order): as another worker sent it, or as
        :meth:`pop_packed` gave it."""
        tail = self._tail
        if isinstance(packed, array):
            tail += packed
        else:
            tail.frombytes(packed)
        self._count += 1
        held = (len(tail) + len(self._head)) * 4
        self.peak = max(self.peak, held)
        if held >= self.bound:
            self._spill()

    def pop(self) -> tuple[int, ...]:
        """The state queued first (the queue must not be empty)."""
        return tuple(self.pop_packed())

    def pop_packed(self) -> array[int]:
        """The state queued first, packed (``width`` integers), as :meth:`push_packed`
        takes it."""
        width, head = self.width, self._head
        if self._at >= len(head):
            self._refill()
            head = self._head
        at = self._at
        self._at = at + width
        self._count -= 1
        return head[at : at + width]

    def take_last(self, count: int) -> array[int]:
        """Take the ``count`` states queued last out of the queue: packed, in order."""
        need = count * self.width
        taken: list[array[int]] = []
        tail = self._tail
        n = min(need, len(tail))
        if n:
            taken.append(tail[len(tail) - n :])
            del tail[len(tail) - n :]
            need -= n
        file = self._file
        if need and file is not None and self._read < self._written:
            n = min(need, (self._written - self._read) // 4)
            got = array("i")
            file.seek(self._written - 4 * n)
            got.fromfile(file, n)
            self._written -= 4 * n
            if self._read == self._written:
                self._read = self._written = 0
                file.truncate(0)
            taken.append(got)
            need -= n
        if need:
            head = self._head
            taken.append(head[len(head) - need :])
            del head[len(head) - need :]
        self._count -= count
        out = array("i")
        for part in reversed(taken):
            out += part
        return out

    def _spill(self) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="ringleader-frontier-")  # noqa: SIM115 (closed by close())
        file = self._file
        file.seek(self._written)
        self._tail.tofile(file)
        size = len(self._tail) * 4
        self._written += size
        self.spilled += size
        self._tail = array("i")

    def _refill(self) -> None:
        self._at = 0
        file = self._file
        if file is not None and self._read < self._written:
            count = min(self.block * self.width, (self._written - self._read) // 4)
            head = array("i")
            file.seek(self._read)
            head.fromfile(file, count)
            self._read += count * 4
            if self._read == self._written:  # drained: the file starts again empty
                self._read = self._written = 0
                file.truncate(0)
            self._head = head
        else:  # nothing on disk: what is in memory, in order
            self._head, self._tail = self._tail, array("i")

    def close(self) -> None:
        """Remove the file, if any."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> Frontier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
