"""``ringleader explore``: how fast the explorer goes, and how much each state costs.

    python benchmarks/explore.py            # the figures (a minute or two)
    python benchmarks/explore.py --quick    # a smoke run (seconds)
    python benchmarks/explore.py --lean     # only fingerprints against whole states
    python benchmarks/explore.py --workers-only   # one worker against two: the verdict
    python benchmarks/explore.py --table    # issue 31's table: states, states/s, bytes

Three explorations the issue names, each exhausted (every reachable state), ``--repeat``
times (3 by default), with the median and min–max of the wall clock and of the
process's CPU time (less noisy on a shared machine):

- Chang–Roberts, n = 6, every node initiating, ids descending round the ring — also as
  the whole command a user types (``ringleader explore CONFIG --json``, start-up
  included); goal: exhausted in under 10 s;
- LeLann, n = 5, every node initiating;
- Bully, n = 4, every node initiating, one crash at any moment.

Then the rate on ring elections large enough for the rate to be the search's own (the
first states of a run cost a copy and a step of a real member each; later ones are
looked up): Chang–Roberts n = 9, LeLann n = 7, Hirschberg–Sinclair n = 6 (``--quick``:
8, 6, 5); goal: at least 50,000 states per second.  Memory per stored state: what the
search keeps (the state tuples, their index, the graph's arrays) divided by the states,
and, for the largest ring run, the peak :mod:`tracemalloc` saw divided by the states.
The machine's load is printed before and after.

Then the lean search against the exact one (issue 31, item 1), per the benchmark
protocol of ``_compare.py`` (sides alternated, ``--repeat`` rounds, medians and spread,
the machine calibrated in the same run): on Chang–Roberts n = 8 and LeLann n = 6, the
states per second and the bytes a state the search holds (``memory_per_state``) with
whole states (``exact=True``) and with fingerprints; and the whole command as a user
types it (``ringleader explore --nodes 8 --json``, with and without ``--exact``): its
wall clock and its peak resident memory (the ``ru_maxrss`` of the process, as
``/usr/bin/time -v`` reports it).  Goal: at most 32 bytes a state with fingerprints.

Then the lean search on two worker processes against one (issue 31, item 3), each side
the user's command as a whole process (``ringleader explore CONFIG --json``, and with
``--workers 2``: start-up and the workers' start included), sides alternated,
``--repeat`` rounds (at least 3), medians and spread, the machine calibrated:
Chang–Roberts n = 9, FIFO, every node initiating (``--quick``: n = 8); goal: two workers
at least 1.7 times as fast as one (a time ratio of at most 1/1.7).  Wall times on a
shared machine are noisy, so the total CPU seconds of every process of each side
(``RUSAGE_CHILDREN``: the workers too) per state are printed as well: two workers that
do about one's work can be twice as fast on two idle cores.  ``--workers-only`` runs
only this.

``--table`` (issue 31, item 5): Chang–Roberts n = 9 and 10 (FIFO, any starts), echo on
the 6-node graph of ``examples/graph.toml`` with initiators 1 and 6, and the service
model of ``examples/service/cluster.toml`` (``ringleader explore --service``): states,
states/s with one worker and with two (the search's own clock), bytes a state the search
holds, and the peak resident memory of the largest process.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _compare import Side, compare, load, whole_command

from ringleader.actors.exploration import Exploration, Options
from ringleader.cluster import explore_config
from ringleader.topologies import Config, load_config

GOAL_SECONDS = 10.0
GOAL_RATE = 50_000
GOAL_BYTES = 32
GOAL_SPEEDUP = 1.7
#: The searches' limit: Chang–Roberts n = 10 has more than the default million states.
MAX_STATES = 20_000_000
ROOT = Path(__file__).resolve().parents[1]


def config(folder: Path, name: str, text: str) -> tuple[Config, Path]:
    path = folder / f"{name}.toml"
    path.write_text(text)
    return load_config(path), path


def ring(folder: Path, algorithm: str, n: int) -> tuple[Config, Path]:
    """``algorithm`` on a ring of ``n``, ids descending round it, everyone initiating."""
    topology = "bidirectional_ring" if algorithm == "hirschberg_sinclair" else "unidirectional_ring"
    nodes = "".join(f"[[nodes]]\nid = {i}\n" for i in range(n, 0, -1))
    text = f'topology = "{topology}"\nalgorithm = "{algorithm}"\n{nodes}'
    return config(folder, f"{algorithm}-{n}", text)


def bully(folder: Path, n: int) -> tuple[Config, Path]:
    return config(
        folder, f"bully-{n}", f'topology = "full_mesh"\nalgorithm = "bully"\nnodes = {n}\n'
    )


@dataclass
class Row:
    label: str
    states: int
    wall: list[float]
    cpu: list[float]
    memory: int
    complete: bool
    messages: tuple[int, int | None] | None

    @property
    def rate(self) -> float:
        """States per second of wall clock, at the median."""
        return self.states / statistics.median(self.wall)

    @property
    def cpu_rate(self) -> float:
        return self.states / statistics.median(self.cpu)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} s ({min(values):.3f}–{max(values):.3f})"


def measure(label: str, run: Callable[[], Exploration], repeat: int) -> Row:
    wall, cpu = [], []
    exploration = None
    for _ in range(repeat):
        gc.collect()
        began, began_cpu = time.perf_counter(), time.process_time()
        exploration = run()
        wall.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
        del exploration.found[:]  # let the next run start from an empty heap
    assert exploration is not None
    return Row(
        label,
        exploration.states,
        wall,
        cpu,
        exploration.memory,
        exploration.complete,
        exploration.messages,
    )


def show(row: Row) -> None:
    complete = "exhausted" if row.complete else "NOT exhausted"
    print(
        f"{row.label:<44} {row.states:>9,} states, {complete}; wall {spread(row.wall)}, "
        f"cpu {spread(row.cpu)}; {row.rate:>8,.0f} states/s ({row.cpu_rate:,.0f} per cpu s); "
        f"{row.memory / row.states:,.0f} B/state; messages {row.messages}"
    )


def peak_per_state(run: Callable[[], Exploration]) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        exploration = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / exploration.states


def lean_against_exact(label: str, make: Callable[[bool], Exploration], runs: int) -> None:
    """Both ways of keeping states, alternated: seconds, states/s and bytes a state."""
    held: dict[bool, list[float]] = {True: [], False: []}
    states: dict[bool, int] = {}

    def side(exact: bool) -> Callable[[], float]:
        def measure() -> float:
            gc.collect()
            exploration = make(exact)
            states[exact] = exploration.states
            held[exact].append(exploration.memory / exploration.states)
            return exploration.elapsed

        return measure

    result = compare(
        f"{label}: exact states against fingerprints (seconds a search)",
        [Side("exact", side(True)), Side("fingerprints", side(False))],
        runs=runs,
    )
    assert states[True] == states[False], states
    for exact, name in ((True, "exact"), (False, "fingerprints")):
        seconds = result.values[name]
        rates = [states[exact] / s for s in seconds]
        print(
            f"  {name:<13} {states[exact]:,} states; {statistics.median(rates):,.0f} states/s "
            f"({min(rates):,.0f}–{max(rates):,.0f}); "
            f"{statistics.median(held[exact]):,.1f} bytes/state "
            f"({min(held[exact]):,.1f}–{max(held[exact]):,.1f})"
        )
    bytes_lean = statistics.median(held[False])
    print(
        f"  fingerprints: {bytes_lean:.1f} bytes/state: goal ≤ {GOAL_BYTES} "
        f"{'met' if max(held[False]) <= GOAL_BYTES else 'NOT met'}"
    )


def peak_command(argv: list[str]) -> tuple[float, int]:
    """A whole command's wall clock and peak resident memory (bytes), as
    ``/usr/bin/time -v`` reports them (its output discarded).  Through ``/usr/bin/time``:
    Linux keeps a process's peak across ``exec``, so a child forked from this process,
    large after its own explorations, would report this process's peak, not its own."""
    began = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - began
    return seconds, int(done.stderr.strip().splitlines()[-1]) * 1024


