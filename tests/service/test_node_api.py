"""``ringleader.Node``: the library API for a service that wants one leader among its
processes (callbacks, ``is_leader``/``epoch``, asyncio changes, Prometheus metrics)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pykka
import pytest

import ringleader
from ringleader.actors.crashes import Configuration
from ringleader.cli import main
from ringleader.service import StateFile, state_path
from tests.conftest import eventually
from tests.nodes import NodeProcess, write_config

FAST = 'topology = "full_mesh"\nalgorithm = "bully"\nheartbeat = 0.05\nsuspect_after = 0.3\n'


def _config(tmp_path: Path, ids: list[int], body: str = FAST) -> Path:
    return write_config(tmp_path / "cluster.toml", body, ids)


class Recorder:
    """Callbacks that record what they were called with, on which thread, and whether
    two ever ran at once."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.threads: set[str] = set()
        self.overlapped = False
        self._active = 0
        self._lock = threading.Lock()
        self.changed = threading.Event()

    def _record(self, *call: Any) -> None:
        with self._lock:
            self._active += 1
            self.overlapped |= self._active > 1
        threading.Event().wait(0.01)  # a slow callback: others must wait their turn
        with self._lock:
            self._active -= 1
            self.calls.append(call)
            self.threads.add(threading.current_thread().name)
        self.changed.set()

    def on_elected(self, epoch: int) -> None:
        self._record("elected", epoch)

    def on_lost(self, epoch: int, reason: str) -> None:
        self._record("lost", epoch, reason)

    def on_leader_change(self, leader: int | None, epoch: int) -> None:
        self._record("leader", leader, epoch)

    def callbacks(self) -> dict[str, Any]:
        return {
            "on_elected": self.on_elected,
            "on_lost": self.on_lost,
            "on_leader_change": self.on_leader_change,
        }

    def wait_for(self, call: tuple[Any, ...], timeout: float = 20.0) -> None:
        found = eventually(lambda: call in self.calls, timeout)
        assert found, f"no {call} within {timeout} s: {self.calls}"


def _scrape(address: tuple[str, int] | None) -> dict[str, float]:
    """The samples at ``address`` (``name{labels}`` → value)."""
    assert address is not None
    host, port = address
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def test_three_nodes_elect_one_and_tell_the_service(tmp_path: Path) -> None:
    config = ringleader.load_config(_config(tmp_path, [1, 2, 3]))
    recorders = {i: Recorder() for i in (1, 2, 3)}
    nodes = {i: ringleader.Node(config, i, **recorders[i].callbacks()) for i in (1, 2, 3)}
    try:
        for node in nodes.values():
            node.start()
        assert {node.wait_for_leader(20) for node in nodes.values()} == {3}
        assert eventually(lambda: [i for i, n in nodes.items() if n.is_leader] == [3], 10)
        epoch = nodes[3].epoch
        assert epoch >= 1 and nodes[3].status().state == "leader"
        recorders[3].wait_for(("elected", epoch))
        calls = recorders[3].calls
        assert calls.index(("leader", 3, epoch)) < calls.index(("elected", epoch))
        assert not any(c[0] == "lost" for c in calls)

        nodes[3].stop()  # the leader goes: it says so, and the next takes over
        recorders[3].wait_for(("lost", epoch, "stopped"))
        assert not nodes[3].is_leader and not nodes[3].running
        assert eventually(lambda: nodes[2].is_leader, 20), nodes[2].status()
        recorders[2].wait_for(("elected", nodes[2].epoch))
        assert nodes[2].epoch > epoch
        recorders[1].wait_for(("leader", 2, nodes[2].epoch))
    finally:
        for node in nodes.values():
            node.stop()
    for recorder in recorders.values():
        assert recorder.threads and threading.current_thread().name not in recorder.threads
        assert len(recorder.threads) == 1, recorder.threads  # one thread of the node's
        assert not recorder.overlapped, "two callbacks of one node ran at once"
    assert pykka.ActorRegistry.get_all() == []


