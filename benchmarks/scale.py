"""Memory and set-up time of a large cluster in one process (issue 14, goal 4).

    python benchmarks/scale.py            # N = 1,000, 2,500 and 5,000 nodes
    python benchmarks/scale.py --quick    # N = 250 and 1,000 (a smoke test)

Each size runs in a fresh child process (so that one size's memory is not another's),
pinned to one CPU as ``ringleader run`` pins itself: a one-way ring over inproc, ids
descending, one initiator (the top node: 2N messages), with the failure detector off.
A size whose nodes need more open files than this machine lets a process open (a
container can hold the hard limit down) runs as the largest hundred that fits, and says so.
A child reports its set-up time (every node started, bound and linked: the report's
``setup_s``), its resident memory once set up and at its peak (after the election), and
the election's time.  Goals at N = 5,000: ≤ 1 GB resident, ≤ 3 s set-up.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import ringleader
from ringleader.topologies import NodeSpec, load_config
from ringleader.transport import estimate

GOAL_MB = 1000
GOAL_SETUP_S = 3.0


def resident_mb() -> float:
    with Path("/proc/self/status").open(encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _files_for(n: int) -> int:
    """The open files ``n`` inproc nodes need, with room for what a process has open."""
    return estimate("inproc", n, n).files + 256


def _room_for(n: int) -> bool:
    """Raise this process's open-file hard limit to what ``n`` inproc nodes need, where
    it is lower and the process may (only with ``CAP_SYS_RESOURCE``, up to
    ``fs.nr_open``); whether ``n`` nodes fit now."""
    needed = _files_for(n)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < needed:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (needed, needed))
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return hard == resource.RLIM_INFINITY or hard >= needed


def _largest_that_fits(n: int) -> int:
    """``n``, or the largest hundred below it whose nodes this machine lets one process
    open (a container may hold the hard limit below what ``n`` needs)."""
    while n > 100 and not _room_for(n):
        n -= 100
    return n


def child(n: int) -> None:
    """Run one size and print its figures as one JSON line."""
    _room_for(n)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    config = load_config(None).replace(
        transport="inproc",
        topology="unidirectional_ring",
        algorithm="chang_roberts",
        nodes=tuple(NodeSpec(i, i) for i in range(n, 0, -1)),
        initiators=(n,),
        timeout=300.0,
    )
    began = time.monotonic()
    with ringleader.LocalCluster(config) as cluster:
        setup_s = cluster.setup_s
        after_setup = resident_mb()
        report = cluster.elect()
        assert report.ok and report.total == 2 * n, report.problems
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        figures = {
            "n": n,
            "setup_s": setup_s,
            "rss_mb": after_setup,
            "peak_mb": peak,
            "election_s": report.elapsed_s,
        }
    figures["whole_s"] = time.monotonic() - began
    print(json.dumps(figures))


def measure(n: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(n)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["(nothing on stderr)"]
        sys.exit(f"N = {n} failed: {lines[-1]}")
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="N = 250 and 1,000")
    parser.add_argument("--child", type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    sizes = (250, 1000) if args.quick else (1000, 2500, 5000)
    print("A one-way ring in one process, inproc, one CPU (as `ringleader run`)")
    print("| N | set-up | resident once set up | peak | per node | election (2N msgs) |")
    print("|---|---|---|---|---|---|")
    rows = []
    for wanted in sizes:
        n = _largest_that_fits(wanted)
        if n != wanted:
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            print(
                f"N = {wanted:,} needs about {_files_for(wanted):,} open files; this machine "
                f"lets a process open {hard:,} (hard limit) and this one may not raise it: "
                f"N = {n:,} instead"
            )
        row = measure(n)
        rows.append(row)
        print(
            f"| {n:,} | {row['setup_s']:.2f} s | {row['rss_mb']:.0f} MB | {row['peak_mb']:.0f} MB "
            f"| {row['peak_mb'] * 1024 / n:.0f} KB | {row['election_s']:.2f} s |",
            flush=True,
        )
    top = rows[-1]
    instead = "" if top["n"] == sizes[-1] else f" (the goals' N = {sizes[-1]:,} does not fit here)"
    print(
        f"At N = {top['n']:,}{instead}: peak {top['peak_mb']:.0f} MB = "
        f"{top['peak_mb'] / GOAL_MB:.2f} × the {GOAL_MB} MB goal; set-up {top['setup_s']:.2f} s = "
        f"{top['setup_s'] / GOAL_SETUP_S:.2f} × the {GOAL_SETUP_S:g} s goal"
    )


if __name__ == "__main__":
    main()
