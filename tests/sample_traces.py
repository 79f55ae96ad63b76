"""Traces made by the deterministic simulator, for the tests of the pictures and stories."""

from __future__ import annotations

import io
from pathlib import Path

from ringleader.actors import ALGORITHMS, Fault, simulate, write_trace
from ringleader.topologies import TOPOLOGIES, NodeSpec, load_config

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example_trace(name: str, *, seed: int = 1) -> str:
    """The trace (JSON lines) of ``examples/<name>.toml`` run in the simulator."""
    config = load_config(str(EXAMPLES / f"{name}.toml"))
    result = simulate(
        ALGORITHMS[config.algorithm],
        config.wiring.views(config.settings),
        config.initiators,
        seed=seed,
        trace=True,
    )
    assert result.records is not None
    out = io.StringIO()
    write_trace(result.records, out, nodes=config.n)
    return out.getvalue()


def crash_trace(*, heartbeats: bool = False) -> str:
    """Bully on 5 nodes: P5 leads, crashes at 1 s, the others elect P4, P5 comes back."""
    config = load_config(str(EXAMPLES / "mesh.toml"))
    settings = {**config.settings, "heartbeat": 0.05, "suspect_after": 0.3}
    result = simulate(
        ALGORITHMS["bully"],
        config.wiring.views(settings),
        config.initiators,
        seed=1,
        faults=[Fault(1.0, "crash", 5), Fault(2.0, "restart", 5)],
        until=3.0,
        trace=True,
    )
    assert result.records is not None
    out = io.StringIO()
    write_trace(result.records, out, nodes=config.n, heartbeats=heartbeats)
    return out.getvalue()


def ring_trace(n: int) -> str:
    """Chang–Roberts on a one-way ring of ``n`` nodes, ids descending, everyone starting."""
    nodes = [NodeSpec(i, i) for i in range(n, 0, -1)]
    wiring = TOPOLOGIES["unidirectional_ring"].build(nodes, None)
    result = simulate(
        ALGORITHMS["chang_roberts"], wiring.views(), [s.id for s in nodes], seed=n, trace=True
    )
    assert result.records is not None
    out = io.StringIO()
    write_trace(result.records, out, nodes=n)
    return out.getvalue()


def run_trace(name: str, *, seed: int = 0, heartbeats: bool = False) -> str:
    """The trace of ``examples/<name>.toml`` run as ``ringleader run --simulate`` runs it,
    its crash schedule included."""
    import tempfile

    from ringleader.cluster import run

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        run(
            load_config(str(EXAMPLES / f"{name}.toml")),
            simulate=True,
            seed=seed,
            trace=path,
            trace_heartbeats=heartbeats,
        )
        return path.read_text(encoding="utf-8")
