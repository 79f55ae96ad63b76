"""Rogue peers against real ``ringleader node`` processes (and one in-process node).

A 3-node full mesh runs on loopback with a known ``$RINGLEADER_SECRET``; node 2 is under
attack.  Whatever arrives — random bytes, raw TCP speaking ZMTP by hand, unsigned pickles,
cut or oversized frames, authentic frames (forged with the secret) that are misaddressed,
replayed or written by other software versions, an impostor member with the wrong
secret, thousands of fuzzed frames — the node must keep running, count every frame under
the reason ``docs/wire-format.md`` gives, report it as a ``rejected_frame`` JSON event,
never unpickle what it has not authenticated and admitted, and the cluster must still
fail over when its leader is killed.

The counts are read over the wire, the way ``ringleader status`` reads them: a
``StatusQuery`` signed as the operator, sent on the same connection *after* the rogue
frames, so its answer comes only once every one of them has been handled (one
connection is FIFO and the node handles its mailbox in order).  The ``rejected_frame``
events are rate-limited (frames failing the signature once per address, then a count
every 10 s; others 10 per reason and second), so they are checked for presence, the
counters for exactness.

The forger, the fuzzer, the mesh and the attacks are in ``tests/rogue.py``.
"""

from __future__ import annotations

import pickle
import random
import sys
from collections import Counter
from pathlib import Path

import pytest
import zmq

import ringleader
from ringleader.actors.host import OPERATOR, NodeStatus, StatusQuery, wire_kinds
from ringleader.cli import main
from ringleader.errors import FrameRejected
from ringleader.service import BAD_SIGNATURE_EVERY, ask_status, describe
from ringleader.topologies import SECRET_ENV
from ringleader.transport import Codec, Header, Session, SocketOptions
from ringleader.transport._frame import _HEAD
from tests.conftest import eventually
from tests.nodes import NodeProcess, free_ports, running, wait_agreement, write_config
from tests.rogue import (
    CASES,
    FIELDS,
    FUZZ_FRAMES,
    FUZZ_SEED,
    IDS,
    INCARNATIONS,
    LEADER,
    MAX_FRAME,
    MESH,
    RL_NOW,
    SECRET,
    TARGET,
    WRONG_SECRET,
    Attack,
    Canary,
    Forger,
    FuzzTarget,
    Mesh,
    fail_over,
    fuzz_frames,
    mesh,
    probe,
    rejected_since,
    reported,
    reports_due,
    unsigned_reason,
)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process tests use Linux /proc")


@pytest.mark.parametrize("case", CASES)
def test_a_rogue_peer_is_counted_reported_and_outlived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    canary = tmp_path / "canary"
    payload = pickle.dumps(Canary(canary), protocol=5)
    with mesh(tmp_path, monkeypatch) as m, probe(m) as p:
        target = m.nodes[TARGET]
        before = p.status()
        old = {id(e) for e in target.drain()}
        expected = CASES[case](Attack(m, p, m.forger, payload))
        after = p.status()  # on the probe's connection, after everything sent on it
        assert rejected_since(before, after) == expected
        assert after.errors == 0
        events = reported(target, expected, old)
        for reason, count in expected.items():
            assert reports_due(reason, count) <= events[reason] <= count, (reason, events)
        assert set(events) <= set(expected)
        assert not canary.exists(), "a rogue pickle was loaded"
        fail_over(m)
    pickle.loads(payload)  # the canary is live: loading it does create the file
    assert canary.exists()


# -- an impostor member ----------------------------------------------------------------------


