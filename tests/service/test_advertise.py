"""Nodes whose peers dial another address than the one they bind (``advertise``): a
port mapping, as a container's, and a node bound to every interface."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import ringleader
from ringleader.service import ask_status, describe
from ringleader.topologies import load_config
from tests.conftest import eventually
from tests.nodes import free_ports

SECRET = b"a secret long enough for this test's cluster"


class PortMapping:
    """What a container runtime's port mapping does: connections to a port of ours go
    on to ``target``; counts the connections it carried."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.carried = 0
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._server.getsockname()[1])
        self._sockets: list[socket.socket] = [self._server]
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self.carried += 1
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.close()


@pytest.fixture
def mapping() -> Iterator[tuple[PortMapping, int]]:
    """A mapping to a free port of 127.0.0.1 (where node 3 will bind)."""
    (bound,) = free_ports(1)
    ports = PortMapping(("127.0.0.1", bound))
    try:
        yield ports, bound
    finally:
        ports.close()


@pytest.mark.timeout(60)
def test_peers_reach_a_node_at_its_advertised_address(
    tmp_path: Path, mapping: tuple[PortMapping, int]
) -> None:
    ports, bound = mapping
    one, two = free_ports(2)
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    secret.chmod(0o600)
    config = tmp_path / "cluster.toml"
    config.write_text(
        f'secret_file = "{secret}"\n'
        'topology = "full_mesh"\nalgorithm = "bully"\nheartbeat = 0.05\nsuspect_after = 0.5\n'
        # bound to every interface, reached by its host name (as a pod by its DNS name)
        f'\n[[nodes]]\nid = 1\naddress = "tcp://0.0.0.0:{one}"\n'
        f'advertise = "tcp://localhost:{one}"\n'
        # bound to every interface, reached on another loopback address
        f'\n[[nodes]]\nid = 2\naddress = "tcp://0.0.0.0:{two}"\n'
        f'advertise = "tcp://127.0.0.2:{two}"\n'
        # behind a port mapping: bound at one port, reached at another
        f'\n[[nodes]]\nid = 3\naddress = "tcp://127.0.0.1:{bound}"\n'
        f'advertise = "tcp://127.0.0.1:{ports.port}"\n',
        encoding="utf-8",
    )
    nodes = [ringleader.Node(config, i) for i in (1, 2, 3)]
    try:
        for node in reversed(nodes):
            node.start()
        assert [node.address for node in nodes] == [
            f"tcp://localhost:{one}",
            f"tcp://127.0.0.2:{two}",
            f"tcp://127.0.0.1:{ports.port}",
        ]
        for node in nodes:
            assert node.wait_for_leader(30) == 3
        assert nodes[2].is_leader
        assert ports.carried >= 2  # nodes 1 and 2 dialled node 3 through the mapping
        answers = ask_status(load_config(config), timeout=10)
        assert {node: status is not None for node, status in answers.items()} == {
            1: True,
            2: True,
            3: True,
        }
        assert eventually(lambda: ports.carried >= 3, 10)  # the operator's line too
    finally:
        for node in nodes:
            node.stop()


def test_the_listening_line_says_where_the_node_is_dialled_and_what_it_bound() -> None:
    line = {
        "event": "listening",
        "node": 1,
        "t": 1.0,
        "address": "tcp://node1.example:7001",
        "bound": "tcp://0.0.0.0:7001",
        "incarnation": 7,
    }
    assert describe(line).endswith(
        "node 1  listening on tcp://node1.example:7001 (bound to tcp://0.0.0.0:7001) "
        "(incarnation 7)"
    )
    plain = {key: value for key, value in line.items() if key != "bound"}
    assert describe(plain).endswith("listening on tcp://node1.example:7001 (incarnation 7)")
