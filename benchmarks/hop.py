"""Per-hop cost of ringleader's message path against bare pyzmq.

    python benchmarks/hop.py                       # the goals, 5 alternating runs each
    python benchmarks/hop.py --quick --cpus one    # CI's smoke test (3 runs, fewer hops)

One hop is a frame going actor → transport → actor: sealed (compact payload, keyed
BLAKE2b tag), pushed, received by the other node's actor in one ``recv``, checked
(signature, addressing, replay) and decoded, handed to a sans-IO token-passing probe,
whose answer goes back the same way (``ringleader.run`` of a 2-node ring, election time
per hop, set-up excluded).  The bare side is two threads, each a PULL bound and a PUSH
to the other, passing a 160-byte frame back and forth.  The sides alternate (bare,
ringleader, bare …) and each runs ``--runs`` times: the ratio printed is the median of
the per-round ratios, with its spread and the machine's load before and after
(``_compare.py``).

Goals (issue 22):

- one hop over tcp ≤ 2 × the bare pyzmq hop over tcp, on one CPU;
- one hop over inproc ≤ 2 × the bare pyzmq hop over inproc, on one CPU.

``--cpus all`` runs them with the process free to use every CPU too (``both``: first
all, then one); on one CPU the GIL is handed between threads without crossing cores.
Without ``--quick`` it also prints, for information, the cost of CURVE and of the
memory transport, and whether the cost per hop stays flat from N = 10 to 1000 nodes.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _compare import Calibration, Comparison, Side, compare
from _probes import token_ring

import ringleader
from ringleader.topologies import NodeSpec, Overrides, make_keys

#: Issue 22: one hop at most twice the bare pyzmq hop, over tcp and over inproc.
GOALS = {"tcp": 2.0, "inproc": 2.0}
#: The bare side's frame: about what a ringleader frame of the token probe weighs.
FRAME_SIZE = 160


def bare_pingpong(hops: int, scheme: str = "tcp", size: int = FRAME_SIZE) -> float:
    """Seconds per hop: two threads, each a PULL bound and a PUSH to the other."""
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    a_in, b_in = ctx.socket(zmq.PULL), ctx.socket(zmq.PULL)
    if scheme == "tcp":
        a_at = f"tcp://127.0.0.1:{a_in.bind_to_random_port('tcp://127.0.0.1')}"
        b_at = f"tcp://127.0.0.1:{b_in.bind_to_random_port('tcp://127.0.0.1')}"
    else:
        a_at, b_at = f"inproc://hop-a-{id(ctx)}", f"inproc://hop-b-{id(ctx)}"
        a_in.bind(a_at)
        b_in.bind(b_at)
    a_out, b_out = ctx.socket(zmq.PUSH), ctx.socket(zmq.PUSH)
    a_out.connect(b_at)
    b_out.connect(a_at)
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


def token_hop(n: int, hops: int, transport: str, keys: Path | None = None) -> float:
    """Seconds per hop of a token round an n-node ring (CURVE too with ``keys``)."""
    config = ring_config(n, transport).replace(initiators=(1,))
    if keys is not None:
        config = config.replace(security="curve", keys=keys)
    report = ringleader.run(config, algorithm=token_ring(hops, n))
    assert report.ok and report.total == hops, report.problems
    assert report.elapsed_s is not None
    return report.elapsed_s / hops


def micro(per_hop: float) -> float:
    return per_hop * 1e6


def bare_us(hops: int, scheme: str) -> float:
    return micro(bare_pingpong(hops, scheme))


def ours_us(hops: int, scheme: str, keys: Path | None = None) -> float:
    return micro(token_hop(2, hops, scheme, keys))


def goals(hops: int, runs: int, cpus: str) -> list[Comparison]:
    results = []
    for scheme, goal in GOALS.items():
        results.append(
            compare(
                f"one hop, {scheme}, {cpus} ({hops} hops a run)",
                [
                    Side(f"bare pyzmq, {scheme}", lambda s=scheme: bare_us(hops, s), "µs"),
                    Side(f"ringleader, {scheme}", lambda s=scheme: ours_us(hops, s), "µs"),
                ],
                runs=runs,
                goal=goal,
                warmup=True,
                # The same bare hop, a tenth of the hops a run: µs per hop, as predicted.
                calibration=Calibration(
                    f"bare pyzmq, {scheme}, {max(2, hops // 10)} hops",
                    functools.partial(bare_us, max(2, hops // 10), scheme),
                    1.0,
                    unit="µs",
                ),
            )
        )
    return results


def costs(hops: int, runs: int, cpus: str) -> None:
    """For information: CURVE's cost over tcp, the memory transport against inproc."""
    with tempfile.TemporaryDirectory() as tmp:
        make_keys(Path(tmp), [1, 2])
        compare(
            f"cost of CURVE, tcp, {cpus}",
            [
                Side("ringleader, tcp", lambda: ours_us(hops, "tcp"), "µs"),
                Side("ringleader, tcp + CURVE", lambda: ours_us(hops, "tcp", Path(tmp)), "µs"),
            ],
            runs=runs,
        )
    compare(
        f"memory transport against inproc, {cpus}",
        [
            Side("ringleader, inproc", lambda: ours_us(hops, "inproc"), "µs"),
            Side("ringleader, memory", lambda: ours_us(hops, "memory"), "µs"),
        ],
        runs=runs,
    )


def flatness(sizes: list[int], laps: int) -> None:
    """The cost per hop should not grow with the number of nodes in the process."""
    base = None
    for n in sizes:
        per_hop = token_hop(n, n * laps, "inproc")
        base = base or per_hop
        print(
            f"  token ring, inproc, N = {n:5d}  {micro(per_hop):7.1f} µs/hop  "
            f"×{per_hop / base:.2f} of N = {sizes[0]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer hops and runs: a smoke test")
    parser.add_argument("--cpus", choices=["both", "all", "one"], default="one")
    parser.add_argument("--runs", type=int, default=None, help="runs of each side (≥ 3 to claim)")
    parser.add_argument("--hops", type=int, default=None, help="hops per run")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    hops = args.hops or (2000 if args.quick else 20000)
    runs = args.runs or (3 if args.quick else 5)
    modes = ["all", "one"] if args.cpus == "both" else [args.cpus]
    everything = os.sched_getaffinity(0)
    results: list[Comparison] = []
    for mode in modes:
        os.sched_setaffinity(0, everything if mode == "all" else {min(everything)})
        cpus = f"{len(os.sched_getaffinity(0))} CPU(s)"
        print(f"== {cpus} ==")
        results += goals(hops, runs, cpus)
        if not args.quick:
            costs(hops, runs, cpus)
            print("flatness (token ring, 10 laps)")
            flatness([10, 100, 1000], 10)
        sys.stdout.flush()
    os.sched_setaffinity(0, everything)
    if args.json is not None:
        args.json.write_text(json.dumps([r.as_dict() for r in results], indent=2) + "\n")


if __name__ == "__main__":
    main()