def test_a_callback_that_raises_is_logged_and_the_node_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    elected = threading.Event()

    def broken(leader: int | None, epoch: int) -> None:
        raise RuntimeError("the service's bug")

    with (
        caplog.at_level(logging.ERROR, logger="ringleader"),
        ringleader.Node(
            _config(tmp_path, [1]), 1, on_leader_change=broken, on_elected=lambda e: elected.set()
        ) as node,
    ):
        assert node.wait_for_leader(20) == 1
        assert elected.wait(20), "the callback after the failing one never ran"
        assert node.status().errors == 0 and node.is_leader
    failures = [r for r in caplog.records if "callback" in r.getMessage()]
    assert failures and failures[0].exc_info is not None
    assert "the service's bug" in caplog.text


def test_the_context_manager_leaves_nothing_running(tmp_path: Path) -> None:
    before = set(threading.enumerate())
    with ringleader.Node(_config(tmp_path, [1]), 1, metrics="127.0.0.1:0") as node:
        assert node.wait_for_leader(20) == 1
        assert pykka.ActorRegistry.get_all()
    assert pykka.ActorRegistry.get_all() == []
    assert eventually(lambda: not (set(threading.enumerate()) - before), 10), [
        t.name for t in set(threading.enumerate()) - before
    ]
    with pytest.raises(ringleader.TransportError):
        node.wait_for_leader(1)
    with pytest.raises(ringleader.TransportError, match="was stopped: make a new Node"):
        node.start()


def test_wait_for_leader_raises_when_the_time_runs_out(tmp_path: Path) -> None:
    body = 'topology = "full_mesh"\nalgorithm = "bully"\nheartbeat = 1.0\nsuspect_after = 5.0\n'
    with ringleader.Node(_config(tmp_path, [1, 2, 3], body), 1) as node:
        with pytest.raises(TimeoutError):
            node.wait_for_leader(0.2)  # alone, it waits suspect_after before it elects
        assert node.leader is None and not node.is_leader


def test_a_config_path_and_a_wrong_id(tmp_path: Path) -> None:
    path = _config(tmp_path, [1, 2])
    with pytest.raises(ringleader.ConfigError, match="there is no node 7"):
        ringleader.Node(path, 7)
    with pytest.raises(ringleader.UsageError, match="HOST:PORT"):
        ringleader.Node(path, 1, metrics="9100")
    node = ringleader.Node(str(path), 1)  # a path as str too; nothing runs until start()
    assert node.leader is None and node.epoch == 0 and not node.is_leader
    node.stop()


def test_changes_in_asyncio(tmp_path: Path) -> None:
    node = ringleader.Node(_config(tmp_path, [1]), 1)

    async def consume(ready: asyncio.Event) -> list[ringleader.LeaderChange]:
        seen = []
        ready.set()
        async for change in node.changes():
            seen.append(change)
            if change.kind == "elected":
                # The first consumer to see it stops the node, on another thread.
                await asyncio.get_running_loop().run_in_executor(None, node.stop)
        return seen

    async def both() -> list[list[ringleader.LeaderChange]]:
        ready = [asyncio.Event(), asyncio.Event()]
        tasks = [asyncio.create_task(consume(r)) for r in ready]
        # A consumer sets its event, then enters changes() and registers before its
        # first await there: it cannot wake this task before it is registered.
        for r in ready:
            await r.wait()
        node.start()
        return list(await asyncio.wait_for(asyncio.gather(*tasks), 30))

    try:
        for seen in asyncio.run(both()):
            kinds = [c.kind for c in seen]
            assert "elected" in kinds and kinds[-1] == "lost", seen
            elected = seen[kinds.index("elected")]
            assert elected.is_leader and elected.leader == 1 and elected.epoch >= 1
            assert seen[-1].reason == "stopped" and not seen[-1].is_leader
            leader = [c for c in seen if c.kind == "leader"]
            assert leader[-1].leader == 1
            with pytest.raises(AttributeError):
                seen[0].epoch = 9  # type: ignore[misc]
    finally:
        node.stop()

    async def after_stop() -> list[ringleader.LeaderChange]:
        return [change async for change in node.changes()]

    assert asyncio.run(after_stop()) == []  # a stopped node's changes end at once


