"""``ringleader explore --service``: the service's rules explored as ``ringleader node``
runs them (``actors/exploration/service``), with clocks that tick and drift and faults
that strike at any moment, checked against the service's guarantees.

Complete searches where they fit in a test's time (three nodes, one fault of a kind:
every reachable state, the progress check made); seeded random walks for the faults whose
states do not (their figures: ``benchmarks/explore_service.py``); and proof that the
checks catch what matters: each of the three faults fixed in issue 19, brought back by a
switch that exists only here, is found as a counterexample that ``replay`` narrates and
``diagram`` draws, and so are ``quorum = false`` under a partition and a lease longer
than the drift allows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ringleader.actors.core import Persist
from ringleader.actors.crashes import (
    Lease,
    LeaseSettings,
    Member,
    Ping,
    Pong,
    PreVote,
    PreVoteReply,
)
from ringleader.actors.crashes._rounds import Rounds
from ringleader.actors.crashes._steady_rules import SteadyRules
from ringleader.actors.exploration.service import (
    ServiceOptions,
    Timing,
    Unsettled,
    default_drift,
    default_tick,
    search,
    service_records,
    walk,
)
from ringleader.actors.exploration.service._numbering import ANCIENT, BASE, Numbering
from ringleader.cluster import service_model, service_timing
from ringleader.topologies import Config, load_config
from tests.paths import ROOT

SERVICE = ROOT / "examples" / "service" / "cluster.toml"


def variant(tmp_path: Path, name: str, *lines: str, replace: tuple[str, str] = ("", "")) -> Config:
    """``examples/service/cluster.toml`` with ``lines`` added (before its nodes) and one
    text replaced."""
    text = SERVICE.read_text(encoding="utf-8")
    if replace[0]:
        text = text.replace(*replace)
    head, nodes = text.split("[[nodes]]", 1)
    path = tmp_path / f"{name}.toml"
    path.write_text(head + "\n".join(lines) + "\n\n[[nodes]]" + nodes, encoding="utf-8")
    return load_config(path)


# --- the parts -----------------------------------------------------------------------


def test_the_default_tick_divides_every_timing_and_the_drift_is_the_lease_s_margin() -> None:
    settings = {"heartbeat": 0.05, "suspect_after": 0.3, "reelect_after": 2.0, "quorum": 1.0}
    assert default_tick(settings, [0.5, 1.0]) == pytest.approx(0.05)
    assert default_tick({**settings, "heartbeat": 0.04}, [0.5]) == pytest.approx(0.02)
    # lease 0.2 s (suspect_after − 2 heartbeats), margin suspect_after − heartbeat = 0.25 s:
    # (0.25 − 0.2) / (0.25 + 0.2)
    assert default_drift(settings) == pytest.approx(1 / 9)
    assert default_drift({**settings, "lease": 0.25}) == 0.0
    timing = Timing(0.05, 1 / 9, 0.2)
    assert timing.shadow == 5  # 4 ticks, stretched by 1.25
    assert Timing(0.05, 0.0, 0.2).shadow == 4


def test_numbers_in_flight_are_counted_back_from_their_owners() -> None:
    numbering = Numbering(horizon=9)
    newest = (40, 7)  # the owner's last heartbeat and attempt
    ping = numbering.own(Ping(40), 5, newest)
    older = numbering.own(Ping(38), 5, newest)
    assert numbering.back[ping] == 0 and numbering.back[older] == -2
    assert numbering.moved(ping, 2, 0) == older  # two heartbeats later, it is two back
    assert numbering.back[numbering.moved(ping, 10, 0)] == ANCIENT
    # A member that is not the owner is handed the number from a base; its answer is
    # counted back from it again: the same number.
    handed, epoch = numbering.message(older, (3, 1))
    assert isinstance(handed, Ping) and handed.seq == BASE - 2 and epoch == 5
    answer = numbering.own(Pong(handed.seq), 5, (3, 1))
    assert numbering.back[answer] == -2
    # The owner gets it counted from its own numbers.
    assert numbering.message(answer, (40, 7))[0] == Pong(38)
    # Attempts: the one in progress, or one before it (all alike).
    ask = numbering.own(PreVote(7), 5, newest)
    reply = numbering.own(PreVoteReply(BASE, True), 5, (0, 0))
    assert numbering.back[ask] == 0 and numbering.back[reply] == 0
    assert numbering.message(numbering.moved(reply, 0, 1), (40, 8))[0].attempt == -1
    assert numbering.own(Ping(0), 5, newest) != ping  # a plain ping has no number


# --- complete searches ---------------------------------------------------------------


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "faults",
    [{}, {"crashes": 1}, {"losses": 1}, {"duplicates": 1}],
    ids=["no fault", "crash", "loss", "duplicate"],
)
def test_three_nodes_are_explored_completely_and_break_nothing(faults: dict[str, int]) -> None:
    config = load_config(SERVICE)
    result = search(service_model(config, ServiceOptions(**faults)), max_states=2_000_000)
    assert result.complete and result.progress_checked
    assert result.findings == [], [(f.kind, f.detail) for f in result.findings]
    assert result.states > 300


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "topology",
    [
        'topology = "unidirectional_ring"',
        'topology = "bidirectional_ring"',
        'topology = "spanning_tree"\nedges = [[1, 2], [1, 3]]',
        'topology = "full_mesh"',
        'topology = "graph"\nedges = [[1, 2], [2, 3], [1, 3]]',
    ],
    ids=["ring", "two-way ring", "tree", "mesh", "graph"],
)
def test_a_service_on_each_topology_is_explored_clean(tmp_path: Path, topology: str) -> None:
    text = f'{topology}\ntransport = "tcp"\nheartbeat = 0.05\nsuspect_after = 0.3\nnodes = 3\n'
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    config = load_config(path)
    result = search(service_model(config, ServiceOptions(crashes=1)), max_states=2_000_000)
    assert result.complete and result.findings == []


# --- walks, for what is too big to search ------------------------------------------------


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "faults",
    [
        {"crashes": 2, "restarts": 2},
        {"crashes": 2, "wipes": 1},
        {"partitions": 2},
        {"cuts": 2},
        {"pauses": 2},
        {name: 1 for name in ("crashes", "restarts", "wipes", "partitions", "cuts", "pauses")},
    ],
    ids=["restarts", "wipes", "partitions", "cuts", "pauses", "every fault"],
)
def test_the_larger_faults_break_nothing_on_seeded_walks(faults: dict[str, int]) -> None:
    model = service_model(load_config(SERVICE), ServiceOptions(**faults))
    result = walk(model, walks=60, length=400, seed=1, faults=0.02)
    assert result.findings == [], [(f.kind, f.detail) for f in result.findings]
    assert result.steps >= 60 * 400


# --- the checks catch what matters ---------------------------------------------------------


@pytest.fixture
def show(tmp_path: Path) -> Iterator[object]:
    """Write a counterexample as a trace, and check that replay and diagram read it."""

    def check(model: object, events: list[int], name: str) -> None:
        from ringleader.actors.tracing import write_trace

        trace = tmp_path / f"{name}.jsonl"
        with trace.open("w", encoding="utf-8") as out:
            write_trace(service_records(model, events), out, nodes=3, heartbeats=True)  # type: ignore[arg-type]
        told = subprocess.run(
            [sys.executable, "-m", "ringleader", "replay", str(trace), "--no-step"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        assert "crashes" in told.stdout or "splits" in told.stdout or "pauses" in told.stdout
        picture = tmp_path / f"{name}.svg"
        subprocess.run(
            [sys.executable, "-m", "ringleader", "diagram", str(trace), "-o", str(picture)],
            capture_output=True,
            check=True,
            timeout=60,
        )
        assert picture.stat().st_size > 1000

    yield check


#: Each fault of issue 19, the switch that brings it back (what the fix changed), the
#: faults that show it, and what it breaks.
BROUGHT_BACK = {
    "a restarted node follows a wiped node's old epoch": (
        [(SteadyRules, "beyond_floor", lambda self, epoch: True)],
        {"crashes": 2, "restarts": 1, "wipes": 1, "partitions": 1},
        None,
        "token_back",
    ),
    "an old leader back after a newer one died leads in its old epoch": (
        [
            (SteadyRules, "may_follow", lambda self, epoch: True),
            (Lease, "refused", property(lambda self: False)),
        ],
        {"crashes": 1, "partitions": 1},
        None,
        "token_back",
    ),
    "a node acknowledges two leaders of one round": (
        [(Rounds, "may_acknowledge", lambda self, epoch, leader: True)],
        {"crashes": 2, "restarts": 2, "partitions": 2},
        ('algorithm = "bully"', 'algorithm = "bully_broadcast"'),
        "two_acks",
    ),
}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("fault", list(BROUGHT_BACK))
def test_each_fault_fixed_in_issue_19_brought_back_is_found(
    fault: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, show: object
) -> None:
    switches, faults, replace, kind = BROUGHT_BACK[fault]
    config = variant(tmp_path, "c", replace=replace) if replace else load_config(SERVICE)
    model = service_model(config, ServiceOptions(**faults))
    clean = walk(model, walks=150, length=600, seed=0, faults=0.01)
    assert clean.findings == [], [(f.kind, f.detail) for f in clean.findings]
    for owner, name, value in switches:
        monkeypatch.setattr(owner, name, value)
    model = service_model(config, ServiceOptions(**faults))
    found = walk(model, walks=3000, length=600, seed=0, faults=0.01, until_found=True)
    assert kind in {f.kind for f in found.findings}, found.walks
    show(model, found.paths[kind], kind)  # type: ignore[operator]


@pytest.mark.timeout(180)
def test_a_restarted_node_that_forgets_its_promise_is_found(
    monkeypatch: pytest.MonkeyPatch, show: object
) -> None:
    # Two of every fault at once (``explore --faults 2``): a follower acknowledges the
    # leader, crashes, restarts and helps elect another while the first one's lease runs.
    # Found on main by the CLI's walks (seed 11, 208 steps); kept since by rule 7.
    faults = dict.fromkeys(
        ("crashes", "restarts", "wipes", "partitions", "cuts", "losses", "duplicates", "pauses"), 2
    )
    model = service_model(load_config(SERVICE), ServiceOptions(**faults))
    clean = walk(model, walks=300, length=500, seed=1)
    assert clean.findings == [], [(f.kind, f.detail) for f in clean.findings]
    monkeypatch.setattr(SteadyRules, "restarted", lambda self: None)
    model = service_model(load_config(SERVICE), ServiceOptions(**faults))
    # (The walks are rare to meet it: seeds 2-5 do not in 300 walks, before the late
    # heartbeat's schedule and Lease.gone as after; seed 1 met it then, 41 does now.)
    found = walk(model, walks=300, length=500, seed=41, until_found=True)
    assert "two_leases" in {f.kind for f in found.findings}, found.walks
    events = [model.events[number][0] for number in found.paths["two_leases"]]
    assert "restart" in events or "wipe" in events
    show(model, found.paths["two_leases"], "two_leases")  # type: ignore[operator]


@pytest.mark.timeout(120)
def test_without_a_quorum_a_partition_gives_two_leases(tmp_path: Path, show: object) -> None:
    config = variant(tmp_path, "noquorum", "quorum = false")
    model = service_model(config, ServiceOptions(partitions=1))
    found = walk(model, walks=500, length=600, seed=0, faults=0.02, until_found=True)
    assert "two_leases" in {f.kind for f in found.findings}
    show(model, found.paths["two_leases"], "two_leases")  # type: ignore[operator]


def _lease_config(tmp_path: Path, lease: float) -> Config:
    path = tmp_path / f"lease-{lease}.toml"
    path.write_text(
        'topology = "full_mesh"\nalgorithm = "bully"\ntransport = "tcp"\nnodes = 3\n'
        f"heartbeat = 0.05\nsuspect_after = 0.3\nlease = {lease}\n"
        "election_timeout = 0.05\ncoordinator_timeout = 0.1\n",
        encoding="utf-8",
    )
    return load_config(path)


@pytest.mark.timeout(120)
def test_a_lease_longer_than_the_drift_allows_is_caught(tmp_path: Path) -> None:
    # lease = suspect_after − heartbeat: no room for clocks that run apart.  A follower
    # pauses, comes back after its leader's lease on its own clock, and votes for a node
    # cut off from the leader; the leader's lease, on a slow clock, still runs.
    long = _lease_config(tmp_path, 0.25)
    options = ServiceOptions(cuts=1, pauses=1)
    timing = service_timing(long, drift=0.05)
    found = search(service_model(long, options, timing), max_states=300_000)
    assert "two_leases" in {f.kind for f in found.findings}
    # The default lease (0.2 s) leaves room for drift up to 11 %: the same search, clean.
    fits = _lease_config(tmp_path, 0.2)
    clean = search(service_model(fits, options, service_timing(fits)), max_states=300_000)
    assert clean.findings == [], [(f.kind, f.detail) for f in clean.findings]


def _leader_cut_off(drift: float) -> list[str]:
    """The cluster settled; its leader cut off from both others; then everything but a
    fault, frames first, time only when nothing else can happen: what that broke."""
    config = load_config(SERVICE)
    model = service_model(config, ServiceOptions(partitions=1), service_timing(config, drift=drift))
    state, _ = model.settle(model.initial()[0])
    led = model.leading(state)
    assert led is not None
    alone = model.ids.index(led[0])
    others = frozenset(range(model.n)) - {alone}
    split = next(c for c, side in enumerate(model.splits) if side in ({alone}, others))
    _, state, _ = model.take(state, ("split", split))
    broken: list[str] = []
    for _ in range(600):
        choices = [c for c in model.enabled(state) if c[0] in ("deliver", "timer", "tick")]
        quick = [c for c in choices if c[0] != "tick"]
        _, state, found = model.take(state, quick[0] if quick else ("tick",))
        broken += [kind for kind, _ in found]
    return broken


def test_a_lease_ended_on_its_leader_s_clock_still_holds_in_true_time() -> None:
    # The leader's own count of its lease ends (its lease:end timer, on a clock that may
    # be slow): in true time it may still hold it, for as long as its shadow.  At 50 %
    # drift a lease of 0.2 s is held 12 ticks; the others elect a leader 7 ticks after
    # the cut, within it.  (Its shadow used to end with its own count: nothing found.)
    assert "two_leases" in _leader_cut_off(drift=0.5)
    assert _leader_cut_off(drift=1 / 9) == []  # the default drift: the margin holds


def test_a_lease_begun_at_the_word_of_a_leader_whose_lease_ended_does_not_overlap_it() -> None:
    # The leader's lease ended on its clock and its shadow runs on; its next frame is
    # sent after that end, however slow its clock: a lease begun by a node that heard
    # it (here: directly) begins after the end, and is not two leases at one instant.
    # One that did not hear it still is.  (Found by seeded walks before the frames
    # carried it: a leader acknowledged the next one the tick its own lease ran out.)
    config = load_config(SERVICE)
    model = service_model(config, ServiceOptions(partitions=1))
    state, _ = model.settle(model.initial()[0])
    led = model.leading(state)
    assert led is not None
    old = model.ids.index(led[0])
    new, other = (j for j in range(model.n) if j != old)
    S, H, P = model.S, model.H, model.P
    base = list(state)
    base[S + old] = -3  # ended on its clock, 3 ticks of shadow left
    begin = (new, led[1] + 1, model.timing.shadow)

    def begun(heard: int) -> list[str]:
        trial, broken = list(base), []
        trial[H + new] = heard
        trial[P + new] = 0
        model._published(trial, new, begin, broken)
        return [kind for kind, _ in broken]

    assert "two_leases" in begun(0)
    assert "two_leases" not in begun(1 << old)
    assert "two_leases" in begun(1 << other)  # (another's end is no proof of this one's)
    # The frames the old leader sends now carry its end; a tick that ends its shadow
    # takes it out of every tag and of what every node heard.
    trial: list[int] = list(base)
    link = model.n + model.link_of[old][new]
    trial[link] = 0
    model._apply(trial, old, (state[old], [(new, 0)], None, None, (), (0, 0)), [])
    assert model.flights.head(trial[link])[1] == 1 << old  # type: ignore[index]
    trial[H + other] = 1 << old
    trial[S + old] = -1
    _, after, _ = model._tick(tuple(trial))
    assert after[S + old] == 0 and after[H + other] == 0
    assert model.flights.head(after[link])[1] == 0  # type: ignore[index]


def test_the_progress_check_counts_a_crashed_node_that_stays_down() -> None:
    config = load_config(SERVICE)
    model = service_model(config, ServiceOptions(crashes=2))
    state, _ = model.settle(model.initial()[0])
    assert model.up(state)
    _, one_down, _ = model.take(state, ("crash", 0))
    assert model.up(one_down)  # two of three: a leader must come back without it
    _, two_down, _ = model.take(one_down, ("crash", 1))
    assert not model.up(two_down)  # no majority: nobody can lead


def test_a_lone_survivor_asking_for_ever_comes_back_to_a_state_it_was_in() -> None:
    # Two of three crashed: the last asks for a round for ever, and nobody answers.  Its
    # states must repeat (they once counted its quiet heartbeats for ever: two crashes
    # were an endless search).
    config = load_config(SERVICE)
    model = service_model(config, ServiceOptions(crashes=2))
    state, _ = model.settle(model.initial()[0])
    led = model.leading(state)
    assert led is not None
    leader = model.ids.index(led[0])
    follower = next(i for i in range(model.n) if i != leader)
    _, state, _ = model.take(state, ("crash", leader))
    _, state, _ = model.take(state, ("crash", follower))
    seen: set[tuple[int, ...]] = set()
    for _ in range(5_000):
        if state in seen:
            break
        seen.add(state)
        choices = [c for c in model.enabled(state) if c[0] in ("deliver", "timer", "tick")]
        quick = [c for c in choices if c[0] != "tick"]
        _, state, _ = model.take(state, quick[0] if quick else ("tick",))
    else:
        pytest.fail("5,000 steps, every state new")


@pytest.mark.timeout(60)
def test_a_persist_after_another_action_stops_the_explorer(monkeypatch: pytest.MonkeyPatch) -> None:
    # The host carries out a member's actions in order: a Persist after a send would
    # send before the state file has what it says.  The explorer refuses such a member.
    flush = Member.flush

    def late(self: Member) -> list[object]:
        actions = flush(self)
        kept = [a for a in actions if isinstance(a, Persist)]
        return [a for a in actions if not isinstance(a, Persist)] + kept

    monkeypatch.setattr(Member, "flush", late)
    config = load_config(SERVICE)
    with pytest.raises(RuntimeError, match="asks to keep its state after"):
        search(service_model(config, ServiceOptions()), max_states=10_000)


def test_a_cluster_that_never_settles_is_said_so() -> None:
    model = service_model(load_config(SERVICE), ServiceOptions())
    with pytest.raises(Unsettled, match="no leader holds its lease after 3 steps"):
        model.settle(model.initial()[0], limit=3)


# --- the command ---------------------------------------------------------------------------


def ringleader(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ringleader", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.mark.timeout(150)
def test_explore_service_says_what_it_assumed_and_each_check(tmp_path: Path) -> None:
    done = ringleader("explore", str(SERVICE), "--service", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "as `ringleader node` runs it" in out
    assert "ticks of 0.05 s; clocks drift up to 11.1%" in out
    assert "faults: crashes 1, losses 1; quorum on" in out
    assert "(every reachable state)" in out
    assert out.count("✓") == 5


@pytest.mark.timeout(150)
def test_explore_service_json_and_an_incomplete_search(tmp_path: Path) -> None:
    done = ringleader(
        "explore",
        str(SERVICE),
        "--service",
        "--faults",
        "1",
        "--max-states",
        "20000",
        "--json",
        "--out",
        str(tmp_path / "out"),
    )
    assert done.returncode == 3, done.stderr  # nothing broken, but not every state seen
    summary = json.loads(done.stdout)
    assert summary["mode"] == "service" and not summary["complete"]
    assert summary["stopped"] == "max_states" and summary["states"] == 20_000
    assert summary["checks"]["no_progress"] == "not checked"
    assert summary["checks"]["token_back"] == "held so far"
    assert summary["faults"]["pauses"] == 1 and summary["timing"]["lease_ticks_held"] == 5


@pytest.mark.timeout(150)
def test_an_incomplete_service_search_says_so_in_its_first_line(tmp_path: Path) -> None:
    done = ringleader(
        "explore", str(SERVICE), "--service", "--max-states", "2000", "--out", str(tmp_path)
    )
    assert done.returncode == 3, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.endswith(": incomplete, stopped by --max-states at 2,000 states"), first


@pytest.mark.timeout(150)
def test_explore_service_writes_a_counterexample_and_exits_1(tmp_path: Path) -> None:
    config = tmp_path / "noquorum.toml"
    config.write_text(
        SERVICE.read_text(encoding="utf-8").replace(
            "suspect_after = 0.3", "suspect_after = 0.3\nquorum = false"
        ),
        encoding="utf-8",
    )
    done = ringleader(
        "explore", str(config), "--service", "--partitions", "1", "--walks", "300",
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "✗ no two nodes hold a lease at the same instant" in done.stdout
    assert "breaks: one leader at a time" in done.stdout
    assert (tmp_path / "out" / "two_leases.jsonl").exists()


def test_explore_service_refuses_the_notes_options_and_vice_versa() -> None:
    done = ringleader("explore", str(SERVICE), "--service", "--unordered")
    assert done.returncode == 2 and "--unordered is for the notes' runs" in done.stderr
    done = ringleader("explore", str(SERVICE), "--restarts", "1")
    assert done.returncode == 2 and "--restarts needs --service" in done.stderr
    done = ringleader("explore", str(SERVICE), "--service", "--delay", "any", "--capacity", "0")
    assert done.returncode == 2
    done = ringleader("explore", str(SERVICE), "--capacity", "3")
    assert done.returncode == 2 and "--capacity needs --service" in done.stderr
    done = ringleader("explore", str(SERVICE), "--changes", "1")
    assert done.returncode == 2 and "--changes needs --service" in done.stderr
    done = ringleader("explore", str(SERVICE), "--service", "--tick", "0.03")
    assert done.returncode == 2 and "0.03 s does not divide every timing" in done.stderr


@pytest.mark.timeout(150)
def test_a_restart_without_crashes_asked_for_brings_its_crash(tmp_path: Path) -> None:
    done = ringleader(
        "explore",
        str(SERVICE),
        "--service",
        "--restarts",
        "1",
        "--max-states",
        "2000",
        "--json",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 3, done.stderr
    faults = json.loads(done.stdout)["faults"]
    assert {k: v for k, v in faults.items() if v} == {"crashes": 1, "restarts": 1}


def test_the_lease_settings_the_explorer_reads_are_the_node_s() -> None:
    config = load_config(SERVICE)
    timing = service_timing(config)
    lease = LeaseSettings.of({**config.node_settings(), "quorum": 1.0})
    assert lease is not None and timing.lease == pytest.approx(lease.lease)
