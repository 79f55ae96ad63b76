"""``ringleader explore --service --lean``: the service's search with a fingerprint of each
state, the frontier on disk and no graph (``actors/exploration/service/_lean.py``).

It must find what the full search finds — the same states, the same violations by the
same shortest paths — with its frontier in memory or spilled to disk; and it must never
say the progress check held, since it keeps no graph to make it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ringleader.actors.exploration._fingerprints import collision_odds
from ringleader.actors.exploration.service import (
    ServiceExploration,
    ServiceOptions,
    search,
)
from ringleader.cluster import service_model, service_timing
from ringleader.topologies import load_config
from tests.paths import ROOT

SERVICE = ROOT / "examples" / "service" / "cluster.toml"
LONG_LEASE = ROOT / "examples" / "explore" / "service_long_lease.toml"


def _same(lean: ServiceExploration, full: ServiceExploration) -> None:
    """Lean found what full found: the states, the steps, the depth, each violation (its
    detail, how many steps broke it) by the same shortest path."""
    assert (lean.states, lean.explored, lean.edges, lean.depth) == (
        full.states,
        full.explored,
        full.edges,
        full.depth,
    )
    assert (lean.complete, lean.stopped) == (full.complete, full.stopped)
    safety = [f for f in full.findings if f.kind != "no_progress"]
    assert [(f.kind, f.detail, f.count) for f in lean.findings] == [
        (f.kind, f.detail, f.count) for f in safety
    ]
    assert {kind: lean.paths[kind] for kind in lean.paths} == {
        f.kind: full.paths[f.kind] for f in safety
    }


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    "faults", [{"crashes": 1}, {"cuts": 1}, {"losses": 2}], ids=["crashes 1", "cuts 1", "losses 2"]
)
def test_lean_and_full_find_the_same_states_and_findings(faults: dict[str, int]) -> None:
    model = service_model(load_config(SERVICE), ServiceOptions(**faults))
    full = search(model)
    lean = search(model, lean=True)
    assert full.complete and full.progress_checked
    _same(lean, full)
    assert lean.lean and not lean.exact and not full.lean
    # Never a ✓ it could not make: the progress check needs the graph.
    assert not lean.progress_checked
    assert lean.collision_odds == collision_odds(lean.states)
    assert lean.collision_odds == pytest.approx(lean.states * (lean.states - 1) / 2**65)
    # The seen-set is a table of 8-byte fingerprints at most three quarters full, up to
    # twice as large just after it grew: at most 22 bytes a state, plus the buffers
    # (the frontier's 256 KB, the records' 128 KB).
    assert lean.memory - 400_000 <= 22 * lean.states
    exact = search(model, lean=True, exact=True)
    _same(exact, full)
    assert exact.exact and exact.collision_odds is None


@pytest.mark.timeout(180)
def test_a_stopped_lean_search_stops_where_the_full_one_does() -> None:
    model = service_model(load_config(SERVICE), ServiceOptions(crashes=1, losses=1))
    _same(search(model, lean=True, max_states=5_000), search(model, max_states=5_000))
    _same(search(model, lean=True, max_depth=20), search(model, max_depth=20))


@pytest.mark.timeout(240)
def test_a_lease_too_long_for_the_drift_is_found_by_the_same_shortest_run() -> None:
    # The lease as long as the config allows (what the default was before the drift was
    # accounted for), brought back by the example config: two leases at one instant.
    # The lean search, its frontier spilled to disk past a tiny bound, finds it by the
    # very run the full search finds, read back from its records on disk.
    config = load_config(LONG_LEASE)
    model = service_model(
        config, ServiceOptions(cuts=1, pauses=1), service_timing(config, drift=0.05)
    )
    full = search(model, max_states=300_000)
    lean = search(model, lean=True, max_states=300_000, bound=1 << 12)
    assert "two_leases" in {f.kind for f in full.findings}
    _same(lean, full)
    assert lean.spilled > 1 << 20
    path = lean.paths["two_leases"]
    assert len(path) == len(full.paths["two_leases"]) == 78


@pytest.mark.timeout(180)
def test_the_frontier_spills_and_the_search_still_agrees() -> None:
    model = service_model(load_config(SERVICE), ServiceOptions(cuts=1))
    full = search(model)
    kept = search(model, lean=True, bound=1 << 30)
    spilled = search(model, lean=True, bound=64)
    assert kept.spilled == 0 and spilled.spilled > 1_000_000
    _same(spilled, full)


def ringleader(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ringleader", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


@pytest.mark.timeout(150)
def test_explore_service_lean_json_says_the_mode_the_odds_and_the_memory(tmp_path: Path) -> None:
    common = ("explore", str(SERVICE), "--service", "--crashes", "1", "--json")
    done = ringleader(*common, "--lean", "--out", str(tmp_path / "a"))
    # Nothing broken, every state, but the progress check not made: not a clean 0.
    assert done.returncode == 3, done.stderr
    summary = json.loads(done.stdout)
    assert summary["complete"] and summary["states"] == 13_865
    assert summary["lean"] is True and summary["states_kept"] == "fingerprints"
    assert summary["collision_odds"] == pytest.approx(13_865 * 13_864 / 2**65)
    assert summary["checks"]["no_progress"] == "not checked"
    assert summary["checks"]["two_leases"] == "held"
    assert summary["memory_per_state"] <= 32 + 300_000 // 13_865
    done = ringleader(*common, "--lean", "--exact", "--out", str(tmp_path / "b"))
    summary = json.loads(done.stdout)
    assert summary["states_kept"] == "exact" and summary["collision_odds"] is None
    done = ringleader(*common, "--out", str(tmp_path / "c"))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["lean"] is False and summary["states_kept"] == "exact"
    assert summary["checks"]["no_progress"] == "held"


@pytest.mark.timeout(150)
def test_explore_service_lean_never_marks_progress_checked(tmp_path: Path) -> None:
    done = ringleader(
        "explore", str(SERVICE), "--service", "--crashes", "1", "--lean", "--out", str(tmp_path)
    )
    assert done.returncode == 3, done.stderr
    out = done.stdout
    assert "lean: fingerprints (collision odds 5e-12)" in out
    assert out.count("✓") == 4
    assert (
        "? once the faults are over, one leader holding its lease, named by every node, can "
        "always be reached: not checked (a lean search keeps no graph: leave out --lean to "
        "check it)"
    ) in out


@pytest.mark.timeout(240)
def test_explore_service_lean_writes_the_shortest_counterexample(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = ringleader(
        "explore", str(LONG_LEASE), "--service", "--cuts", "1", "--pauses", "1",
        "--drift", "0.05", "--max-states", "300000", "--lean", "--json", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    (found,) = summary["violations"]
    assert found["kind"] == "two_leases" and found["steps"] == 78 and found["count"] == 3
    # Read back from the records on disk, run again, told by replay as the docs tell it.
    told = ringleader("replay", found["trace"], "--no-step")
    assert told.returncode == 0, told.stderr
    assert "P2 receives prevote_reply from P1 → coordinator to P1; P2 is the leader" in told.stdout


def test_lean_is_for_a_service_search() -> None:
    done = ringleader("explore", str(SERVICE), "--lean")
    assert done.returncode == 2
    assert "--lean needs --service" in done.stderr
    done = ringleader("explore", str(SERVICE), "--service", "--walks", "2", "--lean")
    assert done.returncode == 2
    assert "--lean is for a search of every state: leave it out with --walks" in done.stderr
