"""``ringleader node`` processes and their state (issue 19): what the ``listening`` line
says of it, one line and exit 2 for a state file that cannot be used, a wall clock stepped
back (``faketime``) and a node whose config lists another member list."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ringleader.service import describe, state_path
from ringleader.topologies import load_config
from tests.conftest import let_pass
from tests.nodes import (
    NodeProcess,
    free_ports,
    holds_lease,
    leading_intervals,
    overlaps,
    running,
    wait_agreement,
    write_config,
)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process tests use Linux")

BODY = 'topology = "full_mesh"\nalgorithm = "bully"\ntransport = "tcp"\n'


def _node(config: Path, node: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``ringleader node`` that is expected to stop by itself (an error)."""
    return subprocess.run(
        [sys.executable, "-m", "ringleader", "node", str(config), "--id", str(node), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _listening(config: Path, node: int, *args: str) -> dict[str, object]:
    """Start node ``node``, read its ``listening`` line, stop it (SIGTERM: exit 0)."""
    process = NodeProcess(config, node, args=args)
    try:
        line = process.wait_for(lambda e: e["event"] == "listening")
    finally:
        assert process.stop() == 0, process.stderr
    return line


def _error_line(result: subprocess.CompletedProcess[str], path: Path) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    assert lines[0].startswith(f"ringleader node: error: {path}: "), lines[0]
    return lines[0]


@pytest.mark.timeout(120)
def test_a_state_file_that_cannot_be_used_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", BODY, [1, 2, 3])
    path = state_path(load_config(config), 1)
    first = _listening(config, 1)
    assert (first["state"], first["state_file"], first["epoch_floor"]) == ("new", str(path), 0)
    again = _listening(config, 1)
    assert again["state"] == "restored" and again["incarnation"] == first["incarnation"] + 1  # type: ignore[operator]

    path.write_text("{ not json")
    assert "corrupt" in _error_line(_node(config, 1), path)
    assert path.read_text() == "{ not json"  # never a silent reset

    path.unlink()
    line = _error_line(_node(config, 1), path)
    assert "missing" in line and "--fresh-state" in line

    fresh = _listening(config, 1, "--fresh-state")
    assert fresh["state"] == "fresh"

    (path.parent / "state.json.tmp").mkdir()  # root writes anywhere: block the write
    assert "cannot write it" in _error_line(_node(config, 1), path)
    shutil.rmtree(path.parent / "state.json.tmp")

    held = NodeProcess(config, 1)  # the same node twice on one machine
    try:
        held.wait_for(lambda e: e["event"] == "listening")
        assert "in use by another process" in _error_line(_node(config, 1), path)
    finally:
        held.kill()

    usage = _node(config, 1, "--supervised", "--fresh-state")
    assert usage.returncode == 2 and "--fresh-state" in usage.stderr


def test_the_listening_line_says_how_the_state_began() -> None:
    line = {"event": "listening", "node": 2, "t": 1.0, "address": "tcp://h:1", "incarnation": 7}
    assert "first start here" in describe({**line, "state": "new", "state_file": "/s"})
    restored = describe({**line, "state": "restored", "state_file": "/s", "epoch_floor": 9})
    assert "state restored from /s: epochs above 9" in restored
    assert "started over" in describe({**line, "state": "fresh", "state_file": "/s"})
    assert describe(line).endswith("(incarnation 7)")  # a supervised node keeps none
    failed = describe({"event": "failed", "node": 2, "t": 1.0, "reason": "/s: corrupt"})
    assert "cannot keep its state: /s: corrupt" in failed


def _faketime() -> list[str]:
    found = shutil.which("faketime")
    if found is None:
        pytest.skip("faketime is not installed (apt-get install -y faketime, as root)")
    return [found, "-f", "-1h"]


@pytest.mark.timeout(120)
def test_a_node_restarted_with_its_wall_clock_an_hour_behind_is_its_newest_life(
    tmp_path: Path,
) -> None:
    prefix = _faketime()
    config = write_config(tmp_path / "c.toml", BODY, [1, 2, 3])
    with running(config, [1, 2, 3]) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        old = nodes[1].events[0]["incarnation"]
        nodes[1].kill()
        # The wall clock an hour behind; the monotonic clock (the lease's) untouched.
        nodes[1] = NodeProcess(config, 1, prefix=prefix, env={"DONT_FAKE_MONOTONIC": "1"})
        listening = nodes[1].wait_for(lambda e: e["event"] == "listening")
        assert listening["t"] < time.time() - 3000  # the fake clock is in effect
        assert listening["incarnation"] == old + 1
        wait_agreement(nodes, [1, 2, 3], 3)
        let_pass(1.0)  # three suspect_after: a window for a second leader to show
        assert [n for n in (1, 2, 3) if holds_lease(nodes[n])] == [3]
        for peer in (2, 3):
            stale = [
                e
                for e in nodes[peer].drain()
                if e["event"] == "rejected_frame" and e["reason"] == "stale_incarnation"
            ]
            assert stale == [], stale


@pytest.mark.timeout(120)
def test_a_node_with_a_wrong_member_list_never_leads_beside_the_cluster(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path / "c.toml", BODY, [1, 2, 3])
    # Node 1's config lists a fourth node (nobody runs it): a cluster of its own.
    text = config.read_text(encoding="utf-8")
    wrong = tmp_path / "wrong.toml"
    port = free_ports(1)[0]
    wrong.write_text(f'{text}\n[[nodes]]\nid = 4\naddress = "tcp://127.0.0.1:{port}"\n')
    nodes = {}
    try:
        nodes[1] = NodeProcess(wrong, 1)
        for node in (2, 3):
            nodes[node] = NodeProcess(config, node)
        wait_agreement(nodes, [2, 3], 3)
        let_pass(3.0)  # ten suspect_after: node 1 has every chance to lead by itself
        assert [n for n in (1, 2, 3) if holds_lease(nodes[n])] == [3]
        end = time.monotonic()
        spans = [(n, a, b) for n, p in nodes.items() for a, b in leading_intervals(p, end)]
        assert overlaps(spans) == []
        assert not leading_intervals(nodes[1], end)  # no lease, ever
    finally:
        for process in nodes.values():
            process.kill()


def test_state_dir_in_the_config_is_where_the_state_goes(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", BODY + 'state_dir = "kept"\ncluster = "svc"\n', [1])
    line = _listening(config, 1)
    assert line["state_file"] == str(tmp_path / "kept" / "svc" / "node-1" / "state.json")
    data = json.loads(Path(str(line["state_file"])).read_text())
    assert data["incarnation"] == line["incarnation"]
    assert not any(Path(os.environ["XDG_STATE_HOME"]).iterdir())


def test_a_teaching_run_in_processes_keeps_no_state(tmp_path: Path) -> None:
    ports = free_ports(3)
    body = (
        BODY
        + 'mode = "processes"\n'
        + "".join(
            f'[[nodes]]\nid = {i}\naddress = "tcp://127.0.0.1:{p}"\n'
            for i, p in zip((1, 2, 3), ports, strict=True)
        )
    )
    (tmp_path / "c.toml").write_text(body)
    result = subprocess.run(
        [sys.executable, "-m", "ringleader", "run", str(tmp_path / "c.toml"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["leader"] == 3 and report["epoch"] == 1  # the notes' first election
    assert not any(Path(os.environ["XDG_STATE_HOME"]).iterdir())
