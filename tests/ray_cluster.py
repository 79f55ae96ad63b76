"""A Ray cluster of two CPUs on this machine, on loopback only, for the tests and the
benchmark of ``ringleader explore --ray`` (``tests/system/test_explore_ray.py``,
``benchmarks/explore_ray.py``).

It is started as a user starts one, ``ray start --head``, with its own temporary
directory and free ports — on loopback only: Ray turns ``--node-ip-address=127.0.0.1``
into this machine's address unless told that it is a cluster of one machine
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, Ray's own switch for that) — and with a token of
its own (``RAY_AUTH_MODE=token``: a token file of another cluster in ``~/.ray`` would
shut the client out).  It is stopped by killing its process group (``ray stop`` would
stop every Ray cluster of this machine), and nothing of it is left, however it ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import eventually
from tests.nodes import free_ports

__all__ = ["RAY", "RayClusterFailed", "local_ray_cluster"]

#: The ``ray`` command of this Python's environment (``pip install -e '.[test]'``).
RAY = Path(sys.executable).with_name("ray")


class RayClusterFailed(RuntimeError):
    """The cluster did not start, or left processes behind: what its log said."""


def free_port() -> int:
    return free_ports(1)[0]


def session(sid: int) -> set[int]:
    """The live processes of session ``sid`` (zombies are gone)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[3]) == sid and stat[0] != "Z":
                found.add(int(entry.name))
    return found


@contextlib.contextmanager
def local_ray_cluster(cpus: int = 2) -> Iterator[tuple[str, dict[str, str]]]:
    """A Ray cluster of ``cpus`` CPUs on loopback: its address, and the environment a
    command needs to join it; killed on the way out, with every process of it."""
    if not RAY.exists():
        raise RayClusterFailed("Ray is not installed: pip install -e '.[test]' installs it")
    temp = Path(tempfile.mkdtemp(prefix="rl-ray-", dir="/tmp"))  # short: socket paths
    token = temp / "token"
    token.write_text(os.urandom(16).hex())
    env = {
        **os.environ,
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # a cluster of one machine: loopback
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN_PATH": str(token),
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    port = free_port()
    with (temp / "head.log").open("w") as log:
        head = subprocess.Popen(
            [
                str(RAY),
                "start",
                "--head",
                f"--port={port}",
                f"--num-cpus={cpus}",
                "--node-ip-address=127.0.0.1",
                "--include-dashboard=false",
                f"--dashboard-port={free_port()}",
                f"--dashboard-agent-listen-port={free_port()}",
                f"--temp-dir={temp}",
                "--object-store-memory=100000000",
                "--disable-usage-stats",
                "--block",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped as one
        )
    try:
        head_log = temp / "head.log"
        eventually(lambda: head.poll() is not None or "--block" in head_log.read_text(), 120)
        said = head_log.read_text()
        if head.poll() is not None or "--block" not in said:
            raise RayClusterFailed(f"the Ray cluster did not start:\n{said}")
        yield f"127.0.0.1:{port}", env
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(head.pid, signal.SIGKILL)
        head.wait(30)
        eventually(lambda: not session(head.pid), 30)
        left = session(head.pid)
        shutil.rmtree(temp, ignore_errors=True)
        if left:
            raise RayClusterFailed(f"Ray processes left running: {sorted(left)}")
