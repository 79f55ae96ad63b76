"""Helpers for tests that run ``ringleader node`` processes and read their JSON lines."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import eventually

Event = dict[str, Any]


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports (held open together while choosing)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [int(p.getsockname()[1]) for p in probes]
    finally:
        for probe in probes:
            probe.close()


def write_config(path: Path, body: str, ids: Sequence[int], host: str = "127.0.0.1") -> Path:
    """``body`` (topology, …) plus one ``[[nodes]]`` table per id at a free tcp port."""
    ports = free_ports(len(ids))
    tables = "".join(
        f'\n[[nodes]]\nid = {i}\naddress = "tcp://{host}:{port}"\n'
        for i, port in zip(ids, ports, strict=True)
    )
    path.write_text(body + tables, encoding="utf-8")
    return path


class NodeProcess:
    """One ``ringleader node CONFIG --id N --json`` process; its events in a queue."""

    def __init__(
        self,
        config: Path,
        node: int,
        *,
        env: dict[str, str] | None = None,
        prefix: Sequence[str] = (),
        args: Sequence[str] = (),
    ) -> None:
        self.node = node
        self.events: list[Event] = []
        self._queue: queue.SimpleQueue[Event | None] = queue.SimpleQueue()
        command = [*prefix, sys.executable, "-m", "ringleader", "node", str(config)]
        command += ["--id", str(node), "--json", *args]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.stderr = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._err_reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                self._queue.put(json.loads(line))
            except ValueError:
                self._queue.put({"event": "unparsable", "line": line})
        self._queue.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def wait_for(self, match: Callable[[Event], bool], timeout: float = 20.0) -> Event:
        """The first event (already seen or to come) that ``match`` accepts."""
        for event in self.events:
            if match(event):
                return event
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"node {self.node}: no matching event in {timeout} s")
            try:
                event = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if event is None:
                self._queue.put(None)
                raise AssertionError(
                    f"node {self.node} exited ({self.process.poll()}): {self.stderr[-2000:]}"
                )
            self.events.append(event)
            if match(event):
                return event

    def drain(self) -> list[Event]:
        """Every event so far, without waiting."""
        while True:
            try:
                event = self._queue.get_nowait()
            except queue.Empty:
                return self.events
            if event is None:
                self._queue.put(None)
                return self.events
            self.events.append(event)

    def leader(self) -> tuple[int | None, int] | None:
        """(leader, epoch) from this node's latest ``leader`` event, if any."""
        leaders = [e for e in self.drain() if e["event"] == "leader"]
        return (leaders[-1]["leader"], leaders[-1]["epoch"]) if leaders else None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._close()

    def _close(self) -> None:
        self._reader.join(5)
        self._err_reader.join(5)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()

    def stop(self) -> int:
        """SIGTERM, and the exit status (killed if it takes more than 10 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        finally:
            self._close()


@contextmanager
def running(config: Path, ids: Sequence[int], **kw: Any) -> Iterator[dict[int, NodeProcess]]:
    """Start a node process per id, the highest first, each once the one before listens;
    kill every one of them afterwards, whatever happens.

    Leadership is sticky (docs/steady-leader.md): the first leader stays when a higher
    node comes later.  Up first, the highest node takes part in the first election, and
    Bully (as every algorithm here) elects it.
    """
    nodes: dict[int, NodeProcess] = {}
    try:
        for node in sorted(ids, reverse=True):
            nodes[node] = NodeProcess(config, node, **kw)
            nodes[node].wait_for(lambda e: e["event"] in ("listening", "stopped"), 60.0)
        nodes = dict(sorted(nodes.items()))
        yield nodes
    finally:
        for process in nodes.values():
            process.kill()


def wait_agreement(
    nodes: dict[int, NodeProcess], live: Sequence[int], leader: int, timeout: float = 20.0
) -> int:
    """Wait until every node of ``live`` names ``leader`` in one epoch; return the epoch."""

    def agreed() -> tuple[int | None, int] | None:
        views = {nodes[i].leader() for i in live}
        view = views.pop() if len(views) == 1 else None
        return view if view is not None and view[0] == leader else None

    view = eventually(agreed, timeout)
    if view is None:
        views = {i: nodes[i].leader() for i in live}
        raise AssertionError(f"no agreement on {leader} within {timeout} s: {views}")
    return view[1]


def children_of(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found
