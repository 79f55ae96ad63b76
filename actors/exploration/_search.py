"""The search: breadth-first over every reachable state, each state once.

Breadth-first, so the first path found to a state is a shortest one (in steps), and so
is every counterexample reported.  A state already seen is not explored again.  The
search stops when nothing is left to explore (the exploration is *complete*), or at
``max_states`` states found, or past ``max_depth`` steps; it checks every state it
finds as it goes (``_checks.py``) and, once done, computes over the graph the fewest
and most messages of the complete runs (``_graph.py``).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from ringleader.actors.checks import co_leaders
from ringleader.actors.core import Bound, Election, NodeView

from ._checks import (
    KINDS,
    Finding,
    Tally,
    Verdict,
    bound_check,
    end_verdicts,
    leaders_clash,
    stances,
)
from ._graph import Graph
from ._model import Model, NewLink
from ._options import Options

__all__ = ["Exploration", "Path", "explore"]

#: ``progress(states found, states explored, depth)``, called every few thousand states.
Progress = Callable[[int, int, int], None]


@dataclass
class Path:
    """A run found: its steps (event numbers of :attr:`Model.events`), the messages it
    sent, and the state it ends in."""

    events: list[int]
    messages: int
    state: int


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
    search kept (states, their index, the graph).
    """

    model: Model
    graph: Graph
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
    #: Every state found, by number (tuples of ``Model``'s layout).
    found: list[tuple[int, ...]] = field(default_factory=list)
    paths: dict[str, Path] = field(default_factory=dict)

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
) -> Exploration:
    """Explore every reachable state of ``algorithm`` on ``views`` (one per node, in
    topology order) with ``initiators``, under ``options``; check it, and check the
    complete runs' message counts against ``bound`` (the notes' formula) if given."""
    links: list[tuple[int, int]] = []
    while True:
        model = Model(algorithm, views, initiators, options, links=links)
        try:
            return _Search(model, max_states, max_depth, progress).run(bound)
        except NewLink as new:  # an election sent outside its wiring: again, with that link
            links.append(new.link)


class _Search:
    def __init__(
        self, model: Model, max_states: int, max_depth: int | None, progress: Progress | None
    ) -> None:
        self.model = model
        self.max_states = max(1, max_states)
        self.max_depth = max_depth
        self.progress = progress
        self.graph = Graph()
        self.states: list[tuple[int, ...]] = []
        self.index: dict[tuple[int, ...], int] = {}
        self.findings: dict[str, Finding] = {}
        self.ends: list[int] = []
        self.tally = Tally()
        #: Why the bound could not be checked, where a stopped search leaves it open.
        self.bound_unchecked: str | None = None

    def _found(self, kind: str, detail: str, state: int) -> None:
        first = self.findings.get(kind)
        if first is None:
            self.findings[kind] = Finding(kind, detail, state)
        else:
            self.findings[kind] = Finding(kind, first.detail, first.state, first.count + 1)

    def run(self, bound: Bound | None) -> Exploration:
        # Millions of tuples kept alive: the cyclic collector would walk them again and
        # again (none of them is in a cycle); paused meanwhile, as timeit pauses it.
        collecting = gc.isenabled()
        gc.disable()
        began = time.perf_counter()
        try:
            stopped, depth = self._search()
        finally:
            if collecting:
                gc.enable()
        exploration = Exploration(
            model=self.model,
            graph=self.graph,
            states=len(self.states),
            explored=self.graph.expanded,
            end_states=len(self.ends),
            complete=stopped is None,
            stopped=stopped,
            depth=depth,
            elapsed=0.0,
            memory=self._memory(),
            bound=bound,
            found=self.states,
        )
        self._runs(exploration)
        exploration.elapsed = time.perf_counter() - began
        exploration.findings = [self.findings[k] for k in KINDS if k in self.findings]
        exploration.checks = self.tally.verdicts(
            self.findings,
            states=exploration.states,
            stopped=stopped,
            bound=bound,
            bound_held=exploration.bound_held,
            bound_unchecked=self.bound_unchecked,
        )
        return exploration

    def _search(self) -> tuple[str | None, int]:  # noqa: PLR0912
        model, graph = self.model, self.graph
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
        expand, ends, found, tally = model.expand, self.ends, self._found, self.tally
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

    def _runs(self, exploration: Exploration) -> None:
        """The complete runs' message counts, the bound, and the paths to show."""
        graph, model, states = self.graph, self.model, self.states
        extremes = graph.extremes(len(states))
        exploration.cyclic = extremes.cyclic

        def path(state: int, via: object = None) -> Path:
            edges = graph.path(state, via)  # type: ignore[arg-type]
            return Path([graph.event[e] for e in edges], sum(graph.sent[e] for e in edges), state)

        ends = self.ends
        if ends:
            low = min(ends, key=lambda s: extremes.fewest[s])
            unbounded = [s for s in ends if extremes.most[s] < 0]
            high = unbounded[0] if unbounded else max(ends, key=lambda s: extremes.most[s])
            exploration.messages = (
                extremes.fewest[low],
                None if unbounded else extremes.most[high],
            )
            exploration.paths["min"] = path(low, extremes.fewest_edge)
            exploration.paths["max"] = path(high, None if unbounded else extremes.most_edge)
            clean = [s for s in ends if model.faultless(states[s])]
            if clean:
                clean_low = min(clean, key=lambda s: extremes.fewest[s])
                clean_unbounded = [s for s in clean if extremes.most[s] < 0]
                clean_high = (
                    clean_unbounded[0]
                    if clean_unbounded
                    else max(clean, key=lambda s: extremes.most[s])
                )
                fewest = extremes.fewest[clean_low]
                most = None if clean_unbounded else extremes.most[clean_high]
                exploration.faultless = (fewest, most)
                bound = exploration.bound
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
                        self.bound_unchecked = (
                            f"the most any complete run found sent is {most} messages, below "
                            f"{bound.formula} = {bound.value}; the search stopped before "
                            "every run was found"
                        )
                        wrong = None
                    else:
                        exploration.bound_held = wrong is None
                    if wrong is not None:
                        below = bound.exact and not free and fewest != bound.value
                        culprit = clean_low if below else clean_high
                        self._found("bound", wrong, culprit)
                        via = extremes.fewest_edge if below else extremes.most_edge
                        exploration.paths["bound"] = path(culprit, None if most is None else via)
        for kind, finding in self.findings.items():
            if kind != "bound":
                exploration.paths[kind] = path(finding.state)

    def _memory(self) -> int:
        """Bytes held by the states, their index and the graph (the small integers in
        the states are shared objects, counted once in the tables, not here)."""
        size = sys.getsizeof
        states = self.states
        sample = states[len(states) // 2] if states else ()
        return size(states) + size(self.index) + len(states) * size(sample) + self.graph.nbytes()
