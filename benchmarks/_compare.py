"""Comparing two sides on a shared, noisy machine: alternate them, run each several
times, print the median and the spread, and the machine's load before and after.

    from _compare import Side, compare
    result = compare("CR N=1000 inproc", [Side("bare", bare), Side("ringleader", ours)],
                     runs=3, goal=1.5)

Each side is a callable returning one measurement (seconds, or µs per hop: smaller is
better).  The sides run in turn — A B A B … — so that a machine that gets busier slows
both alike.  The ratio is the last side's over the first's, per round; its median is the
figure, and its min–max the spread.  A goal is **met** when the median meets it and the
whole spread stays on the right side of it; the comparison is **noisy** when the spread
is wider than the effect it measures (the distance between the median ratio and 1).

Two more shapes, printed the same way:

- :func:`paired`: both figures come from one measurement (a whole command and the
  election time its own report gives), so each round's ratio is of one run with itself;
- :func:`series`: one quantity against an absolute goal (a set-up ≤ 2 s); **noisy** when
  its spread straddles the goal.

:func:`machine` is a line saying where the figures were taken.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "Comparison",
    "Series",
    "Side",
    "compare",
    "load",
    "machine",
    "paired",
    "series",
    "whole_command",
]


@dataclass(frozen=True)
class Side:
    name: str
    measure: Callable[[], float]
    unit: str = "s"


@dataclass
class Comparison:
    label: str
    sides: Sequence[Side]
    goal: float | None
    values: dict[str, list[float]] = field(default_factory=dict)
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def ratios(self) -> list[float]:
        first, last = self.sides[0].name, self.sides[-1].name
        return [b / a for a, b in zip(self.values[first], self.values[last], strict=True) if a > 0]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def met(self) -> bool | None:
        if self.goal is None:
            return None
        return self.ratio <= self.goal and max(self.ratios) <= self.goal

    @property
    def noisy(self) -> bool:
        spread = max(self.ratios) - min(self.ratios)
        return spread > abs(self.ratio - 1.0)

    def lines(self) -> list[str]:
        out = [f"{self.label}"]
        for side in self.sides:
            values = self.values[side.name]
            out.append(
                f"  {side.name:<28} median {statistics.median(values):10.4g} {side.unit}"
                f"  (min {min(values):.4g}, max {max(values):.4g}, {len(values)} runs)"
            )
        ratios = self.ratios
        verdict = ""
        if self.goal is not None:
            verdict = f"  goal ≤ {self.goal:g}×: " + ("met" if self.met else "NOT met")
        if self.noisy:
            verdict += "  (noisy: the spread is wider than the effect)"
        out.append(
            f"  ratio {self.sides[-1].name}/{self.sides[0].name}: median {self.ratio:.2f}× "
            f"(min {min(ratios):.2f}, max {max(ratios):.2f}){verdict}"
        )
        out.append(
            "  load before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(
                *self.load_before, *self.load_after
            )
        )
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "goal": self.goal,
            "values": self.values,
            "ratio": {"median": self.ratio, "min": min(self.ratios), "max": max(self.ratios)},
            "met": self.met,
            "noisy": self.noisy,
            "load": {"before": self.load_before, "after": self.load_after},
        }


def load() -> tuple[float, float, float]:
    """The machine's load averages (1, 5, 15 minutes)."""
    return os.getloadavg()


def compare(
    label: str,
    sides: Sequence[Side],
    *,
    runs: int = 3,
    goal: float | None = None,
    warmup: bool = False,
    echo: Callable[[str], None] | None = print,
) -> Comparison:
    """Run ``sides`` in turn, ``runs`` rounds (at least 3 for a claim), and compare."""
    result = Comparison(label, sides, goal, {side.name: [] for side in sides})
    result.load_before = load()
    if warmup:
        for side in sides:
            side.measure()
    for round_ in range(runs):
        for side in sides:
            value = side.measure()
            result.values[side.name].append(value)
            if echo is not None:
                echo(f"  [{round_ + 1}/{runs}] {side.name}: {value:.4g} {side.unit}")
    result.load_after = load()
    if echo is not None:
        for line in result.lines():
            echo(line)
    return result


