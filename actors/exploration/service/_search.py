"""The search over a service's states: breadth-first, each state once, every step checked;
then, over the graph found, whether a leader can always come back.

Breadth-first, so the path that first reaches a state is a shortest one, and so is every
counterexample.  The edges are kept (in flat arrays) for the progress check, which walks
them backwards from the states where a leader holds its lease and every node names it.

Or, ``lean``, the same search keeping a fingerprint of each state, its frontier spilled
to disk and no graph (``_lean.py``): every safety check, no progress check.
"""

from __future__ import annotations

import gc
import sys
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

from .._frontier import BOUND
from ._checks import CHECKS, Finding
from ._lean import LeanSearch
from ._model import FAULT_EVENTS, ServiceModel

__all__ = ["ServiceExploration", "search"]

#: ``progress(states found, states explored, depth)``, called every few thousand states.
Progress = Callable[[int, int, int], None]


@dataclass
class ServiceExploration:
    """What a search of a service found.

    ``states``: states found; ``explored``: of which expanded; ``complete``: every
    reachable state was explored (else ``stopped`` says which limit stopped it);
    ``depth``: the longest shortest path; ``edges``: steps taken (kept, unless lean);
    ``findings``: the first
    violation of each check (``_checks.py``), with ``paths`` to each (event numbers);
    ``progress_checked``: whether the progress check could be made (the search is
    complete); ``memory``: how far the search grew the process's peak resident memory,
    in bytes (at least the size of its own tables: a process that peaked higher before
    the search, or a platform that cannot say, gives that size; a lean search gives the
    size of its tables: the seen-set, the frontier and the records' buffer).  ``lean``: the lean
    search ran (no graph: ``progress_checked`` is false); ``exact``: states were kept
    whole, else as fingerprints, two of which are the same at ``collision_odds``;
    ``spilled``: bytes of the frontier written to disk.
    """

    model: ServiceModel
    states: int
    explored: int
    edges: int
    complete: bool
    stopped: str | None
    depth: int
    elapsed: float
    memory: int
    findings: list[Finding] = field(default_factory=list)
    paths: dict[str, list[int]] = field(default_factory=dict)
    progress_checked: bool = False
    lean: bool = False
    exact: bool = True
    collision_odds: float | None = None
    spilled: int = 0

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def rate(self) -> float:
        """States found per second."""
        return self.states / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def bytes_per_state(self) -> float:
        return self.memory / self.states if self.states else 0.0


def search(
    model: ServiceModel,
    *,
    settled: bool = True,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    max_seconds: float | None = None,
    progress: Progress | None = None,
    lean: bool = False,
    exact: bool = False,
    bound: int = BOUND,
) -> ServiceExploration:
    """Explore every state of ``model`` reachable from its start (up to ``max_states``
    states, paths of ``max_depth`` steps and ``max_seconds`` seconds), checking each
    step; then progress.  ``lean``: keep a fingerprint of each state (whole states if
    ``exact``), the frontier on disk past ``bound`` bytes and no graph: no progress
    check."""
    collecting = gc.isenabled()
    if not lean:  # millions of tuples, none in a cycle: the collector would walk them all
        # (A lean search holds few objects: the collector stays on, and frees the
        # cycles each step's copies of members leave, hundreds of bytes a state.)
        gc.disable()
    began = time.perf_counter()
    peak = _peak_resident()
    try:
        deadline = None if max_seconds is None else began + max_seconds
        if lean:
            engine = LeanSearch(model, max_states, max_depth, progress, exact=exact, bound=bound)
            engine.deadline = deadline
            exploration = _lean(engine, began, settled=settled)
        else:
            search = _Search(model, max_states, max_depth, progress)
            search.deadline = deadline
            exploration = search.run(began, settled=settled)
        grown = _peak_resident()
        if not lean and peak is not None and grown is not None:
            exploration.memory = max(exploration.memory, grown - peak)
        return exploration
    finally:
        if collecting:
            gc.enable()


def _lean(engine: LeanSearch, began: float, *, settled: bool) -> ServiceExploration:
    """Run the lean search ``engine``; what it found, its paths read back."""
    model = engine.model
    initial, broken = model.initial()
    prefix: list[int] = []
    if settled:
        initial, prefix = model.settle(initial)
    try:
        stopped = engine.run(initial, broken)
        exploration = ServiceExploration(
            model=model,
            states=engine.count,
            explored=engine.explored,
            edges=engine.edges,
            complete=stopped is None,
            stopped=stopped,
            depth=engine.depth,
            elapsed=time.perf_counter() - began,
            memory=engine.memory(),
            progress_checked=False,
            lean=True,
            exact=engine.exact,
            collision_odds=engine.collision_odds,
            spilled=engine.spilled,
        )
        exploration.findings = engine.ordered()
        exploration.paths = {
            f.kind: prefix + engine.finding_path(f.kind) for f in exploration.findings
        }
    finally:
        engine.close()
    return exploration


