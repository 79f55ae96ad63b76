"""Comparing two sides on a shared, noisy machine: alternate them, run each several
times, print the median and the spread, the machine's load before and after, and what a
calibration in the same run says of the machine.

    from _compare import Calibration, Side, compare
    result = compare("CR N=1000 inproc", [Side("bare", bare), Side("ringleader", ours)],
                     runs=3, goal=1.5,
                     calibration=Calibration("bare, 1/20 of the hops", short_bare, 20))

Each side is a callable returning one measurement (seconds, or µs per hop: smaller is
better).  The sides run in turn — A B A B … — so that a machine that gets busier slows
both alike.  The ratio is the last side's over the first's, per round; its median is the
figure, and its min–max the spread.

**The calibration.**  Alternating does not help when the machine is busy for the whole
run: both sides slow down, but not alike (a thousand threads on a shared CPU suffer more
than one process), and the ratio then says nothing.  So every comparison checks, in the
same run, what the machine can do (:func:`calibrate_cpu`, :class:`Calibration`):

- a fixed CPU loop, timed at the start, after every round and at the end, must get at
  least :data:`QUIET_SHARE` of a CPU (its thread's CPU time over its wall time: a loop
  that does nothing but compute waits only for a CPU someone else holds);
- a comparison may give a short run of its baseline (:class:`Calibration`: a ring of the
  same size, a twentieth of the hops), timed at the start and at the end, the fastest of
  a few each: the two ends must agree within :data:`TOLERANCE`, and the baseline's median
  must not be more than :data:`TOLERANCE` times what the faster end predicts;
- where a benchmark keeps a record of what that short run takes on a quiet machine of
  this kind (``Calibration.quiet``), the faster end must be within :data:`TOLERANCE` of
  it: a baseline that is slow all through the run (a slower host, a cache-bound ring)
  predicts itself, and a ratio over it would flatter.

**The verdict** (:func:`verdict`) is one of three words: **noisy** when the calibration
finds the machine busy or changing (:func:`calibration_noise`), or when the spread
straddles the goal (:func:`spread_noise`); otherwise **met** when the median and the
whole spread are within the goal, **not met** when they are not.  A noisy comparison is
never met: it says measure again, on a quieter machine.  Without a goal a comparison is
noisy also when its spread is wider than the effect it measures (the distance between the
median ratio and 1).

Two more shapes, printed the same way:

- :func:`paired`: both figures come from one measurement (a whole command and the
  election time its own report gives), so each round's ratio is of one run with itself;
- :func:`series`: one quantity against an absolute goal (a set-up ≤ 2 s); **noisy** when
  its spread straddles the goal, or the CPU loop found the machine busy.

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
    "QUIET_SHARE",
    "TOLERANCE",
    "Calibrated",
    "Calibration",
    "Comparison",
    "Series",
    "Side",
    "calibrate_cpu",
    "calibration_noise",
    "compare",
    "load",
    "machine",
    "paired",
    "series",
    "spread_noise",
    "verdict",
    "whole_command",
]

#: A calibration whose two ends differ by more than this factor, or a baseline this many
#: times slower than its calibration predicts, makes a comparison noisy.
TOLERANCE = 1.25
#: The least share of a CPU the fixed loop must get (its CPU time over its wall time) for
#: the machine to count as quiet.
QUIET_SHARE = 0.8
#: The fixed loop's iterations (some 30 ms of pure Python on a quiet machine).
CPU_LOOP = 300_000


def calibrate_cpu(iterations: int = CPU_LOOP) -> float:
    """The share of a CPU a fixed loop of pure computation gets now: its thread's CPU
    time over its wall time (1.0 on a quiet CPU; 0.5 if another process holds it half
    the time)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    x = 0
    for i in range(iterations):
        x += i * i % 7
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    return min(1.0, cpu / wall) if wall > 0 else 1.0


