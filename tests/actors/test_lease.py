"""The leader's lease, own-stall detection, epoch learning and resign (``_lease.py``,
``Member.resign``; a stall is seen by the member itself, at an event that comes far too
late on its clock): the part alone, members in virtual time,
the config keys, and ``ringleader node`` processes stopped with SIGSTOP.

**Leadership interval** of a node process, from its ``--json`` lines: from the ``mono``
of a ``lease`` event (read before the lease was published, so never later than the
moment the node could first report ``is_leader``) to the ``mono`` of the next ``lost``
event (read after the demotion was published; for reason ``paused`` the moment its lease
ran out, which is when it stopped counting as leader).  Each interval contains the time
the node's ``Leadership.is_leader()`` was true, so intervals of different processes that
do not overlap (one machine, one monotonic clock) prove that no two led at once.
"""

from __future__ import annotations

import os
import signal
import time
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from ringleader.actors import (
    ALGORITHMS,
    Lease,
    LeaseSettings,
    Member,
    NodeState,
    NodeView,
    Send,
    crash_policy,
)
from ringleader.actors.algorithms import ElectionCall
from ringleader.actors.core._actions import Action, Notice, SetTimer
from ringleader.actors.crashes._detector import HEARTBEAT, SUSPECT, Ping, Pong
from ringleader.actors.crashes._member import SIT_OUT
from ringleader.actors.crashes._rounds import BEHIND
from ringleader.topologies import ConfigError, load_config
from tests.conftest import eventually, let_pass
from tests.nodes import (
    NodeProcess,
    check_disjoint,
    intervals,
    running,
    wait_agreement,
    write_config,
)

SETTINGS = {"heartbeat": 0.05, "suspect_after": 0.3}
HEARTBEAT_S = SETTINGS["heartbeat"]

# --- the part alone ----------------------------------------------------------------------


def lease(peers: tuple[int, ...] = (1, 2, 4), *, quorum: bool = False) -> Lease:
    settings = LeaseSettings.of({**SETTINGS, "quorum": float(quorum)})
    assert settings is not None
    return Lease(settings, peers)


def test_default_lease_leaves_two_heartbeats_below_suspect_after() -> None:
    settings = LeaseSettings.of(SETTINGS)
    assert settings is not None and settings.lease == pytest.approx(0.2)
    assert settings.beats == 4
    assert LeaseSettings.of({"heartbeat": 0.1, "suspect_after": 0.3}) is None  # no room
    assert LeaseSettings.of({"suspect_after": 0.3}) is None  # no detector
    assert LeaseSettings.of({**SETTINGS, "lease": 0.0}) is None


def test_lease_runs_from_the_newest_heartbeat_every_follower_acknowledged() -> None:
    held = lease()
    held.begin(7)
    assert held.basis is None and held.until == 0
    first, second = held.beat(10.0), held.beat(10.05)
    assert not held.answer(1, first, 7, 10.06)
    assert not held.answer(2, second, 7, 10.06)
    assert held.answer(4, second, 7, 10.07)  # everyone has acknowledged heartbeat 1 now
    assert held.basis == first
    # The lease runs from when heartbeat 1 left, on this node's clock, for `lease`.
    assert held.until == pytest.approx(10.0 + 0.2)
    assert held.holds(10.19) and not held.holds(10.2)
    assert held.answer(1, second, 7, 10.08) and held.basis == second
    assert held.until == pytest.approx(10.05 + 0.2)


def test_an_answer_beyond_the_horizon_renews_nothing() -> None:
    held = lease((1,))
    held.begin(7)
    old = held.beat(0.0)
    for k in range(held.horizon):
        held.beat(0.05 * (k + 1))
    assert not held.answer(1, old, 7, 1.0)  # too old to tell anything
    assert held.basis is None


def test_an_answer_from_another_epoch_does_not_acknowledge() -> None:
    held = lease((1,))
    held.begin(4)
    seq = held.beat(0.0)
    assert not held.answer(1, seq, 83, 0.0)  # a follower in a newer round: no lease
    assert held.basis is None
    for _ in range(held.settings.beats + 2):
        held.beat(0.0)
        held.answer(1, held.seq, 83, 0.0)
        held.refresh(0.0)
    assert held.expired


