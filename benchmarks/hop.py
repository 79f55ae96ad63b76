"""Per-hop cost of ringleader's message path against bare pyzmq, and large rings.

    python benchmarks/hop.py            # the full run (a few minutes)
    python benchmarks/hop.py --quick    # smaller counts, for a smoke test

All figures come from this one run, side by side, so their ratios mean something on a
shared, noisy machine.  Three parts:

1. One hop, tcp: a bare pyzmq PUSH/PULL ping-pong between two threads, against a
   ringleader frame going actor → transport → actor (sealed, signed, verified,
   unpickled, handled by a sans-IO probe).  Goal (issue 14): ratio ≤ 2, on one CPU and
   on two.  Also with
   ``security = "curve"`` (CURVE encryption and key checks under the HMAC).
2. Flatness: a token round a ring of N actors in one process, N = 10, 100, 1000;
   per-hop cost should not grow with N (one epoll reactor for every mailbox).
3. Chang–Roberts worst case (ids descending, everyone initiating) at N = 100, 300,
   1000 in one process: messages and messages per second (``benchmarks/ring.py``
   compares it with a bare pyzmq token ring: goal 2).

Each part runs twice: with the process free to use every CPU, and pinned to one CPU,
where the GIL is handed between threads without crossing cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _probes import token_ring

import ringleader
from ringleader.topologies import NodeSpec, Overrides, make_keys

#: Issue 14, goal 1: one hop over tcp at most twice the bare pyzmq hop.
GOAL = 2.0


def bare_pingpong(hops: int, size: int) -> float:
    """Seconds per hop: two threads, each a PULL bound and a PUSH to the other, over tcp."""
    ctx = zmq.Context()
    a_in, b_in = ctx.socket(zmq.PULL), ctx.socket(zmq.PULL)
    a_port = a_in.bind_to_random_port("tcp://127.0.0.1")
    b_port = b_in.bind_to_random_port("tcp://127.0.0.1")
    a_out, b_out = ctx.socket(zmq.PUSH), ctx.socket(zmq.PUSH)
    a_out.connect(f"tcp://127.0.0.1:{b_port}")
    b_out.connect(f"tcp://127.0.0.1:{a_port}")
    payload = b"x" * size
    rounds = hops // 2

    def echo() -> None:
        for _ in range(rounds):
            b_out.send(b_in.recv())

    # warm the connections up
    a_out.send(payload)
    b_out.send(b_in.recv())
    a_in.recv()
    thread = threading.Thread(target=echo)
    thread.start()
    began = time.perf_counter()
    for _ in range(rounds):
        a_out.send(payload)
        a_in.recv()
    elapsed = time.perf_counter() - began
    thread.join()
    for s in (a_in, b_in, a_out, b_out):
        s.close(linger=0)
    ctx.term()
    return elapsed / (2 * rounds)


def ring_config(n: int, transport: str, descending: bool = False) -> ringleader.Config:
    config = ringleader.load_config(None, Overrides(nodes=n, transport=transport, timeout=900))
    if descending:
        config = config.replace(nodes=tuple(NodeSpec(i, i) for i in range(n, 0, -1)))
    return config


def token_hop(n: int, hops: int, transport: str, keys: Path | None = None) -> tuple[float, int]:
    """Seconds per hop of a token round an n-node ring (CURVE too with ``keys``)."""
    config = ring_config(n, transport).replace(initiators=(1,))
    if keys is not None:
        config = config.replace(security="curve", keys=keys)
    report = ringleader.run(config, algorithm=token_ring(hops, n))
    assert report.ok and report.total == hops, report.problems
    assert report.elapsed_s is not None
    return report.elapsed_s / hops, n


def part_one(hops: int, repeats: int) -> None:
    bare = [bare_pingpong(hops, 160) for _ in range(repeats)]
    ours = [token_hop(2, hops, "tcp")[0] for _ in range(repeats)]
    memory = [token_hop(2, hops, "memory")[0] for _ in range(repeats)]
    inproc = [token_hop(2, hops, "inproc")[0] for _ in range(repeats)]
    with tempfile.TemporaryDirectory() as tmp:
        make_keys(Path(tmp), [1, 2])
        curve = [token_hop(2, hops, "tcp", Path(tmp))[0] for _ in range(repeats)]
    b, o, m, c, i = min(bare), min(ours), min(memory), min(curve), min(inproc)
    median = statistics.median
    rows = [
        ("bare pyzmq ping-pong, tcp", b, median(bare)),
        ("ringleader actor→actor, tcp", o, median(ours)),
        ("ringleader, tcp + CURVE", c, median(curve)),
        ("ringleader, memory transport", m, median(memory)),
        ("ringleader, inproc", i, median(inproc)),
    ]
    for label, fastest, mid in rows:
        print(f"  {label:32s} {fastest * 1e6:7.1f} µs/hop  (median {mid * 1e6:.1f})")
    met = "met" if o / b <= GOAL else "not met"
    print(f"  ratio ringleader / bare, tcp     {o / b:7.2f}   (goal ≤ {GOAL:g}: {met})")
    print(
        f"  cost of CURVE: with / without    {c / o:7.2f}   "
        f"(medians: {median(curve) / median(ours):.2f})"
    )


def part_two(sizes: list[int], laps: int) -> None:
    base = None
    for n in sizes:
        per_hop, _ = token_hop(n, n * laps, "inproc")
        base = base or per_hop
        print(
            f"  token ring, inproc, N = {n:5d}  {per_hop * 1e6:7.1f} µs/hop  "
            f"×{per_hop / base:.2f} of N = {sizes[0]}"
        )


def part_three(sizes: list[int]) -> None:
    for n in sizes:
        report = ringleader.run(ring_config(n, "tcp", descending=True))
        assert report.ok, report.problems
        assert report.total == n * (n + 1) // 2 + n
        assert report.elapsed_s is not None
        print(
            f"  Chang–Roberts worst case, tcp, N = {n:5d}: {report.total:7d} messages in "
            f"{report.elapsed_s:6.2f} s = {report.total / report.elapsed_s:8.0f} msg/s "
            f"(set-up {report.setup_s:.2f} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    parser.add_argument("--cpus", choices=["both", "all", "one"], default="both")
    args = parser.parse_args()
    hops, repeats = (2000, 3) if args.quick else (20000, 5)
    laps_sizes = [10, 100] if args.quick else [10, 100, 1000]
    cr_sizes = [50, 100] if args.quick else [100, 300, 1000]
    modes = ["all", "one"] if args.cpus == "both" else [args.cpus]
    everything = os.sched_getaffinity(0)
    for mode in modes:
        os.sched_setaffinity(0, everything if mode == "all" else {min(everything)})
        print(f"== {len(os.sched_getaffinity(0))} CPU(s) ==")
        print("1. one hop")
        part_one(hops, repeats)
        print("2. flatness (token ring, 10 laps)")
        part_two(laps_sizes, 10)
        print("3. large rings")
        part_three(cr_sizes)
    os.sched_setaffinity(0, everything)


if __name__ == "__main__":
    main()