@dataclass(frozen=True)
class Calibration:
    """A short run of a comparison's baseline (its first side): ``measure`` does
    ``1/scale`` of the baseline's work (a ring of the same size, ``1/scale`` of the hops)
    and returns its seconds.  Timed at the start and at the end of the comparison,
    ``runs`` times each, its fastest predicts the baseline: ``scale`` times it."""

    label: str
    measure: Callable[[], float]
    scale: float
    runs: int = 3
    unit: str = "s"
    #: What the short run takes on a quiet machine of this kind, where a benchmark has a
    #: record of one (``None``: no record): a short run far slower than that means the
    #: machine is slower today, for the baseline, than when it was quiet.
    quiet: float | None = None


@dataclass
class Calibrated:
    """What the calibration of one run saw: the least share of a CPU the fixed loop got
    and, if the comparison has a :class:`Calibration`, its fastest short run at the start
    and at the end."""

    cpu_share: float = 1.0
    label: str | None = None
    scale: float | None = None
    start: float | None = None
    end: float | None = None
    unit: str = "s"
    quiet: float | None = None

    @property
    def predicted(self) -> float | None:
        """The baseline the short runs predict: ``scale`` times the faster end."""
        if self.scale is None or self.start is None or self.end is None:
            return None
        return self.scale * min(self.start, self.end)

    def lines(self) -> list[str]:
        out = [f"  calibration: a fixed CPU loop got at least {self.cpu_share:.0%} of a CPU"]
        predicted = self.predicted
        if predicted is not None:
            out.append(
                f"  calibration: {self.label}: fastest {self.start:.4g} {self.unit} at the "
                f"start, {self.end:.4g} {self.unit} at the end; baseline predicted "
                f"{predicted:.4g} {self.unit}"
            )
        if self.quiet is not None:
            out.append(
                f"  calibration: {self.label} takes {self.quiet:.4g} {self.unit} on a quiet "
                "run of this kind of machine"
            )
        return out

    def as_dict(self) -> dict[str, object]:
        return {
            "cpu_share": self.cpu_share,
            "label": self.label,
            "scale": self.scale,
            "start": self.start,
            "end": self.end,
            "predicted": self.predicted,
            "unit": self.unit,
            "quiet": self.quiet,
        }


def calibration_noise(calibrated: Calibrated, baseline: float | None = None) -> str | None:
    """Why the machine this calibration saw makes a comparison noisy (``None``: it does
    not), given the baseline's median (seconds, as the calibration's)."""
    if calibrated.cpu_share < QUIET_SHARE:
        return (
            f"the machine was busy: a fixed CPU loop got {calibrated.cpu_share:.0%} of a CPU "
            f"(quiet: ≥ {QUIET_SHARE:.0%})"
        )
    start, end, predicted = calibrated.start, calibrated.end, calibrated.predicted
    if start is None or end is None or predicted is None:
        return None
    unit = calibrated.unit
    if max(start, end) > TOLERANCE * min(start, end):
        return (
            f"the machine changed during the run: the calibration took {start:.4g} {unit} at "
            f"the start, {end:.4g} {unit} at the end"
        )
    if baseline is not None and baseline > TOLERANCE * predicted:
        return (
            f"the baseline took {baseline:.4g} {unit}, {baseline / predicted:.2f}× what its "
            f"calibration predicts ({predicted:.4g} {unit})"
        )
    quiet, fastest = calibrated.quiet, min(start, end)
    if quiet is not None and fastest > TOLERANCE * quiet:
        return (
            f"the baseline ran slower than on a quiet run: its calibration took "
            f"{fastest:.4g} {unit}, {fastest / quiet:.2f}× the {quiet:.4g} {unit} of a quiet "
            "run of this kind of machine"
        )
    return None


def spread_noise(values: Sequence[float], goal: float | None, *, ratio: bool = True) -> str | None:
    """Why the spread of ``values`` makes them noisy (``None``: it does not): it straddles
    the goal (some runs meet it, some do not); without a goal, for a ratio, it is wider
    than the effect measured (the median's distance from 1)."""
    low, high = min(values), max(values)
    if goal is not None:
        if low <= goal < high:
            return "the spread straddles the goal"
        return None
    if ratio and high - low > abs(statistics.median(values) - 1.0):
        return "the spread is wider than the effect"
    return None


def verdict(values: Sequence[float], goal: float, noise: str | None) -> str:
    """``"noisy"`` if there is ``noise``; otherwise ``"met"`` if the median and every value
    are at most ``goal``, else ``"not met"``."""
    if noise is not None:
        return "noisy"
    return "met" if statistics.median(values) <= goal and max(values) <= goal else "not met"


