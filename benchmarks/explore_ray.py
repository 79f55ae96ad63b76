"""``ringleader explore --ray`` against ``--workers`` (local processes) and one worker.

    python benchmarks/explore_ray.py            # Chang–Roberts n = 8, five runs a side
    python benchmarks/explore_ray.py --quick    # n = 5, one run a side (CI)

Starts a Ray cluster of two CPUs on this machine, on loopback only, with its own
temporary directory, ports and token (``tests/ray_cluster.py``, as the tests do),
runs the whole command on Chang–Roberts (every node initiating, ids descending) with one
worker, two worker processes and two Ray actors, sides alternated, and prints each
run's wall time (start to exit) and search time (``elapsed_s``), then each side's median
and spread.  The states must be the same on every side.  Prints the load before and
after; the cluster is killed at the end, however it ends.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script

from tests.ray_cluster import local_ray_cluster

BIN = Path(sys.executable).parent
#: Chang–Roberts, every node initiating, ids descending: its states (docs/explore.md).
STATES = {5: 1_352, 8: 142_081}


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 5, one run a side")
    parser.add_argument("--runs", type=int, default=5, help="runs a side (5)")
    args = parser.parse_args()
    n, runs = (5, 1) if args.quick else (8, args.runs)
    temp = Path(tempfile.mkdtemp(prefix="rl-ray-", dir="/tmp"))  # short: socket paths
    config = temp / "ring.toml"
    nodes = "".join(f"[[nodes]]\nid = {i}\n" for i in range(n, 0, -1))
    config.write_text(f'topology = "unidirectional_ring"\nalgorithm = "chang_roberts"\n{nodes}')
    try:
        with local_ray_cluster(2) as (address, env):
            return _compare(config, temp, n, runs, address=address, env=env)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _compare(
    config: Path, temp: Path, n: int, runs: int, *, address: str, env: dict[str, str]
) -> int:
    """The three sides, alternated, ``runs`` times each: each run, then the medians."""
    sides = {
        "one worker": [],
        "--workers 2": ["--workers", "2"],
        "--ray, 2 actors": ["--ray", address, "--workers", "2"],
    }
    walls: dict[str, list[float]] = {side: [] for side in sides}
    searches: dict[str, list[float]] = {side: [] for side in sides}
    print(f"Chang–Roberts n = {n}, {runs} runs a side, alternated")
    print(f"load before: {_uptime()}", flush=True)
    for run in range(runs):
        order = list(sides) if run % 2 == 0 else list(reversed(sides))
        for side in order:
            started = time.monotonic()
            command = [str(BIN / "ringleader"), "explore", str(config), "--json"]
            done = subprocess.run(
                [*command, "--out", str(temp / "out"), *sides[side]],
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            wall = time.monotonic() - started
            if done.returncode != 0:
                print(f"{side}: exit status {done.returncode}\n{done.stderr}", file=sys.stderr)
                return 1
            summary = json.loads(done.stdout.strip().splitlines()[-1])
            if summary["states"] != STATES[n]:
                print(f"{side}: {summary['states']} states, not {STATES[n]}", file=sys.stderr)
                return 1
            walls[side].append(wall)
            searches[side].append(summary["elapsed_s"])
            print(f"  {run} {side:16} wall {wall:5.2f} s, search {summary['elapsed_s']:5.2f} s")
    print(f"load after: {_uptime()}")
    for side in sides:
        wall, search = walls[side], searches[side]
        print(
            f"{side:16} wall median {statistics.median(wall):.2f} s "
            f"({min(wall):.2f}–{max(wall):.2f}), search median "
            f"{statistics.median(search):.2f} s ({min(search):.2f}–{max(search):.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
