"""The simulator at scale, as a user runs it: the whole command, report included.

    python benchmarks/simulator.py            # n = 10,000 / 100,000 / 1,000,000, 3 runs each
    python benchmarks/simulator.py --quick    # n = 1,000 / 10,000, 1 run each (CI's smoke run)

Each run is the command a user types, in a fresh process, timed from outside::

    ringleader run --simulate --nodes N --topology bidirectional_ring [--json]

Hirschberg–Sinclair on a two-way ring of ids 1..N, every node initiating, in the
deterministic simulator; the report (human, or ``--json`` with every node's line) is
written to a pipe that is read to the end.  For each n it prints the wall-clock time
(median and min–max of the runs), the events the simulator handled and how many per
second, the process's own CPU time (on a shared machine the wall clock also counts the
others' work), µs per event (less the start-up, the same command with 2 nodes), and the
peak memory of the process (its maximum resident set).
The goals (issue 21): 100,000 nodes in < 10 s, 1,000,000 in < 2 min, and a cost per event
that stays flat (the ratio of µs per event at the largest n to the smallest, ≤ 1.3).
The machine's load is printed before and after: these machines are shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

SIZES = (10_000, 100_000, 1_000_000)
QUICK = (1_000, 10_000)
GOALS = {100_000: 10.0, 1_000_000: 120.0}


@dataclass
class Run:
    seconds: float
    cpu: float  # the process's own CPU time: less noisy than the wall clock when shared
    peak_mb: float
    events: int
    messages: int


def command(n: int, json_report: bool) -> list[str]:
    argv = [sys.executable, "-m", "ringleader", "run", "--simulate", "--nodes", str(n)]
    argv += ["--topology", "bidirectional_ring"]
    return [*argv, "--json"] if json_report else argv


def once(n: int, json_report: bool) -> Run:
    """One whole command in a fresh process: wall clock, peak memory, and the counts."""
    began = time.perf_counter()
    process = subprocess.Popen(
        command(n, json_report), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    out = process.stdout.read()  # the report, read to its end as a user's pipe would
    err = process.stderr.read()
    # The child's own resources, as the kernel counted them (ru_maxrss: KiB on Linux).
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stdout.close()
    process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"n = {n}: exit {process.returncode}\n{err.decode()[-2000:]}")
    if json_report:
        messages = json.loads(out)["messages"]["total"]
    else:
        line = next(x for x in out.decode().splitlines() if x.startswith("Messages:"))
        messages = int(line.split()[1])
    # Every message is delivered once and every node starts once: the simulator's events.
    cpu = usage.ru_utime + usage.ru_stime
    return Run(seconds, cpu, usage.ru_maxrss / 1024, messages + n, messages)


def measure(n: int, runs: int, json_report: bool) -> list[Run]:
    return [once(n, json_report) for _ in range(runs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 1,000 / 10,000, one run each")
    parser.add_argument("--repeat", type=int, help="runs per size (default 3; --quick: 1)")
    parser.add_argument("--sizes", type=int, nargs="+", help="other sizes")
    parser.add_argument("--json", action="store_true", help="the --json report instead")
    args = parser.parse_args()
    sizes = args.sizes or (QUICK if args.quick else SIZES)
    runs = args.repeat or (1 if args.quick else 3)
    load = os.getloadavg()
    print(
        f"ringleader run --simulate --nodes N --topology bidirectional_ring"
        f"{' --json' if args.json else ''}: the whole command, {runs} run(s) per size"
    )
    print(f"load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    # What every command costs before its first event (the interpreter, the imports):
    # µs per event are counted without it, so that sizes compare.
    startup = statistics.median(once(2, args.json).seconds for _ in range(3))
    print(f"start-up (the same command with 2 nodes): {startup:.2f} s")
    print(
        "| n | time, median (min–max) | CPU, median | events | events/s "
        "| µs/event (less start-up) | peak memory | goal |"
    )
    print("|---|---|---|---|---|---|---|---|")
    per_event = {}
    for n in sizes:
        done = measure(n, runs, args.json)
        times = [r.seconds for r in done]
        median = statistics.median(times)
        events = done[0].events
        per_event[n] = max(0.0, median - startup) / events * 1e6
        goal = GOALS.get(n)
        verdict = (
            "" if goal is None else f"< {goal:g} s: " + ("met" if median < goal else "NOT met")
        )
        peak = max(r.peak_mb for r in done)
        print(
            f"| {n:,} | {median:.2f} s ({min(times):.2f}–{max(times):.2f}) "
            f"| {statistics.median(r.cpu for r in done):.2f} s | {events:,} "
            f"| {events / median:,.0f} | {per_event[n]:.2f} | {peak:,.0f} MB | {verdict} |",
            flush=True,
        )
    first, last = sizes[0], sizes[-1]
    if first != last and per_event[first] <= 0:
        # A busy machine: the start-up, timed alone, took as long as the whole smallest run.
        print(
            f"\nµs per event at n = {last:,} / at n = {first:,}: not measured (the start-up "
            f"alone took as long as n = {first:,}: the machine was busy)"
        )
    elif first != last:
        print(
            f"\nµs per event (whole command) at n = {last:,} / at n = {first:,}: "
            f"×{per_event[last] / per_event[first]:.2f} (flat: ≤ 1.3)"
        )
    load = os.getloadavg()
    print(f"load after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
