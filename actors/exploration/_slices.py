"""The lean search on several workers of one machine: each holds the whole seen-set and
expands a slice of each level, in number order.

A breadth-first level is the states numbered ``low … high − 1``.  Worker ``j`` of ``k``
(a :class:`Slice`) expands the ``j``-th of ``k`` even, contiguous slices of it, in number
order, with a walk shaped like the lean search's (``_lean.py``): walking in number
order, the first step met into a state is the one a single search meets first, so a
successor needs no owner test and no comparison of places.  Each worker holds every
state's fingerprint (``Seen``); a successor is

- in its own next level already: one more run to it, the counts carried as the lean
  search carries them (the first of equals kept);
- seen in a level before: the search is uneven (``_lean.py``), and the worker says the
  least state it met one from, so that the driver raises :class:`~._lean.Uneven` where
  one search would (a ``max_states`` cut included);
- else new, numbered in this worker in the order it is met, and queued packed.

After the level, the workers' new states' fingerprints go to every worker
(:meth:`Slice.exchange`).  One search numbers the new states worker 0 met first (in the
order it met them), then those worker 1 met that worker 0 did not, and so on: worker
``j`` drops the states an earlier worker found, and sends that worker its counts for
them (the earlier keeps its own on a tie, as one search keeps the first); every worker
adds the others' fingerprints to its seen-set.  Numbering needs no sort: a running
offset (:meth:`Slice.commit`).  The next level is cut in even slices again: a worker
that found more than its slice hands the surplus (packed states and their counts) to
the neighbouring worker whose slice they fall in — only the imbalance crosses.

The states whose expansion needs a new table entry (:class:`~._sealing.Sealed`) are set
aside and then expanded by every worker in number order, tables open, so every worker
numbers the entries alike (:meth:`Slice.finish`); a worker keeps the steps of its own.
Those are walked after the rest of its slice, so there, and only there, the first step
met is not always the first in number order: the walk compares the states stepped from,
and the new states these steps meet first move to where one search meets them.

Each worker writes the records (the lean search's, naming the state before a step by
its number) of the states it numbered, and checks the end states it expanded and the
new states it keeps; the driver (:class:`_Slices`) merges the findings as the driver of
the partitioned search does (``_workers.py``), and asks the workers for records to
show a path.  The result — states, end states, depth, every check's verdict, the
fewest and most messages, every path — is one worker's, state for state.

Every worker holds the whole seen-set, so this search grows no further than one
machine's memory; it is what ``ringleader explore --workers N`` runs on local
processes.  Ray's workers on several machines share no memory: ``--ray`` keeps the
partitioned search (``_parts.py``), whose parts each own a share of the seen-set.
"""

from __future__ import annotations

import time
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, compress, pairwise, repeat, starmap
from typing import Any, Unpack

from ringleader.actors.checks import co_leaders

from ._checks import leaders_clash, stances
from ._fingerprints import Places
from ._lean import _UNEVEN, Uneven
from ._model import NewLink
from ._sealing import Sealed
from ._search import Exploration
from ._share import (
    EVENT,
    FEWEST,
    HIGH_EVENT,
    HIGH_PLACE,
    LOW_EVENT,
    LOW_PLACE,
    MOST,
    PLACE,
    SENT,
    Inputs,
    Share,
)
from ._share import FIELDS as _FIELDS
from ._workers import Limits, PoolMaker, Processes, _Driver, shared

__all__ = ["Slice", "SliceProcesses", "explore_slices"]


_MAX = 1 << 62  # more than any index
#: The fewest states each worker expands in a level that cuts the next one by their time.
_MEASURED = 1000
_MASK = (1 << 64) - 1
#: 1 for 0 and 0 for 1: a byte string of flags turned over (``bytes.translate``).
_FLIP = bytes([1, 0, *range(2, 256)])
#: A piece of a level handed to another worker: its states, packed as a frontier keeps
#: them, and their fewest and most messages (``array('q')`` each, as bytes).
Piece = tuple[bytes, bytes, bytes]


