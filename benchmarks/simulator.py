"""The simulator at scale: Hirschberg–Sinclair, everyone initiating, 10,000 to 100,000 nodes.

    python benchmarks/simulator.py            # n = 10,000 / 30,000 / 100,000
    python benchmarks/simulator.py --quick    # n = 1,000 / 3,000 / 10,000

A bidirectional ring of n nodes, ids descending round the ring (the sweep's worst case
for HS; ``--order random`` shuffles them with a fixed seed instead), every node
initiating, run by :func:`ringleader.actors.simulate` (seed 1).  For each n it prints the set-up
(building the wiring and the views), the simulation (``simulate()``: the members and the
run; wall clock, and the process's CPU time), the events and messages, µs per event (wall
clock), and the count against the notes' bound
8n(log₂ n + 2) + 5n; then the ratio of µs per event at the largest n to the smallest
(goal: ≤ 1.3, and the largest run in < 10 s).  Each size runs ``--repeat`` times (3 by
default) and the best time is shown: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from dataclasses import dataclass

from ringleader.actors import HirschbergSinclair, NodeView, simulate
from ringleader.topologies import TOPOLOGIES, NodeSpec

SIZES = (10_000, 30_000, 100_000)
QUICK = (1_000, 3_000, 10_000)


@dataclass
class Row:
    n: int
    setup: float
    run: float
    cpu: float  # the process's CPU time during simulate(): less noisy on a shared machine
    events: int
    messages: int
    bound: int

    @property
    def us_per_event(self) -> float:
        return self.run / self.events * 1e6


def ring(n: int, order: str) -> tuple[list[int], list[NodeView], int]:
    """The ids in ring order, the views and the notes' bound for them."""
    ids = list(range(n, 0, -1))
    if order == "random":
        random.Random(1).shuffle(ids)
    wiring = TOPOLOGIES["bidirectional_ring"].build([NodeSpec(i, i) for i in ids], None)
    views = wiring.views()
    return ids, views, HirschbergSinclair.bound(wiring, ids).value


def measure(n: int, order: str) -> Row:
    gc.collect()
    began = time.perf_counter()
    ids, views, bound = ring(n, order)
    built, cpu = time.perf_counter(), time.process_time()
    result = simulate(HirschbergSinclair, views, ids, seed=1)
    done, cpu = time.perf_counter(), time.process_time() - cpu
    assert result.leaders == [n], result.leaders
    assert result.safety is not None and not result.safety.violations
    assert result.total <= bound, (n, result.total, bound)
    return Row(n, built - began, done - built, cpu, result.steps, result.total, bound)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 1,000 / 3,000 / 10,000")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size, best shown")
    parser.add_argument("--order", choices=("descending", "random"), default="descending")
    parser.add_argument("--sizes", type=int, nargs="+", help="other sizes")
    args = parser.parse_args()
    sizes = args.sizes or (QUICK if args.quick else SIZES)
    print(
        f"Hirschberg–Sinclair, bidirectional ring, ids {args.order}, everyone initiating; "
        f"best of {args.repeat}"
    )
    print("| n | set-up | simulate() | CPU | events | messages | µs/event | notes' bound |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for n in sizes:
        runs = [measure(n, args.order) for _ in range(args.repeat)]
        assert len({(r.events, r.messages) for r in runs}) == 1, "not deterministic"
        row = Row(
            n,
            min(r.setup for r in runs),
            min(r.run for r in runs),
            min(r.cpu for r in runs),
            runs[0].events,
            runs[0].messages,
            runs[0].bound,
        )
        rows.append(row)
        print(
            f"| {n:,} | {row.setup:.2f} s | {row.run:.2f} s | {row.cpu:.2f} s | {row.events:,} "
            f"| {row.messages:,} | {row.us_per_event:.2f} | ≤ {row.bound:,} |",
            flush=True,
        )
    first, last = rows[0], rows[-1]
    ratio = last.us_per_event / first.us_per_event
    print(
        f"\nµs/event at n = {last.n:,} / at n = {first.n:,}: ×{ratio:.2f} (goal ≤ 1.3); "
        f"n = {last.n:,} set-up + simulate(): {last.setup + last.run:.1f} s (goal < 10 s)"
    )


if __name__ == "__main__":
    main()