def test_an_impostor_with_the_wrong_secret_is_refused_while_the_rest_elect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node 4 of the config, the top id, runs with another secret: the others refuse
    every frame of it as bad_signature, elect node 3 and fail over to node 2.  Without
    a quorum, so that two of four may fail over (and node 4, alone, leads itself; with
    the default quorum it would lead nothing: tests/service/test_identity.py)."""
    monkeypatch.setenv(SECRET_ENV, SECRET)
    ids = [1, 2, 3, 4]
    path = write_config(tmp_path / "mesh.toml", MESH + "quorum = false\n", ids)
    config = ringleader.load_config(path)
    with running(path, IDS, env={SECRET_ENV: SECRET}) as nodes:
        wait_agreement(nodes, IDS, 3)
        nodes[4] = NodeProcess(path, 4, env={SECRET_ENV: WRONG_SECRET})
        nodes[4].wait_for(lambda e: e["event"] == "leader" and e["state"] == "leader")
        for node in IDS:  # (node 4 hears nothing: the others suspect it and stop asking)
            event = nodes[node].wait_for(lambda e: e["event"] == "rejected_frame")
            assert event["reason"] == "bad_signature", event
        m = Mesh(config, nodes, {}, wait_agreement(nodes, IDS, 3))
        with probe(m) as p:
            status = p.status()
        assert status.rejected.get("bad_signature", 0) >= 1
        assert set(status.rejected) <= {"bad_signature", "stale_epoch"}
        assert status.elected == 3 and status.errors == 0
        fail_over(m)
        for node in IDS:
            named = {e["leader"] for e in nodes[node].drain() if e["event"] == "leader"}
            assert 4 not in named, f"node {node} followed the impostor"
            rejected = {e["reason"] for e in nodes[node].events if e["event"] == "rejected_frame"}
            assert rejected == {"bad_signature"}
        assert nodes[4].process.poll() is None


def test_a_peer_with_another_secret_is_named_once_then_only_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Node 2 runs with another secret: node 1 says once, in its log and its output,
    that frames from node 2's address fail the signature, then only counts them (in
    ``status``, and in an event every BAD_SIGNATURE_EVERY s) instead of a line per frame."""
    path = write_config(tmp_path / "pair.toml", MESH, [1, 2])
    monkeypatch.setenv(SECRET_ENV, SECRET)
    config = ringleader.load_config(path)
    with running(path, [1], env={SECRET_ENV: SECRET}) as nodes:
        nodes[2] = NodeProcess(path, 2, env={SECRET_ENV: WRONG_SECRET})
        first = nodes[1].wait_for(lambda e: e["event"] == "rejected_frame")
        assert first["reason"] == "bad_signature"
        assert (first["address"], first["address_count"]) == ("127.0.0.1", 1)
        line = describe(first)
        assert line.endswith("frames from 127.0.0.1 fail the signature: does its secret differ?")

        def counted() -> NodeStatus | None:
            status = ask_status(config, timeout=0.5)[1]  # node 2 cannot answer: wrong secret
            many = status is not None and status.bad_signatures.get("127.0.0.1", 0) >= 20
            return status if many else None

        status = eventually(counted, 30.0)
        assert status is not None, "node 1 did not count 20 bad frames from node 2 in 30 s"
        assert status.rejected["bad_signature"] >= status.bad_signatures["127.0.0.1"]
        assert main(["status", str(path)]) == 1  # node 2 does not answer
        out = " ".join(capsys.readouterr().out.split())
        assert "frames from 127.0.0.1 failed the signature: does its secret differ?" in out
        events = [e for e in nodes[1].drain() if e["event"] == "rejected_frame"]
        lasted = events[-1]["mono"] - first["mono"]
        nodes[1].stop()
    assert {e["reason"] for e in events} == {"bad_signature"}
    assert len(events) <= 1 + lasted // BAD_SIGNATURE_EVERY, events
    assert all(e["address_count"] > 1 for e in events[1:])
    warnings = [line for line in nodes[1].stderr.splitlines() if "fail the signature" in line]
    assert warnings == [
        "WARNING ringleader.actors.host._node_actor: node 1: frames from 127.0.0.1 fail the "
        "signature: does its secret differ?"
    ]
    later = {**first, "address_count": 57}
    assert describe(later).endswith("57 frames from 127.0.0.1 failed the signature")


# -- memory: what one unauthenticated connection can make a node hold ------------------------


