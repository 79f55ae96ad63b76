"""Crashes: failure detector, re-election, recovery, fencing epochs, the safety checker.

The simulator explores many schedules fast and deterministically; real runs (threads,
every transport) check the supervisor, the report and the wire.
"""

from __future__ import annotations

import io
import queue
import random
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

import ringleader
from ringleader.actors import (
    ALGORITHMS,
    Bully,
    Candidate,
    Fault,
    Member,
    Notice,
    SafetyChecker,
    Send,
    crash_policy,
    simulate,
)
from ringleader.actors.algorithms import OkAnswer
from ringleader.actors.host import NodeEvent, Resign
from ringleader.cli._render import print_report, print_status
from ringleader.errors import ConfigError
from ringleader.topologies import FaultSpec, NodeSpec, load_config
from tests.paths import ROOT
from tests.shapes import PAIRS, build

SIM = {"heartbeat": 0.05, "suspect_after": 0.3, "election_timeout": 0.1, "coordinator_timeout": 0.2}
#: Ring and mesh pairs: the topologies a crash never splits.
UNSPLIT = [(t, a) for t, a in PAIRS if t not in ("graph", "spanning_tree")]


def _schedule(rng: random.Random, ids: list[int], cycles: int) -> tuple[list[Fault], float]:
    faults, t, down = [], 0.5, set()
    for _ in range(cycles):
        t += rng.uniform(0.01, 1.0)
        if down and (rng.random() < 0.5 or len(down) >= len(ids) - 1):
            node = rng.choice(sorted(down))
            down.discard(node)
            faults.append(Fault(t, "restart", node))
        else:
            node = rng.choice(sorted(set(ids) - down))
            down.add(node)
            faults.append(Fault(t, "crash", node))
    return faults, t


@pytest.mark.parametrize(("topology", "algorithm"), UNSPLIT)
@pytest.mark.parametrize("latency", [0.005, 0.04])
def test_random_crashes_and_restarts_never_break_safety(
    topology: str, algorithm: str, latency: float
) -> None:
    for seed in range(12):
        rng = random.Random(seed)
        ids = rng.sample(range(1, 50), rng.randint(3, 7))
        views = build(topology, ids, seed=seed).views(SIM)
        faults, last = _schedule(rng, ids, 12)
        result = simulate(
            ALGORITHMS[algorithm],
            views,
            [ids[0]],
            seed=seed,
            faults=faults,
            until=last + 10.0,
            latency=(0.0001, latency),
        )
        assert result.safety is not None
        result.safety.check_final(result.elected, set(result.live))
        assert result.safety.violations == [], (seed, faults)
        assert result.safety.max_leaders_per_epoch == 1


@pytest.mark.parametrize(("topology", "algorithm"), PAIRS)
def test_the_leader_crashes_and_the_next_highest_wins(topology: str, algorithm: str) -> None:
    ids = [3, 9, 4, 7, 1, 8]
    wiring = build(topology, ids, seed=1)
    top, capacities = 9, ids
    if topology == "spanning_tree":  # a tree survives only the loss of a leaf: make it lead
        top = max(i for i in ids if len(wiring.out[i]) == 1)
        capacities = [100 if i == top else i for i in ids]
        wiring = build(topology, ids, capacities, seed=1)
    result = simulate(
        ALGORITHMS[algorithm],
        wiring.views(SIM),
        [ids[0]],
        faults=[Fault(1.0, "crash", top)],
        until=5.0,
    )
    best = max(i for i in ids if i != top)
    assert result.leaders == [best]
    assert set(result.elected.values()) == {best}
    assert result.safety is not None and result.safety.violations == []
    assert any(n.kind == "suspect" and n.node == top for _, _, n in result.notices)