def test_a_silent_follower_stops_holding_the_lease_back() -> None:
    held = lease((1, 2))
    held.begin(3)
    for _ in range(held.settings.silent_beats + 1):
        seq = held.beat(0.0)
        held.answer(1, seq, 3, 0.0)  # node 2 crashed: never answers
        held.refresh(0.0)
    assert held.basis is not None and not held.expired


def test_a_refused_follower_that_acknowledged_this_leader_holds_its_lease_back_no_longer() -> None:
    """Proof of death (a refused connection) lets the lease go on without a follower
    whose newest answer acknowledged this leadership: it promised this leader alone (and
    keeps that promise when it restarts), so it helps elect nobody else."""
    held = lease((1, 2, 4), quorum=True)
    held.begin(3)
    first = held.beat(0.0)
    for peer in (1, 2, 4):
        held.answer(peer, first, 3, 0.0)
    assert held.basis == first
    seq = held.beat(0.05)  # node 4 stopped: only 1 and 2 answer
    held.answer(1, seq, 3, 0.05)
    held.answer(2, seq, 3, 0.05)
    assert held.basis == first  # 4 holds it back
    assert held.gone(4, 0.06)
    assert held.basis == seq and held.until == pytest.approx(0.05 + held.settings.lease)
    assert not held.live(4)


def test_a_refused_follower_that_answered_from_another_round_still_holds_the_lease_back() -> None:
    """A follower whose newest answer came from another round vouched for another
    leader, whose lease may rest on that acknowledgement after the follower died: the
    refusal proves its process gone now, not that lease ended.  It holds this lease back
    until it has been silent as long as any (the explorer found two leases at once when
    the refusal let it go)."""
    held = lease((1, 2, 4), quorum=True)
    held.begin(9)
    seq = held.beat(0.0)
    held.answer(1, seq, 9, 0.0)
    held.answer(2, seq, 9, 0.0)
    held.answer(4, seq, 7, 0.0)  # 4 still follows the leader of round 7
    assert held.basis is None
    assert not held.gone(4, 0.01)
    seq = held.beat(0.05)
    held.answer(1, seq, 9, 0.05)
    held.answer(2, seq, 9, 0.05)
    assert held.basis is None  # still held back by 4
    for _ in range(held.settings.silent_beats):
        seq = held.beat(0.05)
        held.answer(1, seq, 9, 0.05)
        held.answer(2, seq, 9, 0.05)
        held.refresh(0.05)
    assert held.basis is not None  # silent long enough, as any follower


def test_with_a_quorum_a_majority_is_needed_and_every_follower_still_answering() -> None:
    settings = LeaseSettings.of({**SETTINGS, "quorum": 1.0})
    assert settings is not None
    held = lease((1, 2, 4, 5), quorum=True)  # five members: the leader and two more
    held.begin(9)
    seq = held.beat(0.0)
    assert not held.answer(1, seq, 9, 0.0)
    assert not held.answer(2, seq, 9, 0.0)  # a majority, but 4 and 5 may still answer
    for _ in range(settings.silent_beats + 1):  # 4 and 5 stay silent
        seq = held.beat(0.0)
        held.answer(1, seq, 9, 0.0)
        held.answer(2, seq, 9, 0.0)
        held.refresh(0.0)
    assert held.basis is not None  # a majority, and the others gone silent: enough
    # The previous leader, alive and answering in its own epoch (it has not heard of this
    # round yet, while its own lease may still run), holds the lease back.
    old = lease((1, 2, 4, 5), quorum=True)
    old.begin(9)
    for _ in range(settings.beats + 2):
        seq = old.beat(0.0)
        for peer in (1, 2):
            old.answer(peer, seq, 9, 0.0)
        old.answer(5, seq, 8, 0.0)
        old.refresh(0.0)
    assert old.basis is None and old.expired
    # Proof of death (the detector suspects them at once): a majority is enough at once.
    fast = Lease(settings, (1, 2, 4, 5), {4, 5})
    fast.begin(9)
    seq = fast.beat(0.0)
    assert not fast.answer(1, seq, 9, 0.0)
    assert fast.answer(2, seq, 9, 0.0) and fast.basis == seq
    minority = lease((1, 2, 4, 5), quorum=True)
    minority.begin(9)
    for _ in range(minority.settings.beats + 2):
        minority.answer(1, minority.beat(0.0), 9, 0.0)  # one follower: two of five
        minority.refresh(0.0)
    assert minority.basis is None and minority.expired


