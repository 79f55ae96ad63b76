"""``ringleader explore --service``: how far the service's rules are explored, and how fast.

    python benchmarks/explore_service.py           # the table (about 45 minutes)
    python benchmarks/explore_service.py --quick   # a smoke run (a minute)
    python benchmarks/explore_service.py --only lean --only "every fault 1"  # some rows

Each row is the command a user types, run as a whole process:
``ringleader explore CONFIG --service --json`` with the row's faults (and
``--max-seconds``, ``--max-states`` where a row may not finish), and the row prints what
its JSON says: the states found, whether that is every reachable state, the depth, the
search's own time, states per second and bytes per state (how far the search grew the
process's peak resident memory, per state), the checks broken (if any), the whole
command's wall clock and its peak resident memory.  A row marked ``(lean)`` runs the
same command with ``--lean`` (fingerprints, the frontier on disk, no graph): its bytes
per state are its own tables' (the seen-set, the frontier's and the records' buffers),
its peak memory the whole process's, as for every row.

The rows: ``examples/service/cluster.toml`` (three nodes, Bully, the defaults: a tick of
0.05 s, drift up to 11.1 %, frames within the tick they are sent in) with no fault; with
one, then two, of each fault alone (a restart or a wipe needs a crash first); with one
of every fault together; and with two of every fault together — the issue's goal: every
state within 10 minutes on this 2-core machine.  Then five nodes (the same config with
two more), as far as a budget allows.  No symmetry is reduced: a node's id orders
Bully's priorities and deals the epochs, so no two nodes are interchangeable.  The
machine's load is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONFIG = ROOT / "examples" / "service" / "cluster.toml"
#: The issue's goal for three nodes with two of every fault: every state, within this.
GOAL_SECONDS = 600.0
FAULTS = ("crashes", "restarts", "wipes", "partitions", "cuts", "loss", "duplicates", "pauses")


@dataclass(frozen=True)
class Row:
    name: str
    options: tuple[str, ...]
    seconds: float
    config: Path = CONFIG
    lean: bool = False
    max_states: int | None = None


def _faults(**counts: int) -> tuple[str, ...]:
    options: list[str] = []
    for name in FAULTS:
        options += [f"--{name}", str(counts.get(name, 0))]
    return tuple(options)


def rows(quick: bool, five: Path) -> list[Row]:
    one = [
        Row("crashes 1", _faults(crashes=1), 120),
        Row("crash + restart (kept)", _faults(crashes=1, restarts=1), 120),
        Row("crash + restart (lost)", _faults(crashes=1, wipes=1), 120),
        Row("partitions 1", _faults(partitions=1), 120),
        Row("cuts 1", _faults(cuts=1), 120),
        Row("losses 1", _faults(loss=1), 120),
        Row("duplicates 1", _faults(duplicates=1), 120),
        Row("pauses 1", _faults(pauses=1), 120),
        Row("crash + loss (the default)", _faults(crashes=1, loss=1), 120),
    ]
    if quick:
        return [
            Row("no fault", _faults(), 60),
            Row("losses 1", _faults(loss=1), 60),
            Row("duplicates 1", _faults(duplicates=1), 60),
            Row("every fault 1 (20 s)", ("--faults", "1"), 20),
        ]
    two = [
        Row("crashes 2", _faults(crashes=2), 300),
        Row("losses 2", _faults(loss=2), 120),
        Row("duplicates 2", _faults(duplicates=2), 120),
        Row("pauses 2", _faults(pauses=2), 120),
    ]
    return [
        Row("no fault", _faults(), 60),
        *one,
        *two,
        Row("crashes 2 (lean)", _faults(crashes=2), 300, lean=True),
        Row("every fault 1, 2M states", ("--faults", "1"), 300, max_states=2_000_000),
        Row("every fault 1, 2M (lean)", ("--faults", "1"), 300, lean=True, max_states=2_000_000),
        Row("every fault 1", ("--faults", "1"), 300),
        Row("every fault 1 (lean)", ("--faults", "1"), 300, lean=True),
        Row("every fault 2 (the goal)", ("--faults", "2"), GOAL_SECONDS),
        Row("every fault 2 (lean)", ("--faults", "2"), GOAL_SECONDS, lean=True),
        Row("5 nodes, no fault", _faults(), 120, five),
        Row("5 nodes, crashes 1", _faults(crashes=1), 120, five),
    ]


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def run(row: Row, out: Path, max_states: int) -> dict[str, object]:
    argv = [
        sys.executable,
        "-m",
        "ringleader",
        "explore",
        str(row.config),
        "--service",
        "--json",
        "--out",
        str(out),
        "--max-states",
        str(row.max_states or max_states),
        "--max-seconds",
        str(row.seconds),
        *row.options,
        *(["--lean"] if row.lean else []),
    ]
    began = time.monotonic()
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        child = subprocess.Popen(argv, stdout=stdout, stderr=stderr, text=True, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = code = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - began
        stdout.seek(0)
        stderr.seek(0)
        if code not in (0, 1, 3):
            raise SystemExit(f"{' '.join(argv)}: exit {code}\n{stderr.read()}")
        summary: dict[str, object] = json.loads(stdout.read())
    summary["wall_s"] = wall
    summary["peak_mb"] = usage.ru_maxrss / 1024  # KiB on Linux
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run (a minute)")
    parser.add_argument(
        "--max-states",
        type=int,
        default=10_000_000,
        help="at most this many states a row (memory: about 1.1 kB each)",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="TEXT",
        help="run only the rows whose name holds TEXT (repeatable)",
    )
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", "HEAD"],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.strip()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"{when}, commit {commit or '?'}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print(f"load before: {load()} (1-, 5- and 15-minute averages)")
    failed = False
    goal = "every fault 2 (the goal)"
    verdict = "not run (--quick or --only)"
    with tempfile.TemporaryDirectory() as folder:
        five = Path(folder) / "five.toml"
        text = CONFIG.read_text()
        extra = "".join(
            f'\n[[nodes]]\nid = {i}\naddress = "tcp://127.0.0.1:{7300 + i}"\n' for i in (4, 5)
        )
        five.write_text(text + extra)
        header = (
            f"{'row':<28} {'states':>12} {'every state?':>13} {'depth':>6} "
            f"{'search s':>9} {'states/s':>9} {'B/state':>8} {'command s':>10} "
            f"{'peak MB':>8}  broken"
        )
        print(header)
        for row in rows(args.quick, five):
            if args.only and not any(text in row.name for text in args.only):
                continue
            summary = run(row, Path(folder) / "out", args.max_states)
            complete = "yes" if summary["complete"] else f"no ({summary['stopped']})"
            broken = ", ".join(v["kind"] for v in summary["violations"]) or "-"  # type: ignore[attr-defined]
            failed = failed or broken != "-"
            print(
                f"{row.name:<28} {summary['states']:>12,} {complete:>13} "
                f"{summary['depth']:>6} {summary['elapsed_s']:>9.1f} "
                f"{summary['states_per_s']:>9,} {summary['memory_per_state']:>8} "
                f"{summary['wall_s']:>10.1f} {summary['peak_mb']:>8,.0f}  {broken}",
                flush=True,
            )
            if row.name == goal:
                met = summary["complete"] and float(summary["elapsed_s"]) <= GOAL_SECONDS  # type: ignore[arg-type]
                verdict = (
                    "met"
                    if met
                    else (
                        f"not met: {summary['states']:,} states in {summary['elapsed_s']:.0f} s, "
                        f"stopped by {summary['stopped']}, not every state"
                    )
                )
    print(f"load after: {load()}")
    print(f"goal: {goal!r} explored completely within {GOAL_SECONDS:.0f} s: {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