def test_a_crash_in_the_middle_of_an_election_still_ends_with_one_leader() -> None:
    for algorithm in ("chang_roberts", "lelann", "hirschberg_sinclair", "bully"):
        topology = next(t for t, a in UNSPLIT if a == algorithm)
        for seed in range(20):
            ids = list(range(1, 9))
            result = simulate(
                ALGORITHMS[algorithm],
                build(topology, ids).views(SIM),
                ids,
                seed=seed,
                faults=[Fault(0.0003 * (seed % 5), "crash", 8 - seed % 3)],
                until=8.0,
            )
            assert result.safety is not None
            result.safety.check_final(result.elected, set(result.live))
            assert result.safety.violations == [], (algorithm, seed)
            assert len(result.leaders) == 1


def test_epochs_of_new_rounds_never_collide() -> None:
    views = build("full_mesh", [1, 2, 3, 4]).views(SIM)
    members = [
        Member(ALGORITHMS["bully"], v, policy=crash_policy(ALGORITHMS["bully"])) for v in views
    ]
    for member in members:
        member.rounds.heard_of(17)
    epochs = [m.rounds.next_epoch() for m in members]
    assert len(set(epochs)) == 4 and min(epochs) > 17
    assert all(e % 4 == rank for rank, e in enumerate(epochs))


def test_the_checker_flags_two_leaders_an_older_epoch_and_a_wrong_final_leader() -> None:
    checker = SafetyChecker({i: Candidate(i, i) for i in (1, 2, 3)})
    checker.observe(3, 1, 2, "leader", 3, at=0.1)
    checker.observe(2, 1, 2, "leader", 2, at=0.2)  # a second leader in epoch 2, at once
    checker.observe(1, 1, 4, "not_leader", 3, at=0.3)
    checker.observe(1, 1, 3, "not_leader", 2, at=0.4)  # went back to an older epoch
    checker.down(3, at=0.5)  # 3 crashes: P2 leads epoch 2 alone from then on
    checker.check_final({1: 3, 2: 2}, live=[1, 2])  # 1 names 3, which crashed
    kinds = [v.kind for v in checker.violations]
    assert kinds == ["two_leaders", "older_epoch", "disagreement"]
    clash = checker.violations[0]
    assert (clash.at, clash.until, clash.nodes, clash.epoch, clash.node) == (0.2, 0.5, (2, 3), 2, 2)
    assert clash.as_dict()["nodes"] == [2, 3] and "P2 and P3 lead epoch 2" in str(clash)
    assert checker.max_leaders_per_epoch == 2


def test_the_checker_flags_a_reused_epoch_and_the_wrong_final_leader() -> None:
    """Two leaders one after the other in one epoch are not at once (the explorer's
    ``two_leaders``), but the epoch is a fencing token with two holders."""
    checker = SafetyChecker({i: Candidate(i, i) for i in (1, 2, 3)})
    checker.observe(2, 1, 1, "leader", 2, at=0.1)
    checker.observe(2, 1, 1, "not_leader", 3, at=0.2)
    checker.observe(3, 1, 1, "leader", 3, at=0.3)  # P2 held the token before
    checker.observe(3, 1, 1, "not_leader", 2, at=0.4)
    checker.observe(2, 1, 1, "leader", 2, at=0.5)  # P2 again: P3 held it since
    checker.observe(1, 1, 1, "not_leader", 2, at=0.6)
    checker.check_final({1: 2, 2: 2, 3: 2}, live=[1, 2, 3])  # 3 is the largest
    kinds = [(v.kind, v.nodes) for v in checker.violations]
    assert kinds == [("reused_epoch", (2, 3))] * 2 + [("wrong_leader", (2, 3))]
    assert [v.at for v in checker.violations] == [0.3, 0.5, None]
    assert checker.max_leaders_per_epoch == 1 and checker.leaders_by_epoch() == {1: [2, 3]}


# -- real runs ------------------------------------------------------------------------

FAST = {"heartbeat": 0.02, "suspect_after": 0.12, "reelect_after": 2.0}


