"""Helpers for tests that run ``ringleader node`` processes and read their JSON lines."""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import eventually

Event = dict[str, Any]


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (32768 on Linux by default)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports (held open together while choosing), below
    the ephemeral range: the kernel hands a port of that range to any connect() on the
    machine as its source port, so a port bind(0) gave may be taken by the time the node
    binds it (and the node then exits: "cannot bind … Address already in use")."""
    rng = random.Random()  # (each process its own sequence: two suites pick apart)
    low = _ephemeral_low()
    probes: list[socket.socket] = []
    try:
        while len(probes) < count:
            probe = socket.socket()
            try:
                probe.bind(("127.0.0.1", rng.randrange(max(1024, low - 12000), low)))
            except OSError:  # held by another program: try another
                probe.close()
                continue
            probes.append(probe)
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
    """One ``ringleader node CONFIG --id N --json`` process; its events in a queue.

    With a ``prefix`` (``faketime``, which forks its command), the process leads a
    session of its own, and signals go to the whole group: killing the wrapper alone
    would leave the node running.
    """

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
            start_new_session=bool(prefix),
        )
        self._group = bool(prefix)
        self.stderr = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._err_reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        try:
            for line in self.process.stdout:
                try:
                    self._queue.put(json.loads(line))
                except ValueError:
                    self._queue.put({"event": "unparsable", "line": line})
        except (ValueError, OSError):  # closed under it: the process is gone anyway
            pass
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

    def signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the process (and, with a prefix, to its group)."""
        if self._group:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
        elif self.process.poll() is None:
            self.process.send_signal(sig)

    def kill(self) -> None:
        if self.process.poll() is None or self._group:
            self.signal(signal.SIGKILL)
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
            self.signal(signal.SIGTERM)
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
        told = "".join(f"\nnode {i}'s last events: {nodes[i].events[-8:]}" for i in live)
        raise AssertionError(f"no agreement on {leader} within {timeout} s: {views}{told}")
    return view[1]


def descendants_of(pid: int) -> list[int]:
    """Live (not zombie) processes under ``pid``: its children, theirs, and so on."""
    found = []
    frontier = [pid]
    while frontier:
        children = [c for parent in frontier for c in children_of(parent)]
        found += children
        frontier = children
    return found


def leading_intervals(
    process: NodeProcess, end: float, *, lease: bool = True
) -> list[tuple[float, float]]:
    """When ``process`` reported ``is_leader``.  With a lease: from each ``lease`` line
    (its ``mono`` read before the lease was published) to the next ``lost`` line (when
    the leadership ended: its lease's end, if that came first): the "leadership interval"
    of docs/design/lease.md; without, from a ``leader`` line that says it leads to the next change.
    One still open ends at ``end`` (when the process was killed, or now)."""
    intervals: list[tuple[float, float]] = []
    since: float | None = None
    for event in process.drain():
        kind = event["event"]
        starts = kind == "lease" if lease else (kind == "leader" and event.get("state") == "leader")
        if starts:
            if since is None:
                since = event["mono"]
        elif since is not None and (
            kind in ("lost", "stopped") or (kind == "leader" and not lease)
        ):
            intervals.append((since, event["mono"]))
            since = None
    if since is not None:
        intervals.append((since, end))
    return intervals


def overlaps(spans: list[tuple[int, float, float]]) -> list[tuple[int, int, float]]:
    """Pairs of ``(node, start, end)`` spans of different nodes that overlap, with how
    long they overlap: two processes that reported ``is_leader`` at one instant."""
    found = []
    spans = sorted(spans, key=lambda s: s[1])
    for i, (a, _, end_a) in enumerate(spans):
        for b, start_b, end_b in spans[i + 1 :]:
            if start_b >= end_a:
                break
            if a != b:
                found.append((a, b, min(end_a, end_b) - start_b))
    return found


def holds_lease(process: NodeProcess) -> bool:
    """Whether ``process`` is running and its lines say it holds a lease now."""
    if process.process.poll() is not None:
        return False
    intervals = leading_intervals(process, math.inf)
    return bool(intervals) and intervals[-1][1] == math.inf


def reported_epoch(processes: Iterable[NodeProcess]) -> int:
    """The highest epoch any line of any of ``processes`` reported."""
    return max((e.get("epoch", 0) or 0 for p in processes for e in p.drain()), default=0)


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


def intervals(events: list[Event]) -> list[tuple[float, float, int]]:
    """A process's leadership intervals (see the module's docstring): (begin, end, epoch)."""
    spans, begun = [], None
    for event in events:
        if event["event"] == "lease":
            begun = (event["mono"], event["epoch"])
        elif event["event"] == "lost" and begun is not None:
            spans.append((begun[0], event["mono"], begun[1]))
            begun = None
    if begun is not None:
        spans.append((begun[0], float("inf"), begun[1]))
    return spans


def check_disjoint(spans: dict[int, list[tuple[float, float, int]]]) -> None:
    """No two of these leadership intervals overlap."""
    every = sorted((b, e, epoch, node) for node, s in spans.items() for b, e, epoch in s)
    last = (float("-inf"), 0, 0)  # the latest end so far, its epoch and node
    for begin, end, epoch, node in every:
        assert last[0] <= begin, (
            f"nodes {last[2]} (epoch {last[1]}) and {node} (epoch {epoch}) led at once: {spans}"
        )
        last = max(last, (end, epoch, node))