def _peak_resident() -> int | None:
    """The process's peak resident memory so far, in bytes (None where unknown)."""
    try:
        import resource  # noqa: PLC0415 -- not on every platform
    except ImportError:  # pragma: no cover -- Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, else KiB


class _Search:
    def __init__(
        self, model: ServiceModel, max_states: int, max_depth: int | None, progress: Progress | None
    ) -> None:
        self.model = model
        self.max_states = max(1, max_states)
        self.max_depth = max_depth
        self.progress = progress
        self.states: list[tuple[int, ...]] = []
        self.index: dict[tuple[int, ...], int] = {}
        self.start = array("q", [0])  # per expanded state: where its edges begin
        self.target = array("l")
        self.event = array("l")
        self.parent = array("q", [-1])  # per state: the edge that found it
        self.findings: dict[str, Finding] = {}
        self.deadline: float | None = None  # (time.perf_counter)
        self.prefix: list[int] = []

    def _found(self, kind: str, detail: str, state: int) -> None:
        first = self.findings.get(kind)
        if first is None:
            self.findings[kind] = Finding(kind, detail, state)
        else:
            self.findings[kind] = Finding(kind, first.detail, first.state, first.count + 1)

    def run(self, began: float, *, settled: bool) -> ServiceExploration:
        model = self.model
        initial, broken = model.initial()
        if settled:
            initial, self.prefix = model.settle(initial)
        self.states.append(initial)
        self.index[initial] = 0
        for kind, detail in broken:
            self._found(kind, detail, 0)
        stopped, depth = self._search()
        complete = stopped is None
        if complete:
            self._progress()
        exploration = ServiceExploration(
            model=model,
            states=len(self.states),
            explored=len(self.start) - 1,
            edges=len(self.target),
            complete=complete,
            stopped=stopped,
            depth=depth,
            elapsed=time.perf_counter() - began,
            memory=self._memory(),
            progress_checked=complete,
        )
        exploration.findings = [self.findings[k] for k in CHECKS if k in self.findings]
        # (From every node's start: the way to the settled state first, if it started there.)
        exploration.paths = {f.kind: self.prefix + self.path(f.state) for f in exploration.findings}
        return exploration

    def _search(self) -> tuple[str | None, int]:
        model = self.model
        states, index, found = self.states, self.index, self._found
        start, target, event, parent = self.start, self.target, self.event, self.parent
        expand = model.expand
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
            for number, successor, broken in expand(states[head]):
                to = index.get(successor)
                if to is None:
                    if len(states) >= max_states:
                        stopped = "max_states"
                        continue
                    to = len(states)
                    index[successor] = to
                    states.append(successor)
                    parent.append(len(target))
                for kind, detail in broken:
                    found(kind, detail, to)
                target.append(to)
                event.append(number)
            start.append(len(target))
            head += 1
            if not head & 0xFFF:
                if progress is not None:
                    progress(len(states), head, depth)
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    stopped = "max_seconds"
            if stopped is not None:
                break
        if progress is not None:
            progress(len(states), head, depth)
        return stopped, depth

    def _progress(self) -> None:
        """The states, with the faults over, from which no fault-free path reaches one
        where a leader holds its lease and every node names it."""
        model, states = self.model, self.states
        start, target, event = self.start, self.target, self.event
        fault = [model.events[e][0] in FAULT_EVENTS for e in range(len(model.events))]
        up = [model.up(s) for s in states]
        reached = bytearray(len(states))
        todo = [s for s, state in enumerate(states) if up[s] and model.leading(state)]
        for s in todo:
            reached[s] = 1
        # Backwards along fault-free edges between states whose faults are over.
        back: dict[int, list[int]] = {}
        for s in range(len(start) - 1):
            if not up[s]:
                continue
            for edge in range(start[s], start[s + 1]):
                t = target[edge]
                if up[t] and not fault[event[edge]]:
                    back.setdefault(t, []).append(s)
        while todo:
            t = todo.pop()
            for s in back.get(t, ()):
                if not reached[s]:
                    reached[s] = 1
                    todo.append(s)
        for s in range(len(states)):
            if up[s] and not reached[s]:
                views = ", ".join(
                    f"P{model.ids[i]} names {model.named(states[s], i)}" for i in range(model.n)
                )
                self._found("no_progress", f"no leader can come back from here: {views}", s)

    def path(self, state: int) -> list[int]:
        """The events of a shortest path from the start to ``state``."""
        events: list[int] = []
        start, parent, event = self.start, self.parent, self.event
        from bisect import bisect_right  # noqa: PLC0415 -- only for a counterexample

        while state != 0:
            edge = parent[state]
            events.append(event[edge])
            state = bisect_right(start, edge) - 1
        events.reverse()
        return events

    def _memory(self) -> int:
        size = sys.getsizeof
        states = self.states
        sample = states[len(states) // 2] if states else ()
        arrays = (self.start, self.target, self.event, self.parent)
        return (
            size(states)
            + size(self.index)
            + len(states) * size(sample)
            + sum(a.itemsize * len(a) for a in arrays)
        )
