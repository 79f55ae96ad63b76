"""Message complexity of every algorithm, n = 8 … 1024, next to the notes' formula.

    python benchmarks/sweep.py            # n = 8 … 1024 (several minutes)
    python benchmarks/sweep.py --max 64   # a quick look
    python benchmarks/sweep.py --plot sweep.png   # the counts as a log–log picture
    python benchmarks/sweep.py --algorithm hirschberg_sinclair --max 131072 --real-limit 0
                                          # HS simulated up to 131,072 nodes (~30 s)

For each algorithm on its default topology, in its worst-case arrangement where the notes
give one (for Hirschberg–Sinclair, whose notes give only a bound, a hard case: ids in
bit-reversal order round the ring, which keeps many candidates in every phase, so the
count grows as n log n, under the notes' bound 8n(log₂ n + 2) + 5n; ids descending would
give about 10n.  It is not the most any order sends: at n = 8 the notes' eight of
examples/two_way_ring.toml send one more; docs/algorithms/hirschberg-sinclair.md):

- ``messages``: counted by the deterministic simulator (the very algorithm classes the
  actors host, no threads), so every n up to 1024 is affordable;
- ``notes``: the notes' formula for that n (``=`` exact, ``≤`` a bound);
- ``time``: a real run (Pykka actors, signed frames, ZeroMQ inproc, one CPU) while the
  count stays under ``--real-limit`` messages; its count must equal the simulator's
  where the notes' count is exact.  Bully's timeout T is raised with the message count:
  Bully assumes every answer arrives within T, and on one CPU a message can wait behind
  all the others.

``--plot FILE.png`` skips the real runs and draws the counts on log–log axes: each
algorithm's measured worst cases as points, the notes' formula as a line (dashed: a
bound).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from dataclasses import dataclass

import ringleader
from ringleader.actors import ALGORITHMS, Bound, simulate
from ringleader.topologies import TOPOLOGIES, Config, NodeSpec, Overrides, Wiring


def bit_reversal(n: int) -> list[int]:
    """Ids 1..n (n a power of two) round the ring in bit-reversal order: position i holds
    1 + i with its bits reversed.  Every stretch of 2^r neighbours then holds a local
    maximum, so each Hirschberg–Sinclair phase keeps as many candidates as it can: the
    count grows as n log n (ids descending keep one candidate after phase 0: about 10n)."""
    bits = max(1, n.bit_length() - 1)
    if 1 << bits != n:
        raise ValueError(f"bit-reversal order needs a power of two, not {n}")
    return [int(format(i, f"0{bits}b")[::-1], 2) + 1 for i in range(n)]


@dataclass(frozen=True)
class Case:
    algorithm: str
    topology: str
    arrangement: str  # how the worst (or, for Hirschberg–Sinclair, a hard) case is built

    def nodes(self, n: int) -> list[NodeSpec]:
        if self.arrangement.startswith("ids descending"):
            return [NodeSpec(i, i) for i in range(n, 0, -1)]
        if self.arrangement.startswith("ids in bit-reversal order"):
            return [NodeSpec(i, i) for i in bit_reversal(n)]
        return [NodeSpec(i, i) for i in range(1, n + 1)]

    def edges(self, n: int) -> list[tuple[int, int]] | None:
        rng = random.Random(n)
        if self.topology == "spanning_tree":
            return [(rng.randrange(1, k), k) for k in range(2, n + 1)]
        if self.topology == "graph":  # a random tree plus n more edges: M ≈ 4n
            edges = {(rng.randrange(1, k), k) for k in range(2, n + 1)}
            while len(edges) < 2 * n - 1:
                a, b = sorted(rng.sample(range(1, n + 1), 2))
                if (a, b) not in edges and (b, a) not in edges:
                    edges.add((a, b))
            return sorted(edges)
        return None

    def initiators(self, n: int) -> list[int]:
        if "everyone" in self.arrangement:
            return [s.id for s in self.nodes(n)]
        if "lowest" in self.arrangement:
            return [1]
        return [n // 2]  # a node in the middle of the tree or graph

    def wiring(self, n: int) -> Wiring:
        return TOPOLOGIES[self.topology].build(self.nodes(n), self.edges(n))

    def config(self, n: int, messages: int) -> Config:
        base = ringleader.load_config(None, Overrides(transport="inproc", timeout=600))
        # Bully assumes a synchronous system: T must exceed every delay, and on one CPU
        # a message may wait behind all the others (about 0.5 ms each).
        t = max(0.5, messages * 0.0005)
        return base.replace(
            settings={"election_timeout": t, "coordinator_timeout": 2 * t},
            topology=self.topology,
            algorithm=self.algorithm,
            nodes=tuple(self.nodes(n)),
            edges=self.edges(n),
            initiators=tuple(self.initiators(n)),
        )


CASES = [
    Case("lelann", "unidirectional_ring", "any (every id goes round)"),
    Case("chang_roberts", "unidirectional_ring", "ids descending, everyone initiating"),
    Case(
        "hirschberg_sinclair",
        "bidirectional_ring",
        "ids in bit-reversal order, everyone initiating",
    ),
    Case("tree", "spanning_tree", "random tree, one initiator"),
    Case("echo", "graph", "random graph (M ≈ 4n), one initiator"),
    Case("bully", "full_mesh", "the lowest alone initiating"),
    Case("bully_broadcast", "full_mesh", "everyone initiating"),
]


def measure(case: Case, n: int) -> tuple[int, Bound]:
    """The simulator's message count for ``case`` at ``n``, and the notes' formula."""
    algorithm = ALGORITHMS[case.algorithm]
    wiring = case.wiring(n)
    initiators = case.initiators(n)
    result = simulate(algorithm, wiring.views(), initiators, seed=n)
    bound = algorithm.bound(wiring, initiators)
    assert bound.holds(result.total), (case, n, result.total, bound)
    return result.total, bound


#: Okabe–Ito colours (colour-blind safe), one per algorithm, and a marker each: where
#: two series coincide (LeLann's n² and Bully's N²−1) one is drawn filled and small
#: inside the other, hollow and large, so that both show.
STYLE = {
    "lelann": ("#0072B2", "o", 5, "full"),
    "chang_roberts": ("#E69F00", "s", 8, "none"),
    "hirschberg_sinclair": ("#009E73", "D", 8, "none"),
    "tree": ("#CC79A7", "^", 9, "none"),
    "echo": ("#56B4E9", "v", 9, "none"),
    "bully": ("#D55E00", "o", 12, "none"),
    "bully_broadcast": ("#000000", "P", 9, "none"),
}


def plot(counts: dict[str, list[tuple[int, int, Bound]]], path: str) -> None:
    """Messages against n, log–log: measured worst cases as points, formulas as lines."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 7.5), layout="constrained")
    axes = figure.add_subplot()
    for name, rows in counts.items():
        colour, marker, size, fill = STYLE.get(name, ("#444444", "x", 8, "full"))
        sizes = [n for n, _, _ in rows]
        formula = rows[-1][2]
        style = "-" if formula.exact else "--"
        relation = "=" if formula.exact else "≤"
        arrangement = next(c.arrangement for c in CASES if c.algorithm == name)
        axes.plot(
            sizes,
            [bound.value for _, _, bound in rows],
            style,
            color=colour,
            lw=1.2,
            label=f"{name} ({arrangement}): notes {relation} {formula.formula}",
        )
        axes.plot(
            sizes,
            [total for _, total, _ in rows],
            marker,
            color=colour,
            ms=size,
            mfc=colour if fill == "full" else "none",
            mew=1.8,
            ls="",
        )
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("n (nodes)", fontsize=13)
    axes.set_ylabel("messages", fontsize=13)
    axes.tick_params(labelsize=12)
    axes.set_title(
        "Each algorithm's worst case, measured (points) against the notes' formula "
        "(lines; dashed: a bound)\nLeLann's n² (small filled dots) and Bully's N²−1 (large "
        "rings) coincide",
        fontsize=13,
    )
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(fontsize=10, loc="upper left")
    figure.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--max", type=int, default=1024, help="largest n, a power of two from 8 (default 1024)"
    )
    parser.add_argument(
        "--algorithm",
        action="append",
        choices=[c.algorithm for c in CASES],
        help="only this algorithm (repeatable; default: every one)",
    )
    parser.add_argument(
        "--real-limit", type=int, default=40_000, help="time real runs up to this many messages"
    )
    parser.add_argument(
        "--plot", metavar="FILE.png", help="draw the counts into FILE (no real runs)"
    )
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sizes = [2**k for k in range(3, args.max.bit_length()) if 2**k <= args.max]
    counts: dict[str, list[tuple[int, int, Bound]]] = {}
    print("| algorithm | arrangement | n | messages | notes | real run |")
    print("|---|---|---|---|---|---|")
    for case in CASES:
        if args.algorithm and case.algorithm not in args.algorithm:
            continue
        for n in sizes:
            total, bound = measure(case, n)
            counts.setdefault(case.algorithm, []).append((n, total, bound))
            real = "—"
            if total <= args.real_limit and not args.plot:
                report = ringleader.run(case.config(n, total))
                assert report.ok, report.problems
                assert not bound.exact or report.total == total
                assert report.elapsed_s is not None
                real = f"{report.elapsed_s * 1000:.0f} ms ({report.total} msgs)"
            relation = "=" if bound.exact else "≤"
            print(
                f"| {case.algorithm} | {case.arrangement} | {n} | {total} "
                f"| {bound.formula} {relation} {bound.value} | {real} |",
                flush=True,
            )
    if args.plot:
        plot(counts, args.plot)
        print(f"\nwrote {args.plot}")


if __name__ == "__main__":
    began = time.monotonic()
    main()
    print(f"\n(sweep took {time.monotonic() - began:.0f} s)")
