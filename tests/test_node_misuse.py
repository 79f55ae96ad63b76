"""``ringleader.Node`` used the ways a new user gets it wrong: stopping from inside a
callback, stopping before starting, the README's example taken literally, …"""

from __future__ import annotations

import logging
import sys
import threading
import time
from pathlib import Path

import pykka
import pytest

import ringleader
from tests.conftest import eventually
from tests.nodes import write_config

FAST = 'topology = "full_mesh"\nalgorithm = "bully"\nheartbeat = 0.05\nsuspect_after = 0.3\n'

pytestmark = pytest.mark.timeout(60)


def _config(tmp_path: Path, ids: list[int]) -> Path:
    return write_config(tmp_path / "cluster.toml", FAST, ids)


def test_stop_called_from_on_lost_while_stopping_does_not_hang(tmp_path: Path) -> None:
    """A service whose ``on_lost`` shuts it down (``node.stop()``): ``on_lost(epoch,
    "stopped")`` runs while ``stop()`` on the main thread waits for the callbacks thread;
    the ``stop()`` inside must return at once, not wait for the first one (10 s)."""
    called = threading.Event()
    returned = threading.Event()
    nodes: list[ringleader.Node] = []

    def lost(epoch: int, reason: str) -> None:
        called.set()
        nodes[0].stop()
        returned.set()

    node = ringleader.Node(_config(tmp_path, [1]), 1, on_lost=lost)
    nodes.append(node)
    node.start()
    try:
        assert node.wait_for_leader(20) == 1
        assert eventually(lambda: node.is_leader, 20)
        began = time.monotonic()
        node.stop()
        took = time.monotonic() - began
        assert called.is_set() and returned.is_set()
        assert took < 5.0, f"stop() took {took:.1f} s"
    finally:
        node.stop()
    assert pykka.ActorRegistry.get_all() == []


def test_stop_called_from_a_callback_stops_the_node(tmp_path: Path) -> None:
    stopped = threading.Event()
    nodes: list[ringleader.Node] = []

    def elected(epoch: int) -> None:
        nodes[0].stop()
        stopped.set()

    node = ringleader.Node(_config(tmp_path, [1]), 1, on_elected=elected)
    nodes.append(node)
    try:
        node.start()
        assert stopped.wait(20)
        assert not node.running and pykka.ActorRegistry.get_all() == []
    finally:
        node.stop()


def test_stop_before_start_then_start_says_what_to_do(tmp_path: Path) -> None:
    node = ringleader.Node(_config(tmp_path, [1]), 1)
    node.stop()
    node.stop()
    with pytest.raises(ringleader.TransportError, match="was stopped: make a new Node"):
        node.start()
    assert pykka.ActorRegistry.get_all() == []


def test_a_callback_calling_sys_exit_does_not_end_the_callbacks(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``sys.exit()`` in a callback ends only the thread it runs on, silently: the node
    must log it as any failing callback, and go on calling the others."""
    elected = threading.Event()

    def leader_changed(leader: int | None, epoch: int) -> None:
        sys.exit(3)

    with (
        caplog.at_level(logging.ERROR, logger="ringleader"),
        ringleader.Node(
            _config(tmp_path, [1]),
            1,
            on_leader_change=leader_changed,
            on_elected=lambda epoch: elected.set(),
        ) as node,
    ):
        assert node.wait_for_leader(20) == 1
        assert elected.wait(20), "on_elected never ran after on_leader_change called sys.exit"
    assert "SystemExit" in caplog.text
