"""One worker's part of a lean search shared by several: the states of its hash.

A search on several workers (``_workers.py``) shares the states out by a hash of their
nodes' states (:func:`owner`): a :class:`Part` owns the states of its share, keeps their
fingerprints (its share of the seen-set, ``_fingerprints.py``), keeps them packed in
its own frontier (``_frontier.py``) and expands them, a breadth-first level at a time,
as the lean search does (``_lean.py``).  A step changes one node's state, or two, and
leaves the rest alone — the links' contents change with nearly every step — so most
successors belong to the part that found them: on Chang–Roberts n = 9, 90 % of the
steps stay in their part, where a hash of the whole state would send half of them
across (echo, whose nodes all change with every wave, gains nothing by it).  Each level:

1. :meth:`Part.expand`: the part's states of the level, tables sealed (``_sealing.py``);
   a successor the part owns is met at once, as the lean search meets it; another
   part's goes into that part's batch, once however many steps lead to it, with the
   least place and the fewest and most messages of the steps to it, and the state
   packed as the frontier stores it (never a tuple pickled).  A state that needs a new
   table entry is set aside;
2. :meth:`Part.finish` (if any part set states aside): every part's, in number order;
3. :meth:`Part.merge`: the batches the other parts sent: which of their successors are
   new (the seen-set), and, for each new one, the fewest and most messages of the runs
   to it and the steps they come through — as the lean search carries them;
4. :meth:`Part.commit`: the new states numbered as one search numbers them, and the level's
   end states and new states checked.

A step's *place* is ``the number of the state it leaves << SHIFT | its rank among that
state's steps``: the order in which one search meets the steps.  One search numbers the
new states of a level in the order it first meets them, so a new state's number is the
rank of the place it was first met at among every part's new states
(:meth:`Part.commit` is given the others' places); wherever one search keeps the first
of several equal counts, a part keeps the one at the least place.  So the states, their
numbers, the checks' verdicts, the first violation of each kind, the fewest and most
messages and every path are those of one worker, state for state.

Each part writes, for its new states, the lean search's record (the fewest and most
messages, and the place and event of the step of a shortest run, of the run with the
fewest and of the one with the most) to a temporary file; :meth:`Part.record` reads one
back by number.
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from itertools import count
from typing import Any

from ._checks import leaders_clash
from ._fingerprints import Places
from ._model import NewLink
from ._sealing import Sealed
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

__all__ = [
    "SHIFT",
    "Batches",
    "Inputs",
    "Part",
    "merged_places",
    "owner",
]


#: A place is ``state number << SHIFT | rank of the step``: a state has fewer steps.
SHIFT = 20
#: A state in a batch: its hash (its fingerprint, signed) and the ten integers of its
#: entry (``Part.out``), before the state itself.
_OUT = 11
_MASK = (1 << 64) - 1
#: Bytes of integer objects a state of the level being built holds in its list, about:
#: its places, and events numbered past 256 (40 measured on Chang–Roberts n = 8, 63 on
#: echo on ``examples/graph.toml``).
_OBJECTS = 64
#: Per part: its batch, as bytes (``None``: nothing).
Batches = list[bytes | None]


def owner(state: tuple[int, ...], n: int, parts: int) -> int:
    """The part that owns ``state``, of a model of ``n`` nodes: by a hash of its first
    ``n`` numbers, the nodes' states (``_model.py``)."""
    return hash(state[:n]) % parts


