"""``mode = "processes"``: every node in an OS process of its own.

Each node is a ``ringleader node CONFIG --id N --supervised`` child.  The parent talks to
it through its stdin (``boot``, ``start``, ``status``) and reads its ``--json`` event
lines on stdout, one reader thread per child.  A crash is ``SIGKILL``; a restart is a new
process at the same address, with a new incarnation (counted here, from 1 per node).

No child outlives the run: the cluster kills every child it started when it closes
(also after an error, Ctrl-C or a test's timeout), each child exits when its stdin
closes, and the kernel kills each with ``SIGKILL`` when the thread that started it ends
(``PR_SET_PDEATHSIG``, Linux), which covers a parent killed with ``SIGKILL`` itself.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import IO

from ringleader.actors import merge_parts, read_trace
from ringleader.actors.faults import Partition
from ringleader.actors.host import NodeEvent, NodeStatus, leave_signals_to_main
from ringleader.errors import TransportError
from ringleader.service import BOOT, START, STATUS, command_line, node_event, status_from_dict
from ringleader.topologies import Config, secret_env
from ringleader.transport import Deadline

from ._cluster import SetUpOnEnter

__all__ = ["ProcessCluster"]

log = logging.getLogger(__name__)

_STOP_WAIT = 5.0  # s a child may take to stop cleanly before it is killed


def _free_tcp_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Child:
    """One node process and the thread that reads what it prints."""

    def __init__(
        self, node: int, args: list[str], env: dict[str, str], sink: Callable[[NodeEvent], None]
    ) -> None:
        self.node = node
        self.incarnation = 0
        self.listening = threading.Event()
        self.ready = threading.Event()
        self.statuses: queue.SimpleQueue[NodeStatus] = queue.SimpleQueue()
        self._sink = sink
        self._stdin_lock = threading.Lock()
        self.process = subprocess.Popen(  # noqa: S603 -- our own interpreter and arguments
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
            bufsize=1,
        )
        self._reader = threading.Thread(
            target=self._read, name=f"ringleader-node-{node}-reader", daemon=True
        )
        self._reader.start()

    def _read(self) -> None:
        leave_signals_to_main()
        stdout: IO[str] | None = self.process.stdout
        assert stdout is not None
        for line in stdout:
            try:
                self._handle(line)
            except Exception:  # noqa: BLE001 -- keep reading, or the child blocks on its pipe
                log.warning("node %s printed something unexpected: %r", self.node, line[:200])

    def _handle(self, line: str) -> None:
        data = json.loads(line)
        event = data["event"]
        if event == "listening":
            self.incarnation = data["incarnation"]
            self.listening.set()
        elif event == "ready":
            self.ready.set()
        elif event == STATUS:
            self.statuses.put(status_from_dict(data))
        elif event != "stopped":
            self._sink(node_event(data))

    def command(self, text: str) -> bool:
        """Send one command line; ``False`` if the child is gone."""
        stdin = self.process.stdin
        try:
            with self._stdin_lock:
                assert stdin is not None
                stdin.write(text + "\n")
                stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            return False
        return True

    def status(self, timeout: float) -> NodeStatus | None:
        while not self.statuses.empty():  # an answer to an earlier, abandoned question
            self.statuses.get_nowait()
        if not self.command(command_line(STATUS)):
            return None
        try:
            return self.statuses.get(timeout=timeout)
        except queue.Empty:
            return None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self._close_pipes()

    def stop(self) -> None:
        """Close stdin (the child stops cleanly) and wait; kill it if it does not stop."""
        stdin = self.process.stdin
        with self._stdin_lock:
            try:
                if stdin is not None:
                    stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(_STOP_WAIT)
        except subprocess.TimeoutExpired:
            log.warning("node %s did not stop within %g s: killed", self.node, _STOP_WAIT)
        self.kill()

    def _close_pipes(self) -> None:
        self._reader.join(2.0)
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass


class ProcessCluster(SetUpOnEnter):
    """Every node of ``config`` as a ``ringleader node`` process; see the module docs.

    Implements what :class:`~ringleader.cluster._supervisor.SupervisorActor` drives, like
    :class:`~ringleader.LocalCluster`.  Nodes without an address in the config get one
    here: a socket file in a private directory (``ipc``) or a free loopback port (``tcp``).
    """

    def __init__(
        self,
        config: Config,
        *,
        events: Callable[[NodeEvent], None],
        trace: str | os.PathLike[str] | None = None,
        trace_heartbeats: bool = False,
    ) -> None:
        self.config = config
        self._sink = events
        #: With ``trace``: each child writes its part, and the parts are merged into
        #: ``trace`` when the cluster closes; crashes and restarts are recorded here.
        self._trace = None if trace is None else Path(trace)
        self._trace_heartbeats = trace_heartbeats
        self._parts: list[Path] = []
        # Each child's trace part, and how much of it its last status covered: the report
        # counts what the nodes said then, and the trace stops there too (the children
        # stop one after another; one still running may see a stopped one's connection
        # refused and start a round that no report counts).
        self._part_of: dict[int, Path] = {}
        self._covered: dict[Path, int] = {}
        self._faults: list[dict[str, object]] = []
        self._network_events: list[dict[str, object]] = []  # partitions: added if in time
        self._children: dict[int, _Child] = {}
        self._incarnations: dict[int, int] = {}
        self._lives: dict[int, int] = {}  # node → the processes started for it
        self._lock = threading.Lock()
        self._tmpdir = Path(tempfile.mkdtemp(prefix="ringleader-processes-"))
        self._env = dict(os.environ)
        self._env.setdefault("PYTHONUNBUFFERED", "1")
        self.setup_s = 0.0
        self.addresses: dict[int, str] = {}
        self._config_path = self._tmpdir / "cluster.toml"
        self._deadline = Deadline(config.timeout)

    # -- lifecycle ------------------------------------------------------------------

    def _set_up(self) -> None:
        began = time.monotonic()
        config = self.config
        nodes = tuple(
            spec
            if spec.address is not None and not spec.address.endswith(":*")
            else replace(spec, address=self._address(spec.id))
            for spec in config.nodes
        )
        self.config = config = config.replace(nodes=nodes)
        self.addresses = config.addresses
        self._config_path.write_text(config.to_toml(), encoding="utf-8")
        self._env.update(secret_env(config))
        for spec in config.nodes:
            self._spawn(spec.id, fresh=True)
        self._wait_all("listening", lambda child: child.listening)
        for child in self._children.values():
            child.command(command_line(BOOT, self._deadline.left()))
        self._trace_network(time.time())
        self._wait_all("ready", lambda child: child.ready)
        self.setup_s = time.monotonic() - began

    def _trace_network(self, began: float) -> None:
        """Partitions in the trace: when the network splits and heals (each node counts
        the entries' times from its own boot, within milliseconds of ``began``)."""
        first = min(spec.id for spec in self.config.nodes)
        for entry in self.config.network:
            if isinstance(entry, Partition):
                groups = [sorted(g) for g in entry.groups]
                event = {"event": "partition", "node": first, "groups": groups}
                self._network_events.append({**event, "t": began + entry.start})
                if entry.end != float("inf"):
                    self._network_events.append({**event, "event": "heal", "t": began + entry.end})

    def _address(self, node: int) -> str:
        if self.config.transport == "ipc":
            return f"ipc://{self._tmpdir}/node-{node}.sock"
        return f"tcp://127.0.0.1:{_free_tcp_port()}"

    def _spawn(self, node: int, *, fresh: bool) -> _Child:
        life = self._lives[node] = self._lives.get(node, 0) + 1
        args = [sys.executable, "-m", "ringleader", "node", str(self._config_path)]
        args += ["--id", str(node), "--json", "--supervised", "--incarnation", str(life)]
        if fresh:
            args.append("--fresh")
        if self._trace is not None:
            part = self._tmpdir / f"trace-{node}-{len(self._parts)}.jsonl"
            self._parts.append(part)
            args += ["--trace", str(part)]
            if self._trace_heartbeats:
                args.append("--trace-heartbeats")
        child = _Child(node, args, self._env, self._sink)
        if self._trace is not None:
            self._part_of[id(child)] = self._parts[-1]
        with self._lock:
            self._children[node] = child
        return child

    def _wait_all(self, what: str, flag: Callable[[_Child], threading.Event]) -> None:
        for child in list(self._children.values()):
            self._wait(child, what, flag(child), self._deadline)

    def _wait(self, child: _Child, what: str, flag: threading.Event, deadline: Deadline) -> None:
        while not flag.wait(0.05):
            if child.process.poll() is not None:
                raise TransportError(
                    f"node {child.node}'s process exited (status {child.process.returncode}) "
                    f"before it was {what}; its error is on stderr above"
                )
            if deadline.expired():
                raise TransportError(
                    f"node {child.node}'s process was not {what} within the "
                    f"{self.config.timeout:g} s timeout"
                )
        self._incarnations[child.node] = child.incarnation

    def close(self) -> None:
        """Stop every child (killing any that will not stop); safe to call twice."""
        with self._lock:
            children = list(self._children.values())
            self._children.clear()
        for child in children:  # all at once: each stops on its own
            stdin = child.process.stdin
            try:
                if stdin is not None:
                    stdin.close()
            except OSError:
                pass
        for child in children:
            child.stop()
        try:
            if self._trace is not None:
                self._merge_trace(self._trace)
        finally:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def _merge_trace(self, path: Path) -> None:
        """The children's parts (and the crashes and restarts) as one trace."""
        parts: list[list[dict[str, object]]] = [self._faults]
        for part in self._parts:
            if part.exists():
                text = part.read_bytes()
                if part in self._covered:  # up to the last whole line its status covered
                    text = text[: text.rfind(b"\n", 0, self._covered[part]) + 1]
                lines = text.decode("utf-8").splitlines(keepends=True)
                parts.append(list(read_trace(lines, source=str(part))))
        end = max((float(e["t"]) for part in parts[1:] for e in part), default=0.0)  # type: ignore[arg-type]
        parts.append([e for e in self._network_events if float(e["t"]) <= end])  # type: ignore[arg-type]
        with path.open("w", encoding="utf-8") as out:
            merge_parts(parts, out)

    # -- what the supervisor drives ---------------------------------------------------

    @property
    def live(self) -> list[int]:
        with self._lock:
            return list(self._children)

    def incarnation(self, node: int) -> int:
        return self._incarnations[node]

    def start_initiators(self) -> None:
        for node in self.config.initiators:
            self._children[node].command(command_line(START))

    def crash(self, node: int) -> NodeStatus | None:
        """``SIGKILL`` node ``node``; return its status just before (``None`` if it did
        not answer in time)."""
        with self._lock:
            child = self._children.pop(node)
        status = child.status(timeout=1.0)  # its trace is written when it answers
        child.kill()
        self._faults.append({"event": "crash", "t": time.time(), "node": node})
        return status

    def restart(self, node: int) -> None:
        """A new process for ``node`` at its address: a new incarnation that knows nothing."""
        if node in self._children:
            raise TransportError(f"node {node} is running")
        self._faults.append({"event": "restart", "t": time.time(), "node": node})
        child = self._spawn(node, fresh=False)
        self._wait(child, "listening", child.listening, Deadline(self.config.timeout))
        child.command(command_line(BOOT, 0.3))

    def statuses(self) -> list[NodeStatus]:
        with self._lock:
            children = list(self._children.values())
        for child in children:  # ask all, then collect: one round trip in all
            while not child.statuses.empty():
                child.statuses.get_nowait()
            child.command(command_line(STATUS))
        found = []
        for child in children:
            try:
                found.append(child.statuses.get(timeout=max(1.0, self._deadline.left())))
            except queue.Empty:
                raise TransportError(f"node {child.node} did not report its status") from None
            part = self._part_of.get(id(child))
            if part is not None and part.exists():  # written up to its answer
                self._covered[part] = part.stat().st_size
        return found