def test_metrics_over_http(tmp_path: Path) -> None:
    config = ringleader.load_config(_config(tmp_path, [1, 2, 3]))
    nodes = {i: ringleader.Node(config, i, metrics="127.0.0.1:0") for i in (1, 2, 3)}
    try:
        for node in nodes.values():
            node.start()
        assert {node.wait_for_leader(20) for node in nodes.values()} == {3}
        addresses = {i: n.metrics_address for i, n in nodes.items()}
        assert len(set(addresses.values())) == 3
        assert all(a and a[1] for a in addresses.values())

        def leaders() -> list[int]:
            return [i for i in nodes if _scrape(addresses[i])["ringleader_is_leader"] == 1.0]

        assert eventually(lambda: leaders() == [3], 10), leaders()
        samples = _scrape(addresses[1])
        assert samples["ringleader_epoch"] == nodes[1].epoch >= 1
        assert samples["ringleader_elections_total"] >= 0
        assert samples["ringleader_leader_changes_total"] >= 1
        # Messages by kind: the leader's lease rests on a heartbeat (a ping) it sent.  (A
        # follower sends pings only if it took part in an election: not for sure.)
        assert _scrape(addresses[3])['ringleader_messages_total{kind="ping"}'] >= 1
        assert samples["ringleader_peers_suspected"] == 0
        assert samples["ringleader_failover_seconds_count"] == 0

        nodes[3].stop()  # failover: the survivors measure it
        assert eventually(lambda: nodes[2].is_leader and nodes[1].leader == 2, 20)
        after = {i: _scrape(addresses[i]) for i in (1, 2)}

        def measured() -> list[int]:  # at a node that noticed the loss before the new leader
            counts = {i: _scrape(addresses[i])["ringleader_failover_seconds_count"] for i in (1, 2)}
            return [i for i, count in counts.items() if count >= 1]

        assert eventually(measured, 10)
        (measuring, *_) = measured()
        assert after[2]["ringleader_is_leader"] == 1.0
        assert after[2]["ringleader_epoch"] > samples["ringleader_epoch"]
        assert after[2]["ringleader_elections_total"] >= 1
        failover = _scrape(addresses[measuring])
        assert 0 < failover["ringleader_failover_seconds_sum"] < 10
        assert failover["ringleader_leader_changes_total"] >= 2
    finally:
        for node in nodes.values():
            node.stop()
    assert all(n.metrics_address is None for n in nodes.values())


def test_node_command_serves_metrics(tmp_path: Path) -> None:
    config = _config(tmp_path, [1])
    node = NodeProcess(config, 1, args=["--metrics", "127.0.0.1:0"])
    try:
        listening = node.wait_for(lambda e: e["event"] == "listening")
        host, _, port = listening["metrics"].rpartition(":")
        assert host == "127.0.0.1" and int(port) > 0
        node.wait_for(lambda e: e["event"] == "lease")  # it leads, its lease granted
        samples = _scrape((host, int(port)))
        assert samples["ringleader_is_leader"] == 1.0 and samples["ringleader_epoch"] >= 1
        assert node.stop() == 0
    finally:
        node.kill()