class Part(Share):
    """Part ``index`` of ``parts`` of a lean search: the states whose fingerprint
    falls in its part.

    ``build`` makes the model's inputs (in a worker process, the model is made again
    from the config); ``links``: the links the search had to add (``NewLink``);
    ``bound``: bytes its frontier keeps in memory before it spills to disk.  The driver
    (:func:`~ringleader.actors.exploration.explore_parts`) calls, for each level,
    :meth:`expand`, :meth:`finish` if any part set states aside, :meth:`merge` and
    :meth:`commit`; once the search is over, ``summary`` (``_share.py``), and :meth:`record` for
    the paths.
    """

    def _begin(self) -> None:
        model, initial, index, parts = self.model, self.initial, self.index, self.parts
        #: A state in a batch (``_batches``): its entry's integers, then the state.
        self.entry = struct.Struct(f"={_OUT}q{self.width}i")
        #: Per level: the number of its first state, where its records begin in the
        #: file, and the numbers of this part's states of it, in the order queued.
        self.level_starts: list[int] = [0]
        self.record_starts: list[int] = [0]
        self.level_numbers: list[array[int]] = [array("q")]
        #: The level to expand: its states' fewest and most messages, in the order queued.
        self.fewests: list[int] = []
        self.mosts: list[int] = []
        fp = hash(initial) & _MASK or 1
        if owner(initial, model.n, parts) == index:
            self.seen.add(fp)
            self.frontier.push(initial)
            self.level_numbers[0].append(0)
            self.fewests.append(0)
            self.mosts.append(0)
            array("q", [0, 0, -1, -1, 0, -1, -1, -1, -1]).tofile(self.records)
        #: Per event number: the node whose state its steps may change (``Model.mover``).
        self.movers: list[int] = []
        self._level()

    def _level(self) -> None:
        """Empty the next level's tables."""
        parts = self.parts
        #: The successors each other part owns, by hash: the least place of a step to
        #: it, that step's event, messages and the node it made lead (or -1); the fewest
        #: messages of a run to it, and that run's last step (place, event; the least
        #: place of equals); the most, likewise; and the state.
        self.out: list[dict[int, list[Any]]] = [{} for _ in range(parts)]
        self.set_aside: dict[int, tuple[int, int]] = {}  # number → its fewest, most
        self.level_ends: list[tuple[int, tuple[int, ...], int, int]] = []
        #: The next level, as the lean search keeps it (with places instead of states),
        #: nine integers a state — in a list while the level is built, not an
        #: ``array('q')``: reading a place (a large number) from an array makes a new
        #: integer object every time, and the part compares places at nearly every step
        #: (:meth:`_walk`); a list hands back the one it holds.  Written to the records
        #: as an array (:meth:`commit`).
        self.following: list[int] = []
        self.where = Places()
        self.leads = array("i")
        self.clashes: dict[int, tuple[int, ...]] = {}  # rank → a new state two lead
        self.uneven = -1  # the least place of a step back to a state of a level before

    # -- 1, 2: expanding -------------------------------------------------------------

    def expand(self) -> tuple[list[tuple[int, tuple[int, ...]]], Batches]:
        """Expand this part's states of the level, tables sealed: the states set aside
        (number, state), and the batch for each part so far."""
        frontier, numbers = self.frontier, self.level_numbers[-1]
        fewests, mosts = self.fewests, self.mosts
        self.seal(True)
        try:
            aside = self._walk(zip(numbers, fewests, mosts, strict=True), frontier.pop, sealed=True)
        finally:
            self.seal(False)
        return aside, self._batches()

    def finish(self, aside: list[tuple[int, tuple[int, ...]]]) -> Batches:
        """Expand every part's states set aside (``aside``, in number order), tables
        open, keeping this part's steps: the rest of the batch for each part."""
        mine = self.set_aside
        for number, state in aside:
            if number in mine:
                fewest, most = mine[number]
                self._walk([(number, fewest, most)], iter([state]).__next__, sealed=False)
            else:  # another part's: expanded only to number the tables' entries alike
                self.model.expand(state)
        return self._batches()

    def _walk(  # noqa: PLR0912, PLR0915 — the search's inner loop, in one piece for speed
        self,
        states: Iterable[tuple[int, int, int]],
        pop: Callable[[], tuple[int, ...]],
        *,
        sealed: bool,
    ) -> list[tuple[int, tuple[int, ...]]]:
        """Expand the states ``pop()`` gives, one for each of ``states`` (its number, and
        the fewest and most messages of the runs to it), and meet
        each step: a successor this part owns at once, as the lean search meets it
        (:meth:`_meet`; here inlined, for this is the search's inner loop); another
        part's goes into that part's batch, to be met there — one entry a state, keeping
        the least place and the fewest and most messages, so a batch carries each state
        once however many steps lead to it.  The states that would add a table entry
        while the tables are sealed are set aside, and returned (number, state)."""
        model = self.model
        parts, me, expand, n = self.parts, self.index, model.expand, model.n
        where, following, leads, add = self.where, self.following, self.leads, self.seen.add
        get, put, push = where.get, where.put, self.frontier.push
        events, movers = model.events, self.movers
        out, aside, level_ends = self.out, [], self.level_ends
        movers.extend(model.mover(e) for e in range(len(movers), len(events)))
        for number, fewest, most in states:
            state = pop()
            try:
                steps, end = expand(state)
            except (Sealed, NewLink):
                if not sealed:  # NewLink, tables open: raised in number order (finish)
                    raise
                aside.append((number, state))
                self.set_aside[number] = (fewest, most)
                continue
            if not sealed:  # new events, maybe: whom their steps change
                movers.extend(model.mover(e) for e in range(len(movers), len(events)))
            if end:
                level_ends.append((number, state, fewest, most))
            for place, (event, successor, messages, lead) in enumerate(steps, number << SHIFT):
                signed = hash(successor)  # fingerprint(successor) is this, as unsigned
                fp = signed & _MASK or 1
                # owner(successor, n, parts): this part's, as the state it leaves, unless
                # the step changed its node's state (a sixth of the steps) — then hashed.
                i = movers[event]
                if i < 0 or successor[i] == state[i] or hash(successor[:n]) % parts == me:
                    to = get(fp)
                    if to >= 0:  # in the next level already: one more run to it
                        k = to * _FIELDS
                        if place < following[k + PLACE]:  # met first here
                            following[k + PLACE] = place
                            following[k + EVENT] = event
                            following[k + SENT] = messages
                            leads[to] = lead
                            if lead >= 0 or to in self.clashes:
                                self._clash(to, successor, lead)
                        low = fewest + messages
                        was = following[k]
                        if low <= was and (low < was or place < following[k + LOW_PLACE]):
                            following[k] = low
                            following[k + LOW_PLACE] = place
                            following[k + LOW_EVENT] = event
                        high = most + messages
                        was = following[k + 1]
                        if high >= was and (high > was or place < following[k + HIGH_PLACE]):
                            following[k + 1] = high
                            following[k + HIGH_PLACE] = place
                            following[k + HIGH_EVENT] = event
                    elif not add(fp):  # seen in a level before: the counts would not be every run's
                        if self.uneven < 0 or place < self.uneven:
                            self.uneven = place
                    else:
                        to = len(leads)
                        put(fp, to)
                        push(successor)
                        following.extend(
                            (
                                fewest + messages,
                                most + messages,
                                place,
                                event,
                                messages,
                                place,
                                event,
                                place,
                                event,
                            )
                        )
                        leads.append(lead)
                        if lead >= 0:
                            self._clash(to, successor, lead)
                else:  # met by its owner, from the batch: one entry a state
                    o = hash(successor[:n]) % parts
                    low, high = fewest + messages, most + messages
                    entry = out[o].get(signed)
                    if entry is None:
                        out[o][signed] = [
                            place,
                            event,
                            messages,
                            lead,
                            low,
                            place,
                            event,
                            high,
                            place,
                            event,
                            successor,
                        ]
                    else:
                        if place < entry[0]:
                            entry[0:4] = place, event, messages, lead
                        if low < entry[4] or (low == entry[4] and place < entry[5]):
                            entry[4:7] = low, place, event
                        if high > entry[7] or (high == entry[7] and place < entry[8]):
                            entry[7:10] = high, place, event
        return aside

    def _batches(self) -> Batches:
        """The batches for each other part not handed out yet: each state once, its
        entry's ten integers and its hash (``_OUT``), then the state (``width`` of 4
        bytes), packed back to back."""
        out: Batches = []
        pack = self.entry.pack
        for p, table in enumerate(self.out):
            if p == self.index or not table:
                out.append(None)
                continue
            out.append(b"".join([pack(signed, *e[:10], *e[10]) for signed, e in table.items()]))
            self.out[p] = {}
        return out

    # -- 3: what is new --------------------------------------------------------------

    def merge(self, batches: Sequence[bytes | None]) -> tuple[bytes, int]:
        """Meet the successors the other parts sent this part (``batches``; its own were
        met as they were found): the places where its new states were first met (bytes
        of ``array('q')``, in no order), and the least place of a step back to a level
        before (-1: none; the search is then uneven, ``_lean.py``)."""
        for batch in batches:
            if batch is not None:
                self._meet(batch)
        return array("q", self.following[PLACE::_FIELDS]).tobytes(), self.uneven

    def _meet(self, batch: bytes) -> None:
        """A batch's successors, met as the lean search meets them — except that they
        come in any order: where it keeps the first, keep the least place."""
        seen, where, following, leads = self.seen, self.where, self.following, self.leads
        place_of, add, clashes, push = where.get, seen.add, self.clashes, self.frontier.push_packed
        data, size = memoryview(batch), self.entry.size
        head = _OUT * 8
        unpack = struct.Struct(f"={_OUT}q").unpack_from

        def state_of(at: int) -> tuple[int, ...]:
            values = array("i")
            values.frombytes(data[at + head : at + size])
            return tuple(values)

        for at in range(0, len(data), size):
            signed, place, event, messages, lead, low, low_place, low_event, *highs = unpack(
                data, at
            )
            high, high_place, high_event = highs
            fp = signed & _MASK or 1
            to = place_of(fp)
            if to >= 0:  # in the next level already: more runs to it
                k = to * _FIELDS
                if place < following[k + PLACE]:  # met first here
                    following[k + PLACE] = place
                    following[k + EVENT] = event
                    following[k + SENT] = messages
                    leads[to] = lead
                    if lead >= 0 or to in clashes:
                        self._clash(to, state_of(at), lead)
                if low < following[k] or (
                    low == following[k] and low_place < following[k + LOW_PLACE]
                ):
                    following[k] = low
                    following[k + LOW_PLACE] = low_place
                    following[k + LOW_EVENT] = low_event
                if high > following[k + 1] or (
                    high == following[k + 1] and high_place < following[k + HIGH_PLACE]
                ):
                    following[k + 1] = high
                    following[k + HIGH_PLACE] = high_place
                    following[k + HIGH_EVENT] = high_event
            elif not add(fp):  # seen in a level before: the counts would not be every run's
                if self.uneven < 0 or place < self.uneven:
                    self.uneven = place
            else:
                to = len(leads)
                where.put(fp, to)
                push(data[at + head : at + size])
                following.extend(
                    (
                        low,
                        high,
                        place,
                        event,
                        messages,
                        low_place,
                        low_event,
                        high_place,
                        high_event,
                    )
                )
                leads.append(lead)
                if lead >= 0:
                    self._clash(to, state_of(at), lead)

    # -- 4: numbered, checked --------------------------------------------------------

    def commit(self, others: Sequence[bytes], base: int, max_states: int, last: int) -> None:
        """Number the new states: ``base`` is the number of the level's first one,
        ``others`` the other parts' first places (as :meth:`Part.merge` gives them), and none
        is kept from ``max_states`` on.  Check the level's end states, up to state
        ``last`` (-1: all; the search stops after it, at ``max_states``), and the new
        states kept.  Then the next level is the one to expand."""
        following = self.following
        firsts = following[PLACE::_FIELDS]
        every = array("q", firsts)
        for data in others:
            every.frombytes(data)
        # The level's new states, every part's, numbered in the order of their places.
        number_of = dict(zip(sorted(every), count(base)))
        numbers = array("q", map(number_of.__getitem__, firsts))
        if base + len(every) > max_states:  # cut: none kept from max_states on
            numbers = array("q", [k if k < max_states else -1 for k in numbers])
        del number_of, every
        # The list's slots, and the integer objects it holds that are not shared small
        # ones (about _OBJECTS bytes a state: its places, and events past 256).
        held = (len(following) + 3 * len(numbers)) * 8 + self.where.nbytes
        held += len(numbers) * _OBJECTS
        self.levels_peak = max(self.levels_peak, held)
        self._check_ends(last)
        for to, state in sorted(self.clashes.items(), key=lambda item: numbers[item[0]]):
            number = numbers[to]
            if number >= 0:
                words = "" if "two_leaders" in self.findings else leaders_clash(self.model, state)
                self._found("two_leaders", words, number, (firsts[to] >> SHIFT, 1, 0))
                self.kept[number] = state
        self.record_starts.append(self.record_starts[-1] + len(self.level_numbers[-1]))
        self.level_starts.append(base)
        self.level_numbers.append(numbers)
        self.records.seek(0, 2)
        array("q", following).tofile(self.records)
        self.fewests, self.mosts = following[FEWEST::_FIELDS], following[MOST::_FIELDS]
        self._level()

    # -- what it found ---------------------------------------------------------------

    def record(self, number: int) -> list[int] | None:
        """State ``number``'s record, if it is this part's (else ``None``)."""
        level = bisect_right(self.level_starts, number) - 1
        if level < 0:
            return None
        try:
            at = self.level_numbers[level].index(number)
        except ValueError:
            return None
        got = array("q")
        self.records.seek((self.record_starts[level] + at) * _FIELDS * 8)
        got.fromfile(self.records, _FIELDS)
        return list(got)


def merged_places(parts: Sequence[bytes]) -> list[int]:
    """Every part's first places (as :meth:`Part.merge` gives them), in order."""
    places: list[int] = []
    for data in parts:
        got = array("q")
        got.frombytes(data)
        places.extend(got)
    places.sort()
    return places