class UnboundedBuffering(AssertionError):
    """The node held far more for one rogue connection than its settings promise."""


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc")


def test_one_rogue_connection_cannot_make_a_busy_node_hold_more_than_its_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stranger's connection can park at most ``receive_hwm`` frames of at most
    ``max_frame_size`` in a node (64 MiB), however much it sends.  While the node's actor
    is busy for a moment (here: 30 status queries whose answers cannot be delivered, each
    blocking it for one heartbeat, as a send to a crashed peer does), a rogue sends twice
    that many frames of the largest size ZeroMQ lets in.  Every one is counted, the node
    survives, and its peak memory grows by less than the bound (plus slack), not by the
    flood."""
    options = SocketOptions()
    flood = 2 * options.receive_hwm
    bound_mib = options.receive_hwm * options.max_frame_size / 2**20
    budget_mib = 1.5 * bound_mib
    with mesh(tmp_path, monkeypatch) as m, probe(m) as p:
        pid = m.nodes[TARGET].process.pid
        before = p.status()
        peak_before = peak_rss_mib(pid)
        nobody = f"tcp://127.0.0.1:{free_ports(1)[0]}"  # answers to here wait, then drop
        session = Session(m.codec, OPERATOR, next(INCARNATIONS))
        stall = StatusQuery(nobody)
        p.send(*(session.seal(TARGET, stall.kind, 0, stall) for _ in range(30)))
        big = zmq.Frame(RL_NOW + bytes(options.max_frame_size - 3))
        for _ in range(flood):
            p.push.send(big, copy=False)
        after = p.status(timeout=60)
        assert rejected_since(before, after) == {"bad_signature": flood}
        assert after.errors == 0
        growth = peak_rss_mib(pid) - peak_before
        fail_over(m)
    flood_mib = flood * options.max_frame_size / 2**20
    if growth > budget_mib:
        raise UnboundedBuffering(
            f"node {TARGET} grew by {growth:.0f} MiB for one rogue connection that sent "
            f"{flood_mib:.0f} MiB (the bound is {bound_mib:.0f} MiB)"
        )


# -- fuzz --------------------------------------------------------------------------------


def test_fuzzed_frames_are_each_counted_by_a_node_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canary = tmp_path / "canary"
    payload = pickle.dumps(Canary(canary), protocol=5)
    with mesh(tmp_path, monkeypatch) as m, probe(m) as p:
        target = m.nodes[TARGET]
        before = p.status()
        old = {id(e) for e in target.drain()}
        t = FuzzTarget(
            m.forger,
            TARGET,
            m.incarnation[TARGET],
            tuple(IDS),
            heard={LEADER: m.incarnation[LEADER]},  # (see tests/rogue.py: Attack.first)
        )
        frames = fuzz_frames(random.Random(FUZZ_SEED), t, FUZZ_FRAMES, payload)
        p.send(*(frame for frame, _ in frames))
        after = p.status(timeout=60)
        expected = Counter(reason for _, reason in frames)
        got = rejected_since(before, after)
        assert got == expected
        assert got.total() == FUZZ_FRAMES
        assert after.errors == 0
        events = reported(target, expected, old)
        assert set(events) == set(expected)
        assert all(events[r] <= n for r, n in expected.items())
        assert not canary.exists(), "a fuzzed pickle was loaded"
        fail_over(m)
    pickle.loads(payload)
    assert canary.exists()


@pytest.mark.parametrize("transport", ["tcp", "memory"])
def test_fuzzed_frames_are_each_counted_by_an_actor_and_the_election_stays_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    """The same fuzz in-process, against a NodeActor of a LocalCluster (memory: frames
    above the limit reach the codec, as ``oversize``); then Bully from the lowest node
    sends exactly the notes' N² − 1 messages."""
    monkeypatch.setenv(SECRET_ENV, SECRET)
    canary = tmp_path / "canary"
    payload = pickle.dumps(Canary(canary), protocol=5)
    path = tmp_path / "mesh.toml"
    path.write_text(f'{MESH}nodes = 3\ninitiators = [1]\ntransport = "{transport}"\n')
    config = ringleader.load_config(path)
    with ringleader.LocalCluster(config) as cluster:
        codec = cluster.codec
        forger = Forger(SECRET.encode(), codec.cluster, codec.versions, codec.kinds)
        t = FuzzTarget(forger, TARGET, 1, tuple(IDS), oversize=transport == "memory")
        frames = fuzz_frames(random.Random(FUZZ_SEED), t, FUZZ_FRAMES, payload)
        expected = Counter(reason for _, reason in frames)
        links = cluster.network.connect({TARGET: cluster.addresses[TARGET]})
        try:
            assert links.wait_ready(5) == []
            for frame, _ in frames:
                assert links.send(TARGET, frame)
        finally:
            links.close()

        def status() -> NodeStatus:
            return next(s for s in cluster.statuses() if s.id == TARGET)

        def counted() -> bool:
            return sum(status().rejected.values()) >= FUZZ_FRAMES

        assert eventually(counted, timeout=30)
        final = status()
        assert Counter(final.rejected) == expected
        assert final.received == 0 and final.errors == 0
        report = cluster.elect()
    assert not canary.exists(), "a fuzzed pickle was loaded"
    assert report.ok and report.leader == 3 and report.total == 3**2 - 1
    assert report.rejected_frames == dict(expected)
    pickle.loads(payload)
    assert canary.exists()