# --- members in virtual time -----------------------------------------------------------


class Cluster:
    """Members of a full mesh that hand each other their sends at once, in order; timers
    are recorded and fired by hand.  ``cut`` nodes neither send nor receive."""

    def __init__(self, algorithm: str, ids: tuple[int, ...]) -> None:
        self.members = {
            i: Member(
                ALGORITHMS[algorithm],
                NodeView(
                    i,
                    i,
                    tuple(p for p in ids if p != i),
                    tuple(p for p in ids if p != i),
                    {n: n for n in ids},
                    SETTINGS,
                    ids,
                ),
                policy=crash_policy(ALGORITHMS[algorithm]),
            )
            for i in ids
        }
        self.timers: dict[int, set[str]] = {i: set() for i in ids}
        self.cut: set[int] = set()
        self.sent: list[tuple[int, Send]] = []
        self.clock = dict.fromkeys(ids, 0.0)  # each node's: a heartbeat on at each of its own
        self.reports: dict[int, list[Notice]] = {i: [] for i in ids}

    def run(self, node: int, actions: list[Action]) -> None:
        queue = deque((node, a) for a in actions)
        while queue:
            at, action = queue.popleft()
            if isinstance(action, SetTimer):
                self.timers[at].add(action.name)
            elif isinstance(action, Notice):
                self.reports[at].append(action)
            elif isinstance(action, Send):
                self.sent.append((at, action))
                if at in self.cut or action.to in self.cut:
                    continue
                member = self.members[action.to]
                now = self.clock[action.to]
                out = member.handle_message(at, action.message, action.epoch, now=now)
                queue.extend((action.to, a) for a in out)

    def start(self) -> None:
        for i, member in self.members.items():
            self.run(i, member.handle_boot(now=self.clock[i]))
        for i, member in self.members.items():
            self.run(i, member.handle_start(now=self.clock[i]))

    def fire(self, node: int, name: str) -> None:
        self.run(node, self.members[node].handle_timer(name, now=self.clock[node]))

    def beat(self, *nodes: int) -> None:
        for node in nodes or tuple(self.members):
            if node not in self.cut:
                self.clock[node] += HEARTBEAT_S
                self.fire(node, HEARTBEAT)

    def stand_still(self, node: int, seconds: float) -> list[Action]:
        """``node`` stood still for ``seconds``: its heartbeat comes that much late."""
        self.clock[node] += seconds
        out = self.members[node].handle_timer(HEARTBEAT, now=self.clock[node])
        self.run(node, out)
        return out

    def lost(self, node: int) -> str | None:
        """Why ``node`` last stopped leading, as its ``lost`` notice says."""
        lost = [n.detail for n in self.reports[node] if n.kind == "lost"]
        return lost[-1] if lost else None


def test_a_leader_holds_a_lease_once_its_followers_answer_its_heartbeat() -> None:
    cluster = Cluster("bully", (1, 2, 3))
    cluster.start()
    leader = cluster.members[3]
    assert leader.state is NodeState.LEADER and leader.lease is not None
    assert leader.lease.basis is None  # not before its first heartbeat is answered
    cluster.beat(3)
    pings = [s for at, s in cluster.sent if at == 3 and isinstance(s.message, Ping)]
    assert {s.to for s in pings} == {1, 2} and all(s.message.seq == 1 for s in pings)
    assert leader.lease.basis == 1