def command_against_exact(folder: Path, n: int, runs: int) -> None:
    """``ringleader explore --nodes N --json`` with and without ``--exact``, alternated:
    wall clock and peak RSS."""
    rss: dict[str, list[int]] = {"exact": [], "fingerprints": []}

    def side(name: str, extra: list[str]) -> Callable[[], float]:
        argv = [sys.executable, "-m", "ringleader", "explore", "--nodes", str(n), "--json"]
        argv += ["--out", str(folder / f"cmd-{name}"), *extra]

        def measure() -> float:
            seconds, peak = peak_command(argv)
            rss[name].append(peak)
            return seconds

        return measure

    compare(
        f"ringleader explore --nodes {n} --json: --exact against fingerprints (seconds)",
        [Side("exact", side("exact", ["--exact"])), Side("fingerprints", side("fingerprints", []))],
        runs=runs,
    )
    for name, peaks in rss.items():
        mb = [p / 2**20 for p in peaks]
        print(
            f"  {name:<13} peak RSS {statistics.median(mb):,.1f} MB ({min(mb):,.1f}–{max(mb):,.1f})"
        )


@dataclass
class Run:
    """One whole process's search: what it found, and what it cost."""

    states: int
    complete: bool
    elapsed: float  # the search's own clock
    memory: int  # bytes the search held (Exploration.memory)
    wall: float  # the whole process
    cpu: float  # CPU seconds of the process and of every process it started
    peak: int  # peak resident bytes of the largest of them
    workers: int = 1  # the processes that searched (--json's workers)

    @property
    def rate(self) -> float:
        return self.states / self.elapsed


