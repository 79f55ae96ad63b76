"""The Chang–Roberts worst case, as a user runs it, against a bare pyzmq token ring.

    python benchmarks/ring.py                    # N = 1000, inproc and tcp, 3 runs each
    python benchmarks/ring.py --quick --repeat 1 # N = 100, CI's smoke test

The ringleader side is the whole command a user types, ``ringleader run CONFIG --json``,
of the worst case (a one-way ring, ids descending, every node initiating: n(n+1)/2 + n
messages, each sealed, signed, checked and decoded; every count is checked exact from
its JSON report).  Two figures come from each of its runs: the **election** time of its
report (from the first start to the last decision: the message path alone, which is
what the per-hop goals are about), and the wall time of the **whole command** (start-up,
set-up, report and shutdown too).

The bare side, in this process pinned to one CPU as ``ringleader run`` pins itself: N
threads, each a PULL socket and a PUSH to the next, passing one token round the ring for
exactly as many hops.  The sides alternate (bare, ringleader, bare …), ``--repeat``
runs each (3 by default, ≥ 3 for a claim); each ratio is the median of the per-round
ratios, printed with its min–max and the load before and after (``_compare.py``).

The calibration (``_compare.py``): the same bare ring with a twentieth of the hops, the
fastest of three at the start and three at the end, predicts the bare side; a bare side
far slower than that (the machine got busy), ends that disagree, a CPU loop that gets
less than 80 % of a CPU, or (at N = 1000) a calibration far slower than the quiet record
``QUIET_US_PER_HOP`` make the verdict **noisy**, never met.  The last is there because the
bare ring at N = 1000 can be slow all through a run (17 µs a hop on 2026-11-28 against
7 µs on a quiet run; 8.5 µs at N = 100 the same day): its own calibration then predicts
it, and a ratio over it flatters.

Goals (issue 22): election over inproc ≤ 1.5 × the bare ring over inproc; over tcp
≤ 2 × the bare ring over tcp.  The whole command's ratio is printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _compare import Calibration, Comparison, Side, compare, load
from hop import ring_config

from ringleader.transport import ensure_open_files

GOALS = {"inproc": 1.5, "tcp": 2.0}
#: µs a hop of the bare ring at N = 1000, pinned to one CPU, on a quiet machine of this
#: kind: the fastest on record (inproc: 3.53 s for 501,500 hops, as issue 28 measured it,
#: and 3.4 s in the machine's baselines; tcp: 18.46 s, benchmarks/all.py of 2026-11-28).
#: A calibration far slower than this makes the verdict noisy (``_compare.py``).
QUIET_US_PER_HOP = {"inproc": 7.0, "tcp": 36.8}
#: The calibration: the same bare ring, this many times fewer hops (at least MIN_SHORT).
SHORT = 20
MIN_SHORT = 2_000
#: The command as a user types it: the console script next to this Python.
RINGLEADER = str(Path(sys.executable).with_name("ringleader"))


def bare_ring(n: int, hops: int, scheme: str) -> float:
    """Seconds for one token to make ``hops`` hops round ``n`` threads (PULL in, PUSH on)."""
    if scheme == "tcp":
        ensure_open_files(4 * n + 64, what=f"a bare {n}-thread tcp ring")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context(io_threads=1)
    ctx.set(zmq.MAX_SOCKETS, 2 * n + 64)
    pulls = [ctx.socket(zmq.PULL) for _ in range(n)]
    addresses = []
    for k, sock in enumerate(pulls):
        if scheme == "tcp":
            port = sock.bind_to_random_port("tcp://127.0.0.1")
            addresses.append(f"tcp://127.0.0.1:{port}")
        else:
            addresses.append(f"inproc://bare-{id(ctx)}-{k}")
            sock.bind(addresses[-1])
    pushes = [ctx.socket(zmq.PUSH) for _ in range(n)]
    for k, sock in enumerate(pushes):
        sock.connect(addresses[(k + 1) % n])
    done = threading.Event()
    ended: list[float] = []

    def node(k: int) -> None:
        pull, push = pulls[k], pushes[k]
        while True:
            count = int(pull.recv())
            if count < 0:  # the stop, passed on round to the node that sent it
                push.send(b"-1")
                return
            if count == hops:
                ended.append(time.perf_counter())
                done.set()
                push.send(b"-1")
                pull.recv()  # the stop, back round the ring
                return
            push.send(b"%d" % (count + 1))

    threads = [threading.Thread(target=node, args=(k,), daemon=True) for k in range(n)]
    for thread in threads:
        thread.start()
    for sock in pushes:  # every link connected before the clock starts
        sock.poll(10_000, zmq.POLLOUT)
    began = time.perf_counter()
    pushes[-1].send(b"1")  # into node 0: the first hop
    done.wait()
    for thread in threads:
        thread.join(30)
    for sock in (*pulls, *pushes):
        sock.close(linger=0)
    ctx.term()
    return ended[0] - began


class WholeRun:
    """``ringleader run CONFIG --json`` of the worst case: each call returns the
    election time of its report and keeps the whole command's wall time."""

    def __init__(self, config_file: Path, n: int) -> None:
        self.argv = [RINGLEADER, "run", str(config_file), "--json"]
        self.messages = n * (n + 1) // 2 + n
        self.whole: list[float] = []

    def __call__(self) -> float:
        began = time.perf_counter()
        done = subprocess.run(self.argv, capture_output=True, text=True, check=False)
        self.whole.append(time.perf_counter() - began)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(self.argv)} failed:\n{done.stdout}{done.stderr}")
        report = json.loads(done.stdout)
        total = report["messages"]["total"]
        assert report["agreed"] and total == self.messages, (total, self.messages)
        return float(report["elapsed_s"])


