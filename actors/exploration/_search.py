"""The search: breadth-first over every reachable state, each state once.

Breadth-first, so the first path found to a state is a shortest one (in steps), and so
is every counterexample reported.  A state already seen is not explored again.  The
search stops when nothing is left to explore (the exploration is *complete*), or at
``max_states`` states found, or past ``max_depth`` steps; it checks every state it
finds as it goes (``_checks.py``), and the fewest and most messages of the complete
runs come from how it got to each end state.

Two ways to keep what it found: *exact* (:class:`_Search`), every state whole, its
index and the explored graph (``_graph.py``), the fewest and most messages computed
over the graph once done; or *lean* (``_lean.py``), fingerprints, a frontier that
spills to disk and the counts carried level by level, which falls back on the exact
search where a state is reached by runs of different lengths.  :func:`explore` runs
either, and :func:`_conclude` turns what it found into an :class:`Exploration`.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ringleader.actors.checks import co_leaders
from ringleader.actors.core import Bound, Election, NodeView

from ._checks import (
    KINDS,
    Finding,
    Tally,
    Verdict,
    bound_check,
    count_finding,
    end_verdicts,
    leaders_clash,
    stances,
)
from ._fingerprints import collision_odds
from ._graph import Extremes, Graph
from ._lean import Lean, Uneven
from ._model import Model, NewLink
from ._options import Options
from ._runs import Ends, Path

__all__ = ["Exploration", "Path", "explore"]

#: ``progress(states found, states explored, depth)``, called every few thousand states.
Progress = Callable[[int, int, int], None]


@dataclass
class Exploration:
    """What an exploration found.

    ``states``: states found; ``explored``: of which expanded; ``end_states``: states in
    which the run is over; ``complete``: every reachable state was explored (else
    ``stopped`` says which limit stopped it).  ``messages`` are the fewest and most
    messages over the complete runs (``most`` is ``None`` where a cycle makes it
    unbounded); ``faultless`` the same over the complete runs in which no fault struck,
    which ``bound`` is checked against.  ``findings`` holds the first violation of each
    kind found; ``checks`` what became of each check (passed, failed, or not checked and
    why: a search stopped before any end state checks nothing at one); ``paths`` the runs
    to show: ``"min"``, ``"max"`` and one per finding's kind.  ``memory``: bytes the
    search held in memory (exact: the states, their index, the graph; lean: the
    fingerprints, the frontier at its largest and its counts); ``spilled``: bytes of
    the frontier written to disk.  ``exact``: whole states were kept (``graph`` and
    ``found`` hold every state), else fingerprints (``graph`` is ``None``, ``found``
    holds the states of the paths and findings only, ``collision_odds`` the odds that
    two states shared a fingerprint); ``exact_why``: why a lean search fell back on the
    exact one.  ``workers``: the processes that shared the search
    (:func:`~ringleader.actors.exploration.explore_parts`; 1: one searched alone).
    """

    model: Model
    graph: Graph | None
    states: int
    explored: int
    end_states: int
    complete: bool
    stopped: str | None
    depth: int
    elapsed: float
    memory: int
    messages: tuple[int, int | None] | None = None
    faultless: tuple[int, int | None] | None = None
    bound: Bound | None = None
    bound_held: bool | None = None
    cyclic: bool = False
    findings: list[Finding] = field(default_factory=list)
    checks: dict[str, Verdict] = field(default_factory=dict)
    #: The states found, by number (tuples of ``Model``'s layout): every one (a list)
    #: when exact, else those the paths and findings end in.
    found: Sequence[tuple[int, ...]] | Mapping[int, tuple[int, ...]] = field(default_factory=list)
    paths: dict[str, Path] = field(default_factory=dict)
    exact: bool = True
    exact_why: str | None = None
    collision_odds: float | None = None
    spilled: int = 0
    workers: int = 1

    @property
    def ok(self) -> bool:
        """Nothing violated (in the states explored: see :attr:`checked`)."""
        return not self.findings

    @property
    def checked(self) -> bool:
        """Every state explored and every check applied wherever it could be: with
        :attr:`ok`, nothing is left unproven."""
        return self.complete and all(v.status != "not_checked" for v in self.checks.values())

    @property
    def rate(self) -> float:
        """States found per second."""
        return self.states / self.elapsed if self.elapsed > 0 else 0.0


def explore(
    algorithm: type[Election],
    views: Sequence[NodeView],
    initiators: Collection[int],
    options: Options | None = None,
    *,
    bound: Bound | None = None,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    progress: Progress | None = None,
    exact: bool = True,
) -> Exploration:
    """Explore every reachable state of ``algorithm`` on ``views`` (one per node, in
    topology order) with ``initiators``, under ``options``; check it, and check the
    complete runs' message counts against ``bound`` (the notes' formula) if given.

    ``exact``: keep every state whole and the explored graph; else the lean search
    (fingerprints, counts carried level by level), which falls back on the exact one
    where a state is reached by runs of different lengths (``exact_why`` says so)."""
    links: list[tuple[int, int]] = []
    while True:
        model = Model(algorithm, views, initiators, options, links=links)
        try:
            why = None
            if not exact:
                lean = Lean(model, max_states, max_depth, progress)
                try:
                    return _conclude(lean, bound)
                except Uneven as uneven:
                    why = str(uneven)
                finally:
                    lean.close()
            exploration = _conclude(_Search(model, max_states, max_depth, progress), bound)
            exploration.exact_why = why
            return exploration
        except NewLink as new:  # an election sent outside its wiring: again, with that link
            links.append(new.link)


class _Engine(Protocol):
    """What :func:`_conclude` asks of a search."""

    model: Model
    findings: dict[str, Finding]
    tally: Tally
    exact: bool
    spilled: int

    def search(self) -> tuple[str | None, int]: ...
    def counts(self) -> tuple[int, int, int]: ...  # found, explored, end states
    def memory(self) -> int: ...
    def ends(self) -> Ends: ...
    def path(self, state: int, via: str | None = None) -> Path: ...
    def found(self, kind: str, detail: str, state: int) -> None: ...
    def kept(self) -> Sequence[tuple[int, ...]] | Mapping[int, tuple[int, ...]]: ...
    def graph(self) -> Graph | None: ...


def _conclude(engine: _Engine, bound: Bound | None) -> Exploration:
    """Run ``engine``'s search; what it found, as an :class:`Exploration`: the complete
    runs' message counts, the bound, the paths to show and every check's verdict."""
    # Millions of objects kept alive: the cyclic collector would walk them again and
    # again (none of them is in a cycle); paused meanwhile, as timeit pauses it.
    collecting = gc.isenabled()
    gc.disable()
    began = time.perf_counter()
    try:
        stopped, depth = engine.search()
    finally:
        if collecting:
            gc.enable()
    states, explored, end_states = engine.counts()
    model = engine.model
    exploration = Exploration(
        model=model,
        graph=engine.graph(),
        states=states,
        explored=explored,
        end_states=end_states,
        complete=stopped is None,
        stopped=stopped,
        depth=depth,
        elapsed=0.0,
        memory=engine.memory(),
        bound=bound,
        exact=engine.exact,
        collision_odds=None if engine.exact else collision_odds(states),
        spilled=engine.spilled,
    )
    ends = engine.ends()
    exploration.cyclic = ends.cyclic
    path = engine.path
    bound_unchecked: str | None = None  # why the bound stays open, where a stop leaves it
    every, clean = ends.every, ends.clean
    if every.low >= 0:
        unbounded = every.most < 0
        exploration.messages = (every.fewest, None if unbounded else every.most)
        exploration.paths["min"] = path(every.low, "min")
        exploration.paths["max"] = path(every.high, None if unbounded else "max")
        if clean.low >= 0:
            fewest = clean.fewest
            most = None if clean.most < 0 else clean.most
            exploration.faultless = (fewest, most)
            if bound is not None:
                free = model.options.starts == "any"
                wrong = bound_check(bound, fewest, most, free_starts=free)
                if (
                    wrong is not None
                    and not exploration.complete
                    and free
                    and bound.exact
                    and most is not None
                    and most < bound.value
                ):  # the run that sends the most may lie past where the search stopped
                    bound_unchecked = (
                        f"the most any complete run found sent is {most} messages, below "
                        f"{bound.formula} = {bound.value}; the search stopped before "
                        "every run was found"
                    )
                    wrong = None
                else:
                    exploration.bound_held = wrong is None
                if wrong is not None:
                    below = bound.exact and not free and fewest != bound.value
                    culprit = clean.low if below else clean.high
                    engine.found("bound", wrong, culprit)
                    via = "min" if below else "max"
                    exploration.paths["bound"] = path(culprit, None if most is None else via)
    findings = engine.findings
    for kind, finding in findings.items():
        if kind != "bound":
            exploration.paths[kind] = path(finding.state)
    exploration.found = engine.kept()
    exploration.elapsed = time.perf_counter() - began
    exploration.findings = [findings[k] for k in KINDS if k in findings]
    exploration.checks = engine.tally.verdicts(
        findings,
        states=states,
        stopped=stopped,
        bound=bound,
        bound_held=exploration.bound_held,
        bound_unchecked=bound_unchecked,
    )
    return exploration


class _Search:
    """The exact search: every state whole, its index and the explored graph."""

    exact = True
    spilled = 0

    def __init__(
        self, model: Model, max_states: int, max_depth: int | None, progress: Progress | None
    ) -> None:
        self.model = model
        self.max_states = max(1, max_states)
        self.max_depth = max_depth
        self.progress = progress
        self._graph = Graph()
        self.states: list[tuple[int, ...]] = []
        self.index: dict[tuple[int, ...], int] = {}
        self.findings: dict[str, Finding] = {}
        self.ends_found: list[int] = []
        self.tally = Tally()
        self.extremes: Extremes | None = None

    def found(self, kind: str, detail: str, state: int) -> None:
        count_finding(self.findings, kind, detail, state)

    def counts(self) -> tuple[int, int, int]:
        return len(self.states), self._graph.expanded, len(self.ends_found)

    def graph(self) -> Graph | None:
        return self._graph

    def kept(self) -> list[tuple[int, ...]]:
        return self.states

    def search(self) -> tuple[str | None, int]:  # noqa: PLR0912
        model, graph = self.model, self._graph
        states, index = self.states, self.index
        start, target, sent, event, parent = (
            graph.start,
            graph.target,
            graph.sent,
            graph.event,
            graph.parent,
        )
        initial = model.initial()
        states.append(initial)
        index[initial] = 0
        expand, ends, found, tally = model.expand, self.ends_found, self.found, self.tally
        ids, findings = model.ids, self.findings
        max_states, max_depth, progress = self.max_states, self.max_depth, self.progress
        head, depth, level_end = 0, 0, 1
        stopped: str | None = None
        while head < len(states):
            if head == level_end:
                depth += 1
                level_end = len(states)
                if max_depth is not None and depth > max_depth:
                    stopped = "max_depth"
                    break
            state = states[head]
            steps, end = expand(state)
            if end:
                ends.append(head)
                for kind, detail in tally.add(end_verdicts(model, state)):
                    found(kind, detail, head)
            for number, successor, messages, lead in steps:
                to = index.get(successor)
                if to is None:
                    if len(states) >= max_states:
                        stopped = "max_states"
                        continue
                    to = len(states)
                    index[successor] = to
                    states.append(successor)
                    parent.append(len(target))
                    # Only a node that came to lead can make two lead one epoch at once.
                    if lead >= 0 and co_leaders(stances(model, successor), ids[lead]):
                        # Only the first one found is told in words.
                        told = "two_leaders" in findings
                        found("two_leaders", "" if told else leaders_clash(model, successor), to)
                target.append(to)
                sent.append(messages)
                event.append(number)
            start.append(len(target))
            head += 1
            if progress is not None and not head & 0xFFF:
                progress(len(states), head, depth)
            if stopped is not None:
                break
        if progress is not None:
            progress(len(states), head, depth)
        if stopped is None and head < len(states):
            stopped = "max_depth"
        return stopped, depth

    def ends(self) -> Ends:
        """The complete runs' fewest and most messages, from the graph."""
        graph, model, states = self._graph, self.model, self.states
        extremes = graph.extremes(len(states))
        self.extremes = extremes
        found = Ends(cyclic=extremes.cyclic)
        for s in self.ends_found:
            clean = model.faultless(states[s])
            found.meet(s, extremes.fewest[s], extremes.most[s], clean)
        return found

    def path(self, state: int, via: str | None = None) -> Path:
        """The run to ``state``: a shortest one (``via`` ``None``), or the one with the
        fewest (``"min"``) or most (``"max"``) messages."""
        graph, extremes = self._graph, self.extremes
        links = None
        if via is not None and extremes is not None:
            links = extremes.fewest_edge if via == "min" else extremes.most_edge
        edges = graph.path(state, links)
        return Path([graph.event[e] for e in edges], sum(graph.sent[e] for e in edges), state)

    def memory(self) -> int:
        """Bytes held by the states, their index and the graph (the small integers in
        the states are shared objects, counted once in the tables, not here)."""
        size = sys.getsizeof
        states = self.states
        sample = states[len(states) // 2] if states else ()
        return size(states) + size(self.index) + len(states) * size(sample) + self._graph.nbytes()