def crash_config(
    transport: str,
    topology: str,
    faults: list[FaultSpec],
    *,
    ids: list[int] | None = None,
    capacities: dict[int, float] | None = None,
    edges: list[tuple[int, int]] | None = None,
    run_for: float | None = None,
) -> ringleader.Config:
    ids = ids or [1, 2, 3, 4, 5]
    config = load_config(None).replace(
        transport=transport,
        topology=topology,
        algorithm={"unidirectional_ring": "chang_roberts"}.get(topology, _default(topology)),
        nodes=tuple(NodeSpec(i, (capacities or {}).get(i, i)) for i in ids),
        initiators=(ids[0],),
        edges=tuple(edges) if edges else None,
        timeout=20.0,
        faults=tuple(faults),
        run_for=run_for,
    )
    settings = dict(config.settings) | FAST | {"election_timeout": 0.2, "coordinator_timeout": 0.4}
    return config.replace(settings=settings)


def _default(topology: str) -> str:
    from ringleader.topologies import TOPOLOGIES

    return TOPOLOGIES[topology].algorithms[0]


TREE_EDGES = [(1, 2), (2, 3), (2, 4), (4, 5)]  # node 5 is a leaf


@pytest.mark.parametrize(
    "topology", ["full_mesh", "unidirectional_ring", "bidirectional_ring", "spanning_tree"]
)
def test_leader_crash_the_next_highest_wins_every_live_node_agrees(
    transport: str, topology: str
) -> None:
    edges = TREE_EDGES if topology == "spanning_tree" else None
    config = crash_config(transport, topology, [FaultSpec(0.05, "leader")], edges=edges)
    report = ringleader.run(config)
    assert report.ok, report.problems
    assert report.leader == 4 and report.agreed
    assert [n.state for n in report.nodes if n.id == 5] == ["crashed"]
    assert report.safety is not None and report.safety.violations == []
    data = report.as_dict()
    assert data["safety"] == {"max_leaders_per_epoch": 1, "violations": []}
    assert data["faults"][0]["node"] == 5 and data["faults"][0]["action"] == "crash"
    first, *later = data["elections"]
    assert first["trigger"] == "start" and first["detection_s"] is None and first["leader"] == 5
    won = [e for e in later if e["leader"] == 4]
    assert won and data["epoch"] == won[-1]["epoch"] > 1
    crash_rounds = [e for e in later if e["trigger"] == "crash of 5"]
    # Silence is timed from the last frame heard, up to a heartbeat before the crash; over
    # tcp and ipc the crashed node's refused connection is proof at once (fast_failover).
    low = 0.0 if transport in ("tcp", "ipc") else FAST["suspect_after"] - FAST["heartbeat"]
    assert crash_rounds and low <= crash_rounds[0]["detection_s"] < FAST["suspect_after"] * 3


def test_bully_restart_the_recovered_top_node_wins_again(transport: str) -> None:
    config = crash_config(transport, "full_mesh", [FaultSpec(0.05, "leader", restart_after=0.3)])
    report = ringleader.run(config)
    assert report.ok, report.problems
    assert report.leader == 5 and report.agreed and report.epoch > 1
    assert [f.action for f in report.faults] == ["crash", "restart"]
    triggers = [e.trigger for e in report.elections if e.leader is not None]
    assert triggers[0] == "start" and len(triggers) >= 3  # start, after the crash, after recovery


@pytest.mark.parametrize("topology", ["full_mesh", "unidirectional_ring", "bidirectional_ring"])
def test_two_crashes_in_a_row(topology: str) -> None:
    faults = [FaultSpec(0.05, "leader"), FaultSpec(0.6, "leader")]
    report = ringleader.run(crash_config("inproc", topology, faults))
    assert report.ok, report.problems
    assert report.leader == 3
    assert [f.node for f in report.faults] == [5, 4]