def one_transport(n: int, scheme: str, runs: int, folder: Path) -> list[Comparison]:
    hops = n * (n + 1) // 2 + n
    short = min(hops, max(hops // SHORT, MIN_SHORT))
    config_file = folder / f"worst-case-{scheme}-{n}.toml"
    config_file.write_text(ring_config(n, scheme, descending=True).to_toml())
    ours = WholeRun(config_file, n)
    election = compare(
        f"Chang–Roberts worst case, N = {n}, {scheme}: {hops:,} hops (election time)",
        [
            Side(f"bare token ring, {scheme}", lambda: bare_ring(n, hops, scheme)),
            Side("ringleader run: election", ours),
        ],
        runs=runs,
        goal=GOALS[scheme],
        calibration=Calibration(
            f"bare token ring, {scheme}, {short:,} hops",
            lambda: bare_ring(n, short, scheme),
            hops / short,
            quiet=QUIET_US_PER_HOP[scheme] * short / 1e6 if n == 1000 else None,
        ),
    )
    bare = election.values[election.sides[0].name]
    per_hop = [v / hops * 1e6 for v in (min(bare), min(election.values[election.sides[1].name]))]
    print(f"  per hop (fastest runs): bare {per_hop[0]:.1f} µs, ringleader {per_hop[1]:.1f} µs")
    whole = Comparison(
        f"the same, {scheme}: the whole `ringleader run` command",
        [election.sides[0], Side("ringleader run: whole command", ours)],
        None,
        {election.sides[0].name: bare, "ringleader run: whole command": ours.whole},
        election.load_before,
        load(),
        election.calibrated,
    )
    for line in whole.lines():
        print(line)
    return [election, whole]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=1000, metavar="N")
    parser.add_argument("--quick", action="store_true", help="N = 100")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (≥ 3 for a claim)")
    parser.add_argument("--transport", choices=["inproc", "tcp", "both"], default="both")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    n = 100 if args.quick else args.nodes
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    schemes = ["inproc", "tcp"] if args.transport == "both" else [args.transport]
    results: list[Comparison] = []
    with tempfile.TemporaryDirectory() as tmp:
        for scheme in schemes:
            results += one_transport(n, scheme, args.repeat, Path(tmp))
            sys.stdout.flush()
    if args.json is not None:
        args.json.write_text(json.dumps([r.as_dict() for r in results], indent=2) + "\n")


if __name__ == "__main__":
    main()
