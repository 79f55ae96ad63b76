"""``ringleader watch`` and ``ringleader.Observer`` against whole processes (issue 32,
item 2): the first leader, a failover after the leader is killed, the answer with one
node down (quick and right, where ``ringleader status`` waits its whole timeout and names
no leader), and the command's lines and its end on Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ringleader
from ringleader.service import ask_status, status_summary
from ringleader.topologies import SECRET_ENV
from tests.nodes import descendants_of, running, wait_agreement, write_config

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process tests use Linux /proc")

SECRET = "9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9"
MESH = 'topology = "full_mesh"\nalgorithm = "bully"\n'
#: The longest a failover may take to be seen, from the kill (the cluster's own failover
#: is tens of milliseconds; this is for a loaded machine).
FAILOVER_BOUND = 10.0


def watch(config: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ringleader", "watch", str(config), "--json", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, SECRET_ENV: SECRET},
    )


def test_the_observer_follows_a_failover_and_answers_with_a_node_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    path = write_config(tmp_path / "mesh.toml", MESH, [1, 2, 3])
    config = ringleader.load_config(path)
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        with ringleader.Observer(config) as observer:
            first = observer.wait(10)
            assert first is not None and (first.leader, first.lease) == (3, "held"), first
            changes = observer.changes(timeout=FAILOVER_BOUND)
            assert next(changes).leader == 3
            killed = time.monotonic()
            nodes[3].kill()
            seen = [c for c in changes if _led_by(c, 2) or c.leader == 3]
            failover = [c for c in seen if _led_by(c, 2)]
            assert failover, f"no failover seen within {FAILOVER_BOUND} s: {seen}"
            assert failover[0].mono - killed < FAILOVER_BOUND
            assert failover[0].epoch > first.epoch
            assert all(c.leader == 3 for c in seen[: seen.index(failover[0])])

        # A new observer with node 3 down: the right answer at once.
        started = time.monotonic()
        with ringleader.Observer(config) as late:
            answer = late.wait(10)
            took = time.monotonic() - started
        assert answer is not None and _led_by(answer, 2), answer
        assert 2 in answer.heard and 3 not in answer.heard  # at once: the leader answered
        assert took < 1.0, f"{took:.3f} s"
        # ringleader status, meanwhile, waits its whole timeout and agrees on nobody.
        started = time.monotonic()
        summary = status_summary(config, ask_status(config, timeout=1.0))
        assert time.monotonic() - started >= 1.0
        assert summary["leader"] is None

        once = subprocess.run(
            [sys.executable, "-m", "ringleader", "watch", str(path), "--once", "--json"],
            capture_output=True,
            text=True,
            env={**os.environ, SECRET_ENV: SECRET},
            timeout=60,
            check=False,
        )
        assert once.returncode == 0, once.stderr
        (line,) = once.stdout.splitlines()
        data = json.loads(line)
        assert (data["leader"], data["lease"]) == (2, "held")
        assert 2 in data["heard"] and 3 not in data["heard"]


def test_watch_prints_a_line_per_change_and_ends_on_ctrl_c(tmp_path: Path) -> None:
    path = write_config(tmp_path / "mesh.toml", MESH, [1, 2, 3])
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        watcher = watch(path)
        try:
            assert watcher.stdout is not None
            first = json.loads(watcher.stdout.readline())
            assert (first["event"], first["leader"], first["lease"]) == ("watch", 3, "held")
            assert 3 in first["heard"]  # the first line as soon as the leader answered
            nodes[3].kill()
            for raw in watcher.stdout:  # until the failover: each line one whole state
                line = json.loads(raw)
                assert set(line) == {"event", "leader", "epoch", "lease", "heard", "t", "mono"}
                if line["leader"] == 2 and line["lease"] == "held":
                    break
            watcher.send_signal(signal.SIGINT)
            assert watcher.wait(10) == 130
            assert descendants_of(watcher.pid) == []
            assert watcher.stderr is not None
            assert watcher.stderr.read().strip().endswith("ringleader watch: interrupted")
        finally:
            if watcher.poll() is None:
                watcher.kill()
                watcher.wait(10)
            for pipe in (watcher.stdout, watcher.stderr):
                if pipe is not None:
                    pipe.close()


def _led_by(seen: ringleader.Watched, node: int) -> bool:
    return seen.leader == node and seen.held