def test_a_paused_leader_steps_down_and_gives_its_peers_a_fresh_window() -> None:
    cluster = Cluster("bully", (1, 2, 3))
    cluster.start()
    cluster.beat()
    leader = cluster.members[3]
    out = cluster.stand_still(3, 2.0)
    assert leader.state is NodeState.UNDECIDED and cluster.lost(3) == "paused"
    assert leader.lease is not None and leader.lease.epoch is None
    # No suspicion for its own pause: every watched peer's timer starts again.
    fresh = {a.name for a in out if isinstance(a, SetTimer) and a.name.startswith(SUSPECT)}
    assert fresh == {f"{SUSPECT}{p}" for p in leader.detector.watched}  # type: ignore[union-attr]
    assert any(isinstance(a, SetTimer) and a.name == HEARTBEAT for a in out)


def test_a_resumed_node_learns_the_newer_round_before_it_claims_anything() -> None:
    cluster = Cluster("bully", (1, 2, 3))
    cluster.start()
    cluster.beat()
    cluster.cut = {3}  # stopped: it hears nothing, and says nothing
    for node in (1, 2):
        cluster.fire(node, f"{SUSPECT}3")
    two = cluster.members[2]
    assert two.state is NodeState.LEADER and two.epoch > 1
    newer = two.epoch
    cluster.cut = set()
    three = cluster.members[3]
    cluster.stand_still(3, 2.0)
    assert cluster.lost(3) == "paused" and three.state is NodeState.UNDECIDED
    assert three.epoch < newer
    # The new leader's heartbeat: node 3 learns its round, and (the top node, Bully)
    # takes over in a round above it, never in an older one.
    cluster.beat(2)
    assert three.state is NodeState.LEADER and three.epoch > newer
    assert (two.state, two.elected, two.epoch) == (NodeState.NOT_LEADER, 3, three.epoch)
    assert three.lease is not None and three.lease.basis is None
    cluster.beat(3)
    assert three.lease.basis is not None


def test_a_stale_leader_never_gets_a_lease() -> None:
    cluster = Cluster("bully", (1, 2, 3))
    cluster.start()
    leader = cluster.members[3]
    leader.rounds.epoch = leader.election.epoch = 1
    for member in (cluster.members[1], cluster.members[2]):
        member.election.epoch = member.rounds.epoch = 83  # a live cluster far ahead
    for _ in range(leader.lease.settings.beats + 3):  # type: ignore[union-attr]
        cluster.beat(3)
    assert leader.lease is not None and leader.lease.basis is None
    assert cluster.lost(3) == "lease expired" and leader.state is NodeState.UNDECIDED


def test_a_resigned_leader_sits_out_until_a_new_leader_is_heard() -> None:
    cluster = Cluster("bully", (1, 2, 3))
    cluster.start()
    cluster.beat()
    three = cluster.members[3]
    cluster.run(3, three.resign(now=cluster.clock[3])[1])
    assert three.state is NodeState.UNDECIDED and cluster.lost(3) == "resigned"
    before = len(cluster.sent)
    cluster.beat(3)  # sitting out: no heartbeat
    assert not [s for at, s in cluster.sent[before:] if at == 3]
    cluster.run(1, [Send(3, Ping(), 1)])
    assert not [s for at, s in cluster.sent[before:] if at == 3]  # and no answer
    for node in (1, 2):
        cluster.fire(node, f"{SUSPECT}3")
    two = cluster.members[2]
    assert two.state is NodeState.LEADER
    cluster.beat(2)
    assert (three.state, three.elected) == (NodeState.NOT_LEADER, 2)
    cluster.beat(2)
    assert any(isinstance(s.message, Pong) for at, s in cluster.sent if at == 3)


