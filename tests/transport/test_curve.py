"""``security = "curve"``: ZeroMQ CURVE encryption and peer authentication under the HMAC."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import zmq

import ringleader
from ringleader import ConfigError, LocalCluster
from ringleader.cli import main
from ringleader.topologies import make_keys
from ringleader.transport import CurveKeys, Session, ZmqNetwork
from tests.conftest import eventually
from tests.nodes import running, wait_agreement, write_config

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
            election = cluster.codec.kinds["election"]()  # Bully's: election(P_claim)
            frame = Session(cluster.codec, claim, 1).seal(2, "election", 1, election)
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


def test_check_shows_the_security_in_use(
    tmp_path: Path, keys: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, keys)
    assert main(["check", str(config), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["security"] == "curve"
    assert summary["keys"] == str(keys.resolve())
    assert summary["secret_keys"] == [1, 2, 3]
    assert main(["check", str(config)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps the table's cells
    assert f"security curve (keys in {keys.resolve()}; secret keys here: nodes 1, 2, 3)" in out
    assert main(["check", "--nodes", "3"]) == 0
    assert "security hmac" in " ".join(capsys.readouterr().out.split())
    assert main(["check", "--nodes", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["security"] == "hmac"


@pytest.mark.parametrize("gone", ["node-2.key_secret", "node-3.key"])
@pytest.mark.parametrize("command", ["check", "node"])
def test_check_fails_on_a_missing_key_file_as_node_does(
    tmp_path: Path, keys: Path, gone: str, command: str
) -> None:
    """Nodes on this machine need every secret key: ``check`` loads them as ``node`` does,
    and says which one is missing in the same line, exit 2."""
    body = (
        f'topology = "full_mesh"\nsecurity = "curve"\nkeys = "{keys}"\n'
        f'secret_file = "{keys / "secret"}"\n'
    )
    config = write_config(tmp_path / "nodes.toml", body, [1, 2, 3])
    (keys / gone).unlink()
    argv = [command, str(config), *(["--id", "2"] if command == "node" else [])]
    done = subprocess.run(
        [sys.executable, "-m", "ringleader", *argv],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    out, err = done.stdout, done.stderr
    assert out == ""
    assert err == (
        f"ringleader {command}: error: {config}: keys: {keys / gone} is missing "
        f"(make them with: ringleader keys {keys} --ids 1,2,3)\n"
    )


def test_check_across_machines_needs_only_the_secret_keys_held_here(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys"
    make_keys(keys, [1, 2, 3])
    for node in (2, 3):  # on other machines
        (keys / f"node-{node}.key_secret").unlink()
    body = f'topology = "full_mesh"\nsecurity = "curve"\nkeys = "{keys}"\n'
    config = write_config(tmp_path / "nodes.toml", body, [1, 2, 3], host="192.0.2.10")
    assert main(["check", str(config), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["secret_keys"] == [1]
    (keys / "node-1.key_secret").write_text("not a key\n")  # still mode 0600
    assert main(["check", str(config)]) == 2
    assert "cannot load node-1's key" in capsys.readouterr().err
