"""What every worker of a shared lean search holds, whatever its share: its own model
(tables sealable, ``_sealing.py``), its seen-set, frontier and records file, and the
checks of the states it numbers, merged by the driver (``_workers.py``) as one search
has them.

Two engines share a search out: by a hash of the states (``_parts.py``: each worker owns
its part of the seen-set, so the search grows past one machine's memory) and by slices
of each level in number order (``_slices.py``: each worker holds the whole seen-set).
Both keep here what one worker found: the end states' tally (with the number of the end
state each first reason is of), the first violation of each kind with when one search
would have met it, the end states' extremes and the states these are.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Collection, Sequence
from typing import IO, Any

from ringleader.actors.checks import co_leaders
from ringleader.actors.core import Election, NodeView

from ._checks import Tally, end_verdicts, stances
from ._fingerprints import Seen
from ._frontier import BOUND, Frontier
from ._model import Model
from ._options import Options
from ._runs import Ends
from ._sealing import seal

__all__ = [
    "EVENT",
    "FEWEST",
    "FIELDS",
    "HIGH_EVENT",
    "HIGH_PLACE",
    "LOW_EVENT",
    "LOW_PLACE",
    "MOST",
    "PLACE",
    "SENT",
    "Inputs",
    "Share",
]

#: What a model is built from: ``(algorithm, views, initiators, options)``.
Inputs = tuple[type[Election], Sequence[NodeView], Collection[int], Options]
#: One record a state (``array('q')``), in each worker's records file: the fewest and
#: most messages to it; a shortest run's last step (the state before, event) and the
#: messages it sent; the fewest's last step (state before, event); the most's.  The
#: state before is named by its number (``_slices.py``), or by its place
#: (``_parts.py``: ``number << SHIFT | rank``).
FEWEST, MOST, PLACE, EVENT, SENT, LOW_PLACE, LOW_EVENT, HIGH_PLACE, HIGH_EVENT = range(9)
#: The integers of a record.
FIELDS = 9


class Share:
    """Worker ``index`` of ``parts``' share of a lean search: ``build`` makes the model's
    inputs (in a worker process, the model is made again from the config); ``links``:
    the links the search had to add (``NewLink``); ``bound``: bytes its frontier keeps
    in memory before it spills to disk.  What each kind of worker holds besides, it
    makes in :meth:`_begin`."""

    #: The next level's new states that two lead one epoch in, by where each is among
    #: them (each kind of worker says where, and empties it each level).
    clashes: dict[int, tuple[int, ...]]

    def __init__(
        self,
        build: Callable[[], Inputs],
        index: int,
        parts: int,
        links: Collection[tuple[int, int]] = (),
        *,
        bound: int = BOUND,
    ) -> None:
        self.index, self.parts = index, parts
        algorithm, views, initiators, options = build()
        self.model = model = Model(algorithm, views, initiators, options, links=links)
        self.seal = seal(model)
        self.initial = model.initial()
        self.width = len(self.initial)
        self.bound = bound
        self.seen = Seen()
        self.frontier = Frontier(self.width, bound)
        self.records: IO[bytes] = tempfile.TemporaryFile(prefix="ringleader-paths-")  # noqa: SIM115 (closed by close())
        self.tally = Tally()
        #: ``(table, kind)`` → the number of the end state the tally's first words are of.
        self.firsts: dict[tuple[str, str], int] = {}
        #: kind → ``[state, detail, count, order]``: the first (least-numbered) violation
        #: of each kind, and when one search would have met it (``order``).
        self.findings: dict[str, list[Any]] = {}
        self.ends = Ends()
        self.end_count = 0
        self.kept: dict[int, tuple[int, ...]] = {}
        self.levels_peak = 0
        #: The level's end states this worker expanded: number, state, fewest, most.
        self.level_ends: list[tuple[int, tuple[int, ...], int, int]] = []
        self._begin()

    def _begin(self) -> None:
        """What this kind of worker holds besides, made once the above is."""

    def _check_ends(self, last: int) -> None:
        """The level's end states, in number order, up to ``last`` (-1: all)."""
        model, tally, ends, kept = self.model, self.tally, self.ends, self.kept
        for number, state, fewest, most in sorted(self.level_ends, key=lambda end: end[0]):
            if 0 <= last < number:
                break
            self.end_count += 1
            before = {("missed", k) for k in tally.missed} | {("out", k) for k in tally.out}
            for rank, (kind, detail) in enumerate(tally.add(end_verdicts(model, state))):
                self._found(kind, detail, number, (number, 0, rank))
                kept[number] = state
            for table, entries in (("missed", tally.missed), ("out", tally.out)):
                for kind in entries:
                    if (table, kind) not in before:
                        self.firsts[table, kind] = number
            if ends.meet(number, fewest, most, model.faultless(state)):
                kept[number] = state
        self.level_ends = []

    def _clash(self, to: int, state: tuple[int, ...], lead: int) -> None:
        """Whether new state ``to`` (``state``), met first by a step that made node
        ``lead`` lead, has two leaders in one epoch (only such a step can make them)."""
        self.clashes.pop(to, None)
        model = self.model
        if lead >= 0 and co_leaders(stances(model, state), model.ids[lead]):
            self.clashes[to] = state

    def _found(self, kind: str, detail: str, number: int, order: tuple[int, int, int]) -> None:
        first = self.findings.get(kind)
        if first is None:
            self.findings[kind] = [number, detail, 1, order]
        else:
            first[2] += 1

    def memory(self) -> int:
        """Bytes held: the fingerprints, and the frontier and a level at their largest."""
        return self.seen.nbytes + self.frontier.peak + self.levels_peak

    def spilled(self) -> int:
        """Bytes its frontier wrote to disk."""
        return self.frontier.spilled

    def summary(self) -> dict[str, Any]:
        """What this worker found: the end states' tally (with the number of the end state
        each first reason is of), the first violation of each kind, the end states'
        extremes, the states these are, and the bytes it held and spilled."""
        tally = self.tally
        wanted = {finding[0] for finding in self.findings.values()}
        for extreme in (self.ends.every, self.ends.clean):
            wanted |= {extreme.low, extreme.high}
        return {
            "tally": (tally.ends, tally.checked, tally.missed, tally.out, self.firsts),
            "findings": self.findings,
            "ends": self.ends,
            "end_count": self.end_count,
            "kept": {n: s for n, s in self.kept.items() if n in wanted},
            "memory": self.memory(),
            "spilled": self.spilled(),
            "events": len(self.model.events),
        }

    def close(self) -> None:
        self.frontier.close()
        self.records.close()
