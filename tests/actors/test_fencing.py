"""The fencing token only grows (issue 19): what a node keeps across its lives, and the
rule that a node never acknowledges an epoch below one it has seen.

Members in virtual time first (the argument of ``docs/service-guarantees.md``, step by
step), then :class:`ringleader.Node` objects on loopback in this process: full-cluster
restarts, restarts with more or fewer nodes, a wiped minority with a quorum, a wall
clock stepped back, a majority by default, and a state that cannot be written.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest

import ringleader
from ringleader.actors import (
    ALGORITHMS,
    Member,
    NodeState,
    NodeView,
    Send,
    crash_policy,
)
from ringleader.actors.core._actions import Action, SetTimer
from ringleader.actors.crashes._detector import HEARTBEAT, Ping, Pong
from ringleader.actors.crashes._recovery import REJOIN
from ringleader.actors.host import Boot, Connect, Listen, NodeActor, NodeEvent, wire_kinds
from ringleader.errors import ConfigError, StateError
from ringleader.service import state_path
from ringleader.topologies import Config, load_config
from ringleader.transport import Codec, open_network
from tests.conftest import eventually, let_pass
from tests.nodes import write_config

SETTINGS = {"heartbeat": 0.05, "suspect_after": 0.3, "lease": 0.2}

# --- members in virtual time --------------------------------------------------------------


class Fleet:
    """Members of a full mesh, each a service node that keeps its highest epoch: after
    each event the fleet makes it durable (``durable``) before it delivers the sends, as
    the node's actor does.  Sends are delivered at once, in order; timers fired by hand;
    ``down`` nodes neither send nor receive."""

    def __init__(self, ids: tuple[int, ...], *, quorum: bool, algorithm: str = "bully") -> None:
        self.ids = ids
        self.algorithm = ALGORITHMS[algorithm]
        self.settings = {**SETTINGS, "quorum": float(quorum)}
        self.durable = dict.fromkeys(ids, 0)
        self.members: dict[int, Member] = {}
        self.down: set[int] = set(ids)
        self.timers: dict[int, set[str]] = {i: set() for i in ids}
        self.granted: list[tuple[int, int]] = []  # (leader, epoch) each time a lease begins
        self.now = 0.0  # the nodes' clock: a heartbeat further at each beat

    def boot(self, node: int, *, wiped: bool = False) -> Member:
        """(Re)start ``node`` as a service does: recovering, above what it kept."""
        if wiped:
            self.durable[node] = 0
        view = NodeView(
            node,
            node,
            tuple(p for p in self.ids if p != node),
            tuple(p for p in self.ids if p != node),
            {n: n for n in self.ids},
            self.settings,
            self.ids,
        )
        member = Member(
            self.algorithm,
            view,
            recovering=True,
            floor=self.durable[node],
            policy=crash_policy(self.algorithm),
        )
        self.members[node] = member
        self.down.discard(node)
        self.timers[node] = set()
        self.run(node, member.handle_boot(now=self.now))
        return member

    def run(self, node: int, actions: list[Action]) -> None:
        queue = deque([(node, actions)])
        while queue:
            at, out = queue.popleft()
            member = self.members[at]
            # The host's rule: what the member has seen is durable before it acts.
            self.durable[at] = max(self.durable[at], member.seen)
            self._note_lease(at, member)
            for action in out:
                if isinstance(action, SetTimer):
                    self.timers[at].add(action.name)
                elif isinstance(action, Send):
                    assert action.epoch <= self.durable[at] or action.epoch == 0
                    if at in self.down or action.to in self.down:
                        continue
                    receiver = self.members[action.to]
                    answer = receiver.handle_message(at, action.message, action.epoch, now=self.now)
                    queue.append((action.to, answer))

    def _note_lease(self, node: int, member: Member) -> None:
        lease = member.lease
        if (
            lease is not None
            and lease.basis is not None
            and member.state is NodeState.LEADER
            and (not self.granted or self.granted[-1] != (node, member.epoch))
        ):
            self.granted.append((node, member.epoch))

    def fire(self, node: int, name: str) -> None:
        if node not in self.down:
            self.run(node, self.members[node].handle_timer(name, now=self.now))

    def rejoin(self) -> None:
        for node in sorted(set(self.ids) - self.down):
            self.fire(node, REJOIN)

    def beat(self, times: int = 3) -> None:
        for _ in range(times):
            self.now += SETTINGS["heartbeat"]
            for node in sorted(set(self.ids) - self.down):
                self.fire(node, HEARTBEAT)

    def stop_all(self) -> None:
        self.down = set(self.ids)

    def seen(self) -> int:
        """The highest epoch any node has reported (seen) so far."""
        return max([m.seen for m in self.members.values()], default=0)

    def leaders(self) -> list[tuple[int, int]]:
        """``(node, epoch)`` of every live node that holds a lease now."""
        return [
            (i, m.epoch)
            for i, m in self.members.items()
            if i not in self.down
            and m.state is NodeState.LEADER
            and m.lease is not None
            and m.lease.basis is not None
        ]


def test_a_restarted_member_starts_its_rounds_above_its_floor() -> None:
    fleet = Fleet((1, 2, 3), quorum=False)
    fleet.durable[2] = 14
    member = fleet.boot(2)
    assert member.recovering and member.seen == 14 and member.epoch == 0
    fleet.rejoin()  # nobody answered: a round of its own
    assert member.epoch > 14 and member.epoch % 3 == 1  # its rank's epochs (ids 1,2,3)


def test_a_recovering_member_acts_on_nothing_of_its_floor_or_older() -> None:
    fleet = Fleet((1, 2, 3), quorum=False)
    fleet.durable[1] = 20
    one = fleet.boot(1)
    one.handle_message(2, Pong(), 9, now=fleet.now)  # a peer far behind: learnt 9, floor 20
    assert not one.recovering  # (rejoined by itself, above both)
    assert one.epoch > 20
    fleet = Fleet((1, 2, 3), quorum=False)  # (node 3 alone)
    fleet.durable[3] = 20
    three = fleet.boot(3)
    assert three.recovery is not None
    three.recovery.learn(9)
    stale = three.stale
    three.handle_message(2, ALGORITHMS["bully"].messages[0](), 15, now=fleet.now)
    assert three.stale == stale + 1  # 15 ≤ floor 20: perhaps meant for a previous life
    assert three.recovering


def test_a_node_that_has_seen_a_newer_epoch_never_acknowledges_an_older_one() -> None:
    fleet = Fleet((1, 2, 3), quorum=True)
    for node in (1, 2, 3):
        fleet.boot(node)
    fleet.rejoin()
    fleet.beat()
    ((leader, epoch),) = fleet.leaders()
    follower = next(m for i, m in fleet.members.items() if i != leader)
    # A ping from a round the follower has not joined (yet): it has seen epoch + 5.
    follower.handle_message(leader, Ping(), epoch + 5, now=fleet.now)
    assert follower.epoch == epoch and follower.seen == epoch + 5
    answer = follower.handle_message(leader, Ping(seq=99), epoch, now=fleet.now)
    pongs = [a for a in answer if isinstance(a, Send) and isinstance(a.message, Pong)]
    assert [(p.message.seq, p.epoch) for p in pongs] == [(99, epoch + 5)]  # not an ack


def test_a_recovering_node_acknowledges_nothing() -> None:
    fleet = Fleet((1, 2, 3), quorum=True)
    fleet.durable[1] = 6
    one = fleet.boot(1)
    answer = one.handle_message(
        3, Ping(seq=4), 6, now=fleet.now
    )  # a heartbeat of its floor's epoch
    pongs = [a for a in answer if isinstance(a, Send) and isinstance(a.message, Pong)]
    assert pongs and all(p.epoch == 0 for p in pongs)


def _restart(fleet: Fleet, wiped: set[int] = frozenset()) -> tuple[int, int]:  # type: ignore[assignment]
    fleet.stop_all()
    for node in fleet.ids:
        fleet.boot(node, wiped=node in wiped)
    fleet.rejoin()
    fleet.beat()
    leaders = fleet.leaders()
    assert len(leaders) == 1, leaders
    return leaders[0]


@pytest.mark.parametrize("quorum", [True, False])
def test_full_cluster_restarts_hand_out_ever_greater_epochs(quorum: bool) -> None:
    fleet = Fleet((1, 2, 3), quorum=quorum)
    epochs = []
    for _ in range(5):
        before = fleet.seen()
        _, epoch = _restart(fleet)
        assert epoch > before
        epochs.append(epoch)
    assert epochs == sorted(set(epochs))
    assert [e for _, e in fleet.granted] == sorted({e for _, e in fleet.granted})


def test_with_a_quorum_a_wiped_minority_cannot_take_the_epoch_back() -> None:
    fleet = Fleet((1, 2, 3, 4, 5), quorum=True)
    _restart(fleet)
    for wiped in ({1}, {5}, {2, 4}, {3, 5}, {1, 2}):  # a minority each time
        before = fleet.seen()
        _, epoch = _restart(fleet, wiped)
        assert epoch > before, (wiped, epoch, before)
    assert [e for _, e in fleet.granted] == sorted({e for _, e in fleet.granted})


@pytest.mark.parametrize("quorum", [True, False])
def test_a_lone_wiped_node_leads_an_old_epoch_only_without_a_quorum(quorum: bool) -> None:
    fleet = Fleet((1, 2, 3), quorum=quorum)
    _restart(fleet)
    _restart(fleet)
    before = fleet.seen()
    fleet.stop_all()
    lone = fleet.boot(3, wiped=True)  # lost its state, and nobody else is up
    fleet.rejoin()
    fleet.beat(lone.lease.settings.beats + 3)  # type: ignore[union-attr]
    assert lone.epoch < before  # it elects itself in an old epoch ...
    if quorum:
        assert fleet.leaders() == []  # ... but no majority acknowledges it: no lease
    else:
        assert fleet.leaders() == [(3, lone.epoch)]  # what docs say quorum = false risks


# --- the node actor: durable before it acts -----------------------------------------------


class _Kept:
    """A node's stable storage, in memory: what it saved, in the node's own log."""

    def __init__(self, log: list[tuple[str, int]], epoch: int) -> None:
        self.log = log
        self.epoch = epoch
        self.acknowledged: tuple[int, int | None] = (0, None)

    def save(self, epoch: int, acknowledged: tuple[int, int | None]) -> None:
        if epoch != self.epoch:
            self.log.append(("save", epoch))
        self.epoch, self.acknowledged = epoch, acknowledged


class _Recording(NodeActor):
    """A node actor that logs each send (with its epoch) as it carries it out."""

    def __init__(self, log: list[tuple[str, int]], *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self._log = log

    def _send(self, send: Send) -> None:
        self._log.append(("send", send.epoch))
        super()._send(send)


@pytest.mark.timeout(30)
def test_the_node_actor_keeps_an_epoch_before_it_sends_acks_or_leads_in_it() -> None:
    ids = (1, 2, 3)
    algorithm = ALGORITHMS["bully"]
    codec = Codec(b"k" * 32, 7, wire_kinds(algorithm))
    network = open_network("memory", nodes=3, links=9)
    logs: dict[int, list[tuple[str, int]]] = {i: [] for i in ids}
    refs = {}
    try:
        for i in ids:
            peers = tuple(p for p in ids if p != i)
            settings = {**SETTINGS, "quorum": 1.0}
            view = NodeView(i, i, peers, peers, {n: n for n in ids}, settings, ids)
            policy = crash_policy(algorithm)
            member = Member(algorithm, view, recovering=True, floor=5, policy=policy, durable=True)

            def sink(event: NodeEvent, log: list[tuple[str, int]] = logs[i]) -> None:
                log.append((event.kind, event.epoch))

            kept = _Kept(logs[i], 5)
            refs[i] = _Recording.start(
                logs[i], member, network=network, codec=codec, events=sink, durable=kept
            )
        addresses = {i: refs[i].ask(Listen(None)) for i in ids}
        for i in ids:
            links = {p: addresses[p] for p in ids if p != i}
            refs[i].ask(Connect(links, 5.0, addresses))
        for i in ids:
            refs[i].tell(Boot())
        assert eventually(lambda: any(k == "lease" for k, _ in logs[3]), 10), logs[3]
    finally:
        for ref in refs.values():
            ref.stop()
        network.close()
    for i, log in logs.items():
        kept = 5
        for kind, epoch in list(log):
            if kind == "save":
                assert epoch > kept, (i, log)
                kept = epoch
            elif kind in ("send", "lease", "election", "state"):
                assert epoch <= kept, (i, kind, epoch, kept, log)  # never ahead of the disk
        assert kept > 5, (i, log)


# --- Node objects on loopback --------------------------------------------------------------

BODY = 'topology = "full_mesh"\nalgorithm = "bully"\ntransport = "tcp"\n'


def _cluster(path: Path, ids: list[int], extra: str = "") -> Config:
    return load_config(write_config(path, BODY + extra, ids))


def _on_host(config: Config, root: Path, node: int) -> Config:
    """``config`` as node ``node``'s machine has it: a state directory of its own."""
    return config.replace(state_dir=root / f"host-{node}")


