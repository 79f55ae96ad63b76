"""The lean search over a service's states: fingerprints seen, a frontier that spills to
disk, and per state on disk only the step that found it.

Breadth-first by levels, as :func:`~._search.search`, in the same order: it finds the
same states, numbers them alike, makes every step's safety checks as it goes, and the
first violation of each check it finds is by a shortest path, as there.  What it keeps:

- in memory, the 64-bit fingerprint of every state seen (the notes' explorer's
  ``Seen``, ``../_fingerprints.py``: 11 to 21 bytes a state) — or, ``exact``, every state
  whole in a set, where no two states may be taken for one;
- the frontier, packed, in a temporary file past its bound (``Frontier``, ``../_frontier.py``);
- on disk, in a temporary file, one record a state: the state before it on a shortest
  path and the step from there (its event's number).  A counterexample's path is read
  back from these records, state by state, into the events that
  :func:`~._replay.service_records` runs again.

A violation's path ends with the step that broke the check.  Where that step led to a
state seen before (whose number a fingerprint does not keep), the path is the one to
the state the step was made from, and the step: one step longer, at most, than the
full search's, which goes to the state reached by the path that first found it.  The
first violation of a check is on a step to a state found by it wherever the checks are
the states' (the same path then), as in every search the tests compare.

It keeps no graph, so it cannot make the progress check (``no_progress``), which walks
the graph backwards: a lean search reports it not checked, however complete.

Two states with one fingerprint are taken for one, at the odds
``collision_odds`` (``../_fingerprints.py``) gives (``n(n − 1)/2⁶⁵`` for ``n`` states, as TLC
estimates them).
"""

from __future__ import annotations

import sys
import tempfile
import time
from array import array
from collections.abc import Callable
from typing import IO

from .._fingerprints import Seen, collision_odds
from .._frontier import BOUND, Frontier
from ._checks import CHECKS, Finding
from ._model import ServiceModel

__all__ = ["LeanSearch"]

_MASK = (1 << 64) - 1
#: The records kept in memory before they are written to disk (a buffer: pairs of ints).
_RECORDS = 1 << 14


class _Whole:
    """The states seen, whole (``exact``): a set of tuples."""

    def __init__(self) -> None:
        self.states: set[tuple[int, ...]] = set()

    def __contains__(self, state: tuple[int, ...]) -> bool:
        return state in self.states

    def add(self, state: tuple[int, ...]) -> bool:
        if state in self.states:
            return False
        self.states.add(state)
        return True

    @property
    def nbytes(self) -> int:
        states = self.states
        sample = next(iter(states), ())
        return sys.getsizeof(states) + len(states) * sys.getsizeof(sample)


