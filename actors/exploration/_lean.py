"""The lean search: fingerprints seen, a frontier on disk, the counts carried as it goes.

Breadth-first by levels, as the exact search, in the same order, so it numbers the
states alike and finds the same states, end states and violations.  What it keeps:

- in memory, the fingerprint of every state seen (``_fingerprints.py``: 11 to 21 bytes
  a state), and for the states of the level being explored and of the next one only,
  each the fewest and most messages of the runs to it, and the steps that got there;
- the frontier, packed, in a temporary file past its bound (``_frontier.py``);
- on disk, in a temporary file, one record a state, written as each level is done:
  the fewest and most messages to it and, for each of a shortest run, the run with the
  fewest and the one with the most messages, the state before it and the step (event
  and messages).  A path is read back from these records, state by state.

The fewest and most messages to a state are carried from level to level: every step
of the explored graph goes from a state of level ``d`` to one of level ``d + 1`` when
every run to a state takes the same number of steps, and then, once a level is
explored, every run to each state of the next one has been counted, and the counts are
exact (and the graph has no cycle: its levels only grow along a step).  Where a step
leads back to a state of a level already explored or being explored — a state reached
by runs of different lengths, or a cycle — the counts carried would not be those of
every run: the search stops there and says why (:class:`Uneven`), and the caller runs
the exact search, which computes them over the whole graph.  That happens where a crash
makes messages sent to the crashed node lost whenever they were sent, for instance.

Memory: the bytes of all the above held in memory at the largest (``memory()``).
"""

from __future__ import annotations

import sys
import tempfile
from array import array
from collections.abc import Callable
from typing import IO

from ringleader.actors.checks import co_leaders

from ._checks import Finding, Tally, count_finding, end_verdicts, leaders_clash, stances
from ._fingerprints import Places, Seen, fingerprint
from ._frontier import BOUND, Frontier
from ._model import Model
from ._runs import Ends, Path

__all__ = ["Lean", "Uneven"]

#: One record a state: the fewest and most messages to it; a shortest run's state
#: before, event and messages sent on the step; the fewest's state before and event;
#: the most's state before and event.
_FEWEST, _MOST, _PARENT, _EVENT, _SENT, _LOW_PARENT, _LOW_EVENT, _HIGH_PARENT, _HIGH_EVENT = range(
    9
)
_FIELDS = 9
_MASK = (1 << 64) - 1


class Uneven(Exception):
    """A state is reached by runs of different lengths: the counts carried level by
    level would not be those of every run."""


