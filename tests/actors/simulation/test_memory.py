"""What a large simulated run keeps for each node (docs/design/performance.md, "The
simulator": 100,000 nodes in < 10 s): members without crash handling, and the checker
that sees every state change, stay lean."""

from __future__ import annotations

import gc
import tracemalloc

from ringleader.actors import SimulationResult, simulate
from ringleader.topologies import Overrides, default_config

#: Nodes in the measured run: enough that per-node costs dwarf the run's fixed ones.
N = 2000
#: Bytes a node that the run keeps to its end, at most: its member and election, its
#: links, the checker's view of it (2,539 before the member took over the service's
#: decisions and the checker came in; 3,096 after; 2,209 since the member, the checker
#: and the elections' variables were made lean again).
BUDGET = 2300


def _run() -> tuple[SimulationResult, float]:
    """Hirschberg–Sinclair on a two-way ring of ``N``, as ``ringleader run --simulate
    --nodes N --topology bidirectional_ring`` runs it; and the bytes its result keeps,
    per node."""
    config = default_config(Overrides(nodes=N, topology="bidirectional_ring"))
    views = config.wiring.views(config.settings)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = simulate(config.algorithm_class, views, config.initiators)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return result, kept / N


def test_a_run_without_crash_handling_keeps_little_per_node() -> None:
    result, per_node = _run()
    assert result.leaders == [N]
    assert per_node <= BUDGET, f"{per_node:.0f} bytes a node (budget {BUDGET})"


def test_the_checker_keeps_one_string_per_state_word() -> None:
    result, _ = _run()
    assert result.safety is not None
    words = [state for state, _, _ in result.safety.stances.values()]
    assert sorted(set(words)) == ["leader", "not_leader"]
    assert len({id(word) for word in words}) == 2  # shared, not a copy per node