@pytest.mark.parametrize("topology", ["full_mesh", "unidirectional_ring", "bidirectional_ring"])
def test_a_crash_of_a_non_leader_leaves_the_leader_alone(topology: str) -> None:
    report = ringleader.run(crash_config("memory", topology, [FaultSpec(0.05, 2)], run_for=0.5))
    assert report.ok, report.problems
    assert report.leader == 5 and report.epoch == 1  # the same leader, the same token
    # On a ring the crash's repair sends the announcement round again, in the first
    # election's round: its count is then not the notes' to judge, and no problem.
    assert report.problems == []
    if report.bound_unchecked is not None:
        assert report.bound_unchecked.startswith("not checked: node 2 crashed")
        assert report.as_dict()["bound"]["holds"] is None
    assert [e.leader for e in report.elections] == [5]


def test_messages_to_a_crashed_node_never_block_the_sender() -> None:
    # tcp with a dead peer: a blocking send would hold a node for the send timeout on every
    # message; re-election must still be quick.
    report = ringleader.run(crash_config("tcp", "full_mesh", [FaultSpec(0.05, "leader")]))
    assert report.ok
    after = [e for e in report.elections if e.leader == 4]
    assert after and after[-1].duration_s is not None and after[-1].duration_s < 0.5


def test_without_faults_or_run_for_a_run_ends_after_the_first_election() -> None:
    config = load_config(None).replace(transport="memory")
    assert not config.detector
    report = ringleader.run(config)
    assert report.ok and report.heartbeats == 0 and not report.elections
    # Its every state was checked all the same, and it has no crash schedule to report.
    assert report.safety is not None and not report.safety.violations
    assert "elections" not in report.as_dict() and "faults" not in report.as_dict()


def _printed(render: Callable[[Console], None]) -> str:
    console = Console(file=io.StringIO(), width=400, highlight=False)
    render(console)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_the_report_explains_the_rejections_a_crash_leaves(tmp_path: Path) -> None:
    """After the leader's crash and restart, frames of superseded rounds arrive late
    (``stale_epoch``): the report says that this is normal, apart from anything
    suspicious."""
    config = load_config(ROOT / "examples" / "failover.toml")
    for _ in range(3):  # nearly every run has some; a run without any says nothing
        report = ringleader.run(config)
        assert report.ok, report.problems
        if report.rejected_frames.get("stale_epoch"):
            break
    stale = report.rejected_frames.get("stale_epoch")
    assert stale, f"3 runs with a crash and no stale_epoch: {report.rejected_frames}"
    text = _printed(lambda console: print_report(console, report))
    assert (
        "Frames rejected, normal after a crash, restart or pause: stale_epoch "
        f"{stale} (messages of an election round since superseded)"
    ) in text
    assert "suspicious" not in text  # nothing else rejects a member's frames


def test_status_tells_normal_rejections_from_suspicious_ones() -> None:
    nodes = [
        {"id": 1, "address": "tcp://127.0.0.1:7001", "answered": True, "state": "leader",
         "leader": 1, "epoch": 4, "incarnation": 3,
         "rejected": {"stale_epoch": 2, "stale_receiver": 1}},
        {"id": 2, "address": "tcp://127.0.0.1:7002", "answered": True, "state": "follower",
         "leader": 1, "epoch": 4, "incarnation": 1,
         "rejected": {"stale_epoch": 3, "bad_signature": 5, "bad_magic": 1}},
    ]  # fmt: skip
    summary = {"agreed": True, "leader": 1, "epoch": 4, "nodes": nodes}
    text = _printed(lambda console: print_status(console, summary))
    rows = [line.split() for line in text.splitlines()[1:3]]
    assert [row[-2:] for row in rows] == [["3", "0"], ["9", "6"]]  # rejected, suspicious
    assert (
        "Frames rejected, normal after a crash, restart or pause: stale_epoch 5 (messages of "
        "an election round since superseded); stale_receiver 1 (frames meant for this node's "
        "previous life)"
    ) in text
    assert (
        "Frames rejected, suspicious: bad_magic 1 (not a ringleader frame); bad_signature 5 "
        "(not signed with the cluster's secret: a peer with another secret?)"
    ) in text


