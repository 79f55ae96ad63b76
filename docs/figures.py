"""The docs' figures that are constants of the code rather than a command's output (sizes
on the wire, the limits of a picture or a page), printed as one JSON object:

    python docs/figures.py

The pages name it in their ``<!-- figure: … -->`` comments, and the test suite checks
that they quote what it prints (tests/docfigures.py).
"""

from __future__ import annotations

import json
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

from ringleader.actors import ALGORITHMS, Candidate
from ringleader.actors.algorithms._chang_roberts import ElectionMessage
from ringleader.actors.crashes import Ping
from ringleader.topologies import TOPOLOGIES, NodeSpec
from ringleader.topologies._keys import MIN_SECRET
from ringleader.traces._diagram import MAX_MESSAGES, MAX_NODES
from ringleader.transport import _frame as frame


@dataclass(frozen=True)
class Nothing:
    """A message without fields: the smallest frame."""

    kind = "nothing"


def chang_roberts_worst(n: int) -> int:
    """Chang–Roberts's count with everyone initiating, ids descending round a ring of
    ``n``: the notes' exact figure, which ``benchmarks/ring.py`` counts."""
    nodes = [NodeSpec(i, i) for i in range(n, 0, -1)]
    wiring = TOPOLOGIES["unidirectional_ring"].build(nodes, None)
    bound = ALGORITHMS["chang_roberts"].bound(wiring, [spec.id for spec in nodes])
    assert bound.exact
    return bound.value


def bit_reversal_run(n: int) -> int:
    """What ``benchmarks/sweep.py`` counts for Hirschberg–Sinclair at ``n``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from sweep import CASES, measure  # noqa: PLC0415 -- a script of benchmarks/, not a package

    case = next(c for c in CASES if c.algorithm == "hirschberg_sinclair")
    return measure(case, n)[0]


def main() -> None:
    election = ElectionMessage(Candidate(5.0, 5))  # Chang–Roberts's election(P_5)
    codec = frame.Codec(bytes(MIN_SECRET), 1, {"election": ElectionMessage})
    payload = len(codec.dumps(election))
    sealed = codec.seal(frame.Header(1, 5, 4, 1, 0, 1, 1, "election"), election)
    empty = frame.Codec(bytes(MIN_SECRET), 1, {"nothing": Nothing})
    pings = frame.Codec(bytes(MIN_SECRET), 1, {"ping": Ping})
    ping = len(pings.dumps(Ping(1, 0, 0)))  # a leader's heartbeat, its key and no list
    figures = {
        "header": frame.HEAD_SIZE,
        "tag": frame.MAC_SIZE,
        "smallest_frame": len(empty.seal(frame.Header(1, 5, 4, 1, 0, 1, 1, "nothing"), Nothing())),
        "largest_key": frame._MAX_KEY,
        "min_secret": MIN_SECRET,
        "election_payload": payload,
        "election_frame": len(sealed),
        "election_pickled": len(pickle.dumps(election)),
        "ping_payload": ping,
        "ping_growth": ping - 8,  # (format 5's ping: its seq alone)
        "diagram_nodes": MAX_NODES,
        "diagram_messages": MAX_MESSAGES,
        "chang_roberts_1000": chang_roberts_worst(1000),
        "hirschberg_sinclair_bit_reversal_8": bit_reversal_run(8),
    }
    sys.stdout.write(json.dumps(figures) + "\n")


if __name__ == "__main__":
    main()