class _Watch:
    """The calibration of one run as it goes: the CPU loop and the short baseline."""

    def __init__(self, calibration: Calibration | None, echo: Callable[[str], None] | None) -> None:
        self.calibration = calibration
        self.echo = echo
        self.seen = Calibrated()
        if calibration is not None:
            self.seen.label, self.seen.scale = calibration.label, calibration.scale
            self.seen.unit, self.seen.quiet = calibration.unit, calibration.quiet

    def cpu(self) -> None:
        # The better of two loops: a blip of a few ms is not a busy machine; a machine
        # busy for a round is busy for both.
        share = max(calibrate_cpu(), calibrate_cpu())
        self.seen.cpu_share = min(self.seen.cpu_share, share)

    def short(self, when: str) -> None:
        calibration = self.calibration
        if calibration is None:
            return
        fastest = min(calibration.measure() for _ in range(max(1, calibration.runs)))
        if when == "start":
            self.seen.start = fastest
        else:
            self.seen.end = fastest
        if self.echo is not None:
            self.echo(
                f"  calibration at the {when}: {calibration.label}: {fastest:.4g} "
                f"{calibration.unit}"
            )

    def begin(self) -> None:
        self.cpu()
        self.short("start")

    def finish(self) -> Calibrated:
        self.short("end")
        self.cpu()
        return self.seen


class _Judged:
    """A result judged against a goal: ``"met"``, ``"not met"`` or ``"noisy"``, and
    noisy is never met.  A subclass gives ``goal``, ``noise`` and ``judged``."""

    goal: float | None

    @property
    def noise(self) -> str | None:
        raise NotImplementedError

    @property
    def judged(self) -> list[float]:
        raise NotImplementedError

    @property
    def noisy(self) -> bool:
        return self.noise is not None

    @property
    def verdict(self) -> str | None:
        """``"met"``, ``"not met"`` or ``"noisy"`` (``None`` without a goal)."""
        if self.goal is None:
            return None
        return verdict(self.judged, self.goal, self.noise)

    @property
    def met(self) -> bool | None:
        """Whether the goal is met (every run within it, never when noisy); ``None``
        without a goal."""
        return None if self.verdict is None else self.verdict == "met"


@dataclass(frozen=True)
class Side:
    name: str
    measure: Callable[[], float]
    unit: str = "s"