def _nth(flags: bytes | bytearray, rank: int) -> int:
    """The place of the ``rank``-th 1 among ``flags`` (their length if there are
    fewer)."""
    low, high = 0, len(flags)
    while low < high:
        middle = (low + high) // 2
        if flags.count(1, 0, middle + 1) > rank:
            high = middle
        else:
            low = middle + 1
    return low


def cut(low: int, count: int, shares: Sequence[float]) -> list[int]:
    """The level of ``count`` states from ``low`` cut in contiguous slices, one a worker,
    each about its share of the states (``shares``: fractions that add up to 1): the
    first state of each slice, and the one after the last."""
    cuts, total = [low], 0.0
    for share in shares[:-1]:
        total += share
        cuts.append(low + min(count, max(0, round(count * total))))
    cuts.append(low + count)
    return cuts


class Slice(Share):
    """Worker ``index`` of ``parts`` of a lean search shared by slices of each level.

    The driver (:func:`explore_slices`) calls, for each level, :meth:`expand`,
    :meth:`finish` if any worker set states aside, :meth:`exchange`, :meth:`parent_of`
    where ``max_states`` cuts the level, and :meth:`commit`; once the search is over,
    ``summary`` (what every worker has, ``_share.py``), and :meth:`record` for the paths.
    """

    def _begin(self) -> None:
        parts, index = self.parts, self.index
        self.seen.add(hash(self.initial) & _MASK or 1)
        #: The slice to expand: its first state's number, and its states' counts.
        first = cut(0, 1, [1 / parts] * parts)
        self.start = first[index]
        #: Its own states of the slice, in number order (the others' pieces aside),
        #: each with the fewest and most messages of the runs to it.
        self.own: Iterable[tuple[tuple[int, ...], int, int]] = ()
        if first[index + 1] == 1:
            self.own = ((self.initial, 0, 0),)
        #: Per level, the states this worker numbered: the first's number, how many, and
        #: where their records begin in the file (nine integers a state, as met), and
        #: where in that order the states it did not keep are.
        self.level_starts: list[int] = []
        self.level_sizes: list[int] = []
        self.record_starts: list[int] = []
        self.level_gaps: list[array[int]] = []
        if index == 0:  # state 0's record
            self.following = array("q", [0, 0, -1, -1, 0, -1, -1, -1, -1])
            self._write_records(bytearray(b"\x01"), 0, 1)
        self._level()

    def _level(self) -> None:
        """Empty the next level's tables."""
        #: The next level's states met, in the order met (*raw*): nine integers a state,
        #: the lean search's record, naming the state before a step by its number.
        self.following = array("q")
        self.fps = array("Q")  # their fingerprints, in the same order
        self.where = Places()  # fingerprint → raw index
        self.clashes: dict[int, tuple[int, ...]] = {}  # raw index → a new state two lead
        self.set_aside: dict[int, tuple[int, int]] = {}  # number → its fewest, most
        #: number of a state set aside → how many states the walk had met before it.
        self.marks: dict[int, int] = {}
        #: raw index → (number, rank, state) of the step that met it first, where that
        #: step is one of a state set aside's (walked after the others).
        self.late: dict[int, tuple[int, int, tuple[int, ...]]] = {}
        self.uneven = -1  # the least state a step went from back to a level before
        #: The order one search meets the new states in, as runs of raw indices
        #: (``None``: as met), and each raw index's place in it.
        self.runs: list[tuple[int, int]] | None = None
        self.places: list[int] = []  # the place of each run's first state
        self.by_raw: list[tuple[int, int, int]] = []  # the runs by raw index: a, b, place
        self.dropped = bytearray()  # by place in that order: an earlier worker's state

    # -- expanding -------------------------------------------------------------------

    def expand(
        self, lower: Sequence[Piece] = (), upper: Sequence[Piece] = ()
    ) -> tuple[list[tuple[int, tuple[int, ...]]], bytes | None, int, float]:
        """Expand this worker's slice, tables sealed: the pieces of it the workers before
        handed on (``lower``), its own states, then those of the workers after
        (``upper``).  The states set aside (number, state); unless this worker set any
        aside, the fingerprints of its new states in the order one search numbers them,
        and the least state that stepped back to a level before (-1: none); and the CPU
        seconds it took (the driver cuts the next level by them, ``_Slices``)."""
        began = time.process_time()
        sources = [*map(self._unpacked, lower), self.own, *map(self._unpacked, upper)]
        self.own = ()
        self.seal(True)
        try:
            aside = self._walk(self.start, sources)
        finally:
            self.seal(False)
        self.fast = len(self.fps)
        fps, uneven = (None, -1) if aside else self._settle()
        return aside, fps, uneven, time.process_time() - began

    def _unpacked(self, piece: Piece) -> Iterable[tuple[tuple[int, ...], int, int]]:
        """A piece's states, each with its fewest and most messages."""
        states, low, high = piece
        packed, fewests, mosts = array("i"), array("q"), array("q")
        packed.frombytes(states)
        fewests.frombytes(low)
        mosts.frombytes(high)
        width = self.width
        unpacked = (tuple(packed[at : at + width]) for at in range(0, len(packed), width))
        return zip(unpacked, fewests, mosts, strict=True)

    def _walk(
        self,
        number: int,
        sources: list[Iterable[tuple[tuple[int, ...], int, int]]],
    ) -> list[tuple[int, tuple[int, ...]]]:
        """Expand the slice's states, numbered from ``number`` on, in number order, as
        the lean search does (``_lean.py``); the states that would add a table entry are
        set aside, and returned (number, state)."""
        model = self.model
        expand, ids = model.expand, model.ids
        following, fps, add, clashes = self.following, self.fps, self.seen.add, self.clashes
        place, put, push = self.where.get, self.where.put, self.frontier.push
        aside: list[tuple[int, tuple[int, ...]]] = []
        level_ends = self.level_ends
        for source in sources:
            for state, fewest, most in source:
                try:
                    steps, end = expand(state)
                except (Sealed, NewLink):
                    aside.append((number, state))
                    self.set_aside[number] = (fewest, most)
                    self.marks[number] = len(fps)
                    number += 1
                    continue
                if end:
                    level_ends.append((number, state, fewest, most))
                for event, successor, messages, lead in steps:
                    fp = hash(successor) & _MASK or 1  # fingerprint(successor), inlined
                    to = place(fp)
                    if to >= 0:  # in the next level already: one more run to it
                        k = to * _FIELDS
                        low, high = fewest + messages, most + messages
                        if low < following[k]:
                            following[k] = low
                            following[k + LOW_PLACE] = number
                            following[k + LOW_EVENT] = event
                        if high > following[k + 1]:
                            following[k + 1] = high
                            following[k + HIGH_PLACE] = number
                            following[k + HIGH_EVENT] = event
                        continue
                    if not add(fp):  # seen in a level before: the counts would not be every run's
                        if self.uneven < 0:
                            self.uneven = number
                        continue
                    to = len(fps)
                    put(fp, to)
                    fps.append(fp)
                    push(successor)
                    low, high = fewest + messages, most + messages
                    following.extend(
                        (low, high, number, event, messages, number, event, number, event)
                    )
                    # Only a node that came to lead can make two lead one epoch at once.
                    if lead >= 0 and co_leaders(stances(model, successor), ids[lead]):
                        clashes[to] = successor
                number += 1
        return aside

    def finish(self, aside: list[tuple[int, tuple[int, ...]]]) -> tuple[bytes, int]:
        """Expand every worker's states set aside (``aside``, in number order), tables
        open, keeping this worker's steps; then as :meth:`expand` ends."""
        for number, state in aside:
            counts = self.set_aside.get(number)
            if counts is None:  # another's: expanded only to number the tables' entries alike
                self.model.expand(state)
            else:
                self._walk_late(number, *counts, state)
        return self._settle()

    def _walk_late(self, number: int, fewest: int, most: int, state: tuple[int, ...]) -> None:
        """Expand a state set aside, walked after states numbered after it: where one
        search keeps the first step of equals, keep the one from the least state."""
        model, following, fps, late = self.model, self.following, self.fps, self.late
        steps, end = model.expand(state)
        if end:
            self.level_ends.append((number, state, fewest, most))
        for rank, (event, successor, messages, lead) in enumerate(steps):
            fp = hash(successor) & _MASK or 1
            to = self.where.get(fp)
            low, high = fewest + messages, most + messages
            if to >= 0:  # of equal runs, the one from the least state is one search's
                k = to * _FIELDS
                if number < following[k + PLACE]:  # met first here
                    following[k + PLACE], following[k + EVENT] = number, event
                    following[k + SENT] = messages
                    late[to] = (number, rank, successor)
                    self._clash(to, successor, lead)
                if (low, number) < (following[k], following[k + LOW_PLACE]):
                    following[k], following[k + LOW_PLACE] = low, number
                    following[k + LOW_EVENT] = event
                if (-high, number) < (-following[k + 1], following[k + HIGH_PLACE]):
                    following[k + 1], following[k + HIGH_PLACE] = high, number
                    following[k + HIGH_EVENT] = event
            elif not self.seen.add(fp):
                if self.uneven < 0 or number < self.uneven:
                    self.uneven = number
            else:
                to = len(fps)
                self.where.put(fp, to)
                fps.append(fp)
                following.extend((low, high, number, event, messages, number, event, number, event))
                late[to] = (number, rank, successor)
                self._clash(to, successor, lead)

    def _settle(self) -> tuple[bytes, int]:
        """Put the new states in the order one search meets them (only the states a
        state set aside met first move: to where the walk passed that state), and say
        their fingerprints in that order and the least state that stepped back."""
        late, fast = self.late, self.fast
        if late:
            groups: dict[int, list[tuple[int, int]]] = {}
            for raw, (number, rank, _) in late.items():
                groups.setdefault(number, []).append((rank, raw))
            moved = sorted(raw for raw in late if raw < fast)
            runs: list[tuple[int, int]] = []

            def between(a: int, b: int) -> None:  # raw a … b − 1 but the moved ones
                for raw in moved[bisect_right(moved, a - 1) :]:
                    if raw >= b:
                        break
                    if a < raw:
                        runs.append((a, raw))
                    a = raw + 1
                if a < b:
                    runs.append((a, b))

            at = 0
            for number in sorted(groups):
                mark = self.marks[number]
                between(at, mark)
                runs.extend((raw, raw + 1) for _, raw in sorted(groups[number]))
                at = mark
            between(at, fast)
            self.runs = runs
            done = 0
            for a, b in runs:
                self.places.append(done)
                done += b - a
            self.by_raw = sorted(zip(*zip(*runs, strict=True), self.places, strict=True))
            self.following = self._ordered(self.following, _FIELDS)
            self.fps = self._ordered(self.fps, 1)
            self.clashes = {self._place(raw): state for raw, state in self.clashes.items()}
        self.dropped = bytearray(len(self.fps))
        return self.fps.tobytes(), self.uneven

    def _place(self, raw: int) -> int:
        """The place of raw index ``raw`` in the order one search meets the states."""
        if self.runs is None:
            return raw
        a, _, place = self.by_raw[bisect_right(self.by_raw, (raw, _MAX)) - 1]
        return place + raw - a

    def _raw(self, place: int) -> int:
        """The raw index of the state at ``place`` in that order."""
        assert self.runs is not None
        run = bisect_right(self.places, place) - 1
        return self.runs[run][0] + place - self.places[run]

    def _ordered(self, values: array[Any], width: int) -> array[Any]:
        """``values`` (``width`` a state, raw) in the order one search meets the states."""
        out = array(values.typecode)
        assert self.runs is not None
        for a, b in self.runs:
            out += values[a * width : b * width]
        return out

    # -- what is new -----------------------------------------------------------------

    def exchange(self, others: Sequence[bytes | None]) -> tuple[int, list[bytes | None]]:
        """Meet every other worker's new states (their fingerprints, in their order;
        ``None`` for this worker's): drop those an earlier worker found, and add the
        others' to the seen-set.  How many new states this worker keeps; and, for each
        earlier worker, the counts of the runs this worker met to the states it dropped
        of that worker's (``array('q')`` as bytes, seven integers a state: its place in
        that worker's order, the fewest messages, that run's last step's state and
        event, the most likewise)."""
        place, following, dropped = self.where.get, self.following, self.dropped
        owed: list[bytes | None] = [None] * self.parts
        for worker, data in enumerate(others):
            if data is None or worker == self.index:
                continue
            fps = array("Q")
            fps.frombytes(data)
            there = self.seen.update(fps)
            if worker > self.index:  # its states this worker found too are its own to drop
                continue
            out = array("q")
            for at in there:
                to = place(fps[at])
                if to < 0:  # found by a worker before that one too, not by this one
                    continue
                to = self._place(to)
                if not dropped[to]:
                    dropped[to] = 1
                    k = to * _FIELDS
                    out.extend(
                        (
                            at,
                            following[k],
                            following[k + LOW_PLACE],
                            following[k + LOW_EVENT],
                            following[k + 1],
                            following[k + HIGH_PLACE],
                            following[k + HIGH_EVENT],
                        )
                    )
            owed[worker] = out.tobytes() if out else None
        return len(dropped) - dropped.count(1), owed

    def parent_of(self, kept: int) -> int:
        """The state that met first this worker's ``kept``-th new state kept (-1: none
        asked)."""
        if kept < 0:
            return -1
        at = _nth(self.dropped.translate(_FLIP), kept)
        return self.following[at * _FIELDS + PLACE]

    # -- numbered, checked, handed on ------------------------------------------------

    def commit(
        self,
        base: int,
        owed: Sequence[bytes],
        max_states: int,
        last: int,
        cuts: Sequence[int],
    ) -> list[Piece | None]:
        """Number the new states kept from ``base`` on, the counts later workers met
        (``owed``, in their order) taken in, none kept from ``max_states`` on; check the
        level's end states, up to state ``last`` (-1: all; the search stops after it),
        and the new states kept; write their records.  The next level is cut in slices
        at ``cuts`` (``cut``): this worker keeps those of its slice, and hands the
        others on — the pieces for each worker (``None``: none)."""
        following = self.following
        for data in owed:
            counts = array("q")
            counts.frombytes(data)
            for i in range(0, len(counts), 7):
                at, fewest, low_from, low_event, most, high_from, high_event = counts[i : i + 7]
                k = at * _FIELDS  # on a tie, this worker's run: from a lesser state
                if fewest < following[k]:
                    following[k], following[k + LOW_PLACE] = fewest, low_from
                    following[k + LOW_EVENT] = low_event
                if most > following[k + 1]:
                    following[k + 1], following[k + HIGH_PLACE] = most, high_from
                    following[k + HIGH_EVENT] = high_event
        keep = self.dropped.translate(_FLIP)
        kept = keep.count(1)
        room = max(0, max_states - base)
        if kept > room:  # cut: none kept from max_states on
            cut = _nth(keep, room)
            keep[cut:] = bytes(len(keep) - cut)
            kept = room
        held = len(following) * 8 + len(self.fps) * 8 + self.where.nbytes + 2 * len(keep)
        self.levels_peak = max(self.levels_peak, held)
        self._check_ends(last)
        for at, state in sorted(self.clashes.items()):
            if keep[at]:
                number = base + keep.count(1, 0, at)
                words = "" if "two_leaders" in self.findings else leaders_clash(self.model, state)
                self._found("two_leaders", words, number, (following[at * _FIELDS + PLACE], 1, 0))
                self.kept[number] = state
        self._write_records(keep, base, kept)
        pieces = self._hand_on(keep, base, kept, cuts)
        self._level()
        return pieces

    def _write_records(self, keep: bytearray, base: int, kept: int) -> None:
        """The level's records, as met, and where the states not kept are among them."""
        if not kept:
            return
        self.records.seek(0, 2)
        self.record_starts.append(self.records.tell())
        self.level_starts.append(base)
        self.level_sizes.append(kept)
        gaps, at = array("i"), keep.find(0)
        while at >= 0:
            gaps.append(at)
            at = keep.find(0, at + 1)
        self.level_gaps.append(gaps)
        self.following.tofile(self.records)

    def _hand_on(
        self,
        keep: bytearray,
        base: int,
        kept: int,
        cuts: Sequence[int],
    ) -> list[Piece | None]:
        """Of the new states kept (numbered from ``base``), those of the slices of the
        workers before this one (the first few) and after it (the last few) are handed
        on, in pieces; the rest are this worker's own to expand next, from its frontier.
        Only the imbalance is moved; the others stay where they were queued."""
        parts, me = self.parts, self.index
        spans: list[tuple[int, int]] = []  # per worker: the ranks of the states for it
        for worker in range(parts):
            first, after = cuts[worker], cuts[worker + 1]
            if worker == me:
                self.start = first
            spans.append((max(first, base) - base, max(0, min(after, base + kept) - base)))
        below = sum(max(0, b - a) for a, b in spans[:me])
        above = sum(max(0, b - a) for a, b in spans[me + 1 :])
        mine = max(0, kept - below - above)
        low_at = _nth(keep, below)  # by place: the first state this worker keeps
        high_at = _nth(keep, below + mine)  # … the first it hands to the workers after
        head, tail, states = self._split(keep, low_at, high_at)
        fewests, mosts = self.following[FEWEST::_FIELDS], self.following[MOST::_FIELDS]
        flags = bytes(keep[low_at:high_at])
        self.own = zip(
            states,
            compress(fewests[low_at:high_at], flags),
            compress(mosts[low_at:high_at], flags),
            strict=True,
        )
        kept_fewests = array("q", compress(fewests[:low_at], keep[:low_at]))
        kept_mosts = array("q", compress(mosts[:low_at], keep[:low_at]))
        kept_fewests += array("q", compress(fewests[high_at:], keep[high_at:]))
        kept_mosts += array("q", compress(mosts[high_at:], keep[high_at:]))
        pieces: list[Piece | None] = [None] * parts
        width = self.width
        for worker, (a, b) in enumerate(spans):
            if a >= b or worker == me:
                continue
            packed = head if worker < me else tail
            at = a if worker < me else a - below - mine
            piece = packed[at * width : (at + b - a) * width].tobytes()
            c = a if worker < me else a - mine  # in the counts handed on
            counts = kept_fewests[c : c + b - a].tobytes(), kept_mosts[c : c + b - a].tobytes()
            pieces[worker] = (piece, *counts)
        return pieces

    def _split(
        self, keep: bytearray, low_at: int, high_at: int
    ) -> tuple[array[int], array[int], Iterable[tuple[int, ...]]]:
        """The states kept before place ``low_at`` (packed, taken from the frontier's
        head), those from ``high_at`` on (packed, from its tail), and an iterator over
        those between, still queued: each kept state once, in number order."""
        if self.runs is not None:
            return self._split_moved(keep, low_at, high_at)
        frontier, width, fast = self.frontier, self.width, self.fast
        pop_packed, head, tail = frontier.pop_packed, array("i"), array("i")
        for at in range(low_at):  # as met: place and raw index are one
            state = pop_packed()
            if keep[at]:
                head += state
        if high_at < fast:
            taken = frontier.take_last(fast - high_at)
            for at in range(high_at, fast):
                if keep[at]:
                    tail += taken[(at - high_at) * width : (at - high_at + 1) * width]
        flags = bytes(keep[low_at:high_at])
        return head, tail, compress(starmap(frontier.pop, repeat((), high_at - low_at)), flags)

    def _split_moved(
        self, keep: bytearray, low_at: int, high_at: int
    ) -> tuple[array[int], array[int], Iterable[tuple[int, ...]]]:
        """:meth:`_split`, where states set aside met some states first: those are kept
        in memory (``late``), and skipped where they were queued."""
        frontier, late, order = self.frontier, self.late, self._raw
        pop_packed, head, tail = frontier.pop_packed, array("i"), array("i")
        width, fast = self.width, self.fast
        queued = 0  # raw states popped from the frontier so far
        for at in range(low_at):
            raw = order(at)
            if raw in late:
                state = array("i", late[raw][2])
            else:
                while queued < raw:  # queued, but moved: met first by a state set aside
                    pop_packed()
                    queued += 1
                state = pop_packed()
                queued += 1
            if keep[at]:
                head += state
        end = queued  # past the last raw state still to pop
        for at in range(high_at - 1, low_at - 1, -1):
            if order(at) not in late:
                end = order(at) + 1
                break
        taken = frontier.take_last(fast - end) if end < fast else array("i")
        for at in range(high_at, len(self.fps)):
            raw = order(at)
            if not keep[at]:
                continue
            if raw in late:
                tail += array("i", late[raw][2])
            else:
                tail += taken[(raw - end) * width : (raw - end + 1) * width]
        return head, tail, self._between(keep, low_at, high_at, queued)

    def _between(
        self, keep: bytearray, low_at: int, high_at: int, queued: int
    ) -> Iterable[tuple[int, ...]]:
        """The states kept from place ``low_at`` to ``high_at`` (the frontier popped
        ``queued`` so far): runs of states as queued (the moved ones skipped there), and
        the moved ones where one search meets them."""
        between: list[Iterable[tuple[int, ...]]] = []
        at, pop, late = 0, self.frontier.pop, self.late
        assert self.runs is not None
        for a, b in self.runs:
            first, after = max(at, low_at), min(at + b - a, high_at)
            if first < after:
                raw = a + first - at
                if raw in late:  # one state, moved
                    if keep[first]:
                        between.append((late[raw][2],))
                else:
                    last = a + after - at
                    flags = bytes(raw - queued) + keep[first:after]
                    between.append(compress(starmap(pop, repeat((), last - queued)), flags))
                    queued = last
            at += b - a
        return chain.from_iterable(between)

    # -- what it found ---------------------------------------------------------------

    def record(self, number: int) -> list[int] | None:
        """State ``number``'s record, if this worker numbered it (else ``None``)."""
        level = bisect_right(self.level_starts, number) - 1
        if level < 0 or number - self.level_starts[level] >= self.level_sizes[level]:
            return None
        rank, gaps = number - self.level_starts[level], self.level_gaps[level]
        skipped = 0  # the states not kept before it, as met
        while (more := bisect_right(gaps, rank + skipped)) != skipped:
            skipped = more
        got = array("q")
        self.records.seek(self.record_starts[level] + (rank + skipped) * _FIELDS * 8)
        got.fromfile(self.records, _FIELDS)
        return list(got)