class LeanSearch:
    """The lean search over ``model``; see the module's docs.  ``run`` returns what
    :class:`~._search.ServiceExploration` holds, ``path`` reads a path back."""

    def __init__(
        self,
        model: ServiceModel,
        max_states: int,
        max_depth: int | None,
        progress: Callable[[int, int, int], None] | None,
        *,
        exact: bool = False,
        bound: int = BOUND,
    ) -> None:
        self.model = model
        self.max_states = max(1, max_states)
        self.max_depth = max_depth
        self.progress = progress
        self.exact = exact
        self.bound = bound
        self.deadline: float | None = None  # (time.perf_counter)
        #: A record's integers: 4 bytes, or 8 where a state's number may need them.
        self.code = "i" if self.max_states < 2**31 else "q"
        self.findings: dict[str, Finding] = {}
        #: Per check, the first step that broke it: (the state it was made from, event).
        self.first: dict[str, tuple[int, int]] = {}
        self.seen: Seen | _Whole = _Whole() if exact else Seen()
        self.count = 0  # states found
        self.explored = 0
        self.edges = 0
        self.depth = 0
        self.spilled = 0
        self._frontier_peak = 0
        self._records: IO[bytes] | None = None

    # -- what it found ---------------------------------------------------------------

    def _found(self, kind: str, detail: str, state: int, via: tuple[int, int]) -> None:
        first = self.findings.get(kind)
        if first is None:
            self.findings[kind] = Finding(kind, detail, state)
            self.first[kind] = via
        else:
            self.findings[kind] = Finding(kind, first.detail, first.state, first.count + 1)

    def memory(self) -> int:
        """Bytes held: the seen-set, the frontier at its largest in memory, and the
        records' buffer."""
        return self.seen.nbytes + self._frontier_peak + 2 * _RECORDS * array(self.code).itemsize

    @property
    def collision_odds(self) -> float | None:
        return None if self.exact else collision_odds(self.count)

    def path(self, state: int) -> list[int]:
        """The events of a shortest path from the start to ``state``, read back."""
        records = self._records
        assert records is not None
        code = self.code
        size = 2 * array(code).itemsize
        events: list[int] = []
        while state > 0:
            records.seek(state * size)
            record = array(code)
            record.fromfile(records, 2)
            state = record[0]
            events.append(record[1])
        events.reverse()
        return events

    def finding_path(self, kind: str) -> list[int]:
        """The events of a shortest path to the first step that broke ``kind``."""
        state, event = self.first[kind]
        return [] if state < 0 else [*self.path(state), event]

    def close(self) -> None:
        if self._records is not None:
            self._records.close()
            self._records = None

    # -- the search ------------------------------------------------------------------

    def run(self, initial: tuple[int, ...], broken: tuple[tuple[str, str], ...]) -> str | None:
        """Explore from ``initial`` (which broke ``broken``); why it stopped, or None.
        The depth reached is ``self.depth``."""
        for kind, detail in broken:
            self._found(kind, detail, 0, (-1, -1))
        self._records = tempfile.TemporaryFile(prefix="ringleader-service-paths-")  # noqa: SIM115 (closed by close())
        with Frontier(len(initial), self.bound) as frontier:
            try:
                return self._levels(initial, frontier)
            finally:
                self.spilled = frontier.spilled
                self._frontier_peak = frontier.peak

    def _levels(self, initial: tuple[int, ...], frontier: Frontier) -> str | None:  # noqa: PLR0912, PLR0915
        records = self._records
        assert records is not None
        expand, found = self.model.expand, self._found
        max_states, max_depth, progress = self.max_states, self.max_depth, self.progress
        exact, seen = self.exact, self.seen
        add = seen.add
        add(initial if exact else hash(initial) & _MASK or 1)  # type: ignore[arg-type]
        edges = 0
        frontier.push(initial)
        code = self.code
        buffer = array(code, [-1, -1])  # state 0's record: no state before it
        count = 1
        head, depth, level_end = 0, 0, 1
        stopped: str | None = None
        while head < count:
            if head == level_end:
                depth += 1
                level_end = count
                if max_depth is not None and depth > max_depth:
                    stopped = "max_depth"
                    break
            state = frontier.pop()
            for number, successor, broken in expand(state):
                key = successor if exact else hash(successor) & _MASK or 1
                if count >= max_states and key not in seen:  # type: ignore[operator]
                    stopped = "max_states"  # as the full search: not found, not checked
                    continue
                edges += 1
                if add(key):  # type: ignore[arg-type]
                    frontier.push(successor)
                    buffer.append(head)
                    buffer.append(number)
                    if len(buffer) >= 2 * _RECORDS:
                        buffer.tofile(records)
                        del buffer[:]
                    to = count
                    count += 1
                else:
                    to = -1  # seen before: its number is not kept
                for kind, detail in broken:
                    found(kind, detail, to, (head, number))
            head += 1
            if not head & 0xFFF:
                if progress is not None:
                    progress(count, head, depth)
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    stopped = "max_seconds"
            if stopped is not None:
                break
        buffer.tofile(records)
        self.count, self.explored, self.edges, self.depth = count, head, edges, depth
        if progress is not None:
            progress(count, head, depth)
        return stopped

    def ordered(self) -> list[Finding]:
        return [self.findings[k] for k in CHECKS if k in self.findings]