@pytest.mark.parametrize("value", ["nonsense", "127.0.0.1:99999", ":9100", "host:port"])
def test_a_bad_metrics_address_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    config = _config(tmp_path, [1])
    assert main(["node", str(config), "--id", "1", "--metrics", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(r"error: --metrics .*HOST:PORT", err), err


def test_resign_hands_over_to_the_next(tmp_path: Path) -> None:
    config = ringleader.load_config(_config(tmp_path, [1, 2, 3]))
    recorder = Recorder()
    nodes = {
        i: ringleader.Node(config, i, **(recorder.callbacks() if i == 3 else {})) for i in (1, 2, 3)
    }
    try:
        for node in nodes.values():
            node.start()
        assert nodes[3].wait_for_leader(20) == 3
        epoch = nodes[3].epoch
        nodes[3].resign()
        recorder.wait_for(("lost", epoch, "resigned"))
        assert eventually(lambda: any(n.is_leader for i, n in nodes.items() if i != 3), 20)
        assert not nodes[3].is_leader
    finally:
        for node in nodes.values():
            node.stop()


def test_the_configuration_is_the_config_files_until_one_changed_live_is_kept(
    tmp_path: Path,
) -> None:
    path = _config(tmp_path, [1, 2, 3])
    node = ringleader.Node(path, 1)
    assert (node.configuration.version, node.configuration.voters) == (0, {1, 2, 3})
    node.stop()
    # A configuration changed live (version 1: node 4 a learner) kept in the state file
    # outlives the config file's list: the node reports it once started.
    config = ringleader.load_config(path)
    state = StateFile.open(config, 1)
    changed = state.configuration.add(4, "tcp://127.0.0.1:9", epoch=3)
    state.keep(changed)
    state.close()
    with ringleader.Node(path, 1) as node:
        assert node.configuration == changed
        assert node.configuration.describe() == "version 1 (round 3): voters 1,2,3; learners 4"


def test_two_nodes_elect_as_before_and_the_heartbeat_carries_a_newer_configuration(
    tmp_path: Path,
) -> None:
    # Two in-process nodes of one config file: a leader holding its lease, as ever.
    # Node 2's state file keeps version 1 of the configuration (made in round 1, the same
    # voters); the heartbeat and its answer carry it to node 1, which keeps it in its
    # state file before it acknowledges anything in it (docs/design/membership.md).
    path = _config(tmp_path, [1, 2])
    config = ringleader.load_config(path)
    state = StateFile.open(config, 2)
    founding = state.configuration
    newer = Configuration(1, 1, founding.voters, founding.learners, founding.addresses)
    state.keep(newer)
    state.close()
    nodes = {i: ringleader.Node(path, i) for i in (1, 2)}
    try:
        for node in nodes.values():
            node.start()
        leader = nodes[1].wait_for_leader(20)
        assert eventually(lambda: nodes[leader].is_leader, 20)
        assert eventually(lambda: all(n.configuration == newer for n in nodes.values()), 20)
        assert eventually(lambda: nodes[leader].leadership().is_leader, 20)
    finally:
        for node in nodes.values():
            node.stop()
    kept = StateFile.open(config, 1)
    try:
        assert kept.configuration == newer
    finally:
        kept.close()


@pytest.mark.timeout(60)
def test_a_restarted_node_says_the_epoch_it_kept_before_its_first_round(tmp_path: Path) -> None:
    """Alone, its peers down, it starts no round: its epoch, gauge and /readyz said 0,
    though its state file kept the epoch it last saw."""
    config = write_config(tmp_path / "c.toml", FAST + 'state_dir = "kept"\n', [1, 2, 3])
    nodes = [ringleader.Node(config, i).start() for i in (3, 2, 1)]
    try:
        assert nodes[2].wait_for_leader(20) == 3
    finally:
        for node in nodes:
            node.stop()  # (node 3 hands over as it stops: node 1 may see a newer epoch)
    kept = state_path(ringleader.load_config(config), 1)
    epoch = json.loads(kept.read_text(encoding="utf-8"))["epoch"]
    assert epoch > 0
    with ringleader.Node(config, 1, metrics="127.0.0.1:0") as alone:
        assert alone.epoch == epoch and alone.leader is None
        assert alone.status().epoch == epoch  # (ringleader status)
        host, port = alone.metrics_address or ("", 0)
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(f"http://{host}:{port}/readyz", timeout=10)
        assert f"(epoch {epoch})" in answer.value.read().decode()
