"""Many ``ringleader node`` processes on one machine (issue 20, goal 4).

    python benchmarks/scale_nodes.py                 # 50 nodes, default settings, 30 s quiet
    python benchmarks/scale_nodes.py --nodes 10 --quiet 5        # a smoke run
    python benchmarks/scale_nodes.py --set quorum=true --set heartbeat=0.2

Starts N ``ringleader node CONFIG --id K --json`` processes at once (Bully on a full
mesh over tcp on loopback, the default detector settings unless ``--set`` says
otherwise), then prints:

- how long after the last node said ``ready`` every node named one leader in one epoch
  (and that leader held its lease, when there is one);
- the leadership changes in the next ``--quiet`` seconds, in which nothing is done to the
  cluster (``lost`` lines, and changes of the leader any node names);
- each process's resident memory (median, max; and the sum), its threads, and the CPU the
  whole cluster used at rest (cores busy);
- the detector's frames per node and second at rest (``ping`` + ``pong`` sent, from the
  nodes' status): O(1) per node when it grows with n, O(n) when with n².

Goals at N = 50 on a 2-core machine: agreement within 5 s of the last start, no change in
30 s of quiet, at most 40 MB resident per node.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.nodes import NodeProcess, write_config

GOAL_AGREE_S = 5.0
GOAL_RSS_MB = 40.0
TICK = os.sysconf("SC_CLK_TCK")


def _proc(pid: int) -> tuple[float, float, int]:
    """(resident MB, CPU seconds, threads) of process ``pid``."""
    rss = 0.0
    threads = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
        elif line.startswith("Threads:"):
            threads = int(line.split()[1])
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK
    return rss, cpu, threads


def import_footprint() -> float:
    """Resident MB of a fresh interpreter that imports what ``ringleader node`` imports
    (and nothing else): the part of a node's memory that is its code, not its run."""
    code = (
        "import re, ringleader.cli._main\n"
        "print(re.search(r'VmRSS:\\s+(\\d+)', open('/proc/self/status').read())[1])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1]) / 1024


def _agreed(nodes: dict[int, NodeProcess], lease: bool) -> tuple[int, int] | None:
    views = {p.leader() for p in nodes.values()}
    if len(views) != 1:
        return None
    view = views.pop()
    if view is None or view[0] is None:
        return None
    if lease:
        leader = nodes[view[0]]
        leased = [e for e in leader.drain() if e["event"] in ("lease", "lost", "leader")]
        if not leased or leased[-1]["event"] != "lease":
            return None
    return view  # type: ignore[return-value]


def _detector_frames(config_path: Path, timeout: float = 20.0) -> dict[int, int]:
    """Each node's ping + pong frames sent so far (asked with ``ringleader status``)."""
    from ringleader.service import ask_status
    from ringleader.topologies import load_config

    config = load_config(config_path)
    answers = ask_status(config, timeout=timeout)
    return {
        n: sum(v for k, v in s.sent.items() if k in ("ping", "pong"))
        for n, s in answers.items()
        if s is not None
    }


def run(n: int, quiet: float, settings: list[str], workdir: Path) -> dict[str, object]:
    body = 'topology = "full_mesh"\nalgorithm = "bully"\n' + "".join(f"{s}\n" for s in settings)
    config = write_config(workdir / "many.toml", body, list(range(1, n + 1)))
    lease = "lease=0" not in [s.replace(" ", "") for s in settings]
    nodes: dict[int, NodeProcess] = {}
    try:
        launched = time.monotonic()
        for k in range(1, n + 1):
            nodes[k] = NodeProcess(config, k)
        last_launch = time.monotonic()
        readies = [
            p.wait_for(lambda e: e["event"] == "ready", 180.0)["mono"] for p in nodes.values()
        ]
        last_ready = max(readies)
        agreed_at = None
        view = None
        deadline = time.monotonic() + 120.0
        while time.monotonic() < deadline:
            view = _agreed(nodes, lease)
            if view is not None:
                agreed_at = time.monotonic()
                break
            time.sleep(0.02)
        result: dict[str, object] = {
            "n": n,
            "settings": settings,
            "launch_s": round(last_launch - launched, 2),
            "all_ready_s": round(last_ready - launched, 2),
            "agreed_after_last_ready_s": None
            if agreed_at is None
            else round(agreed_at - last_ready, 2),
            "leader": view,
        }
        if agreed_at is None:
            views: dict[object, int] = {}
            for p in nodes.values():
                views[str(p.leader())] = views.get(str(p.leader()), 0) + 1
            result["views"] = views
        # The quiet spell: nothing is done to the cluster.
        frames_before = _detector_frames(config)
        quiet_from = time.monotonic()
        cpu_before = sum(_proc(p.process.pid)[1] for p in nodes.values())
        time.sleep(quiet)
        cpu_after = sum(_proc(p.process.pid)[1] for p in nodes.values())
        quiet_until = time.monotonic()
        frames_after = _detector_frames(config)
        lost = leader_changes = 0
        reasons: list[str] = []
        for p in nodes.values():
            events = [e for e in p.drain() if quiet_from <= e["mono"] <= quiet_until]
            lost += sum(1 for e in events if e["event"] == "lost")
            reasons += [f"{e['node']}: {e['reason']}" for e in events if e["event"] == "lost"]
            leader_changes += sum(1 for e in events if e["event"] == "leader")
        figures = [_proc(p.process.pid) for p in nodes.values()]
        rss = [f[0] for f in figures]
        per_node = [
            (frames_after[k] - frames_before[k]) / (quiet_until - quiet_from)
            for k in frames_after
            if k in frames_before
        ]
        result.update(
            {
                "quiet_s": quiet,
                "lost_in_quiet": lost,
                "lost_why": reasons,
                "leader_lines_in_quiet": leader_changes,
                "rss_mb_median": round(statistics.median(rss), 1),
                "rss_mb_max": round(max(rss), 1),
                "rss_mb_total": round(sum(rss)),
                "of_which_imports_mb": round(import_footprint(), 1),
                "threads": sorted({f[2] for f in figures}),
                "cores_busy_at_rest": round(
                    (cpu_after - cpu_before) / (quiet_until - quiet_from), 2
                ),
                "detector_frames_per_node_s_median": round(statistics.median(per_node), 1)
                if per_node
                else None,
                "detector_frames_per_node_s_max": round(max(per_node), 1) if per_node else None,
            }
        )
        return result
    finally:
        for process in nodes.values():
            process.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--quiet", type=float, default=30.0, help="s of quiet after agreement")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a config line"
    )
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.nodes, args.quiet, args.set, Path(tmp))
    print(json.dumps(result), flush=True)
    agreed = result["agreed_after_last_ready_s"]
    print(
        f"{result['n']} nodes: agreement {agreed} s after the last ready "
        f"(goal ≤ {GOAL_AGREE_S:g}), "
        f"{result.get('lost_in_quiet')} leadership losses in {args.quiet:g} s of quiet (goal 0), "
        f"{result.get('rss_mb_median')} MB resident per node, max {result.get('rss_mb_max')} "
        f"(goal ≤ {GOAL_RSS_MB:g}; {result.get('of_which_imports_mb')} MB of it the imports), "
        f"{result.get('cores_busy_at_rest')} cores busy at rest, "
        f"{result.get('detector_frames_per_node_s_median')} detector frames per node and second"
    )
    print(f"load after: {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
