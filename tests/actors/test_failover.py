"""Failover on proof of death: a refused connection, never mere silence."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

import pytest
import zmq

from ringleader.actors import (
    ALGORITHMS,
    PROOF_OF_DEATH,
    DetectorSettings,
    Member,
    Notice,
    SetTimer,
    crash_policy,
)
from ringleader.actors.crashes._detector import SUSPECT
from ringleader.errors import ConfigError
from ringleader.topologies import load_config
from ringleader.transport import ZmqNetwork
from ringleader.transport._monitor import refused
from tests.nodes import free_ports, running, wait_agreement, write_config
from tests.shapes import build

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process tests use Linux /proc")

SIM = {"heartbeat": 0.05, "suspect_after": 5.0, "election_timeout": 0.1}


def _follower(settings: dict[str, float]) -> Member:
    """Node 1 of a 3-node Bully mesh that has heard node 3 lead (watching 2 and 3)."""
    views = build("full_mesh", [1, 2, 3]).views(settings)
    member = Member(ALGORITHMS["bully"], views[0], policy=crash_policy(ALGORITHMS["bully"]))
    member.handle_boot(now=0.0)
    member.handle_start(now=0.0)
    return member


@pytest.mark.timeout(10)
def test_peer_dead_suspects_a_watched_peer_at_once_with_the_reason() -> None:
    member = _follower(SIM)
    assert 3 in member.detector.watched  # type: ignore[union-attr]
    actions = member.peer_dead(3, now=0.0)
    suspects = [a for a in actions if type(a) is Notice and a.kind == "suspect"]
    assert [(n.node, n.detail) for n in suspects] == [(3, PROOF_OF_DEATH)]
    assert 3 in member.suspected
    # Its silence timer is gone: no second suspicion later.
    assert not [a for a in actions if type(a) is SetTimer and a.name == f"{SUSPECT}3"]
    assert not any(type(a) is Notice for a in member.peer_dead(3, now=0.0))  # twice: one suspicion


@pytest.mark.timeout(10)
def test_peer_dead_of_an_unwatched_node_or_with_the_fast_path_off_does_nothing() -> None:
    member = _follower(SIM)
    assert not any(type(a) is Notice for a in member.peer_dead(99, now=0.0))
    off = _follower({**SIM, "fast_failover": 0.0})
    assert not any(type(a) is Notice for a in off.peer_dead(3, now=0.0))
    assert 3 not in off.suspected
    # The detector still suspects it the slow way, after its silence.
    actions = off.handle_timer(f"{SUSPECT}3", now=0.0)
    assert [a.detail for a in actions if type(a) is Notice and a.kind == "suspect"] == [""]


@pytest.mark.timeout(10)
def test_refused_is_proof_only_when_nobody_listens() -> None:
    (port,) = free_ports(1)
    assert refused(f"tcp://127.0.0.1:{port}")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sock = ctx.socket(zmq.PULL)
    try:
        sock.bind(f"tcp://127.0.0.1:{port}")
        assert not refused(f"tcp://127.0.0.1:{port}")
    finally:
        sock.close(linger=0)
        ctx.term()
    assert not refused("inproc://x") and not refused("tcp://no-port")


@pytest.mark.timeout(20)
@pytest.mark.parametrize("scheme", ["tcp", "ipc"])
def test_a_connected_link_reports_its_peer_closing_its_mailbox(scheme: str) -> None:
    network = ZmqNetwork(scheme, nodes=2, links=1)
    try:
        mailbox = network.listen(2, None)
        links = network.connect({2: mailbox.address}, node=1)
        seen: list[int] = []
        reported = threading.Event()

        def on_refused(peer: int) -> None:
            seen.append(peer)
            reported.set()

        assert links.on_refused(on_refused)
        assert links.wait_ready(5.0) == []
        mailbox.close()  # as the peer's process would at its death
        assert reported.wait(5.0)
        assert seen == [2]
        links.close(abrupt=True)
    finally:
        network.close()


BODY = (
    'topology = "full_mesh"\nalgorithm = "bully"\nheartbeat = 0.05\nsuspect_after = 5.0\n'
    "reelect_after = 10.0\n"
)


def _suspicions(nodes: dict, live: list[int], peer: int) -> list[dict]:  # type: ignore[type-arg]
    return [
        e for i in live for e in nodes[i].drain() if e["event"] == "suspect" and e["peer"] == peer
    ]


@pytest.mark.timeout(60)
def test_sigkill_of_the_leader_process_fails_over_on_the_refused_connection(
    tmp_path: Path,
) -> None:
    ids = [1, 2, 3, 4, 5]
    config = write_config(tmp_path / "mesh.toml", BODY, ids)
    with running(config, ids) as nodes:
        wait_agreement(nodes, ids, 5)
        killed = time.monotonic()
        nodes[5].kill()
        live = [1, 2, 3, 4]
        wait_agreement(nodes, live, 4, timeout=3.0)
        agreed = time.monotonic()
        # Silence would take 5 s: only the refused connection explains this.
        assert agreed - killed < 2.0
        suspects = _suspicions(nodes, live, 5)
        assert suspects and all(e["reason"] == PROOF_OF_DEATH for e in suspects)
        for node in live:
            assert nodes[node].stop() == 0


@pytest.mark.timeout(60)
def test_a_paused_leader_is_never_taken_for_dead(tmp_path: Path) -> None:
    ids = [1, 2, 3]
    body = BODY.replace("suspect_after = 5.0", "suspect_after = 0.6")
    config = write_config(tmp_path / "mesh.toml", body, ids)
    with running(config, ids) as nodes:
        wait_agreement(nodes, ids, 3)
        paused = time.monotonic()
        nodes[3].process.send_signal(signal.SIGSTOP)
        try:
            wait_agreement(nodes, [1, 2], 2, timeout=10.0)
            suspects = _suspicions(nodes, [1, 2], 3)
            assert suspects, "node 3 was never suspected"
            assert all("reason" not in e for e in suspects), suspects  # silence, not proof
            assert min(e["mono"] for e in suspects) - paused >= 0.6 - 0.05
        finally:
            nodes[3].process.send_signal(signal.SIGCONT)


@pytest.mark.timeout(10)
def test_fast_failover_is_a_config_key_on_by_default(tmp_path: Path) -> None:
    path = tmp_path / "fast.toml"
    path.write_text('topology = "full_mesh"\nnodes = 3\nfast_failover = false\n')
    off = load_config(path)
    assert DetectorSettings.of(off.node_settings()) == DetectorSettings(fast_failover=False)
    assert load_config(path).to_toml()  # and it reads back
    path.write_text('topology = "full_mesh"\nnodes = 3\n')
    on = DetectorSettings.of(load_config(path).node_settings())
    assert on is not None and on.fast_failover
    path.write_text('topology = "full_mesh"\nnodes = 3\nfast_failover = "yes"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "fast.toml" in message and "fast_failover" in message and "false" in message
