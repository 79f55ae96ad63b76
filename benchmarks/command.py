"""The whole ``ringleader run`` command against its own election time (issue 22).

    python benchmarks/command.py            # N = 1000: three runs of ~10-20 s each
    python benchmarks/command.py --quick    # N = 200, for a smoke test
    python benchmarks/command.py --command /other/venv/bin/ringleader   # another install

The Chang–Roberts worst case (a one-way ring, ids descending, everyone initiating:
n(n+1)/2 + n messages, checked exactly) over inproc, run as a user types it:
``ringleader run CONFIG --json``, a child process timed by the wall clock from before it
starts to after it has exited.  Its own report gives the election's time
(``elapsed_s``) and the set-up's (``setup_s``); both figures come from the same run, so
each run's ratio is of that run with itself (a machine that slows down slows both).

1. The goal: whole command ≤ 1.1 × its election time (median and min–max of the ratio,
   at least three runs).
2. Where the rest goes, from the same runs: the set-up, and everything else (the
   interpreter starting, imports, reading the config, the report, stopping a thousand
   nodes, the interpreter ending).
3. The same command with the top node alone initiating (2n messages, an election of a
   few milliseconds): what the command costs around any election at this N; and the
   imports ``ringleader run --json`` needs, alone (``python -c "import …"``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _compare import machine, paired, series

#: Issue 22: the whole command at most this many times its election's time.
GOAL = 1.1
#: What ``ringleader run --json`` imports (the command, its run, its report).
IMPORTS = "import ringleader.cli, ringleader.cluster; ringleader.cluster.run"


def write_config(path: Path, n: int) -> Path:
    """The worst case: ids descending round a one-way ring, everyone initiating."""
    ids = ", ".join(f"{{ id = {i} }}" for i in range(n, 0, -1))
    path.write_text(
        'topology = "unidirectional_ring"\nalgorithm = "chang_roberts"\n'
        f'transport = "inproc"\ninitiators = "all"\ntimeout = 900\nnodes = [{ids}]\n',
        encoding="utf-8",
    )
    return path


def default_command() -> list[str]:
    """The ``ringleader`` beside this interpreter, as a user would type it."""
    beside = Path(sys.executable).parent / "ringleader"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("ringleader")
    return [found] if found else [sys.executable, "-m", "ringleader"]


def run_command(command: list[str], config: Path, *extra: str) -> tuple[float, dict]:  # type: ignore[type-arg]
    """One whole command: its wall-clock seconds and its JSON report."""
    began = time.perf_counter()
    done = subprocess.run(
        [*command, "run", str(config), "--json", *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    whole = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"the command failed ({done.returncode}): {done.stderr[-2000:]}")
    return whole, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=1000, metavar="N")
    parser.add_argument("--quick", action="store_true", help="N = 200")
    parser.add_argument("--runs", type=int, default=3, help="runs of each part (≥ 3)")
    parser.add_argument(
        "--command", nargs="+", metavar="ARG", help="the ringleader command to time"
    )
    args = parser.parse_args()
    n = 200 if args.quick else args.nodes
    command = args.command or default_command()
    messages = n * (n + 1) // 2 + n
    print(f"The whole command vs its own election: Chang–Roberts worst case, N = {n}, inproc")
    print(f"command: {' '.join(command)} run CONFIG --json")
    print(f"machine: {machine()}")
    rest: list[tuple[float, float]] = []  # (set-up, everything else) per run
    with tempfile.TemporaryDirectory() as tmp:
        config = write_config(Path(tmp) / "worst.toml", n)

        def worst_case() -> tuple[float, float]:
            whole, report = run_command(command, config)
            total = report["messages"]["total"]
            if total != messages:
                raise SystemExit(f"{total} messages, but the notes give {messages}")
            election, setup = report["elapsed_s"], report["setup_s"]
            rest.append((setup, whole - election - setup))
            return election, whole

        print("\n1. The goal")
        goal = paired(
            f"whole command / its election time, N = {n} ({messages:,} messages)",
            ("election (its report)", "whole command"),
            worst_case,
            runs=args.runs,
            goal=GOAL,
        )
        print("\n2. Where the rest goes (the same runs)")
        for k, (setup, other) in enumerate(rest, 1):
            print(
                f"  run {k}: set-up {setup:.3f} s; start, imports, report, shutdown "
                f"{other:.3f} s; all but the election {setup + other:.3f} s"
            )
        top = str(n)
        print(
            f"\n3. Around any election at N = {n}: the top node alone initiating ({2 * n} messages)"
        )
        series(
            "whole command, leader alone",
            lambda: run_command(command, config, "--initiators", top)[0],
            runs=args.runs,
        )
        python = str(Path(command[0]).parent / "python") if len(command) == 1 else command[0]
        if not Path(python).exists():
            python = sys.executable
        series(
            f"the imports alone: {python} -c '{IMPORTS}'",
            lambda: _whole([python, "-c", IMPORTS]),
            runs=args.runs,
        )
    print(
        f"\nGoal: whole ≤ {GOAL}× election: median {goal.ratio:.3f}× "
        f"(min {min(goal.ratios):.3f}, max {max(goal.ratios):.3f}): "
        + str(goal.verdict)
        + (f" ({goal.noise})" if goal.noise else "")
    )


def _whole(argv: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(argv, check=True)
    return time.perf_counter() - began


if __name__ == "__main__":
    main()