@pytest.mark.slow
def test_stress_random_crash_and_restart_cycles_stay_safe() -> None:
    rng = random.Random(4)
    ids = [1, 2, 3, 4, 5]
    faults, t = [], 0.05
    for _ in range(50):  # 50 crash/restart cycles, some of them overlapping
        node = rng.choice([*ids, "leader"])
        faults.append(FaultSpec(t, node, restart_after=rng.uniform(0.05, 0.3)))
        t += rng.uniform(0.05, 0.25)
    config = crash_config("memory", "full_mesh", faults).replace(timeout=120.0)
    report = ringleader.run(config)
    assert report.safety is not None and report.safety.violations == [], report.problems
    assert report.ok, report.problems
    applied = [f for f in report.faults if f.action == "crash" and f.node is not None]
    assert len(applied) >= 25


# -- config -------------------------------------------------------------------------


def _config(tmp_path: Path, text: str) -> ringleader.Config:
    path = tmp_path / "crash.toml"
    path.write_text(textwrap.dedent(text))
    return load_config(path)


@pytest.mark.parametrize(
    ("body", "key", "words"),
    [
        ("[[faults]]\nat = 0.3\ncrash = 9\n", "faults[0].crash", "not a node"),
        ('[[faults]]\nat = -1\ncrash = "leader"\n', "faults[0].at", "seconds"),
        ('[[faults]]\ncrash = "leader"\n', "faults[0].at", "missing"),
        ("[[faults]]\nat = 1\n", "faults[0].crash", "missing"),
        ("[[faults]]\nat = 1\ncrash = 2\nrestart = 1\n", "faults[0].restart", "restart_after"),
        (
            "[[faults]]\nat = 1\ncrash = 2\nrestart_after = 0\n",
            "faults[0].restart_after",
            "seconds",
        ),
        ("faults = 3\n", "faults", "list"),
        ("run_for = -2\n", "run_for", "seconds"),
        ("run_for = 1\nheartbeat = 0.5\nsuspect_after = 0.2\n", "suspect_after", "heartbeat"),
        ('mode = "processes"\ntransport = "inproc"\n', "mode", 'transport = "tcp" or "ipc"'),
        ('mode = "fork"\n', "mode", "unknown mode"),
    ],
)
def test_bad_crash_schedules_are_config_errors(
    tmp_path: Path, body: str, key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _config(tmp_path, 'topology = "full_mesh"\nnodes = 5\n' + body)
    message = str(caught.value)
    assert "crash.toml" in message and key in message and words in message, message


def test_a_crash_schedule_turns_the_detector_on(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        """
        topology = "full_mesh"
        nodes = 5
        heartbeat = 0.05
        suspect_after = 0.3
        [[faults]]
        at = 0.3
        crash = "leader"
        restart_after = 0.8
        """,
    )
    assert config.detector and config.faults == (FaultSpec(0.3, "leader", 0.8),)
    assert config.settings["heartbeat"] == 0.05 and config.settings["suspect_after"] == 0.3


def _next_event(
    events: queue.SimpleQueue[NodeEvent], wanted: Callable[[NodeEvent], bool], timeout: float
) -> NodeEvent:
    """The next event ``wanted`` picks, within ``timeout`` s (``queue.Empty`` if none)."""
    deadline = time.monotonic() + timeout
    while True:
        event = events.get(timeout=max(0.0, deadline - time.monotonic()))
        if wanted(event):
            return event


def test_a_leader_superseded_reports_lost_before_the_new_state() -> None:
    """Bully: 4 leads while 5 is down; when 5 comes back, 4 says it lost its epoch."""
    config = crash_config("inproc", "full_mesh", [])
    events: queue.SimpleQueue[NodeEvent] = queue.SimpleQueue()

    def next_event(wanted: Callable[[NodeEvent], bool]) -> NodeEvent:
        return _next_event(events, wanted, 10.0)

    with ringleader.LocalCluster(config, events=events.put) as cluster:
        cluster.start_initiators()
        next_event(lambda e: e.node == 4 and e.kind == "state" and e.elected == 5)
        cluster.crash(5)
        led = next_event(lambda e: e.node == 4 and e.kind == "state" and e.state == "leader")
        cluster.restart(5)
        lost = next_event(lambda e: e.node == 4 and e.kind in ("lost", "state"))
        assert (lost.kind, lost.epoch, lost.detail) == ("lost", led.epoch, "superseded")


@pytest.mark.timeout(60)
def test_a_leader_that_resigns_says_so_and_another_takes_over() -> None:
    config = crash_config("inproc", "full_mesh", [])
    # The resigned node sits out until the new leader's heartbeat, or reelect_after, and
    # until reelect_after stands against none of the leaders that replace it (a loaded
    # run once had node 4 lead round 3, then round 8, where it asked node 5, back as its
    # follower, which took the round over: test_lease.py replays that order).
    slow = {"heartbeat": 0.05, "suspect_after": 0.5, "reelect_after": 30.0}  # a loaded machine
    config = config.replace(settings={**config.settings, **slow})
    events: queue.SimpleQueue[NodeEvent] = queue.SimpleQueue()

    def next_event(wanted: Callable[[NodeEvent], bool]) -> NodeEvent:
        return _next_event(events, wanted, 20.0)

    with ringleader.LocalCluster(config, events=events.put) as cluster:
        cluster.start_initiators()
        leased = next_event(lambda e: e.node == 5 and e.kind == "lease")
        cluster._refs[5].tell(Resign())  # what ringleader.Node.resign() sends
        lost = next_event(lambda e: e.node == 5 and e.kind in ("lost", "state"))
        assert (lost.kind, lost.epoch, lost.detail) == ("lost", leased.epoch, "resigned")
        assert lost.at >= leased.at
        # Another node leads next, with a lease (node 4, unless a loaded machine made
        # its peers suspect it); node 5 follows instead of winning again.
        seen: list[NodeEvent] = []
        new = next_event(lambda e: seen.append(e) or (e.kind == "lease"))
        assert new.node != 5
        follows = [e for e in seen if e.node == 5 and e.kind == "state" and e.elected]
        if not follows:
            follows = [next_event(lambda e: e.node == 5 and e.kind == "state" and e.elected)]
        assert follows[0].state == "not_leader" and follows[0].elected != 5


def test_bully_answered_waits_for_its_coordinator_whoever_else_goes_down() -> None:
    """Notes 000: once a higher process has answered (ok), a process waits T′ for its
    coordinator; another higher process suspected meanwhile changes nothing (it asked
    that one too, and it never answered)."""
    settings = {"heartbeat": 0.05, "suspect_after": 0.3, "election_timeout": 0.2}
    views = {v.id: v for v in build("full_mesh", [1, 2, 3]).views(settings)}
    member = Member(Bully, views[1], initiator=True, policy=crash_policy(Bully))
    member.handle_boot(now=0.0)
    sent = member.handle_start(now=0.0)
    assert {a.to for a in sent if isinstance(a, Send) and a.message.kind == "election"} == {2, 3}
    member.handle_message(2, OkAnswer(), 1, now=0.0)  # P2 is alive and takes over
    after = member.handle_timer("detector:suspect:3", now=0.0)  # P3 never answered: suspected
    assert not [a for a in after if isinstance(a, Send) and a.message.kind == "election"]
    assert any(isinstance(a, Notice) and a.kind == "suspect" and a.node == 3 for a in after)
    # Before any answer, a suspicion makes it ask again, without the suspected node.
    member = Member(Bully, views[1], initiator=True, policy=crash_policy(Bully))
    member.handle_boot(now=0.0)
    member.handle_start(now=0.0)
    again = member.handle_timer("detector:suspect:3", now=0.0)
    assert [a.to for a in again if isinstance(a, Send) and a.message.kind == "election"] == [2]
