"""``ringleader.Observer``: follows a cluster's leader from outside (issue 32, item 2).

In one process with the nodes: what it sees first, that it never counts in a majority,
that a node refuses an observer signing with another secret (counted, and it goes on),
and that its word and ``ringleader status`` do not get in each other's way.  Whole
processes, a leader killed and the command: ``tests/system/test_watch.py``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import ringleader
from ringleader.actors.host import LeadershipNotice
from ringleader.service import ask_status
from ringleader.service._sightings import HELD, LOST, NONE, Sightings
from ringleader.topologies import SECRET_ENV
from tests.conftest import eventually
from tests.nodes import write_config

FAST = 'topology = "full_mesh"\nalgorithm = "bully"\nheartbeat = 0.05\nsuspect_after = 0.3\n'
SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
OTHER_SECRET = "a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978879"


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ringleader.Config:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    return ringleader.load_config(write_config(tmp_path / "cluster.toml", FAST, [1, 2, 3]))


def test_an_observer_sees_the_leader_and_its_lease(config: ringleader.Config) -> None:
    nodes = {i: ringleader.Node(config, i) for i in (1, 2, 3)}
    try:
        for node in nodes.values():
            node.start()
        leader = nodes[1].wait_for_leader(20)
        assert eventually(lambda: nodes[leader].is_leader, 20)
        with ringleader.Observer(config) as observer:
            seen = observer.wait(10)
            assert seen is not None and seen.held, seen
            assert (seen.leader, seen.epoch) == (leader, nodes[leader].epoch)
            assert leader in seen.heard
            first = next(observer.changes(timeout=10))
            assert first.same(observer.current)
            line = first.as_dict()
            assert line["leader"] == leader and line["lease"] == "held"
            # A status asked meanwhile (another life of the operator's tools) leaves the
            # watch as it was: the watcher's renewals after it are still admitted.
            assert {s.elected for s in ask_status(config).values() if s} == {leader}
            renewed = [n.status().rejected.get("stale_incarnation", 0) for n in nodes.values()]
            for _ in observer.changes(timeout=3 * observer.renew):
                pass  # three renewals, each refused as stale before each life had its own
            after = [n.status().rejected.get("stale_incarnation", 0) for n in nodes.values()]
            assert after == renewed
    finally:
        for node in nodes.values():
            node.stop()


def test_an_observer_never_counts_in_a_majority(config: ringleader.Config) -> None:
    """One node of three and an observer: the node hears the observer (it answers it)
    but cannot lead, and counts none of its frames as election traffic."""
    node = ringleader.Node(config, 1)
    try:
        node.start()
        with ringleader.Observer(config) as observer:
            seen = observer.wait(10)
            assert seen is not None and seen.heard == (1,)
            assert not seen.held
            # Renewed for three times as long as a member may be silent, the watch has
            # had every chance to count: the node still leads nothing.
            for change in observer.changes(timeout=3 * 3 * observer.renew):
                assert not change.held, change
            status = node.status()
            assert status.state != "leader" and not node.is_leader
            assert status.received == 0, status  # the observer's frames: not the election's
    finally:
        node.stop()


def test_an_observer_with_another_secret_is_refused_and_counted(
    config: ringleader.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    nodes = {i: ringleader.Node(config, i) for i in (1, 2, 3)}
    try:
        for node in nodes.values():
            node.start()
        leader = nodes[1].wait_for_leader(20)
        monkeypatch.setenv(SECRET_ENV, OTHER_SECRET)
        stranger = ringleader.load_config(config.source)
        with ringleader.Observer(stranger) as observer:
            seen = observer.wait(10)
            assert seen is not None and seen.heard == () and not seen.held, seen

            def refused() -> bool:
                return all(n.status().rejected.get("bad_signature", 0) >= 1 for n in nodes.values())

            assert eventually(refused, 10), {i: n.status().rejected for i, n in nodes.items()}
        assert all(n.running for n in nodes.values())
        assert all(n.status().errors == 0 for n in nodes.values())
        assert nodes[leader].is_leader
    finally:
        for node in nodes.values():
            node.stop()


# -- what the members' words add up to ---------------------------------------------------------


def notice(leader: int | None, epoch: int, leading: bool = False) -> LeadershipNotice:
    return LeadershipNotice(leader, epoch, leading=leading, lease_left=0.2 if leading else 0.0)


def test_the_leader_holding_its_lease_wins_over_a_later_epoch_without_one() -> None:
    sightings = Sightings([1, 2, 3], silence=0.75)
    sightings.heard(3, notice(3, 4, leading=True), 10.0)
    sightings.heard(1, notice(2, 5), 10.0)  # an election under way names 2 in epoch 5
    view = sightings.view(10.1, wall=0.0)
    assert (view.leader, view.epoch, view.lease) == (3, 4, HELD)
    assert sightings.settled(10.1)


def test_a_silent_member_no_longer_counts() -> None:
    sightings = Sightings([1, 2, 3], silence=0.75)
    sightings.heard(3, notice(3, 4, leading=True), 10.0)
    sightings.heard(1, notice(3, 4), 10.5)
    sightings.heard(2, notice(3, 4), 10.5)
    view = sightings.view(10.8, wall=0.0)  # 3 silent for 0.8 s: its lease is not known held
    assert (view.leader, view.epoch, view.lease, view.heard) == (3, 4, LOST, (1, 2))
    assert not sightings.settled(10.8)
    nobody = sightings.view(12.0, wall=0.0)
    assert (nobody.leader, nobody.lease, nobody.heard) == (None, NONE, ())


def test_a_leaders_word_held_lasts_no_longer_than_the_lease_it_told_of() -> None:
    """Node 3 said at 10.0 that it leads holding its lease for 0.2 s more, then fell
    silent (paused): at 10.3 its lease has run out, whatever it did since (a renewal would
    have come with a new word), so no line may say ``held`` for it."""
    sightings = Sightings([1, 2, 3], silence=0.75)
    sightings.heard(3, notice(3, 4, leading=True), 10.0)  # lease_left 0.2
    sightings.heard(1, notice(3, 4), 10.25)
    sightings.heard(2, notice(3, 4), 10.25)
    assert sightings.view(10.1, wall=0.0).lease == HELD
    view = sightings.view(10.3, wall=0.0)
    assert (view.leader, view.epoch, view.lease) == (3, 4, LOST), view


def test_a_watcher_needs_only_the_read_only_watch_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Members whose config gives ``watch_secret_file`` admit a watcher that holds only
    that key (it watches, never speaks as a member: ``tests/transport/test_frame.py``);
    another key is refused as ``bad_signature``, counted, and the nodes go on."""
    monkeypatch.setenv(SECRET_ENV, SECRET)
    key, wrong = tmp_path / "watch.secret", tmp_path / "wrong.secret"
    for path, text in ((key, OTHER_SECRET), (wrong, SECRET[::-1])):
        path.write_text(text + "\n")
        path.chmod(0o600)
    body = FAST + f'watch_secret_file = "{key}"\n'
    config = ringleader.load_config(write_config(tmp_path / "cluster.toml", body, [1, 2, 3]))
    nodes = {i: ringleader.Node(config, i) for i in (1, 2, 3)}
    try:
        for node in nodes.values():
            node.start()
        leader = nodes[1].wait_for_leader(20)
        assert eventually(lambda: nodes[leader].is_leader, 20)
        monkeypatch.delenv(SECRET_ENV)  # the watcher has no cluster secret
        with ringleader.Observer(config, key=key) as observer:
            seen = observer.wait(10)
            assert seen is not None and seen.held and seen.leader == leader, seen
        with ringleader.Observer(config, key=wrong) as stranger:
            seen = stranger.wait(10)
            assert seen is not None and seen.heard == () and not seen.held, seen
        assert eventually(lambda: nodes[1].status().rejected.get("bad_signature", 0) >= 1, 10)
        assert all(n.running and n.status().errors == 0 for n in nodes.values())
    finally:
        for node in nodes.values():
            node.stop()


def test_changes_in_asyncio(config: ringleader.Config) -> None:
    nodes = {i: ringleader.Node(config, i) for i in (1, 2, 3)}
    try:
        for node in nodes.values():
            node.start()
        leader = nodes[1].wait_for_leader(20)
        assert eventually(lambda: nodes[leader].is_leader, 20)

        async def first_held(observer: ringleader.Observer) -> ringleader.Watched:
            async for change in observer.async_changes():
                if change.held:
                    return change
            raise AssertionError("the observer stopped")

        with ringleader.Observer(config) as observer:
            seen = asyncio.run(asyncio.wait_for(first_held(observer), 10))
        assert seen.leader == leader
    finally:
        for node in nodes.values():
            node.stop()