@dataclass
class Comparison(_Judged):
    label: str
    sides: Sequence[Side]
    goal: float | None
    values: dict[str, list[float]] = field(default_factory=dict)
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: What the calibration in the same run saw (``None``: none was made).
    calibrated: Calibrated | None = None
    #: Whether the first side is the calibrated baseline (not so for :func:`paired`).
    baseline_calibrated: bool = True

    @property
    def ratios(self) -> list[float]:
        first, last = self.sides[0].name, self.sides[-1].name
        return [b / a for a, b in zip(self.values[first], self.values[last], strict=True) if a > 0]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def noise(self) -> str | None:
        """Why this comparison is noisy (the calibration's reason first), or ``None``."""
        if self.calibrated is not None:
            baseline = (
                statistics.median(self.values[self.sides[0].name])
                if self.baseline_calibrated
                else None
            )
            reason = calibration_noise(self.calibrated, baseline)
            if reason is not None:
                return reason
        return spread_noise(self.ratios, self.goal)

    @property
    def judged(self) -> list[float]:
        """What the goal is judged on: the ratio of each round."""
        return self.ratios

    def lines(self) -> list[str]:
        out = [f"{self.label}"]
        for side in self.sides:
            values = self.values[side.name]
            out.append(
                f"  {side.name:<28} median {statistics.median(values):10.4g} {side.unit}"
                f"  (min {min(values):.4g}, max {max(values):.4g}, {len(values)} runs)"
            )
        ratios = self.ratios
        said = ""
        noise = self.noise
        if self.goal is not None:
            said = f"  goal ≤ {self.goal:g}×: {self.verdict}"
        elif noise is not None:
            said = "  noisy"
        if noise is not None:
            said += f" ({noise})"
        out.append(
            f"  ratio {self.sides[-1].name}/{self.sides[0].name}: median {self.ratio:.2f}× "
            f"(min {min(ratios):.2f}, max {max(ratios):.2f}){said}"
        )
        if self.calibrated is not None:
            out += self.calibrated.lines()
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
            "verdict": self.verdict,
            "met": self.met,
            "noisy": self.noisy,
            "noise": self.noise,
            "calibration": None if self.calibrated is None else self.calibrated.as_dict(),
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
    calibration: Calibration | None = None,
    echo: Callable[[str], None] | None = print,
) -> Comparison:
    """Run ``sides`` in turn, ``runs`` rounds (at least 3 for a claim), and compare; the
    machine is calibrated at the start, after every round and at the end (the CPU loop,
    and ``calibration``, a short run of the first side, if given)."""
    result = Comparison(label, sides, goal, {side.name: [] for side in sides})
    result.load_before = load()
    if warmup:
        for side in sides:
            side.measure()
    watch = _Watch(calibration, echo)
    watch.begin()
    for round_ in range(runs):
        for side in sides:
            value = side.measure()
            result.values[side.name].append(value)
            if echo is not None:
                echo(f"  [{round_ + 1}/{runs}] {side.name}: {value:.4g} {side.unit}")
        watch.cpu()
    result.calibrated = watch.finish()
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
    result.baseline_calibrated = False
    result.load_before = load()
    watch = _Watch(None, echo)
    watch.begin()
    for round_ in range(runs):
        first, last = measure()
        result.values[names[0]].append(first)
        result.values[names[1]].append(last)
        if echo is not None:
            echo(
                f"  [{round_ + 1}/{runs}] {names[0]}: {first:.4g} {unit}, "
                f"{names[1]}: {last:.4g} {unit} (×{last / first:.3f})"
            )
        watch.cpu()
    result.calibrated = watch.finish()
    result.load_after = load()
    if echo is not None:
        for line in result.lines():
            echo(line)
    return result


def _unused() -> float:
    raise RuntimeError("a paired side is measured with its pair")


@dataclass
class Series(_Judged):
    """One quantity measured ``runs`` times, against an absolute goal (at most ``goal``)."""

    label: str
    unit: str
    goal: float | None
    values: list[float] = field(default_factory=list)
    load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: What the CPU loop in the same run saw (``None``: not calibrated).
    calibrated: Calibrated | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def noise(self) -> str | None:
        """The spread straddles the goal (some runs met it, some did not), or the machine
        was busy; ``None``: neither."""
        if self.calibrated is not None:
            reason = calibration_noise(self.calibrated)
            if reason is not None:
                return reason
        return spread_noise(self.values, self.goal, ratio=False)

    @property
    def judged(self) -> list[float]:
        """What the goal is judged on: each run's value."""
        return self.values

    def lines(self) -> list[str]:
        values = self.values
        said = ""
        noise = self.noise
        if self.goal is not None:
            said = f"  goal ≤ {self.goal:g} {self.unit}: {self.verdict}"
        elif noise is not None:
            said = "  noisy"
        if noise is not None:
            said += f" ({noise})"
        return [
            self.label,
            f"  median {self.median:.4g} {self.unit}  (min {min(values):.4g}, "
            f"max {max(values):.4g}, {len(values)} runs){said}",
            *(self.calibrated.lines() if self.calibrated is not None else []),
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
            "verdict": self.verdict,
            "met": self.met,
            "noisy": self.noisy,
            "noise": self.noise,
            "calibration": None if self.calibrated is None else self.calibrated.as_dict(),
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
    """Measure one quantity ``runs`` times (at least 3 for a claim) against ``goal``; the
    CPU loop calibrates the machine at the start, after every run and at the end."""
    result = Series(label, unit, goal)
    result.load_before = load()
    watch = _Watch(None, echo)
    watch.begin()
    for round_ in range(runs):
        value = measure()
        result.values.append(value)
        if echo is not None:
            echo(f"  [{round_ + 1}/{runs}] {value:.4g} {unit}")
        watch.cpu()
    result.calibrated = watch.finish()
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
