"""The lean search (issue 31, item 1): fingerprints seen, a frontier that spills to disk,
the fewest and most messages carried level by level — the same results as the exact
search, state for state, in a tenth of the memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from array import array
from pathlib import Path

import pytest

from ringleader.actors.exploration import CRASHED, Exploration, Options, records
from ringleader.actors.exploration._fingerprints import Seen, collision_odds, fingerprint
from ringleader.actors.exploration._frontier import Frontier
from ringleader.cli import main
from ringleader.cluster import explore_config
from ringleader.topologies import Config, load_config
from tests.actors.exploration.test_explore import EXAMPLES, mesh, ring


def outcome(exploration: Exploration) -> tuple[object, ...]:
    """Everything a user reads of an exploration, but its memory and timing."""
    return (
        exploration.states,
        exploration.explored,
        exploration.end_states,
        exploration.complete,
        exploration.stopped,
        exploration.depth,
        exploration.messages,
        exploration.faultless,
        exploration.bound_held,
        exploration.cyclic,
        [(f.kind, f.detail, f.state, f.count) for f in exploration.findings],
        {k: (p.messages, len(p.events), p.state) for k, p in exploration.paths.items()},
        {k: v.as_dict() for k, v in exploration.checks.items()},
    )


# -- fingerprints --------------------------------------------------------------------------


def test_seen_says_whether_a_fingerprint_is_new_and_grows() -> None:
    seen = Seen(4)
    fps = [fingerprint((i, i * 7 % 13, -1)) for i in range(10_000)]
    assert all(seen.add(fp) for fp in fps)
    assert not any(seen.add(fp) for fp in fps)
    assert len(seen) == 10_000 and all(fp in seen for fp in fps)
    assert fingerprint((10_001, 0, -1)) not in seen
    assert seen.add(0) and not seen.add(0)  # 0 is stored as 1: one slot, no crash
    assert seen.nbytes <= 10_002 * 8 * 8 // 3  # at least three eighths full


def test_seen_takes_many_fingerprints_at_once_and_says_which_it_had() -> None:
    """A worker holding every state (``_slices.py``) adds the others' new states in one
    loop: as many ``add``, with the places of those it had already."""
    seen, one_by_one = Seen(4), Seen(4)
    had = [fingerprint((i, 0)) for i in range(0, 3_000, 3)]
    for fp in had:
        seen.add(fp)
        one_by_one.add(fp)
    fps = array("Q", [fingerprint((i, 0)) for i in range(3_000)])
    assert seen.update(fps) == list(range(0, 3_000, 3))
    assert [at for at, fp in enumerate(fps) if not one_by_one.add(fp)] == list(range(0, 3_000, 3))
    assert len(seen) == len(one_by_one) == 3_000 and all(fp in seen for fp in fps)
    assert seen.update(fps) == list(range(3_000))


def test_a_fingerprint_is_the_same_in_every_process() -> None:
    """Workers in other processes share the work by fingerprint: no salt (strings' hashes
    are salted per process; a tuple of integers' is not)."""
    state = (3, 0, 17, -1, 2**40, 5)
    code = (
        "from ringleader.actors.exploration._fingerprints import fingerprint;"
        f"print(fingerprint({state!r}))"
    )
    seeds = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        seeds.append(int(done.stdout))
    assert seeds == [fingerprint(state)] * 2
    assert 0 < fingerprint(state) < 2**64


def test_the_collision_odds_are_tlcs_estimate() -> None:
    assert collision_odds(1) == 0.0
    assert collision_odds(1_000_000) == pytest.approx(1e6 * (1e6 - 1) / 2**65)
    assert 2.7e-8 < collision_odds(1_000_000) < 2.8e-8  # TLC: "calculated (optimistic)"
    assert 5.4e-10 < collision_odds(142_081) < 5.5e-10


# -- the frontier --------------------------------------------------------------------------


def test_the_frontier_spills_to_disk_and_keeps_the_order() -> None:
    folder = Path(tempfile.gettempdir())
    before = set(folder.glob("ringleader-frontier-*"))
    with Frontier(3, bound=64) as frontier:
        popped = []
        pushed = 0
        for round_ in range(50):
            for _ in range(round_ % 7 + 1):
                frontier.push((pushed, -pushed, 2**30))
                pushed += 1
            for _ in range(min(len(frontier), round_ % 5)):
                popped.append(frontier.pop())
        while len(frontier):
            popped.append(frontier.pop())
        assert frontier.spilled > 0 and frontier.peak <= 64 + 12
    assert popped == [(i, -i, 2**30) for i in range(pushed)]
    assert set(folder.glob("ringleader-frontier-*")) == before  # nothing left behind


def test_the_frontier_hands_out_states_packed_and_its_last_ones_first_spilled_or_not() -> None:
    """A worker of a search by slices (``_slices.py``) hands its first and last states
    of the next level to its neighbours: packed from the head, the last taken off the
    tail — wherever they are, in memory or on disk."""
    for bound in (24, 64, 1 << 12):
        with Frontier(3, bound=bound) as frontier:
            queued = [(i, -i, 7) for i in range(40)]
            for state in queued[:5]:
                frontier.push(state)
            assert list(frontier.pop_packed()) == [0, 0, 7]
            for state in queued[5:]:
                frontier.push_packed(array("i", state))
            assert list(frontier.take_last(12)) == [v for s in queued[28:] for v in s]
            assert len(frontier) == 27
            assert [frontier.pop() for _ in range(27)] == queued[1:28]
            frontier.push((99, 99, 99))
            assert list(frontier.take_last(1)) == [99, 99, 99] and not len(frontier)


# -- the search ----------------------------------------------------------------------------


def both(config: Config, options: Options | None = None, **limits: int) -> Exploration:
    exact = explore_config(config, options, **limits)  # type: ignore[arg-type]
    lean = explore_config(config, options, exact=False, **limits)  # type: ignore[arg-type]
    assert outcome(lean) == outcome(exact)
    return lean


def test_chang_roberts_state_counts_are_tlcs_with_fingerprints(tmp_path: Path) -> None:
    """The TLC figures (issue 31): 78, 317, 1,352, 6,111, 28,970, 142,081 for n = 3…8,
    FIFO, any starts — with fingerprints, counts carried level by level, and the same
    fewest and most messages (2n and n(n+1)/2 + n)."""
    found = {}
    for n in (3, 4, 5, 6, 7, 8):
        lean = explore_config(ring(tmp_path, n), exact=False)
        assert not lean.exact and lean.exact_why is None and lean.complete and lean.ok
        assert lean.messages == (2 * n, n * (n + 1) // 2 + n) and lean.bound_held
        found[n] = lean.states
    assert found == {3: 78, 4: 317, 5: 1352, 6: 6111, 7: 28970, 8: 142_081}


@pytest.mark.parametrize(
    ("name", "make", "options", "limits"),
    [
        ("chang_roberts 6", lambda p: ring(p, 6), None, {}),
        ("lelann 4", lambda p: ring(p, 4, "lelann"), None, {}),
        ("hirschberg_sinclair 4", lambda p: ring(p, 4, "hirschberg_sinclair"), None, {}),
        ("lelann unordered", lambda p: ring(p, 3, "lelann"), Options(unordered=True), {}),
        ("bully 4", lambda p: mesh(p, 4), None, {}),
        ("echo", lambda p: load_config(EXAMPLES / "graph.toml"), None, {}),
        ("max_states", lambda p: ring(p, 6), None, {"max_states": 100}),
        ("max_depth", lambda p: ring(p, 6), None, {"max_depth": 5}),
    ],
)
def test_the_lean_search_finds_what_the_exact_one_finds(
    tmp_path: Path, name: str, make: object, options: Options | None, limits: dict[str, int]
) -> None:
    lean = both(make(tmp_path), options, **limits)  # type: ignore[operator]
    assert not lean.exact, name
    assert lean.memory < 100 * lean.states or lean.states < 1000


def test_where_runs_of_different_lengths_meet_it_keeps_the_graph(tmp_path: Path) -> None:
    """A crash loses whatever is sent to the crashed node, whenever it was sent: one
    state, reached by runs of different lengths. The counts need the whole graph: the
    lean search says so and the exact one answers, alike."""
    lean = both(ring(tmp_path, 4), Options(crashes=1, crashable=frozenset({4})))
    assert lean.exact and lean.exact_why is not None
    assert "runs of different lengths" in lean.exact_why


def test_a_lean_path_replays_to_the_state_it_found(tmp_path: Path) -> None:
    exploration = explore_config(mesh(tmp_path, 4), exact=False)
    assert not exploration.exact and set(exploration.paths) == {"min", "max"}
    model = exploration.model
    for name, path in exploration.paths.items():
        run = records(model, path.events)
        assert sum(1 for r in run if r[3] == "send") == path.messages, name
        final = exploration.found[path.state]
        stances = {r[2]: (r[4], r[5], r[6]) for r in run if r[3] == "state"}
        for i, node in enumerate(model.ids):
            assert final[i] != CRASHED
            state, elected, epoch = model.nodes[i].stance[final[i]]
            assert stances[node] == (str(state), elected, epoch)


def test_a_lean_search_holds_at_most_32_bytes_a_state(tmp_path: Path) -> None:
    """The goal of issue 31, item 1, measured as ``memory_per_state`` says: the
    fingerprints, the frontier and the levels' counts at their largest."""
    lean = explore_config(ring(tmp_path, 8), exact=False)
    assert lean.states == 142_081 and lean.spilled > 0
    assert lean.memory / lean.states <= 32
    assert lean.collision_odds == collision_odds(142_081)


# -- the command ---------------------------------------------------------------------------


def test_explore_keeps_fingerprints_unless_asked_for_exact_states(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = str(EXAMPLES / "chang_roberts_table.toml")
    assert main(["explore", table, "--json", "--out", str(tmp_path / "a")]) == 0
    lean = json.loads(capsys.readouterr().out)
    assert lean["states_kept"] == "fingerprints" and lean["exact_why"] is None
    assert lean["collision_odds"] == collision_odds(1352)
    assert main(["explore", table, "--json", "--exact", "--out", str(tmp_path / "b")]) == 0
    exact = json.loads(capsys.readouterr().out)
    assert exact["states_kept"] == "exact" and exact["collision_odds"] is None
    assert exact["memory_per_state"] > 3 * lean["memory_per_state"]
    same = ("states", "end_states", "depth", "messages", "checks", "bound")
    assert {k: lean[k] for k in same} == {k: exact[k] for k in same}
    for name in ("min", "max"):
        assert Path(lean["traces"][name]).read_text().count('"send"') == Path(
            exact["traces"][name]
        ).read_text().count('"send"')
    assert main(["explore", table, "--out", str(tmp_path / "c")]) == 0
    assert "fingerprints (collision odds 5e-14)" in capsys.readouterr().out
    crash = str(EXAMPLES / "ring_crash.toml")
    assert main(["explore", crash, "--out", str(tmp_path / "d")]) in (0, 1, 3)
    told = capsys.readouterr().out
    assert "whole states (a state is reached by runs of different lengths" in told


def test_exact_with_service_keeps_whole_states(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--exact means whole states with --service too: the full search (whole states and
    the graph, its default), or with --lean the lean search's seen-set of whole states."""
    cluster = str(EXAMPLES / "service" / "cluster.toml")
    common = ["explore", cluster, "--service", "--loss", "1", "--json"]
    assert main([*common, "--exact", "--out", str(tmp_path / "a")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["states_kept"] == "exact" and summary["lean"] is False
    assert summary["checks"]["no_progress"] == "held"
    assert main([*common, "--exact", "--lean", "--out", str(tmp_path / "b")]) == 3
    summary = json.loads(capsys.readouterr().out)
    assert summary["states_kept"] == "exact" and summary["lean"] is True
    assert summary["collision_odds"] is None
    assert summary["checks"]["no_progress"] == "not checked"