class Lean:
    """The lean search over ``model``; see the module's docs."""

    exact = False

    def __init__(
        self,
        model: Model,
        max_states: int,
        max_depth: int | None,
        progress: Callable[[int, int, int], None] | None,
        *,
        bound: int = BOUND,
    ) -> None:
        self.model = model
        self.max_states = max(1, max_states)
        self.max_depth = max_depth
        self.progress = progress
        self.bound = bound
        #: The records' integers: 4 bytes, or 8 where a state's number may need them.
        self.code = "i" if self.max_states < 2**31 else "q"
        self.findings: dict[str, Finding] = {}
        self.tally = Tally()
        self.seen = Seen()
        self.spilled = 0
        self._ends = Ends()
        self._end_count = 0
        self._found_count = 0
        self._explored = 0
        self._levels_peak = 0  # the most bytes the levels' counts held at once
        self._frontier_peak = 0  # the most bytes the frontier held in memory at once
        self._kept: dict[int, tuple[int, ...]] = {}
        self._records: IO[bytes] | None = None

    # -- what it found ---------------------------------------------------------------

    def found(self, kind: str, detail: str, state: int) -> None:
        count_finding(self.findings, kind, detail, state)

    def counts(self) -> tuple[int, int, int]:
        return self._found_count, self._explored, self._end_count

    def graph(self) -> None:
        return None

    def kept(self) -> dict[int, tuple[int, ...]]:
        """The states the paths and findings end in."""
        return self._kept

    def ends(self) -> Ends:
        return self._ends

    def memory(self) -> int:
        """Bytes held: the fingerprints, and the frontier and the levels' counts each
        at its largest (an upper bound of what they held together)."""
        return self.seen.nbytes + self._frontier_peak + self._levels_peak

    def path(self, state: int, via: str | None = None) -> Path:
        """The run to ``state``, read back from the records: a shortest one (``via``
        ``None``), or the one with the fewest (``"min"``) or most (``"max"``) messages."""
        records = self._records
        assert records is not None
        code, size = self.code, _FIELDS * array(self.code).itemsize
        parent, event = {
            None: (_PARENT, _EVENT),
            "min": (_LOW_PARENT, _LOW_EVENT),
            "max": (_HIGH_PARENT, _HIGH_EVENT),
        }[via]
        events: list[int] = []
        messages = 0
        at = state
        while at > 0:
            records.seek(at * size)
            record = array(code)
            record.fromfile(records, _FIELDS)
            events.append(record[event])
            if via is None:
                messages += record[_SENT]
            at = record[parent]
        if via is not None and state > 0:
            records.seek(state * size)
            record = array(code)
            record.fromfile(records, _FIELDS)
            messages = record[_FEWEST if via == "min" else _MOST]
        events.reverse()
        return Path(events, messages, state)

    def close(self) -> None:
        if self._records is not None:
            self._records.close()
            self._records = None

    # -- the search ------------------------------------------------------------------

    def search(self) -> tuple[str | None, int]:
        """Explore; ``(why it stopped or None, depth)``.  Raises :class:`Uneven`."""
        initial = self.model.initial()
        self._records = tempfile.TemporaryFile(prefix="ringleader-paths-")  # noqa: SIM115
        with Frontier(len(initial), self.bound) as frontier:
            try:
                return self._levels(initial, frontier)
            finally:
                self.spilled = frontier.spilled
                if sys.exc_info()[0] is not None:
                    self.close()

    def _levels(self, initial: tuple[int, ...], frontier: Frontier) -> tuple[str | None, int]:  # noqa: PLR0912, PLR0915
        model, seen, tally, ends, kept = self.model, self.seen, self.tally, self._ends, self._kept
        records = self._records
        assert records is not None
        expand, found, ids, findings = model.expand, self.found, model.ids, self.findings
        faultless = model.faultless
        max_states, max_depth, progress = self.max_states, self.max_depth, self.progress
        add = seen.add
        seen.add(fingerprint(initial))
        frontier.push(initial)
        code = self.code
        array(code, [0, 0, -1, -1, 0, -1, -1, -1, -1]).tofile(records)  # state 0's record
        fewests, mosts = array(code, [0]), array(code, [0])  # this level's, by place
        count = 1  # states found
        head, depth, level_start = 0, 0, 0
        stopped: str | None = None
        while head < count:
            if head > 0:
                depth += 1
                if max_depth is not None and depth > max_depth:
                    stopped = "max_depth"
                    break
            level_end = count
            following = array(code)  # the next level's records, as they are found
            where = Places()  # fingerprint → its place in the next level
            place = where.get
            while head < level_end:
                state = frontier.pop()
                at = head - level_start
                fewest, most = fewests[at], mosts[at]
                steps, end = expand(state)
                if end:
                    self._end_count += 1
                    for kind, detail in tally.add(end_verdicts(model, state)):
                        found(kind, detail, head)
                        kept[head] = state
                    if ends.meet(head, fewest, most, faultless(state)):
                        kept[head] = state
                for number, successor, messages, lead in steps:
                    fp = hash(successor) & _MASK or 1  # fingerprint(successor), inlined
                    to = place(fp)
                    if to >= 0:  # in the next level already: one more run to it
                        k = to * _FIELDS
                        low, high = fewest + messages, most + messages
                        if low < following[k]:
                            following[k] = low
                            following[k + _LOW_PARENT] = head
                            following[k + _LOW_EVENT] = number
                        if high > following[k + 1]:
                            following[k + 1] = high
                            following[k + _HIGH_PARENT] = head
                            following[k + _HIGH_EVENT] = number
                        continue
                    if count >= max_states:
                        if fp in seen:
                            raise Uneven(_UNEVEN)
                        stopped = "max_states"
                        continue
                    if not add(fp):
                        raise Uneven(_UNEVEN)
                    where.put(fp, count - level_end)
                    frontier.push(successor)
                    low, high = fewest + messages, most + messages
                    following.extend(
                        (low, high, head, number, messages, head, number, head, number)
                    )
                    # Only a node that came to lead can make two lead one epoch at once.
                    if lead >= 0 and co_leaders(stances(model, successor), ids[lead]):
                        told = "two_leaders" in findings  # only the first is told in words
                        found("two_leaders", "" if told else leaders_clash(model, successor), count)
                        kept[count] = successor
                    count += 1
                head += 1
                self._explored = head
                if progress is not None and not head & 0xFFF:
                    progress(count, head, depth)
                if stopped is not None:
                    break
            held = (len(fewests) + len(mosts) + len(following)) * following.itemsize + where.nbytes
            self._levels_peak = max(self._levels_peak, held)
            self._frontier_peak = frontier.peak
            records.seek(level_end * following.itemsize * _FIELDS)
            following.tofile(records)
            fewests, mosts = following[_FEWEST::_FIELDS], following[_MOST::_FIELDS]
            del following
            level_start = level_end
            self._found_count = count
            if stopped is not None:
                break
        self._found_count = count
        if progress is not None:
            progress(count, head, depth)
        if stopped is None and head < count:
            stopped = "max_depth"
        return stopped, depth


_UNEVEN = (
    "a state is reached by runs of different lengths: the fewest and most messages need "
    "the whole graph"
)