def run_search(path: Path, workers: int, *, service: bool = False) -> Run:
    """The user's command in a process of its own — ``ringleader explore CONFIG
    [--workers N] --json`` (with ``service``: ``--service``) — its figures, the CPU
    seconds of it and of every process it started, and the peak RSS of the largest."""
    argv = [sys.executable, "-m", "ringleader", "explore", str(path), "--json", "--force"]
    argv += ["--max-states", str(MAX_STATES), "--out", str(path.parent / f"{path.stem}-explore")]
    if service:
        argv.append("--service")
    elif workers > 1:
        argv += ["--workers", str(workers)]
    began = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errors, cwd=ROOT)
        assert process.stdout is not None
        stdout = process.stdout.read().decode()
        process.stdout.close()
        # wait4: the times of the process and of every process it waited for (its
        # workers), and the largest resident set among them.
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - began
        errors.seek(0)
        if not stdout.strip():
            raise RuntimeError(f"{' '.join(argv)}: {errors.read().decode().strip()}")
    cpu = usage.ru_utime + usage.ru_stime
    got = json.loads(stdout.strip().splitlines()[-1])
    return Run(
        got["states"],
        got["stopped"] is None,
        got["elapsed_s"],
        got["memory_per_state"] * got["states"],
        wall,
        cpu,
        usage.ru_maxrss * 1024,
        got.get("workers", 1),
    )


def workers_against_one(folder: Path, n: int, runs: int) -> None:
    """One worker against two, each a whole process, alternated: the verdict."""
    _, path = ring(folder, "chang_roberts", n)
    got: dict[int, list[Run]] = {1: [], 2: []}

    def side(workers: int) -> Callable[[], float]:
        def measure() -> float:
            got[workers].append(run_search(path, workers))
            return got[workers][-1].wall

        return measure

    compare(
        f"Chang–Roberts n={n}, lean: two worker processes over one (wall, whole process)",
        [Side("one worker", side(1)), Side("two workers", side(2))],
        runs=runs,
        goal=1 / GOAL_SPEEDUP,
    )
    states = got[1][0].states
    assert all(r.states == states and r.complete for rs in got.values() for r in rs)
    for workers, name in ((1, "one worker"), (2, "two workers")):
        rates = [states / r.wall for r in got[workers]]
        own = [r.rate for r in got[workers]]
        cpu = [r.cpu / states * 1e6 for r in got[workers]]
        print(
            f"  {name:<11} {states:,} states: {statistics.median(rates):,.0f} states/s whole "
            f"process ({min(rates):,.0f}–{max(rates):,.0f}), {statistics.median(own):,.0f} "
            f"the search's own ({min(own):,.0f}–{max(own):,.0f}); CPU of every process "
            f"{statistics.median(cpu):.2f} µs/state ({min(cpu):.2f}–{max(cpu):.2f})"
        )
    work = [b.cpu / a.cpu for a, b in zip(got[1], got[2], strict=True)]
    print(
        f"  CPU seconds, two workers over one: {statistics.median(work):.2f} "
        f"({min(work):.2f}–{max(work):.2f}): on two idle cores, two workers could be at "
        f"most {2 / statistics.median(work):.2f} times as fast"
    )


