"""``ringleader explore``: the notes' claims checked in every ordering, the checks, the
counterexamples as traces, the command's report and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ringleader.actors import Bully, ChangRoberts, Member, NodeView, crash_policy
from ringleader.actors.exploration import CRASHED, Exploration, Options, explore, records
from ringleader.actors.tracing import trace_events
from ringleader.cli import main
from ringleader.cluster import explore_config, explore_options
from ringleader.topologies import Config, Overrides, load_config
from ringleader.traces import load_trace, narrate
from tests.paths import ROOT

EXAMPLES = ROOT / "examples"


def config(tmp_path: Path, top: str, ids: list[int], name: str = "c.toml", **nodes: str) -> Config:
    """A config with ``top`` and one [[nodes]] table per id, in that order."""
    text = top + "".join(f"\n[[nodes]]\nid = {i}\n{nodes.get(f'n{i}', '')}" for i in ids)
    path = tmp_path / name
    path.write_text(text)
    return load_config(path)


def ring(tmp_path: Path, n: int, algorithm: str = "chang_roberts", **keys: str) -> Config:
    """A ring of ``n`` with ids descending in ring order (the notes' worst case)."""
    topology = "bidirectional_ring" if algorithm == "hirschberg_sinclair" else "unidirectional_ring"
    top = f'topology = "{topology}"\nalgorithm = "{algorithm}"\n'
    top += "".join(f"{k} = {v}\n" for k, v in keys.items())
    return config(tmp_path, top, list(range(n, 0, -1)))


def mesh(tmp_path: Path, n: int, initiators: str = '"all"', extra: str = "") -> Config:
    top = f'topology = "full_mesh"\nalgorithm = "bully"\ninitiators = {initiators}\n{extra}'
    return config(tmp_path, top, list(range(1, n + 1)))


def kinds(exploration: Exploration) -> list[str]:
    return [finding.kind for finding in exploration.findings]


# -- the notes' claims ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_chang_roberts_worst_case_is_the_maximum_over_every_ordering(
    tmp_path: Path, n: int
) -> None:
    """Initiators wake at any moment (the notes' model): the most any ordering sends is
    the notes' n(n+1)/2 + n, the fewest 2n (the largest's election reaches every other
    initiator before it wakes)."""
    exploration = explore_config(ring(tmp_path, n))
    assert exploration.complete and exploration.ok
    assert exploration.messages == (2 * n, n * (n + 1) // 2 + n)
    assert exploration.bound is not None and exploration.bound.formula == "n(n+1)/2+n"
    assert exploration.bound_held


@pytest.mark.parametrize("n", [3, 4, 5])
def test_with_the_hosts_start_rule_every_ordering_sends_the_worst_case(
    tmp_path: Path, n: int
) -> None:
    """``starts="first"``: each initiator sends its own election before it handles
    anything, as real runs do, and every ordering sends exactly n(n+1)/2 + n."""
    exploration = explore_config(ring(tmp_path, n), Options(starts="first"))
    assert exploration.complete and exploration.ok and exploration.bound_held
    assert exploration.messages == (n * (n + 1) // 2 + n,) * 2


def test_a_late_initiator_is_drawn_in_and_never_bids(tmp_path: Path) -> None:
    """The run with the fewest messages: only the winner's election and its elected go
    round; nobody else's election is ever sent."""
    out = tmp_path / "out"
    assert main(["explore", str(ring(tmp_path, 4).source), "--out", str(out)]) == 0
    sends = [e for e in load_trace(out / "min.jsonl").events if e["event"] == "send"]
    bids = {e["fields"]["candidate"]["id"] for e in sends if e["kind"] == "election"}
    assert len(sends) == 8 and bids == {4}


def test_chang_roberts_state_counts_grow_as_the_docs_say(tmp_path: Path) -> None:
    """docs/explore.md gives these counts; a change to the model changes them."""
    found = {n: explore_config(ring(tmp_path, n)).states for n in (3, 4, 5, 6, 7)}
    assert found == {3: 78, 4: 317, 5: 1352, 6: 6111, 7: 28970}
    first = Options(starts="first")
    found = {n: explore_config(ring(tmp_path, n), first).states for n in (3, 4, 5, 6, 7)}
    assert found == {3: 27, 4: 80, 5: 254, 6: 842, 7: 2867}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_lelann_sends_exactly_n_squared_in_every_ordering(tmp_path: Path, n: int) -> None:
    exploration = explore_config(ring(tmp_path, n, "lelann"))
    assert exploration.complete and exploration.ok
    assert exploration.messages == (n * n, n * n)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_hirschberg_sinclair_never_exceeds_its_bound(tmp_path: Path, n: int) -> None:
    exploration = explore_config(ring(tmp_path, n, "hirschberg_sinclair"))
    assert exploration.complete and exploration.ok
    assert exploration.bound is not None and not exploration.bound.exact
    assert exploration.messages is not None and exploration.messages[1] is not None
    assert exploration.messages[1] <= exploration.bound.value


def test_the_tree_and_echo_elections_are_exact_in_every_ordering() -> None:
    tree = explore_config(load_config(EXAMPLES / "tree.toml"))
    assert tree.complete and tree.ok and tree.messages == (24, 24)  # 4(N − 1), N = 7
    echo = explore_config(load_config(EXAMPLES / "graph.toml"))
    assert echo.complete and echo.ok and echo.messages == (21, 21)  # M + N − 1 = 16 + 6 − 1


def test_echos_children_are_a_set_the_order_replies_came_in_is_no_state() -> None:
    """Issue 31: with ``children`` a list, the order the REPs came in made states apart
    that behave alike (6,089 states on examples/graph.toml with initiator 3); as a set,
    5,262, and the very same runs: 21 messages each, every check kept."""
    config = load_config(EXAMPLES / "graph.toml", Overrides(initiators=[3]))
    echo = explore_config(config)
    assert echo.complete and echo.ok
    assert (echo.states, echo.messages) == (5_262, (21, 21))


def test_echo_on_a_tree_with_any_initiator_is_exact(tmp_path: Path) -> None:
    top = 'topology = "spanning_tree"\nalgorithm = "echo"\ninitiators = [3]\n'
    parents = {"n2": "parent = 1", "n3": "parent = 1", "n4": "parent = 2"}
    exploration = explore_config(config(tmp_path, top, [1, 2, 3, 4], **parents))
    assert exploration.complete and exploration.ok
    assert exploration.messages == (9, 9)  # M + N − 1 = 6 + 4 − 1


@pytest.mark.parametrize("n", [3, 4])
def test_bully_is_safe_when_its_timeouts_respect_the_delays(tmp_path: Path, n: int) -> None:
    exploration = explore_config(mesh(tmp_path, n))
    assert exploration.complete and exploration.ok


def test_bully_is_safe_with_a_crash_when_timeouts_respect_the_delays(tmp_path: Path) -> None:
    exploration = explore_config(mesh(tmp_path, 4), Options(crashes=1))
    assert exploration.complete
    assert "two_leaders" not in kinds(exploration)
    # Without a failure detector nobody notices a leader that crashes after it won.
    assert kinds(exploration) == ["crashed_leader"]


def test_bully_has_two_leaders_when_t_fires_before_the_answer(tmp_path: Path) -> None:
    exploration = explore_config(mesh(tmp_path, 3, "[1]"), Options(timers="any"), max_states=5_000)
    assert kinds(exploration)[0] == "two_leaders"
    finding = exploration.findings[0]
    assert finding.detail == "P1 and P3 lead epoch 1"
    path = exploration.paths["two_leaders"]
    model = exploration.model
    # The shortest: P1 calls an election, P3 answers and proclaims, P1's T fires first.
    assert [model.describe(e) for e in path.events] == [
        "P1 wakes up (initiates)",
        "deliver election() from P1 to P3",
        "P1's timer answer fires",
    ]
    leaders = {
        (r[2], r[6]) for r in records(model, path.events) if r[3] == "state" and r[4] == "leader"
    }
    assert leaders == {(1, 1), (3, 1)}


def test_the_ring_without_a_failure_detector_loses_its_election(tmp_path: Path) -> None:
    """Notes 002: the would-be leader crashes mid-way and the election never ends."""
    cr = ring(tmp_path, 4)
    exploration = explore_config(cr, Options(crashes=1, crashable=frozenset({4})))
    assert exploration.complete
    assert kinds(exploration) == ["undecided", "crashed_leader"]
    lost = exploration.paths["undecided"]
    state = exploration.found[lost.state]
    assert exploration.model.crashed(state) == [4]
    told = narrate(trace_events(records(exploration.model, lost.events)))
    assert any("P4 crashes" in line for line in told)


def test_lelann_needs_fifo_links(tmp_path: Path) -> None:
    exploration = explore_config(ring(tmp_path, 3, "lelann"), Options(unordered=True))
    assert "two_leaders" in kinds(exploration)


def test_a_lost_message_leaves_the_ring_undecided(tmp_path: Path) -> None:
    exploration = explore_config(ring(tmp_path, 3), Options(losses=1))
    assert kinds(exploration) == ["undecided"]
    run = records(exploration.model, exploration.paths["undecided"].events)
    assert next(r for r in run if r[3] == "send" and len(r) == 10)[8:] == (
        "lost",
        "lost by the network",
    )


def test_a_duplicate_is_delivered_twice(tmp_path: Path) -> None:
    exploration = explore_config(ring(tmp_path, 3), Options(duplicates=1))
    assert exploration.complete
    assert exploration.faultless == (6, 9)  # 2n to n(n+1)/2 + n, as without the fault
    duplicated = [n for n, e in enumerate(exploration.model.events) if e[0] == "duplicate"]
    assert duplicated


# -- the model -----------------------------------------------------------------------------


def test_a_replayed_path_is_the_run_the_search_saw(tmp_path: Path) -> None:
    exploration = explore_config(mesh(tmp_path, 3), Options(crashes=1))
    model = exploration.model
    for name, path in exploration.paths.items():
        run = records(model, path.events)
        sent = sum(1 for r in run if r[3] == "send")
        assert sent == path.messages, name
        final = exploration.found[path.state]
        # Every node's state at the end of the replay is the state the search found.
        stances = {}
        for r in run:
            if r[3] == "state":
                stances[r[2]] = (r[4], r[5], r[6])
            elif r[3] == "crash":
                stances[r[2]] = "crashed"
        for i, node in enumerate(model.ids):
            if final[i] == CRASHED:
                assert stances.get(node) == "crashed"
            elif node in stances:
                state, elected, epoch = model.nodes[i].stance[final[i]]
                assert stances[node] == (str(state), elected, epoch)


def test_the_key_of_an_election_ignores_a_default_set_again() -> None:
    view = NodeView(1, 1, (2,), (2,), {1: 1, 2: 2}, {}, (1, 2))
    member = Member(ChangRoberts, view, policy=crash_policy(ChangRoberts))
    before = member.key()
    member.election.participant = False  # the class's default, now set on the object
    assert member.key() == before
    member.election.participant = True
    assert member.key() != before


def test_a_send_outside_the_wiring_adds_its_link() -> None:
    views = [
        NodeView(i, i, (i % 3 + 1,), ((i - 2) % 3 + 1,), {1: 1, 2: 2, 3: 3}, {}, (1, 2, 3))
        for i in (1, 2, 3)
    ]
    # Bully answers whoever called, wherever the ring wires it.
    exploration = explore(Bully, views, [1])
    assert exploration.complete
    assert len(exploration.model.links) > 3


def test_limits_stop_the_search(tmp_path: Path) -> None:
    cr = ring(tmp_path, 6)
    few = explore_config(cr, max_states=100)
    assert not few.complete and few.stopped == "max_states" and few.states == 100
    shallow = explore_config(cr, max_depth=5)
    assert not shallow.complete and shallow.stopped == "max_depth" and shallow.depth == 6


def test_crash_entries_in_the_config_name_who_may_crash(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        'topology = "full_mesh"\nalgorithm = "bully"\nnodes = 3\n[[faults]]\nat = 0.1\ncrash = 3\n'
    )
    cfg = load_config(path)
    options = explore_options(cfg)
    assert options.crashes == 1 and options.crashable == frozenset({3})
    assert explore_options(cfg, crashes=2).crashes == 2
    exploration = explore_config(cfg)
    crashed = {e[1] for e in exploration.model.events if e[0] == "crash"}
    assert crashed == {exploration.model.index[3]}


def test_a_check_not_applied_is_not_checked_with_why(tmp_path: Path) -> None:
    """A search stopped before any end state has checked no end state: none is passed."""
    stopped = explore_config(mesh(tmp_path, 6), max_states=2_000)
    assert stopped.ok and not stopped.complete and stopped.end_states == 0
    assert not stopped.checked
    assert stopped.checks["two_leaders"].status == "passed"
    for kind in ("undecided", "disagreement", "crashed_leader", "wrong_leader", "bound"):
        assert stopped.checks[kind].status == "not_checked", kind
    assert stopped.checks["undecided"].reason == (
        "no end state reached before --max-states stopped the search at 2,000 states"
    )
    whole = explore_config(ring(tmp_path, 4))
    assert whole.checked and all(v.status == "passed" for v in whole.checks.values())


def test_the_largest_wins_only_where_every_live_node_names_it(tmp_path: Path) -> None:
    """The nodes name different leaders: not a ✓ for 'the largest candidate wins'."""
    hasty = explore_config(load_config(EXAMPLES / "your_algorithm" / "ring.toml"))
    assert hasty.complete and hasty.checks["wrong_leader"].status == "failed"
    found = {f.kind: f for f in hasty.findings}["wrong_leader"]
    assert found.detail == "P1 names P2, P2 names P3, P4 names P2; the largest is P4"
    lelann = explore_config(load_config(EXAMPLES / "lelann.toml"), Options(unordered=True))
    assert "wrong_leader" in kinds(lelann)
    # A crashed would-be leader leaves the others undecided: whether they agree is not
    # checked in those end states, and says so.
    crash = explore_config(load_config(EXAMPLES / "explore" / "ring_crash.toml"))
    verdict = crash.checks["disagreement"]
    assert verdict.status == "not_checked"
    assert verdict.reason == "a live node never decided in 16 of 63 end states"


# -- the command ---------------------------------------------------------------------------


def test_explore_json_exits_0_and_writes_traces_replay_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(
        ["explore", str(EXAMPLES / "chang_roberts_table.toml"), "--json", "--out", str(out)]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["ok"]
    for key in ("states", "end_states", "complete", "messages", "bound", "violations", "traces"):
        assert key in data
    assert data["complete"] and data["messages"] == {"min": 10, "max": 20}
    assert data["bound"]["formula"] == "n(n+1)/2+n" and data["bound"]["held"]
    assert data["options"]["starts"] == "any"
    assert set(data["traces"]) == {"min", "max"}
    trace = load_trace(data["traces"]["max"])
    assert sum(e["event"] == "send" for e in trace.events) == 20
    assert main(["replay", data["traces"]["max"], "--no-step"]) == 0
    told = capsys.readouterr().out
    assert "Messages: 20" in told


def test_explore_exits_1_on_a_violation_with_its_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "bully.toml"
    cfg.write_text('topology = "full_mesh"\nalgorithm = "bully"\ninitiators = [1]\nnodes = 3\n')
    code = main(
        [
            "explore",
            str(cfg),
            "--timers",
            "any",
            "--max-states",
            "3000",
            "--json",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and not data["ok"]
    first = data["violations"][0]
    assert first["kind"] == "two_leaders" and first["steps"] == 3
    events = load_trace(first["trace"]).events
    leaders = {e["node"] for e in events if e["event"] == "state" and e["state"] == "leader"}
    assert leaders == {1, 3}


def test_explore_stopped_by_a_limit_says_so_first_and_exits_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["explore", "--nodes", "6", "--topology", "full_mesh", "--max-states", "2000"]
    code = main([*argv, "--out", str(tmp_path / "o")])
    lines = capsys.readouterr().out.splitlines()
    assert code == 3
    assert lines[0].endswith(": incomplete, stopped by --max-states at 2,000 states")
    assert "  ✓ at most one leader per epoch, in every state explored" in lines
    assert (
        "  ? every live node decides (every end state): not checked (no end state reached "
        "before --max-states stopped the search at 2,000 states)"
    ) in lines
    assert not any("✓ every live node decides" in line for line in lines)
    code = main([*argv, "--json", "--out", str(tmp_path / "o")])
    data = json.loads(capsys.readouterr().out)
    assert code == 3 and data["ok"] and not data["checked"] and not data["complete"]
    assert data["checks"]["two_leaders"]["status"] == "passed"
    assert data["checks"]["wrong_leader"]["status"] == "not_checked"
    assert "--max-states" in data["checks"]["wrong_leader"]["reason"]
    assert data["checks"]["bound"]["status"] == "not_checked"


def test_explore_marks_what_is_false_with_a_cross(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = EXAMPLES / "your_algorithm" / "ring.toml"
    code = main(["explore", str(cfg), "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 1
    assert "✓ without a crash, the largest candidate wins" not in out
    assert "✗ without a crash, the largest candidate wins (every end state): P1 names P2" in out
    code = main(["explore", str(cfg), "--json", "--out", str(tmp_path / "o")])
    data = json.loads(capsys.readouterr().out)
    assert data["checks"]["wrong_leader"]["status"] == "failed"
    assert data["checks"]["crashed_leader"]["status"] == "passed"  # no node crashed


def test_explore_report_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explore", str(EXAMPLES / "lelann.toml"), "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 0
    assert "Explored LeLann on a unidirectional ring of 5 nodes" in out
    assert "exactly n^2 = 25: held" in out
    assert "✓ at most one leader per epoch" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--max-states", "0"],
        ["--crashes", "-1"],
        ["--timers", "sometimes"],
        ["--algorithm", "raft"],
    ],
)
def test_explore_bad_usage_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    try:
        code = main(["explore", str(EXAMPLES / "ring.toml"), "--out", str(tmp_path), *argv])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_explore_html_is_retired_with_a_pointer_to_the_lab(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.html"
    config = str(EXAMPLES / "lelann.toml")
    code = main(["explore", config, "--out", str(tmp_path / "o"), "--html", str(page)])
    err = capsys.readouterr().err
    assert code == 0 and not page.exists()
    assert err.strip().splitlines() == [
        "ringleader explore: --html is retired (nothing written): step the run by hand with "
        f"ringleader lab {config}"
    ]


# -- the docs' examples ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("example", "options", "found"),
    [
        ("bully.toml", {}, []),
        ("bully.toml", {"crashes": 1}, ["crashed_leader"]),
        (
            "bully_early.toml",
            {"timers": "any"},
            ["two_leaders", "disagreement", "wrong_leader", "bound"],
        ),
        ("bully_pause.toml", {}, ["two_leaders"]),
        ("ring_crash.toml", {}, ["undecided", "crashed_leader"]),
        ("hirschberg_sinclair.toml", {}, []),
    ],
)
def test_the_explore_examples_find_what_they_say(
    example: str, options: dict[str, Any], found: list[str]
) -> None:
    config = load_config(EXAMPLES / "explore" / example)
    exploration = explore_config(config, explore_options(config, **options), max_states=300_000)
    assert kinds(exploration) == found
    assert exploration.complete or options.get("timers") == "any"
    for path in exploration.paths.values():
        assert records(exploration.model, path.events)  # each run replays


def test_a_crashed_node_restarts_as_a_new_member_that_recovers_when_restarts_are_on() -> None:
    """With ``restarts`` a crashed node may come back, as the simulator restarts it (a
    new member, ``recovering``, booted); without, nothing changes (the counts above)."""
    ring = load_config(EXAMPLES / "ring.toml")
    plain = explore_config(ring, explore_options(ring, crashes=1))
    again = explore_config(ring, explore_options(ring, crashes=1, restarts=True))
    assert plain.states == 173 and plain.complete
    assert again.complete and again.states > plain.states
    assert not any(e[0] == "restart" for e in plain.model.events)
    model = again.model
    state = model.initial()
    crash = next(s for s in model.expand(state)[0] if model.events[s[0]] == ("crash", 0))
    crashed = crash[1]
    assert crashed[0] == CRASHED
    restart = next(s for s in model.expand(crashed)[0] if model.events[s[0]][0] == "restart")
    assert model.describe(restart[0]) == f"P{model.ids[0]} restarts"
    back = restart[1]
    assert back[0] != CRASHED and back[model.extras] == 0  # the crash is spent
    member = model.nodes[0].templates[back[0]]
    assert member.recovering and not model.nodes[0].can_start[back[0]]
    # a crash spent and restarted: no second crash, no second restart
    assert not [s for s in model.expand(back)[0] if model.events[s[0]][0] in ("crash", "restart")]
    # the replay's trace says so, as the simulator's would
    told = [r[3] for r in records(model, [crash[0], restart[0]])]
    assert told == ["crash", "restart"]
    # without crashes, restarts change nothing
    lone = explore_config(ring, explore_options(ring, restarts=True))
    assert lone.states == explore_config(ring, explore_options(ring)).states == 22


def test_a_partition_keeps_the_nodes_of_no_group_together() -> None:
    """examples/faults/partition.toml cuts P1 and P2 off the rest (docs/faults.md: the
    nodes of no group are one group more, as the simulator has it): P3's election to P4,
    on the same side, arrives; P2's to P3, across, is lost."""
    split = load_config(EXAMPLES / "faults" / "partition.toml")
    model = explore_config(split, explore_options(split)).model
    state = model.initial()

    def step(state: tuple[int, ...], what: tuple[Any, ...]) -> tuple[int, ...]:
        return next(s[1] for s in model.expand(state)[0] if model.events[s[0]] == what)

    apart = step(state, ("partition", 0))
    assert model.describe(model.event(("partition", 0))) == ("the network splits: P1 P2 | P3 P4 P5")
    three, two = model.index[3], model.index[2]
    sent = step(apart, ("start", three))
    assert sent[model.n + model.link_of[three][model.index[4]]]  # on its way to P4
    lost = step(apart, ("start", two))
    assert not lost[model.n + model.link_of[two][three]]  # across the split: lost
