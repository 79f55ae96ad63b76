"""Seeded random runs through a service's states, each step checked: for what is too deep
or too wide to search completely (TLC's simulation mode does the same).

Each walk starts where the search starts and takes ``length`` steps, each drawn from the
steps enabled (a fault with probability ``faults``, when one may strike; else any other
step, evenly); every step is checked as the search checks it.  Then the faults end: the
network heals, every paused node resumes and every crashed one restarts with its state
kept, and the walk goes on without faults, every frame delivered before time goes on,
until one leader holds its lease and every node names it (``no_progress`` if none comes
within ``patience`` seconds).  One seed, the same walks.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ._checks import CHECKS, Finding
from ._model import FAULT_EVENTS, ServiceModel, Step

__all__ = ["WalkResult", "walk"]


@dataclass
class WalkResult:
    """What seeded random walks found: ``walks`` run, ``steps`` taken, ``states`` distinct
    states seen; the first violation of each check, with its walk (event numbers)."""

    model: ServiceModel
    walks: int
    steps: int
    states: int
    elapsed: float
    seed: int
    findings: list[Finding] = field(default_factory=list)
    paths: dict[str, list[int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.findings


def walk(
    model: ServiceModel,
    *,
    walks: int,
    length: int,
    seed: int = 0,
    faults: float = 0.05,
    patience: float = 20.0,
    settled: bool = True,
    until_found: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> WalkResult:
    """``walks`` seeded random walks of ``length`` steps through ``model`` (see the
    module's docstring); ``until_found``: stop after the walk that finds a violation."""
    began = time.perf_counter()
    rng = random.Random(seed)
    start, broken = model.initial()
    prefix: list[int] = []
    if settled:
        start, prefix = model.settle(start)
    found: dict[str, tuple[Finding, list[int]]] = {}
    seen: set[int] = {hash(start)}
    steps = 0
    ticks = max(1, round(patience / model.timing.tick))

    def note(broken: tuple[tuple[str, str], ...], path: list[int]) -> None:
        for kind, detail in broken:
            first = found.get(kind)
            if first is None or len(path) < len(first[1]):
                count = 1 if first is None else first[0].count + 1
                found[kind] = (Finding(kind, detail, -1, count), list(path))
            else:
                old = first[0]
                found[kind] = (Finding(kind, old.detail, -1, old.count + 1), first[1])

    note(broken, prefix)
    k = -1
    for k in range(walks):
        state, path = start, list(prefix)
        for _ in range(length):
            number, state, broken = _draw(model, rng, state, faults)
            path.append(number)
            steps += 1
            seen.add(hash(state))
            if broken:
                note(broken, path)
        state, ended = _end_faults(model, state, path)
        steps += ended
        for _ in range(ticks * 4 * model.n):
            if model.leading(state) is not None:
                break
            number, state, broken = _draw(model, rng, state, 0.0, prompt=True)
            path.append(number)
            steps += 1
            seen.add(hash(state))
            if broken:
                note(broken, path)
        else:
            views = ", ".join(
                f"P{model.ids[i]} names {model.named(state, i)}" for i in range(model.n)
            )
            note((("no_progress", f"no leader {patience:g} s after the faults: {views}"),), path)
        if progress is not None:
            progress(k + 1, steps)
        if until_found and found:
            break
    result = WalkResult(model, k + 1, steps, len(seen), time.perf_counter() - began, seed)
    result.findings = [found[kind][0] for kind in CHECKS if kind in found]
    result.paths = {kind: found[kind][1] for kind in CHECKS if kind in found}
    return result


def _draw(
    model: ServiceModel,
    rng: random.Random,
    state: tuple[int, ...],
    faults: float,
    *,
    prompt: bool = False,
) -> Step:
    """A step drawn from those enabled in ``state``; ``prompt``: time goes on only when
    nothing else can happen."""
    choices = model.enabled(state)
    normal = [c for c in choices if c[0] not in FAULT_EVENTS]
    if faults > 0:
        faulty = [c for c in choices if c[0] in FAULT_EVENTS]
        if faulty and rng.random() < faults:
            return model.take(state, rng.choice(faulty))
    if prompt:
        quick = [c for c in normal if c[0] != "tick"]
        if quick:
            return model.take(state, rng.choice(quick))
    return model.take(state, rng.choice(normal))


def _end_faults(
    model: ServiceModel, state: tuple[int, ...], path: list[int]
) -> tuple[tuple[int, ...], int]:
    """The faults are over: heal, resume, and restart (state kept) until enough nodes are
    up for a leader; returns the state and how many steps that took."""
    taken = 0
    while not model.up(state):
        number, state, _ = model.recover(state)
        path.append(number)
        taken += 1
    return state, taken