def test_a_resigned_leader_sitting_out_suspects_nobody_on_proof_of_death() -> None:
    """A refused link (``peer_dead``) is proof of death, but a node sitting out watches
    nobody, so it suspects nobody, as no silence timer of its fires: it answers nothing
    and starts nothing until a leader is heard (one that follows suspects its dead
    leader at once, and stands)."""
    cluster = Cluster("bully", (1, 2, 3, 4))
    cluster.start()
    cluster.beat()
    four = cluster.members[4]
    cluster.run(4, four.resign(now=cluster.clock[4])[1])
    assert cluster.lost(4) == "resigned"
    for node in (1, 2, 3):
        cluster.fire(node, f"{SUSPECT}4")
    three = cluster.members[3]
    assert three.state is NodeState.LEADER
    out = four.peer_dead(3, now=cluster.clock[4])
    assert not [a for a in out if isinstance(a, Notice) and a.kind == "suspect"]
    assert _stands(out) == [] and 3 not in four.suspected
    out = cluster.members[1].peer_dead(3, now=cluster.clock[1])
    assert [a.node for a in out if isinstance(a, Notice) and a.kind == "suspect"] == [3]
    assert _stands(out)


def _resigned_top() -> tuple[Cluster, Member]:
    """Bully on five nodes: node 5 leads round 1 with a lease, then resigns."""
    cluster = Cluster("bully", (1, 2, 3, 4, 5))
    cluster.start()
    cluster.beat()
    five = cluster.members[5]
    assert five.state is NodeState.LEADER and five.lease is not None and five.lease.held
    cluster.cut.add(5)  # from here on node 5 is driven by hand, event by event
    cluster.run(5, five.resign(now=cluster.clock[5])[1])
    assert cluster.lost(5) == "resigned"
    return cluster, five


def _stands(out: list[Action]) -> list[str]:
    """What in ``out`` shows a node standing in a round: its rounds, its answers to an
    election, its proclamations."""
    rounds = [f"election {a.detail}" for a in out if isinstance(a, Notice) and a.kind == "election"]
    sends = [a.message.kind for a in out if isinstance(a, Send)]
    return rounds + [kind for kind in sends if kind in ("ok", "election", "coordinator")]


def test_a_resigned_top_node_drawn_into_the_next_round_sits_out_again() -> None:
    """The order a loaded run took (test_crashes.py's resign test failed with it): node 4
    suspected node 5 first and proclaimed itself at once in a round of its own (3), and
    its heartbeat brought node 5 back as its follower; then node 1's election drew node 4
    into round 8, where node 4, which had heard node 5 again, asked it too.  Node 5 used to
    take that round over in round 9 of its own ("election from 4") and lead again a
    moment after it resigned; it sits out again instead, and follows node 4 in round 8."""
    cluster, five = _resigned_top()
    cluster.beat(5)
    out = five.handle_message(4, Ping(1), 3, now=cluster.clock[5])
    assert (five.state, five.elected, five.epoch) == (NodeState.NOT_LEADER, 4, 3)
    assert [(a.to, a.epoch) for a in out if isinstance(a, Send)] == [(4, 3)]  # its pong
    out = five.handle_message(4, ElectionCall(), 8, now=cluster.clock[5])
    assert not _stands(out)
    assert (five.state, five.elected, five.epoch) == (NodeState.NOT_LEADER, 4, 3)
    cluster.beat(5)
    out = five.handle_message(1, Ping(), 5, now=cluster.clock[5])
    assert not out  # sitting out again: no answer
    # Node 4 got no ok: it proclaims itself in round 8 once T runs out, and its heartbeat
    # brings node 5 back, as its follower.
    cluster.beat(5)
    out = five.handle_message(4, Ping(2), 8, now=cluster.clock[5])
    assert not _stands(out)
    assert (five.state, five.elected, five.epoch) == (NodeState.NOT_LEADER, 4, 8)
    assert [(a.to, a.epoch) for a in out if isinstance(a, Send)] == [(4, 8)]