def whole_command(argv: Sequence[str], *, env: dict[str, str] | None = None) -> float:
    """Wall-clock seconds of one whole command, as a user runs it (its output discarded);
    raises if it fails."""
    started = time.perf_counter()
    subprocess.run(
        list(argv),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=None if env is None else {**os.environ, **env},
    )
    return time.perf_counter() - started


def paired(
    label: str,
    names: tuple[str, str],
    measure: Callable[[], tuple[float, float]],
    *,
    runs: int = 3,
    goal: float | None = None,
    unit: str = "s",
    echo: Callable[[str], None] | None = print,
) -> Comparison:
    """``measure()`` returns both figures of one run, ``(first, last)`` as ``names`` say
    (e.g. the election time a report gives, and the whole command that printed it); the
    ratio of each run is its last over its first, and the runs are summed up as
    :func:`compare` does."""
    sides = [Side(name, measure=_unused, unit=unit) for name in names]
    result = Comparison(label, sides, goal, {name: [] for name in names})
    result.load_before = load()
    for round_ in range(runs):
        first, last = measure()
        result.values[names[0]].append(first)
        result.values[names[1]].append(last)
        if echo is not None:
            echo(
                f"  [{round_ + 1}/{runs}] {names[0]}: {first:.4g} {unit}, "
                f"{names[1]}: {last:.4g} {unit} (×{last / first:.3f})"
            )
    result.load_after = load()
    if echo is not None:
        for line in result.lines():
            echo(line)
    return result


def _unused() -> float:
    raise RuntimeError("a paired side is measured with its pair")


@dataclass
class Series:
    """One quantity measured ``runs`` times, against an absolute goal (at most ``goal``)."""

    label: str
    unit: str
    goal: float | None
    values: list[float] = field(default_factory=list)
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def met(self) -> bool | None:
        """The median and every run at most the goal."""
        if self.goal is None:
            return None
        return self.median <= self.goal and max(self.values) <= self.goal

    @property
    def noisy(self) -> bool:
        """The spread straddles the goal: some runs met it, some did not."""
        return self.goal is not None and min(self.values) <= self.goal < max(self.values)

    def lines(self) -> list[str]:
        values = self.values
        verdict = ""
        if self.goal is not None:
            verdict = f"  goal ≤ {self.goal:g} {self.unit}: " + ("met" if self.met else "NOT met")
        if self.noisy:
            verdict += "  (noisy: the spread straddles the goal)"
        return [
            self.label,
            f"  median {self.median:.4g} {self.unit}  (min {min(values):.4g}, "
            f"max {max(values):.4g}, {len(values)} runs){verdict}",
            "  load before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(
                *self.load_before, *self.load_after
            ),
        ]

    def as_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "unit": self.unit,
            "goal": self.goal,
            "values": self.values,
            "median": self.median,
            "met": self.met,
            "noisy": self.noisy,
            "load": {"before": self.load_before, "after": self.load_after},
        }


def series(
    label: str,
    measure: Callable[[], float],
    *,
    runs: int = 3,
    goal: float | None = None,
    unit: str = "s",
    echo: Callable[[str], None] | None = print,
) -> Series:
    """Measure one quantity ``runs`` times (at least 3 for a claim) against ``goal``."""
    result = Series(label, unit, goal)
    result.load_before = load()
    for round_ in range(runs):
        value = measure()
        result.values.append(value)
        if echo is not None:
            echo(f"  [{round_ + 1}/{runs}] {value:.4g} {unit}")
    result.load_after = load()
    if echo is not None:
        for line in result.lines():
            echo(line)
    return result


def machine() -> str:
    """Where the figures come from: CPUs, Python, the system, and the load now."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    one, five, fifteen = load()
    return (
        f"{cpus} CPUs, Python {platform.python_version()} ({sys.executable}), "
        f"{platform.system()} {platform.release()}, load {one:.2f} {five:.2f} {fifteen:.2f}"
    )
