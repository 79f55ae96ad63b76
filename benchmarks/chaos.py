"""Chaos: seeded kills, restarts, pauses, full-cluster restarts and misconfigured
restarts of five ``ringleader node`` processes.

    python benchmarks/chaos.py                    # 60 s per cluster, seed 1
    python benchmarks/chaos.py --duration 20 --seed 7 --clusters bully
    python benchmarks/chaos.py --lease            # also assert: never two is_leader
    python benchmarks/chaos.py --faults "full restart,kill"
    sudo python benchmarks/chaos.py --hosts       # nodes on hosts of their own: link flaps too

The harness is ``tests/chaos.py`` (the CI test runs it for about 16 s per cluster): for
Bully on a full mesh, Chang–Roberts on a ring and Hirschberg–Sinclair on a two-way ring,
it prints the faults injected, the failover after a leader's SIGKILL (fault → every
running node agrees; the refused connection is proof of death, so no ``suspect_after``
wait) and after a pause (SIGSTOP: only silence tells), the epochs with two leaders
(must be 0), the overlaps of two processes reporting ``is_leader`` (0 once the lease is
on), each full restart's epoch before and first lease after (it must grow), the leases
not above the one before (must be 0), the slowest exit on SIGTERM, and the leader
changes each kind of fault cost (a steady leader: one per fault on the leader, none for
a fault elsewhere); and exits 1 if any check failed.  ``--hosts`` (root: network
namespaces) adds a flapping follower link to the faults.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.chaos import CLUSTERS, ChaosSettings, run_chaos, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60.0, help="s of faults per cluster")
    parser.add_argument("--seed", type=int, default=1, help="the random faults' seed")
    parser.add_argument("--clusters", default=",".join(CLUSTERS), help="which clusters")
    parser.add_argument("--lease", action="store_true", help="assert never two is_leader")
    parser.add_argument(
        "--no-fast-path", action="store_true", help="fast_failover = false: silence only"
    )
    parser.add_argument(
        "--faults",
        default=",".join(ChaosSettings.faults),
        help="the faults drawn from, comma-separated (flap: with --hosts)",
    )
    parser.add_argument(
        "--hosts", action="store_true", help="each node on a host of its own (root): flaps too"
    )
    parser.add_argument("--quorum", choices=["on", "off"], default="on")
    args = parser.parse_args()
    failed = False
    for cluster in args.clusters.split(","):
        settings = ChaosSettings(
            cluster=cluster,
            seed=args.seed,
            duration=args.duration,
            lease=args.lease,
            fast_failover=not args.no_fast_path,
            faults=tuple(args.faults.split(",")) + (("flap",) if args.hosts else ()),
            hosts=args.hosts,
            quorum=args.quorum == "on",
        )
        with tempfile.TemporaryDirectory() as tmp:
            result = run_chaos(settings, Path(tmp))
        print(summary(result), flush=True)
        for failure in result.failures():
            failed = True
            print(f"  FAILED: {failure}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
