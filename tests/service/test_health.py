"""A node's health as a prober sees it (issue 32): ``/healthz`` and ``/readyz`` beside
``/metrics``, 404 elsewhere, the up/failed and client-go leader gauges, ``on_failed`` for
every node, and :meth:`Node.leadership`'s snapshot."""

from __future__ import annotations

import dataclasses
import logging
import math
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import ringleader
from ringleader.actors.host import Leadership
from ringleader.errors import StateError
from ringleader.service import _metrics, describe, state_path
from ringleader.service._health import alive, ready
from ringleader.service._metrics import NodeMetrics
from ringleader.service._view import LeadershipView
from tests.conftest import eventually
from tests.nodes import write_config

QUORUM = 'topology = "full_mesh"\nquorum = true\nheartbeat = 0.05\nsuspect_after = 0.3\n'


def _get(node: ringleader.Node, path: str) -> tuple[int, str]:
    """The status and body of ``GET path`` on ``node``'s metrics server."""
    assert node.metrics_address is not None
    host, port = node.metrics_address
    try:
        with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _metric(node: ringleader.Node, name: str) -> float:
    code, text = _get(node, "/metrics")
    assert code == 200
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no {name} in {text}")


def _nodes(config: Path, ids: list[int], **kw: object) -> dict[int, ringleader.Node]:
    nodes = {i: ringleader.Node(config, i, metrics="127.0.0.1:0", **kw) for i in ids}  # type: ignore[arg-type]
    for i in sorted(ids, reverse=True):  # the highest first: it leads
        nodes[i].start()
    return nodes