class _Slices(_Driver):
    """The driver of a lean search shared by slices of each level: one level at a time
    (what :func:`~._search._conclude` asks of a search)."""

    shift = 0  # a record names the state before a step by its number

    @staticmethod
    def _shares(shares: list[float], cuts: Sequence[int], seconds: Sequence[float]) -> list[float]:
        """Each worker's share of the next level: as many states as it expanded in the
        seconds the level took it, measured (the states of a level are not alike: later
        ones find more new states, on Chang–Roberts) — half its share so far, half that,
        where every worker expanded enough states to tell."""
        sizes = [b - a for a, b in pairwise(cuts)]
        if min(sizes) < _MEASURED or min(seconds) <= 0:
            return shares
        rates = [size / took for size, took in zip(sizes, seconds, strict=True)]
        total = sum(rates)
        return [(share + rate / total) / 2 for share, rate in zip(shares, rates, strict=True)]

    def _last(self, kept: Sequence[int], room: int) -> int:
        """The last state to expand where ``max_states`` cuts the level, ``room`` new
        states in, the workers keeping ``kept`` new states each: the one that met the
        first new state past the cut."""
        worker, before = 0, 0
        while before + kept[worker] <= room:
            before += kept[worker]
            worker += 1
        asked = [(room - before if i == worker else -1,) for i in range(self.pool.parts)]
        last: int = self.pool.call("parent_of", asked)[worker]
        return last

    def search(self) -> tuple[str | None, int]:
        parts = self.pool.parts
        #: Per worker: the pieces of its slice that the workers before and after it
        #: hand on; each worker's share of the level, and where the level is cut.
        self.pieces: list[tuple[list[Piece], list[Piece]]] = [([], [])] * parts
        self.shares = [1 / parts] * parts
        self.cuts = cut(0, 1, self.shares)  # the first level: the initial state alone
        return super().search()

    def _level(self, high: int) -> tuple[int, int]:
        pool, parts, max_states = self.pool, self.pool.parts, self.max_states
        expanded = pool.call("expand", self.pieces)
        aside = sorted(state for found, *_ in expanded for state in found)
        if aside:
            for _, state in aside:  # this model's tables as the workers' (and NewLink)
                self.model.expand(state)
            settled = self._all("finish", aside)
        else:
            settled = [(fps, uneven) for _, fps, uneven, _ in expanded]
        fps = [data for data, _ in settled]
        met = pool.call(
            "exchange",
            [([d if j != i else None for j, d in enumerate(fps)],) for i in range(parts)],
        )
        kept = [count for count, _ in met]
        new, room = sum(kept), max_states - high
        last = -1  # the last state expanded, where max_states cuts the level
        if new > room:
            last = self._last(kept, room)
        back = [uneven for _, uneven in settled if uneven >= 0]
        if back and (last < 0 or min(back) <= last):
            raise Uneven(_UNEVEN)
        count = min(new, room)
        self.shares = self._shares(self.shares, self.cuts, [seconds for *_, seconds in expanded])
        cuts = self.cuts = cut(high, count, self.shares)
        bases = [high + sum(kept[:i]) for i in range(parts)]
        handed = pool.call(
            "commit",
            [
                (
                    bases[i],
                    [met[j][1][i] for j in range(i + 1, parts) if met[j][1][i] is not None],
                    max_states,
                    last,
                    cuts,
                )
                for i in range(parts)
            ],
        )
        self.pieces = [
            (
                [p for j in range(i) if (p := handed[j][i]) is not None],
                [p for j in range(i + 1, parts) if (p := handed[j][i]) is not None],
            )
            for i in range(parts)
        ]
        return count, last


class SliceProcesses(Processes):
    """Worker processes (:class:`~._workers.Processes`), each holding a :class:`Slice`."""

    kind = Slice


def explore_slices(
    build: Callable[[], Inputs], pool: PoolMaker, parts: int, **limits: Unpack[Limits]
) -> Exploration:
    """The lean :func:`~ringleader.actors.exploration.explore` on ``parts`` workers of
    ``pool`` (:class:`SliceProcesses`, or anything that answers
    :class:`~ringleader.actors.exploration.Pool`'s calls with :class:`Slice` s), each
    expanding a slice of each level: the model that ``build()``'s inputs make, explored,
    with the result one worker gives."""
    return shared(build, pool, parts, _Slices, **limits)