# -- the tools of tests/rogue.py, checked against the codec itself --------------------------


def test_the_forger_and_the_fuzzer_agree_with_the_codec_and_session(tmp_path: Path) -> None:
    """The tools of ``tests/rogue.py``, held to the product's own checks: the forger
    writes what the codec seals, and a session (plus the node's operator rule) refuses
    every fuzzed frame for exactly the reason the fuzzer expects."""
    secret, cluster = SECRET.encode(), 0x1234
    config = ringleader.load_config(write_config(tmp_path / "m.toml", MESH, IDS))
    kinds = wire_kinds(config.algorithm_class)
    codec = Codec(secret, cluster, kinds)
    forger = Forger(secret, cluster, codec.versions, codec.kinds)
    assert _HEAD.size == 66 and FIELDS[-1] == (60, 6) and FIELDS[2] == (3, 1)
    # No frame is above the codec's limit yet within ZeroMQ's: over tcp, ipc and inproc
    # "oversize" is never counted; ZeroMQ hangs up on the sender instead (see oversize()).
    assert codec.max_frame_size == SocketOptions().max_frame_size == MAX_FRAME
    ping = kinds["ping"]()
    assert forger.message("ping") == codec.dumps(ping)
    query = StatusQuery("tcp://127.0.0.1:9")
    assert forger.message("status_query", query.reply_to) == codec.dumps(query)
    header = Header(cluster, 1, 2, 10, 0, 5, 1, "ping")
    first = forger.frame(codec.dumps(ping), sender=1, receiver=2, incarnation=10, epoch=5)
    assert first == codec.seal(header, ping)
    session = Session(codec, 2, 5, peers=(*IDS, OPERATOR))
    assert session.open(first) == (header, ping)  # node 2 has heard node 1's life 10
    t = FuzzTarget(forger, 2, 5, tuple(IDS), heard={1: 10}, oversize=True)
    canary = pickle.dumps(Canary(tmp_path / "canary"), protocol=5)
    for frame, reason in fuzz_frames(random.Random(FUZZ_SEED), t, 1000, canary):
        with pytest.raises(FrameRejected) as info:
            got, _ = session.open(frame)
            assert got.sender == OPERATOR  # the node then refuses all but a StatusQuery
            raise FrameRejected("unknown_sender", authentic=True)
        assert info.value.reason == reason
        assert info.value.authentic == (unsigned_reason(frame, secret) is None)
    assert not (tmp_path / "canary").exists()