@pytest.mark.timeout(60)
def test_a_node_that_failed_to_write_its_state_is_unhealthy_and_told(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", QUORUM, [1, 2, 3])
    failed: list[BaseException] = []
    lost: list[tuple[int, str]] = []
    told = threading.Event()

    def on_failed(error: BaseException) -> None:
        failed.append(error)
        told.set()

    nodes = _nodes(config, [3, 2, 1], on_failed=on_failed, on_lost=lambda e, r: lost.append((e, r)))
    try:
        assert nodes[2].wait_for_leader(20) == 3
        two = nodes[2]
        assert _get(two, "/healthz") == (200, "node 2 is running\n")
        assert eventually(lambda: _get(two, "/readyz")[0] == 200, 10)
        assert _metric(two, "ringleader_up") == 1.0 and _metric(two, "ringleader_failed") == 0.0
        path = state_path(ringleader.load_config(config), 2)
        (path.parent / "state.json.tmp").mkdir()  # its next write fails
        nodes[3].stop()  # a new epoch comes: node 2, a follower, must keep it, and cannot
        assert told.wait(20), "on_failed never called"
        assert not two.running
        assert len(failed) == 1 and isinstance(failed[0], StateError)
        assert failed[0] is two.failure and str(path) in str(failed[0])
        code, body = _get(two, "/healthz")
        assert code == 503 and body.startswith("node 2 failed: ") and str(path) in body
        assert body.count("\n") == 1
        code, body = _get(two, "/readyz")
        assert code == 503 and body.startswith("node 2 failed: ")
        assert _metric(two, "ringleader_up") == 0.0 and _metric(two, "ringleader_failed") == 1.0
        assert all(reason != "failed" for _, reason in lost)  # node 2 led nothing
    finally:
        for node in nodes.values():
            node.stop()


@pytest.mark.timeout(60)
def test_a_node_that_failed_to_write_its_state_logs_why_and_no_injected_fault(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = write_config(tmp_path / "c.toml", QUORUM + f'state_dir = "{tmp_path}"\n', [1, 2, 3])
    nodes = _nodes(config, [3, 2, 1])
    try:
        with caplog.at_level(logging.INFO, logger="ringleader"):
            assert nodes[2].wait_for_leader(20) == 3
            path = state_path(ringleader.load_config(config), 2)
            assert eventually(lambda: _block(path), 10)  # its next write fails
            nodes[3].stop()
            assert eventually(lambda: nodes[2].failure is not None, 20)
    finally:
        for node in nodes.values():
            node.stop()
    two = [r.getMessage() for r in caplog.records if r.getMessage().startswith("node 2 ")]
    assert any(line.startswith("node 2 stops: it cannot keep its state: ") for line in two), two
    assert [line for line in two if "injected fault" in line] == []


def _block(path: Path) -> bool:
    """Make the next write of the state file ``path`` fail (a directory where its
    temporary file goes); False if the node is writing it right now."""
    try:
        (path.parent / "state.json.tmp").mkdir()
    except FileExistsError:
        return False
    return True


@pytest.mark.timeout(60)
def test_readiness_follows_the_lease_as_nodes_go_down(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", QUORUM, [1, 2, 3])
    nodes = _nodes(config, [1, 2, 3])
    try:
        assert nodes[3].wait_for_leader(20) == 3
        for node in nodes.values():
            assert eventually(lambda node=node: _get(node, "/readyz")[0] == 200, 10)
        held = f"node 3 leads epoch {nodes[3].epoch} with its lease held\n"
        assert _get(nodes[3], "/readyz") == (200, held)
        assert _get(nodes[1], "/readyz")[1].startswith("node 1 follows node 3 (epoch ")
        nodes[1].stop()  # one node down: a majority is left, the leader keeps its lease
        assert _get(nodes[3], "/readyz")[0] == 200 and _get(nodes[2], "/readyz")[0] == 200
        nodes[2].stop()  # two down: node 3 can hold no lease
        code, body = eventually(lambda: (r := _get(nodes[3], "/readyz"))[0] == 503 and r, 10)
        # Its lease lapsed: it names no leader until it holds one again (another may
        # lead by then), and says why.
        assert code == 503 and body == (
            f"node 3 knows no leader holding a lease (epoch {nodes[3].epoch}): "
            "none elected, none heard, or its own lease lapsed\n"
        ), body
        assert _get(nodes[3], "/healthz")[0] == 200  # alive all the same
        assert _metric(nodes[3], "leader_election_master_status") == 0.0
    finally:
        for node in nodes.values():
            node.stop()


@pytest.mark.timeout(60)
def test_only_the_three_paths_answer(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", QUORUM + 'cluster = "probed"\n', [1, 2, 3])
    nodes = _nodes(config, [1, 2, 3])
    try:
        three = nodes[3]
        assert three.wait_for_leader(20) == 3
        for path in ("/", "/ready", "/health", "/metrics/x", "/favicon.ico"):
            code, body = _get(three, path)
            assert code == 404 and "/metrics, /healthz or /readyz" in body, (path, code)
        code, text = _get(three, "/metrics")
        assert code == 200 and 'leader_election_master_status{name="probed"} 1.0' in text
        assert _metric(nodes[1], "leader_election_master_status") == 0.0
    finally:
        for node in nodes.values():
            node.stop()


def test_the_verdicts_say_why_in_one_line() -> None:
    def view(leader: int | None, until: float, at: float = 10.0) -> LeadershipView:
        return LeadershipView(2, leader, 7, until, leader == 2 and at < until, at)

    assert alive(2, True, None) == (True, "node 2 is running")
    assert alive(2, False, None) == (False, "node 2 is stopped")
    assert alive(2, False, ringleader.RingleaderError("/s/state.json: cannot\nwrite it")) == (
        False,
        "node 2 failed: /s/state.json: cannot write it",
    )
    assert ready(view(2, 11.0), True, None) == (True, "node 2 leads epoch 7 with its lease held")
    assert ready(view(2, 9.0), True, None)[0] is False
    assert ready(view(2, math.inf), True, None)[0] is True  # no lease configured
    assert ready(view(None, 0.0), True, None) == (
        False,
        "node 2 knows no leader holding a lease (epoch 7): "
        "none elected, none heard, or its own lease lapsed",
    )
    assert ready(view(3, 0.0), True, None) == (True, "node 2 follows node 3 (epoch 7)")
    assert ready(view(3, 0.0), True, None, {3}) == (
        False,
        "node 2 follows node 3 (epoch 7), which it suspects",
    )
    assert ready(view(3, 0.0), False, None) == (False, "node 2 is stopped")


@pytest.mark.timeout(60)
def test_leadership_is_one_snapshot(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", QUORUM, [1, 2, 3])
    nodes = {i: ringleader.Node(config, i) for i in (1, 2, 3)}
    try:
        for i in (3, 2, 1):
            nodes[i].start()
        assert nodes[3].wait_for_leader(20) == 3
        assert eventually(lambda: nodes[3].is_leader, 10)
        view = nodes[3].leadership()
        assert (view.node, view.leader, view.epoch, view.is_leader) == (3, 3, nodes[3].epoch, True)
        assert view.at < view.lease_until and 0 < view.lease_left <= view.lease_until - view.at
        with pytest.raises(dataclasses.FrozenInstanceError):
            view.leader = 1  # type: ignore[misc]
        follower = nodes[1].leadership()
        assert (follower.leader, follower.is_leader, follower.lease_left) == (3, False, 0.0)
        # Read while the leadership moves: every view holds together.
        views: list[LeadershipView] = []
        done = threading.Event()

        def read() -> None:
            while not done.is_set():
                views.append(nodes[3].leadership())
                views.append(nodes[2].leadership())

        reader = threading.Thread(target=read)
        reader.start()
        try:
            nodes[3].resign()
            assert eventually(lambda: nodes[2].is_leader, 10)
        finally:
            done.set()
            reader.join(10)
        assert {v.leader for v in views} >= {3}
        for v in views:
            assert v.is_leader == (v.leader == v.node and v.at < v.lease_until), v
    finally:
        for node in nodes.values():
            node.stop()


def test_the_listening_line_points_at_the_metrics_path() -> None:
    line = {"event": "listening", "node": 2, "t": 1.0, "address": "tcp://h:1", "incarnation": 7}
    said = describe({**line, "metrics": "127.0.0.1:9100"})
    assert "metrics on http://127.0.0.1:9100/metrics" in said  # "/" answers 404 now


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """A node's metrics server alone (no node: a leadership published by hand), closing
    a silent connection after 0.2 s."""
    monkeypatch.setattr(_metrics, "IDLE_TIMEOUT", 0.2, raising=False)
    leadership = Leadership(2)
    leadership.publish(3, 7)
    metrics = NodeMetrics(leadership, lambda: None, alive=lambda: (True, "node 2 is running"))
    try:
        yield metrics.serve("127.0.0.1", 0)
    finally:
        metrics.close()


def _raw(address: tuple[str, int], request: bytes) -> bytes:
    """What the server answers ``request`` (bytes as sent), until it closes."""
    with socket.create_connection(address, timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
        return answer


def test_a_probe_path_answers_get_and_head_only(served: tuple[str, int]) -> None:
    head = _raw(served, b"HEAD /healthz HTTP/1.0\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200 ") and b"Content-Length: 18\r\n" in head
    assert head.endswith(b"\r\n\r\n")  # the headers alone: no body after a HEAD
    for method in (b"POST", b"PUT", b"DELETE"):
        answer = _raw(served, method + b" /readyz HTTP/1.0\r\nContent-Length: 0\r\n\r\n")
        assert answer.startswith(b"HTTP/1.0 405 "), answer
        assert b"Allow: GET, HEAD\r\n" in answer
        assert answer.endswith(b"/readyz answers GET and HEAD, not " + method + b"\n")
    assert _raw(served, b"GET /healthz HTTP/1.0\r\n\r\n").endswith(b"\r\n\r\nnode 2 is running\n")


def test_an_unknown_long_path_is_not_repeated_whole(served: tuple[str, int]) -> None:
    answer = _raw(served, b"GET /" + b"a" * 9000 + b" HTTP/1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 404 ")
    body = answer.split(b"\r\n\r\n", 1)[1]
    assert len(body) < 200 and body.endswith(b"/metrics, /healthz or /readyz\n"), body


def test_a_silent_connection_is_closed_and_the_server_goes_on(served: tuple[str, int]) -> None:
    silent = [socket.create_connection(served, timeout=10) for _ in range(20)]
    try:
        silent[0].sendall(b"GET /heal")  # half a request line, then nothing
        for conn in silent:
            assert conn.recv(100) == b""  # closed by the server (a timeout raises here)
    finally:
        for conn in silent:
            conn.close()
    assert _raw(served, b"GET /healthz HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 200 ")