class Lives:
    """Node objects of one cluster, started and stopped together; every epoch any of
    them reported (``reported``), and every epoch a leader was handed (``handed``, from
    ``on_elected``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.nodes: dict[int, ringleader.Node] = {}
        self.handed: list[tuple[int, int]] = []
        self.reported = 0
        self._lock = threading.Lock()

    def start(self, config: Config, ids: list[int], **kw: object) -> None:
        for node in ids:

            def elected(epoch: int, node: int = node) -> None:
                with self._lock:
                    self.handed.append((node, epoch))

            self.nodes[node] = ringleader.Node(
                _on_host(config, self.root, node),
                node,
                on_elected=elected,
                **kw,  # type: ignore[arg-type]
            )
        for node in ids:
            self.nodes[node].start()

    def leader(self, timeout: float = 20.0) -> tuple[int, int]:
        """Wait until exactly one node leads, every other names it; ``(node, epoch)``."""

        def one() -> tuple[int, int] | None:
            leading = [i for i, n in self.nodes.items() if n.is_leader]
            if len(leading) != 1:
                return None
            epoch = self.nodes[leading[0]].epoch
            views = {(n.leader, n.epoch) for n in self.nodes.values()}
            return (leading[0], epoch) if views == {(leading[0], epoch)} else None

        found = eventually(one, timeout)
        assert found, {i: (n.leader, n.epoch, n.is_leader) for i, n in self.nodes.items()}
        return found

    def stop(self) -> None:
        for node in self.nodes.values():
            self.reported = max(self.reported, node.epoch)
            node.stop()
        self.nodes.clear()


@pytest.fixture
def lives(tmp_path: Path) -> Iterator[Lives]:
    made = Lives(tmp_path / "hosts")
    try:
        yield made
    finally:
        made.stop()


@pytest.mark.timeout(120)
def test_five_full_cluster_restarts_hand_the_leader_ever_greater_epochs(
    tmp_path: Path, lives: Lives
) -> None:
    config = _cluster(tmp_path / "c.toml", [1, 2, 3])
    epochs = []
    for _ in range(5):
        before = lives.reported
        lives.start(config, [1, 2, 3])
        _, epoch = lives.leader()
        assert epoch > before, (epoch, before)
        epochs.append(epoch)
        lives.stop()
    assert epochs == sorted(set(epochs)), epochs
    handed = [e for _, e in lives.handed]
    assert handed == sorted(set(handed)), lives.handed


@pytest.mark.timeout(120)
def test_restarts_with_more_or_fewer_nodes_keep_the_epoch_growing(
    tmp_path: Path, lives: Lives
) -> None:
    epochs = []
    for ids in ([1, 2, 3], [1, 2, 3, 4, 5], [1, 2, 3], [2, 3]):
        before = lives.reported
        lives.start(_cluster(tmp_path / "c.toml", ids), ids)
        _, epoch = lives.leader()
        assert epoch > before, (ids, epoch, before)
        epochs.append(epoch)
        lives.stop()
    assert epochs == sorted(set(epochs)), epochs


@pytest.mark.timeout(120)
def test_a_wiped_minority_does_not_take_the_epoch_back_with_a_quorum(
    tmp_path: Path, lives: Lives
) -> None:
    config = _cluster(tmp_path / "c.toml", [1, 2, 3, 4, 5])
    lives.start(config, [1, 2, 3, 4, 5])
    lives.leader()
    lives.stop()
    for wiped in ([5], [1, 4], [2, 5]):
        for node in wiped:  # a minority of the machines lost their state directory
            shutil.rmtree(lives.root / f"host-{node}")
        before = lives.reported
        # The wiped nodes come back first: alone they are no majority, and lead nothing.
        lives.start(config, wiped)
        let_pass(1.0)  # a window in which they must not lead (over three suspect_after)
        assert not any(n.is_leader for n in lives.nodes.values())
        lives.start(config, [i for i in (1, 2, 3, 4, 5) if i not in wiped])
        _, epoch = lives.leader()
        assert epoch > before, (wiped, epoch, before)
        lives.stop()
    handed = [e for _, e in lives.handed]
    assert handed == sorted(set(handed)), lives.handed


@pytest.mark.timeout(60)
def test_a_node_without_a_majority_holds_no_lease(tmp_path: Path, lives: Lives) -> None:
    config = _cluster(tmp_path / "c.toml", [1, 2, 3])  # no quorum key: on, in a service
    lives.start(config, [3])
    three = lives.nodes[3]
    let_pass(1.5)  # five times suspect_after: a window in which it must not lead
    assert not three.is_leader and lives.handed == []
    lives.start(config, [2])  # a majority of three
    leader, epoch = lives.leader()
    assert leader == 3 and lives.handed == [(3, epoch)]


@pytest.mark.timeout(60)
def test_quorum_false_trades_split_brain_safety_for_availability(
    tmp_path: Path, lives: Lives
) -> None:
    config = _cluster(tmp_path / "c.toml", [1, 2, 3], "quorum = false\n")
    lives.start(config, [3])
    assert lives.nodes[3].wait_for_leader(10) == 3
    assert eventually(lambda: lives.nodes[3].is_leader, 5)  # alone, it leads


def test_a_service_needs_room_for_a_lease_unless_it_gives_up_the_quorum(tmp_path: Path) -> None:
    config = _cluster(tmp_path / "c.toml", [1, 2, 3], "heartbeat = 0.1\n")
    with pytest.raises(ConfigError) as caught:
        ringleader.Node(config, 1)
    text = str(caught.value)
    assert "\n" not in text and "lease: 0 s" in text and "quorum = false" in text
    ringleader.Node(config.replace(settings={**config.settings, "quorum": 0.0}), 1)


@pytest.mark.timeout(60)
def test_a_stepped_back_wall_clock_still_makes_a_newer_life(
    tmp_path: Path, lives: Lives, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _cluster(tmp_path / "c.toml", [1, 2, 3])
    lives.start(config, [1, 2, 3])
    leader, _ = lives.leader()
    first = lives.nodes[1].incarnation
    lives.nodes.pop(1).stop()
    # The wall clock an hour behind (the monotonic clock, which the lease reads, as is).
    hour_ago = time.time_ns() - 3600 * 10**9
    monkeypatch.setattr(time, "time_ns", lambda: hour_ago)
    monkeypatch.setattr(time, "time", lambda: hour_ago / 1e9)
    lives.start(config, [1])
    assert lives.nodes[1].incarnation == first + 1
    again, _ = lives.leader()
    assert again == leader
    for node in (2, 3):
        assert "stale_incarnation" not in lives.nodes[node].status().rejected


@pytest.mark.timeout(60)
def test_a_node_that_cannot_keep_a_new_epoch_stops_before_acting_on_it(
    tmp_path: Path, lives: Lives
) -> None:
    config = _cluster(tmp_path / "c.toml", [1, 2, 3])
    lost: list[tuple[int, str]] = []
    # The notes' rules (steady=False): the higher node 3, once started, takes over in a
    # newer round (under the steady rules it would follow node 2 and no epoch would come).
    lives.start(config, [1], steady=False)
    lives.start(
        config, [2], steady=False, on_lost=lambda epoch, reason: lost.append((epoch, reason))
    )
    leader, epoch = lives.leader()
    assert leader == 2
    two = lives.nodes[2]
    path = state_path(_on_host(config, lives.root, 2), 2)
    (path.parent / "state.json.tmp").mkdir()  # its next write fails
    lives.start(config, [3], steady=False)  # node 3 takes over in a newer round: 2 must keep it
    assert eventually(lambda: not two.running, 10)
    assert isinstance(two.failure, StateError) and str(path) in str(two.failure)
    assert not two.is_leader
    assert eventually(lambda: lost == [(epoch, "failed")], 5), lost
    with pytest.raises(StateError):
        two.wait_for_leader(1)
    assert path.exists() and state_path(_on_host(config, lives.root, 2), 2).read_text()


def test_a_supervised_node_keeps_no_state(tmp_path: Path) -> None:
    config = _cluster(tmp_path / "c.toml", [1, 2, 3])
    with pytest.raises(TypeError, match="incarnation"):
        ringleader.Node(config, 1, fresh=True)
    with pytest.raises(TypeError, match="fresh_state"):
        ringleader.Node(config, 1, incarnation=2, fresh_state=True)
    node = ringleader.Node(config, 1, incarnation=3)
    with node:
        assert node.incarnation == 3
    assert not state_path(config, 1).parent.exists()