def table(folder: Path, quick: bool) -> None:
    """Issue 31's table (item 5), one run a cell."""
    rows: list[tuple[str, Path, bool]] = [
        (f"Chang–Roberts n={n}, FIFO, any starts", ring(folder, "chang_roberts", n)[1], False)
        for n in ((7, 8) if quick else (9, 10))
    ]
    echo = folder / "graph-1-6.toml"
    text = (ROOT / "examples" / "graph.toml").read_text()
    echo.write_text(text.replace("initiators = [3]", "initiators = [1, 6]"))
    rows.append(("echo, examples/graph.toml, initiators 1 and 6", echo, False))
    rows.append(
        ("service, examples/service/cluster.toml", ROOT / "examples/service/cluster.toml", True)
    )
    print(
        f"{'model':<48} {'states':>10} {'1 worker/s':>11} {'2 workers/s':>12} "
        f"{'B/state':>8} {'peak RSS 1':>11} {'peak RSS 2':>11}"
    )
    alone = []
    for label, path, service in rows:
        one = run_search(path, 1, service=service)
        two = None if service else run_search(path, 2)
        shown = label
        if two is not None and two.workers == 1:
            alone.append(label)
            shown += " *"
        print(
            f"{shown:<48} {one.states:>10,} {one.rate:>11,.0f} "
            f"{'—' if two is None else f'{two.rate:,.0f}':>12} "
            f"{one.memory / one.states:>8,.1f} {one.peak / 2**20:>9,.0f}MB "
            f"{'—' if two is None else f'{two.peak / 2**20:,.0f}MB':>11}"
        )
    if alone:
        print(
            "* searched by one process on both sides: it needs whole states (runs of "
            "different lengths meet), which --workers does not share out"
        )


def main() -> None:  # noqa: PLR0915
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs, one repeat")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--lean", action="store_true", help="only fingerprints against whole states"
    )
    parser.add_argument("--workers-only", action="store_true", help="only one worker against two")
    parser.add_argument("--table", action="store_true", help="only issue 31's table")
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    if args.workers_only or args.table:
        with tempfile.TemporaryDirectory() as tmp:
            if args.workers_only:
                workers_against_one(Path(tmp), 8 if args.quick else 9, max(3, repeat))
            if args.table:
                table(Path(tmp), args.quick)
        return
    print(f"load before: {' '.join(f'{v:.2f}' for v in load())}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not args.lean:
            cr6, cr6_path = ring(folder, "chang_roberts", 6)
            lelann5, _ = ring(folder, "lelann", 5)
            bully4, _ = bully(folder, 4)
            print("Exhausting the issue's three explorations:")
            cr = measure("Chang–Roberts n=6, all initiating", lambda: explore_config(cr6), repeat)
            show(cr)
            show(measure("LeLann n=5, all initiating", lambda: explore_config(lelann5), repeat))
            show(
                measure(
                    "Bully n=4, all initiating, one crash",
                    lambda: explore_config(bully4, Options(crashes=1)),
                    repeat,
                )
            )
            command = [sys.executable, "-m", "ringleader", "explore", str(cr6_path), "--json"]
            command += ["--out", str(folder / "out")]
            commands = [whole_command(command) for _ in range(repeat)]
            verdict = "met" if max(commands) < GOAL_SECONDS else "NOT met"
            print(
                f"{'the whole command, Chang–Roberts n=6':<44} {spread(commands)}: goal "
                f"< {GOAL_SECONDS:g} s {verdict}"
            )
            print("The rate on larger ring elections:")
            sizes = (8, 6, 5) if args.quick else (9, 7, 6)
            rings = [
                ring(folder, name, n)[0]
                for name, n in zip(
                    ("chang_roberts", "lelann", "hirschberg_sinclair"), sizes, strict=True
                )
            ]
            rows = []
            for ring_config in rings:
                label = f"{ring_config.algorithm_class.title} n={ring_config.n}, all initiating"
                row = measure(label, lambda c=ring_config: explore_config(c), repeat)
                show(row)
                rows.append(row)
            slowest = min(row.rate for row in rows)
            verdict = "met" if slowest >= GOAL_RATE else "NOT met"
            print(f"slowest ring rate {slowest:,.0f} states/s: goal ≥ {GOAL_RATE:,} {verdict}")
            biggest = max(rings, key=lambda c: c.n)
            per_state = peak_per_state(lambda: explore_config(biggest))
            print(
                f"peak memory (tracemalloc) per state, {biggest.algorithm_class.title} "
                f"n={biggest.n}: {per_state:,.0f} B"
            )
        print("Fingerprints against whole states:")
        runs = max(3, repeat)
        cr8, _ = ring(folder, "chang_roberts", 7 if args.quick else 8)
        lelann6, _ = ring(folder, "lelann", 5 if args.quick else 6)
        for label, item in (
            (f"Chang–Roberts n={cr8.n}", cr8),
            (f"LeLann n={lelann6.n}", lelann6),
        ):
            lean_against_exact(label, lambda exact, c=item: explore_config(c, exact=exact), runs)
        command_against_exact(folder, 7 if args.quick else 8, runs)
        print("Two workers against one:")
        workers_against_one(folder, 8 if args.quick else 9, runs)
    print(f"load after: {' '.join(f'{v:.2f}' for v in load())}")


if __name__ == "__main__":
    main()
