"""``ringleader run --simulate``: a config, its crash schedule too, in virtual time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ringleader
from ringleader.topologies import Overrides, load_config
from tests.paths import ROOT
from tests.trace_rules import check_trace, events_of

EXAMPLES = ROOT / "examples"


@pytest.mark.parametrize(
    ("example", "leader", "total"),
    [("ring.toml", 9, 20), ("chang_roberts_table.toml", 5, 20), ("mesh.toml", 5, 24)],
)
def test_a_simulated_run_reports_what_a_real_one_does(
    example: str, leader: int, total: int
) -> None:
    config = load_config(EXAMPLES / example)
    real, simulated = ringleader.run(config), ringleader.run(config, simulate=True, seed=1)
    assert simulated.ok and real.ok
    assert simulated.leader == real.leader == leader
    assert simulated.total == real.total == total
    assert simulated.as_dict()["mode"] == "simulated"
    assert real.as_dict()["mode"] == "threads"


def test_the_same_seed_gives_the_same_report_and_trace(tmp_path: Path) -> None:
    config = load_config(EXAMPLES / "failover.toml")
    runs = []
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        path = tmp_path / f"{name}.jsonl"
        report = ringleader.run(config, simulate=True, seed=seed, trace=path)
        assert report.ok, report.problems
        data = report.as_dict()
        runs.append((json.dumps(data, sort_keys=True), path.read_bytes()))
        check_trace(events_of(path.read_text()), total=report.total)
    assert runs[0] == runs[1]
    assert runs[0][1] != runs[2][1]


def test_the_crash_schedule_plays_in_virtual_time() -> None:
    config = load_config(EXAMPLES / "failover.toml", Overrides(topology="unidirectional_ring"))
    config = config.replace(settings={**config.settings, "fast_failover": 0.0})  # silence tells
    report = ringleader.run(config, simulate=True)
    assert report.ok and report.leader == 5
    crash, restart = report.faults
    assert (crash.action, crash.node, restart.action, restart.node) == ("crash", 5, "restart", 5)
    assert crash.detection_s is not None and 0.25 <= crash.detection_s <= 0.35
    assert crash.failover_s is not None and crash.failover_s >= crash.detection_s
    assert report.safety is not None and report.safety.violations == []
    assert [e.leader for e in report.elections if e.leader is not None][-1] == 5


def test_the_simulator_honours_fast_failover() -> None:
    """Over tcp or ipc a crashed node's peers are told at once (a refused connection);
    fast_failover acts on it, as in a real run; without it, or over inproc, silence tells."""
    base = load_config(EXAMPLES / "failover.toml")
    detections = {}
    for name, config in {
        "tcp": base,
        "ipc": base.replace(transport="ipc"),
        "off": base.replace(settings={**base.settings, "fast_failover": 0.0}),
        "inproc": base.replace(transport="inproc"),
    }.items():
        report = ringleader.run(config, simulate=True, seed=3)
        assert report.ok, report.problems
        crash = report.faults[0]
        assert crash.detection_s is not None
        detections[name] = crash.detection_s
    assert detections["tcp"] < 0.002 and detections["ipc"] < 0.002  # a message delay
    assert 0.25 <= detections["off"] <= 0.35 and 0.25 <= detections["inproc"] <= 0.35


def test_a_message_to_a_crashed_node_is_traced_lost(tmp_path: Path) -> None:
    path = tmp_path / "story.jsonl"
    report = ringleader.run(load_config(EXAMPLES / "bully_story.toml"), simulate=True, trace=path)
    events = events_of(path.read_text())
    check_trace(events, total=report.total)
    lost = [e for e in events if e["event"] == "send" and e.get("lost")]
    assert report.lost == len(lost) == 4
    assert {(e["node"], e["peer"], e["kind"], e["lost"]) for e in lost} == {
        (3, 4, "election", "P4 is down"),
        (3, 1, "coordinator", "P1 is down"),
        (1, 4, "election", "P4 is down"),
    }
    assert report.as_dict()["messages"]["lost"] == 4


@pytest.mark.parametrize("algorithm", ["hirschberg_sinclair", "chang_roberts", "lelann"])
def test_a_traced_run_and_an_untraced_one_are_the_same_run(algorithm: str) -> None:
    """The simulator's quick path (no trace, no crashes) takes the same events in the same
    order, with the same draws, as the traced one."""
    from ringleader.actors import ALGORITHMS, simulate
    from ringleader.topologies import TOPOLOGIES, NodeSpec

    ids = [7, 3, 9, 1, 8, 2, 6, 5, 4]
    wiring = TOPOLOGIES["bidirectional_ring"].build([NodeSpec(i, i) for i in ids], None)
    runs = [
        simulate(ALGORITHMS[algorithm], wiring.views(), ids, seed=11, trace=trace)
        for trace in (False, True)
    ]
    quick, traced = runs
    assert (quick.steps, quick.time, quick.total, quick.elected) == (
        traced.steps,
        traced.time,
        traced.total,
        traced.elected,
    )
    assert traced.records is not None
    assert sum(1 for r in traced.records if r[3] == "send") == quick.total
