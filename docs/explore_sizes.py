"""How many states `ringleader explore` finds, per algorithm and n: the figures of
docs/explore.md's "How large a run can be explored", printed as one JSON object.

    python docs/explore_sizes.py           # the cells the test suite checks (seconds)
    python docs/explore_sizes.py --large   # every cell of the table (minutes, ~2 GB)

Everyone initiating; on rings the ids descend round the ring; Bully and echo on a full
mesh of ids 1..n.  Each algorithm's list holds its counts from n = 3 up; a search the
``--max-states`` budget stops is given as ``"over N"``.  ``starts_first`` is
Chang–Roberts again with ``--starts first`` (the hosts' rule).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from ringleader.cluster import explore_config, explore_options
from ringleader.topologies import load_config

#: The largest n of each row: what the suite checks, and the whole table.
SMALL = {"chang_roberts": 8, "lelann": 6, "hirschberg_sinclair": 5, "bully": 4, "echo": 3}
LARGE = {"chang_roberts": 9, "lelann": 8, "hirschberg_sinclair": 6, "bully": 5, "echo": 4}
STARTS_FIRST = 7


def config_text(algorithm: str, n: int) -> str:
    if algorithm in ("bully", "echo"):
        return f'topology = "full_mesh"\nalgorithm = "{algorithm}"\nnodes = {n}\n'
    ring = "bidirectional_ring" if algorithm == "hirschberg_sinclair" else "unidirectional_ring"
    nodes = "".join(f"[[nodes]]\nid = {i}\n" for i in range(n, 0, -1))  # ids descending
    return f'topology = "{ring}"\nalgorithm = "{algorithm}"\n{nodes}'


def states(folder: Path, algorithm: str, n: int, max_states: int, first: bool = False) -> object:
    path = folder / f"{algorithm}-{n}.toml"
    path.write_text(config_text(algorithm, n))
    config = load_config(path)
    options = explore_options(config, starts="first") if first else None
    run = explore_config(config, options, max_states=max_states)
    return run.states if run.complete else f"over {max_states:,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--large", action="store_true", help="every cell of the table")
    parser.add_argument("--max-states", type=int, default=3_000_000)
    args = parser.parse_args()
    table: dict[str, list[object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for algorithm, top in (LARGE if args.large else SMALL).items():
            table[algorithm] = [
                states(folder, algorithm, n, args.max_states) for n in range(3, top + 1)
            ]
        table["starts_first"] = [
            states(folder, "chang_roberts", n, args.max_states, first=True)
            for n in range(3, STARTS_FIRST + 1)
        ]
    sys.stdout.write(json.dumps(table) + "\n")


if __name__ == "__main__":
    main()
