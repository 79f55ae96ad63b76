"""Where two workers' time goes in ``ringleader explore --workers 2`` (issue 31, item 3).

    python benchmarks/explore_slices.py          # Chang–Roberts n = 9, FIFO, any starts
    python benchmarks/explore_slices.py --n 8 --levels

Runs the lean search on one worker (in this process) and the slices engine
(``_slices.py``) on two worker processes, each timing its own calls: the wall clock and
the CPU seconds of every ``expand``, ``finish``, ``exchange`` and ``commit``, per
level.  It prints, for each side, the search's own wall clock and CPU seconds; for two
workers, each worker's CPU seconds a call, and what the level barriers cost:

- *imbalance*: the sum over the levels of the difference of the two workers' CPU
  seconds in ``expand`` (on two idle cores, the faster waits about that long);
- *critical path*: the sum over the levels of the slower worker's CPU seconds in each
  call — what two idle cores would take for the search, the driver's own time aside.

CPU seconds are the less noisy measure on a shared machine; the wall clock a call takes
in a worker is printed too (``--levels``: level by level).  The load is printed before
and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from ringleader.actors.exploration import Slice, SliceProcesses, explore_slices
from ringleader.cluster import explore_config, explore_options
from ringleader.cluster._explored import explore_inputs
from ringleader.topologies import load_config

CALLS = ("expand", "finish", "exchange", "commit")


class TimedSlice(Slice):
    """A :class:`Slice` that times its calls: ``(call, wall, cpu)`` each, in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.times: list[tuple[str, float, float]] = []
        super().__init__(*args, **kwargs)

    def _timed(self, name: str, *args: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return getattr(super(), name)(*args)
        finally:
            took = (time.perf_counter() - wall, time.process_time() - cpu)
            self.times.append((name, *took))

    def expand(self, *args: Any) -> Any:
        return self._timed("expand", *args)

    def finish(self, *args: Any) -> Any:
        return self._timed("finish", *args)

    def exchange(self, *args: Any) -> Any:
        return self._timed("exchange", *args)

    def commit(self, *args: Any) -> Any:
        return self._timed("commit", *args)

    def summary(self) -> dict[str, Any]:
        summary = super().summary()
        summary["times"] = self.times
        summary["cpu"] = time.process_time()
        return summary


class TimedProcesses(SliceProcesses):
    """Worker processes holding a :class:`TimedSlice` each; keeps the last summaries."""

    kind = TimedSlice
    summaries: ClassVar[list[dict[str, Any]]] = []

    def call(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        answers = super().call(method, args)
        if method == "summary":
            TimedProcesses.summaries[:] = answers
        return answers


def _levels(times: list[tuple[str, float, float]]) -> list[dict[str, tuple[float, float]]]:
    """The calls' times, level by level (a level begins with ``expand``)."""
    levels: list[dict[str, tuple[float, float]]] = []
    for name, wall, cpu in times:
        if name == "expand":
            levels.append({})
        levels[-1][name] = (wall, cpu)
    return levels


def two_workers(path: Path, show_levels: bool) -> float:
    config = load_config(path)
    build = partial(explore_inputs, config, explore_options(config), None)
    wall, cpu = time.perf_counter(), time.process_time()
    found = explore_slices(build, TimedProcesses, 2, max_states=10_000_000)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    summaries = TimedProcesses.summaries
    workers = [_levels(s["times"]) for s in summaries]
    worker_cpu = [s["cpu"] for s in summaries]
    print(
        f"two workers: {found.states:,} states, the search's own clock {found.elapsed:.2f} s, "
        f"wall {wall:.2f} s; CPU: driver {cpu:.2f} s, workers "
        + ", ".join(f"{c:.2f}" for c in worker_cpu)
        + f" s (sum {cpu + sum(worker_cpu):.2f})"
    )
    for index, levels in enumerate(workers):
        totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for level in levels:
            for name, (w, c) in level.items():
                totals[name][0] += w
                totals[name][1] += c
        print(
            f"  worker {index}: "
            + "; ".join(f"{n} CPU {totals[n][1]:.2f} s (wall {totals[n][0]:.2f})" for n in CALLS)
        )
    imbalance = sum(abs(a["expand"][1] - b["expand"][1]) for a, b in zip(*workers, strict=True))
    critical = {
        name: sum(
            max(level.get(name, (0.0, 0.0))[1] for level in levels)
            for levels in zip(*workers, strict=True)
        )
        for name in CALLS
    }
    print(
        f"  imbalance in expand (CPU): {imbalance:.2f} s; critical path (CPU, the slower "
        f"worker's each level): {sum(critical.values()):.2f} s = "
        + " + ".join(f"{critical[n]:.2f} {n}" for n in CALLS)
    )
    if show_levels:
        print("  level: expand CPU (wall) per worker; exchange CPU per worker")
        for depth, levels in enumerate(zip(*workers, strict=True)):
            print(
                f"  {depth:>5}: "
                + ", ".join(f"{lv['expand'][1]:.3f} ({lv['expand'][0]:.3f})" for lv in levels)
                + "; "
                + ", ".join(f"{lv.get('exchange', (0.0, 0.0))[1]:.3f}" for lv in levels)
            )
    return found.elapsed


def one_worker(path: Path) -> float:
    config = load_config(path)
    wall, cpu = time.perf_counter(), time.process_time()
    found = explore_config(config, exact=False, max_states=10_000_000)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"one worker:  {found.states:,} states, the search's own clock {found.elapsed:.2f} s, "
        f"wall {wall:.2f} s, CPU {cpu:.2f} s ({cpu / found.states * 1e6:.2f} µs a state)"
    )
    return found.elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=9, help="Chang–Roberts on a ring of n")
    parser.add_argument("--levels", action="store_true", help="print every level")
    parser.add_argument("--repeat", type=int, default=1, help="rounds, sides alternated")
    args = parser.parse_args()
    print(f"load before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ring.toml"
        nodes = "".join(f"[[nodes]]\nid = {i}\n" for i in range(args.n, 0, -1))
        path.write_text(f'topology = "unidirectional_ring"\nalgorithm = "chang_roberts"\n{nodes}')
        ratios = []
        for round_ in range(args.repeat):  # the sides alternated: one first, then two first
            if round_ % 2 == 0:
                one = one_worker(path)
                ratios.append(two_workers(path, args.levels) / one)
            else:
                two = two_workers(path, args.levels)
                ratios.append(two / one_worker(path))
    print(
        f"the search's own clock, two workers over one: {statistics.median(ratios):.2f} "
        f"({min(ratios):.2f}–{max(ratios):.2f})"
    )
    print(f"load after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
