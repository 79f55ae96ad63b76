"""``ringleader explore``: how fast the explorer goes, and how much each state costs.

    python benchmarks/explore.py            # the figures (a minute or two)
    python benchmarks/explore.py --quick    # a smoke run (seconds)
    python benchmarks/explore.py --lean     # only fingerprints against whole states

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
"""

from __future__ import annotations

import argparse
import gc
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs, one repeat")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--lean", action="store_true", help="only fingerprints against whole states"
    )
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
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
    print(f"load after: {' '.join(f'{v:.2f}' for v in load())}")


if __name__ == "__main__":
    main()
