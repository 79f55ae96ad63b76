"""What tracing costs: the Chang–Roberts worst case run with and without ``--trace``.

    python benchmarks/trace.py            # N = 1000: 501,500 messages, about two minutes
    python benchmarks/trace.py --quick    # N = 200

Ids descending round a one-way ring, everyone initiating (n(n+1)/2 + n messages), over
inproc, the process pinned to one CPU as ``ringleader run`` pins it.  The runs alternate
(without, with, without, with …) so that a machine that gets busier slows both alike;
the best of each is compared.  It prints the election's time (the report's
``elapsed_s``) without and with tracing, their ratio, and, apart, how long writing the
trace took once the run was over, and its size.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import ringleader
from ringleader.topologies import load_config

#: Issue 14, goal 6: tracing costs at most 10 % of the election's time.
GOAL = 1.10


def config(n: int, directory: Path) -> ringleader.Config:
    """Ids descending round the ring, everyone initiating: the notes' worst case."""
    path = directory / "worst.toml"
    nodes = ", ".join(f"{{ id = {i} }}" for i in range(n, 0, -1))
    path.write_text(
        f'topology = "unidirectional_ring"\ntransport = "inproc"\ntimeout = 900\n'
        f"nodes = [{nodes}]\n",
        encoding="utf-8",
    )
    return load_config(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=1000, metavar="N")
    parser.add_argument("--quick", action="store_true", help="N = 200")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each kind")
    args = parser.parse_args()
    n = 200 if args.quick else args.nodes
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    plain: list[float] = []
    traced: list[float] = []
    writing: list[float] = []
    size = 0
    messages = n * (n + 1) // 2 + n
    with tempfile.TemporaryDirectory() as tmp:
        cluster = config(n, Path(tmp))
        path = Path(tmp) / "trace.jsonl"
        for _ in range(args.repeat):
            report = ringleader.run(cluster)
            assert report.ok and report.elapsed_s is not None, report.problems
            assert report.total == messages, report.total
            plain.append(report.elapsed_s)
            began = time.monotonic()
            report = ringleader.run(cluster, trace=path)
            total = time.monotonic() - began
            assert report.ok and report.elapsed_s is not None, report.problems
            traced.append(report.elapsed_s)
            writing.append(total - report.elapsed_s - report.setup_s)
            size = path.stat().st_size
    best_plain, best_traced = min(plain), min(traced)
    print(f"Chang–Roberts worst case, N = {n}: {messages:,} messages, inproc, one CPU")
    print("| | election | per message |")
    print("|---|---|---|")
    print(f"| without --trace | {best_plain:.2f} s | {best_plain / messages * 1e6:.1f} µs |")
    print(f"| with --trace | {best_traced:.2f} s | {best_traced / messages * 1e6:.1f} µs |")
    ratio = best_traced / best_plain
    met = "met" if ratio <= GOAL else "not met"
    print(f"| **ratio** (goal ≤ {GOAL:.2f}: {met}) | **{ratio:.3f}** | |")
    print(
        f"Writing the trace after the run: {min(writing):.2f} s "
        f"({size / 1e6:.1f} MB, {2 * messages + n:,} events)"
    )
    print(f"(best of {args.repeat} each; all runs: without {plain}, with {traced})")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