def test_a_resigned_top_node_follows_each_newer_leader_of_the_failover() -> None:
    """Node 4 leads round 3, then round 8 (a lower node's election drew it there): node 5,
    back as node 4's follower in round 3, used to take round 8 over ("above leader 4",
    round 9) at node 4's heartbeat.  Until ``reelect_after`` has passed since it resigned
    it follows each newer leader instead; after that, Bully's top node takes over again."""
    cluster, five = _resigned_top()
    cluster.beat(5)
    five.handle_message(4, Ping(1), 3, now=cluster.clock[5])
    cluster.beat(5)
    out = five.handle_message(4, Ping(2), 8, now=cluster.clock[5])
    assert not _stands(out)
    assert (five.state, five.elected, five.epoch) == (NodeState.NOT_LEADER, 4, 8)
    cluster.beat(5)
    cluster.run(5, five.handle_timer(SIT_OUT, now=cluster.clock[5]))  # reelect_after passed
    out = five.handle_message(3, Ping(1), 12, now=cluster.clock[5])
    assert _stands(out)[0] == "election above leader 3"
    assert five.state is NodeState.LEADER and five.epoch > 12


def test_a_resigned_top_node_behind_a_round_waits_for_its_leader() -> None:
    """Back as node 4's follower in round 3, node 5 hears of the lower nodes' rounds (their
    pings carry epochs 5 to 7) before node 4 leads round 8: it used to start a round of
    its own once behind for ``suspect_after``, and win it; it waits for their leader."""
    cluster, five = _resigned_top()
    cluster.beat(5)
    five.handle_message(4, Ping(1), 3, now=cluster.clock[5])
    out = five.handle_message(1, Ping(), 5, now=cluster.clock[5])
    assert [(a.to, a.epoch) for a in out if isinstance(a, Send)] == [(1, 5)]  # answered
    assert any(isinstance(a, SetTimer) and a.name == BEHIND for a in out)
    out = five.handle_timer(BEHIND, now=cluster.clock[5])
    assert not _stands(out)
    assert (five.state, five.elected, five.epoch) == (NodeState.NOT_LEADER, 4, 3)


def test_resigning_when_not_leading_does_nothing() -> None:
    cluster = Cluster("bully", (1, 2, 3))
    cluster.start()
    assert cluster.members[1].resign(now=0.0) == (None, [])
    assert cluster.lost(1) is None


# --- the config ---------------------------------------------------------------------------


def config(tmp_path: Path, body: str) -> Any:
    path = tmp_path / "c.toml"
    path.write_text('topology = "full_mesh"\nnodes = 3\n' + body, encoding="utf-8")
    return load_config(str(path))


