"""``ringleader explore``: how fast the explorer goes, and how much each state costs.

    python benchmarks/explore.py            # the figures (a minute or two)
    python benchmarks/explore.py --quick    # a smoke run (seconds)

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
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from _compare import load, whole_command

from ringleader.actors.exploration import Exploration, Options
from ringleader.cluster import explore_config
from ringleader.topologies import Config, load_config

GOAL_SECONDS = 10.0
GOAL_RATE = 50_000


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs, one repeat")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    print(f"load before: {' '.join(f'{v:.2f}' for v in load())}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
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
    print(f"load after: {' '.join(f'{v:.2f}' for v in load())}")


if __name__ == "__main__":
    main()
