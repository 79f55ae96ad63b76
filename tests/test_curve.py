"""``security = "curve"``: ZeroMQ CURVE encryption and peer authentication under the HMAC."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import zmq

import ringleader
from actors import Candidate, ElectionMessage
from ringleader import ConfigError, LocalCluster
from ringleader._cli import main
from topologies import make_keys
from transport import CurveKeys, Session, ZmqNetwork

from .conftest import eventually
from .nodes import running, wait_agreement, write_config

pytestmark = pytest.mark.skipif(not zmq.has("curve"), reason="libzmq without CURVE")


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    directory = tmp_path / "keys"
    make_keys(directory, [1, 2, 3])
    return directory


def _config(tmp_path: Path, keys: Path, transport: str = "tcp", extra: str = "") -> Path:
    path = tmp_path / "curve.toml"
    path.write_text(
        f'topology = "full_mesh"\nnodes = 3\ntransport = "{transport}"\nsecurity = "curve"\n'
        f'keys = "{keys}"\nsecret_file = "{keys / "secret"}"\n{extra}',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_a_curve_cluster_elects(tmp_path: Path, keys: Path, transport: str) -> None:
    report = ringleader.run(ringleader.load_config(_config(tmp_path, keys, transport)))
    assert report.ok and report.leader == 3 and report.bound_holds


def test_a_curve_cluster_in_processes_fails_over(tmp_path: Path, keys: Path) -> None:
    extra = 'mode = "processes"\n[[faults]]\nat = 0.1\ncrash = "leader"\n'
    report = ringleader.run(ringleader.load_config(_config(tmp_path, keys, extra=extra)))
    assert report.ok and report.leader == 2 and report.safety.violations == []


def _attacker(cluster: LocalCluster, keys: Path, as_node: int, claim: int) -> None:
    """Connect to node 2 with ``as_node``'s CURVE key pair and send a frame (signed with
    the cluster secret) that claims to come from node ``claim``."""
    config = cluster.config
    assert config.keys is not None
    stolen = config.curve_keys([as_node])
    assert stolen is not None
    network = ZmqNetwork("tcp", nodes=1, links=1, curve=stolen)
    try:
        links = network.connect({2: cluster.addresses[2]}, node=as_node)
        try:
            assert links.wait_ready(5) == []
            frame = Session(cluster.codec, claim, 1).seal(
                2, "election", 1, ElectionMessage(Candidate(claim, claim))
            )
            assert links.send(2, frame)
        finally:
            links.close()
    finally:
        network.close()


def test_a_frame_must_come_with_its_senders_key(tmp_path: Path, keys: Path) -> None:
    config = ringleader.load_config(_config(tmp_path, keys))
    with LocalCluster(config) as cluster:
        _attacker(cluster, keys, as_node=1, claim=3)  # node 1's key, posing as node 3

        def rejected() -> dict[str, int]:
            status = next(s for s in cluster.statuses() if s.id == 2)
            return status.rejected

        assert eventually(rejected) == {"wrong_key": 1}
        report = cluster.elect()
    assert report.ok and report.leader == 3


def test_an_unknown_key_never_gets_a_connection(tmp_path: Path, keys: Path) -> None:
    config = ringleader.load_config(_config(tmp_path, keys))
    stranger_dir = tmp_path / "stranger"
    make_keys(stranger_dir, [9])
    public, secret = zmq.auth.load_certificate(stranger_dir / "node-9.key_secret")
    assert secret is not None
    with LocalCluster(config) as cluster:
        server = config.curve_keys([])
        assert server is not None
        stranger = CurveKeys({**server.public, 9: public}, {9: secret})
        network = ZmqNetwork("tcp", nodes=1, links=1, curve=stranger)
        try:
            links = network.connect({2: cluster.addresses[2]}, node=9)
            try:
                assert links.wait_ready(0.5) == [2]  # the handshake never completes
            finally:
                links.close()
        finally:
            network.close()
        report = cluster.elect()
    assert report.ok and report.leader == 3
    assert report.rejected_frames == {}


def test_status_over_curve(tmp_path: Path, keys: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With a heartbeat (the nodes' send timeout) far shorter than a CURVE handshake, the
    first answers are lost on links still connecting; the operator asks again."""
    body = (
        f'topology = "full_mesh"\nsecurity = "curve"\nkeys = "{keys}"\n'
        f'secret_file = "{keys / "secret"}"\nheartbeat = 0.005\nsuspect_after = 0.3\n'
    )
    config = write_config(tmp_path / "nodes.toml", body, [1, 2, 3])
    with running(config, [1, 2, 3]) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        assert main(["status", str(config), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["leader"] == 3


@pytest.mark.parametrize(
    ("extra", "key", "words"),
    [
        ('security = "curve"\n', "keys", "missing"),
        ('security = "curve"\nkeys = "nowhere"\n', "keys", "is not a directory"),
        ('keys = "k"\n', "keys", 'only used with security = "curve"'),
        ('security = "tls"\n', "security", "unknown security"),
        ('security = "curve"\nkeys = "."\ntransport = "memory"\n', "security", "not memory"),
        ('security = "curve"\nkeys = "."\ntransport = "inproc"\n', "security", "not inproc"),
    ],
)
def test_curve_config_errors(tmp_path: Path, extra: str, key: str, words: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('topology = "full_mesh"\nnodes = 3\n' + extra)
    with pytest.raises(ConfigError) as caught:
        ringleader.load_config(path)
    assert f"bad.toml: {key}" in str(caught.value) and words in str(caught.value)


def test_a_missing_key_file_names_the_fix(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    make_keys(keys, [1, 2])  # node 3 has none
    config = ringleader.load_config(_config(tmp_path, keys))
    with pytest.raises(ConfigError) as caught:
        ringleader.run(config)
    message = str(caught.value)
    assert "node-3.key is missing" in message and "ringleader keys" in message
