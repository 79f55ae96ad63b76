"""Goal 2: the Chang–Roberts worst case against a bare pyzmq token ring of as many hops.

    python benchmarks/ring.py             # N = 1000: 501,500 messages each way, minutes
    python benchmarks/ring.py --quick     # N = 100, for a smoke test

Ids descending round a one-way ring, everyone initiating: n(n+1)/2 + n messages, each
sealed, signed, checked and unpickled (``ringleader.run``, one process).  Against it, in
the same run: N bare threads, each a PULL socket and a PUSH to the next, passing one
token round the ring for exactly as many hops.  Both over inproc and over tcp; the
process pinned to one CPU, as ``ringleader run`` pins it (one CPU hands the GIL between
threads without crossing cores).  The kinds alternate (bare, ringleader, bare …) so that
a machine that gets busier slows both alike; the best of each is compared.

Goals (issue 14): inproc ≤ 1.5 × bare, tcp ≤ 2 × bare.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hop import ring_config

import ringleader
from ringleader.transport import ensure_open_files

GOALS = {"inproc": 1.5, "tcp": 2.0}


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


def chang_roberts(n: int, scheme: str) -> float:
    report = ringleader.run(ring_config(n, scheme, descending=True))
    assert report.ok and report.elapsed_s is not None, report.problems
    assert report.total == n * (n + 1) // 2 + n, report.total  # every count exact
    return report.elapsed_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=1000, metavar="N")
    parser.add_argument("--quick", action="store_true", help="N = 100")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each kind")
    parser.add_argument("--transport", choices=["inproc", "tcp", "both"], default="both")
    args = parser.parse_args()
    n = 100 if args.quick else args.nodes
    hops = n * (n + 1) // 2 + n
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    schemes = ["inproc", "tcp"] if args.transport == "both" else [args.transport]
    print(f"Chang–Roberts worst case, N = {n}: {hops:,} messages; bare ring: {hops:,} hops")
    print(
        "| transport | bare pyzmq token ring | ringleader election | per hop (bare / ours) "
        "| **ratio** | goal |"
    )
    print("|---|---|---|---|---|---|")
    for scheme in schemes:
        bare: list[float] = []
        ours: list[float] = []
        for _ in range(args.repeat):
            bare.append(bare_ring(n, hops, scheme))
            ours.append(chang_roberts(n, scheme))
        b, o = min(bare), min(ours)
        met = "met" if o / b <= GOALS[scheme] else "not met"
        print(
            f"| {scheme} | {b:.2f} s | {o:.2f} s | {b / hops * 1e6:.1f} / {o / hops * 1e6:.1f} µs "
            f"| **{o / b:.2f}** | ≤ {GOALS[scheme]} ({met}) |"
        )
        sys.stdout.flush()
    print(f"(best of {args.repeat} each, one CPU)")


if __name__ == "__main__":
    main()
