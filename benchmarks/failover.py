"""Failover: kill the leader of a 5-node cluster, again and again; next to Raft.

    pip install -e '.[bench]'            # PySyncObj, for the Raft side
    python benchmarks/failover.py        # 20 kills per mode, suspect_after 0.3 s
    python benchmarks/failover.py --trials 5 --no-raft   # a quick look

For ringleader (Bully on a full mesh, ``heartbeat`` = ``suspect_after`` / 6), in threads
mode and in processes mode, each by both paths (``--paths``): ``fast`` (the default,
``fast_failover = true``: a crashed leader's refused connection is proof of death) and
``heartbeat`` (``fast_failover = false``: suspected after ``suspect_after`` of silence),
one run with a crash schedule kills the leader ``--trials`` times (``crash = "leader"``,
restarted ``--restart-after`` s later, so the top node wins again before the next kill),
and the report's faults give, per kill:

- ``detection``: the crash → the first node suspects the dead leader;
- ``election``: that suspicion → every live node agrees on a live leader (the part of
  the failover that is the election itself; the goal is ≤ 25 ms at N = 5);
- ``total``: the crash → every live node agrees.

The goal of the fast path (issue 14, goal 5): ``total`` ≤ 25 ms (p50, processes mode,
where a crash is a SIGKILL of the leader's process); the line after the table gives
the ratio of that p50 to 25 ms (≤ 1 meets it).

Raft (PySyncObj, 5 nodes in processes of their own on loopback, its minimum election
timeout set to the same ``suspect_after``) is measured in the same run: its ``total``
(SIGKILL of the leader → a majority knows the new leader) and the part ``beyond`` the
shared detection budget ``suspect_after``.  The last line is the ratio of Raft's part
beyond the budget to ours (medians): the goal is ≥ 10.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ringleader
from ringleader.topologies import Overrides


@dataclass(frozen=True)
class Sample:
    detection: list[float]
    election: list[float]
    total: list[float]


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile (0 … 1) by linear interpolation, as numpy's default."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


GOAL = 0.025  # s: fast-path failover, p50, processes mode


def config_text(
    mode: str, trials: int, suspect_after: float, gap: float, restart: float, *, fast: bool = True
) -> str:
    faults = "".join(
        f'\n[[faults]]\nat = {k * gap:.3f}\ncrash = "leader"\nrestart_after = {restart}\n'
        for k in range(trials)
    )
    return (
        f'topology = "full_mesh"\ntransport = "tcp"\nnodes = 5\nmode = "{mode}"\n'
        f"heartbeat = {suspect_after / 6:.4f}\nsuspect_after = {suspect_after}\n"
        f"fast_failover = {'true' if fast else 'false'}\n"
        f"timeout = {trials * gap + 30:.0f}\n{faults}"
    )


def ringleader_failover(
    mode: str,
    trials: int,
    suspect_after: float,
    workdir: Path,
    *,
    restart_after: float,
    fast: bool = True,
) -> Sample:
    gap = restart_after + 2 * suspect_after + 0.3  # room to restart and settle between kills
    path = workdir / f"failover-{mode}-{'fast' if fast else 'heartbeat'}.toml"
    path.write_text(config_text(mode, trials, suspect_after, gap, restart_after, fast=fast))
    report = ringleader.run(ringleader.load_config(path, Overrides()))
    if not report.ok:
        raise SystemExit(f"the {mode} run failed: {report.as_dict()}")
    crashes = [f for f in report.faults if f.action == "crash" and f.failover_s is not None]
    detection = [f.detection_s for f in crashes if f.detection_s is not None]
    if len(detection) != len(crashes) or len(crashes) < trials:
        raise SystemExit(
            f"the {mode} run measured {len(crashes)} of {trials} failovers: {report.faults}"
        )
    total = [f.failover_s for f in crashes if f.failover_s is not None]
    election = [t - d for t, d in zip(total, detection, strict=True)]
    return Sample(detection, election, total)


def row(name: str, values: list[float]) -> str:
    return (
        f"  {name:<11} p50 {percentile(values, 0.5) * 1000:8.1f} ms"
        f"   p95 {percentile(values, 0.95) * 1000:8.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20, help="leader kills per mode")
    parser.add_argument(
        "--suspect-after", type=float, default=0.3, help="the detection budget, s (both sides)"
    )
    parser.add_argument("--restart-after", type=float, default=0.5, help="s until a restart")
    parser.add_argument("--modes", default="threads,processes", help="ringleader modes to run")
    parser.add_argument(
        "--paths",
        default="fast,heartbeat",
        help="fast (fast_failover on: a refused connection is proof of death), heartbeat (off)",
    )
    parser.add_argument("--no-raft", action="store_true", help="skip the PySyncObj side")
    args = parser.parse_args()

    budget = args.suspect_after
    print(f"Failover of a 5-node cluster: {args.trials} leader kills, suspect_after {budget} s")
    ours: dict[str, Sample] = {}
    fast_total: list[float] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.modes.split(","):
            for path in args.paths.split(","):
                fast = path == "fast"
                sample = ringleader_failover(
                    mode,
                    args.trials,
                    budget,
                    Path(tmp),
                    restart_after=args.restart_after,
                    fast=fast,
                )
                if not fast or mode not in ours:
                    ours[mode] = sample  # Raft is compared with the heartbeat path
                if fast and mode == "processes":
                    fast_total = sample.total
                print(f"ringleader, Bully on a full mesh, {mode} mode, {path} path:")
                print(row("detection", sample.detection))
                print(row("election", sample.election))
                print(row("total", sample.total))
    if fast_total is not None:
        ratio = percentile(fast_total, 0.5) / GOAL
        goal = "meets" if ratio <= 1 else "misses"
        print(f"fast path, processes mode: total p50 / 25 ms goal = {ratio:.2f} ({goal} the goal)")
    if args.no_raft:
        return 0
    from _raft import raft_failover

    trials = raft_failover(args.trials, budget)
    raft_total = [t["total_s"] for t in trials]
    raft_beyond = [t["beyond_s"] for t in trials]
    print(f"Raft (PySyncObj), 5 processes, minimum election timeout {budget} s:")
    print(row("total", raft_total))
    print(row("beyond", raft_beyond))
    reference = ours.get("processes") or next(iter(ours.values()))
    ratio = percentile(raft_beyond, 0.5) / percentile(reference.election, 0.5)
    goal = "meets" if ratio >= 10 else "misses"
    print(
        f"Raft's part beyond the detection budget / ringleader's election (p50, "
        f"{'processes' if 'processes' in ours else next(iter(ours))} mode): {ratio:.1f}x "
        f"({goal} the goal of 10x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