def test_lease_defaults_and_round_trips(tmp_path: Path) -> None:
    settings = config(tmp_path, "").detector_settings
    # Without quorum, each mode has its default (the service modes: on; run: off).
    assert settings["lease"] == pytest.approx(0.2) and "quorum" not in settings
    assert "quorum" not in config(tmp_path, "").to_toml()
    chosen = config(tmp_path, "lease = 0.15\nquorum = true\n")
    assert chosen.detector_settings["lease"] == 0.15 and chosen.detector_settings["quorum"] == 1
    assert "quorum = true" in chosen.to_toml()
    assert config(tmp_path, "quorum = false\n").detector_settings["quorum"] == 0.0
    assert config(tmp_path, "heartbeat = 0.1\n").detector_settings["lease"] == 0.0


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("lease = 0.3\n", "lease: 0.3 s must be below suspect_after 0.3 s minus a heartbeat"),
        ("lease = 0.06\n", "lease: 0.06 s is shorter than two heartbeats"),
        ("lease = -1\n", "lease: -1 is not a number of seconds"),
        ("quorum = 1\n", "quorum: 1 is not true or false"),
        ("lease = 0\nquorum = true\n", "quorum: a quorum needs a lease"),
        ("suspect_after = 0.4\n[[nodes]]\nid = 9\nsuspect_after = 0.2\nlease = 0.3\n", "lease"),
    ],
)
def test_bad_lease_settings_are_one_line_errors(tmp_path: Path, body: str, words: str) -> None:
    path = tmp_path / "c.toml"
    if "[[nodes]]" in body:
        head, nodes = body.split("[[nodes]]", 1)
        node, rest = nodes.split("lease", 1)
        path.write_text(f'topology = "full_mesh"\n{head}lease{rest}[[nodes]]{node}')
    else:
        path.write_text('topology = "full_mesh"\nnodes = 3\n' + body, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(str(path))
    message = str(caught.value)
    assert "\n" not in message and "c.toml" in message and words in message


# --- processes: SIGSTOP the leader --------------------------------------------------------


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.mark.timeout(90)
@pytest.mark.parametrize("algorithm", ["bully", "chang_roberts"])
def test_a_stopped_leader_never_leads_alongside_its_successor(
    tmp_path: Path, algorithm: str
) -> None:
    topology = "full_mesh" if algorithm == "bully" else "unidirectional_ring"
    ids = [1, 2, 3]
    path = write_config(
        tmp_path / "c.toml", f'topology = "{topology}"\nalgorithm = "{algorithm}"\n', ids
    )
    with running(path, ids) as nodes:
        wait_agreement(nodes, ids, 3)
        eventually(lambda: any(e["event"] == "lease" for e in nodes[3].drain()), 10.0)
        pid = nodes[3].process.pid
        os.kill(pid, signal.SIGSTOP)
        assert eventually(lambda: _state(pid) == "T", 5.0)
        nodes[2].wait_for(lambda e: e["event"] == "lease", 20.0)  # a successor leads
        let_pass(0.5)  # the scenario: the old leader stays stopped a while longer
        seen = len(nodes[3].drain())
        resumed = time.monotonic()
        os.kill(pid, signal.SIGCONT)
        lost = nodes[3].wait_for(
            lambda e: e["event"] == "lost" and nodes[3].events.index(e) >= seen, 20.0
        )
        assert lost["reason"] == "paused", nodes[3].drain()
        # Its lease had run out before it was resumed: not even a read at once sees it.
        assert lost["mono"] <= resumed
        wait_for_one_leader(nodes, ids)
        spans = {i: intervals(nodes[i].drain()) for i in ids}
    check_disjoint(spans)
    assert len(spans[2]) >= 1


def wait_for_one_leader(nodes: dict[int, NodeProcess], ids: list[int]) -> None:
    def settled() -> bool:
        views = {nodes[i].leader() for i in ids}
        return len(views) == 1 and None not in views and next(iter(views))[0] is not None

    assert eventually(settled, 20.0), {i: nodes[i].leader() for i in ids}


def test_the_human_output_says_who_holds_a_lease() -> None:
    from ringleader.service._output import describe

    line = describe({"event": "lease", "node": 3, "epoch": 7, "t": 1.5})
    assert line.endswith("node 3  holds the leader's lease of epoch 7")


# --- the simulator runs the same parts in virtual time ----------------------------------


@pytest.mark.parametrize(
    ("algorithm", "quorum"), [("bully", False), ("bully", True), ("chang_roberts", False)]
)
def test_the_simulator_ends_with_one_leader_holding_a_lease(algorithm: str, quorum: bool) -> None:
    from ringleader.actors import Fault, simulate

    ids = (1, 2, 3, 4, 5)
    ring = algorithm == "chang_roberts"
    settings = {**SETTINGS, "quorum": float(quorum)}
    views = [
        NodeView(
            i,
            i,
            (ids[(k + 1) % 5],) if ring else tuple(p for p in ids if p != i),
            (ids[k - 1],) if ring else tuple(p for p in ids if p != i),
            {n: n for n in ids},
            settings,
            ids,
        )
        for k, i in enumerate(ids)
    ]
    faults = [Fault(1.0, "crash", 5), Fault(2.0, "restart", 5)]
    result = simulate(ALGORITHMS[algorithm], views, [1], faults=faults, until=4.0, seed=3)
    assert result.safety is not None and result.safety.violations == []
    [leader] = result.leaders
    lease_of = result.nodes[leader].lease
    assert lease_of is not None and lease_of.epoch == result.nodes[leader].epoch
    assert lease_of.basis is not None and not lease_of.expired
