"""``mode = "processes"``: every node in an OS process of its own.

Each node runs what ``ringleader node CONFIG --id N --json --supervised`` runs, in a
process forked by a launcher (:mod:`ringleader.service._launcher`) that imported
everything a node needs and read the config once: fifty nodes start in a fraction of the
time fifty interpreters would take.  The parent talks to each through its stdin
(``boot``, ``start``, ``status``) and reads its ``--json`` event lines on stdout, one
reader thread per child.  A crash is ``SIGKILL``; a restart is a new process at the same
address, with a new incarnation (counted here, from 1 per node).

On tcp, a node without a fixed address binds any free port itself and says which in its
``listening`` line; the parent hands every node everyone's address with ``boot``, before
any link is made.  So no port is ever handed out twice, nor taken by another program
between being chosen and being bound.

No child outlives the run: the cluster kills every child it started when it closes
(also after an error, Ctrl-C or a test's timeout), each child exits when its stdin
closes, and the kernel kills each with ``SIGKILL`` when the launcher dies, and the
launcher when the thread that started it ends (``PR_SET_PDEATHSIG``, Linux), which
covers a parent killed with ``SIGKILL`` itself.
"""

from __future__ import annotations

import contextlib
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
from typing import IO, Any

from ringleader.actors import SafetyChecker, merge_parts, read_trace
from ringleader.actors.faults import Partition
from ringleader.actors.host import NodeEvent, NodeStatus, leave_signals_to_main
from ringleader.errors import SetupError, TransportError
from ringleader.service import (
    BOOT,
    START,
    STATUS,
    command_line,
    link_line,
    node_event,
    status_from_dict,
)
from ringleader.topologies import Config, secret_env
from ringleader.transport import Deadline

from ._cluster import SetUpOnEnter

__all__ = ["ProcessCluster"]

log = logging.getLogger(__name__)

_STOP_WAIT = 5.0  # s a child may take to stop cleanly before it is killed
_ANY_PORT = "tcp://127.0.0.1:*"  # a node without an address binds a free port itself
_IN_FLIGHT = 32  # spawn requests sent before the launcher says it forked them
_LAUNCHER = "ringleader.service._launcher"  # the module that forks the node processes


class _Launcher:
    """The launcher process (see :mod:`ringleader.service._launcher`) and this end of its
    protocol: spawn requests and kills out, forks and exits back."""

    def __init__(
        self,
        config_path: Path,
        env: dict[str, str],
        on_exit: Callable[[int, int, str | None], None],
        on_gone: Callable[[], None],
    ) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._requests = ours
        self._on_exit = on_exit
        self._on_gone = on_gone
        self._slots = threading.BoundedSemaphore(_IN_FLIGHT)
        self._lock = threading.Lock()
        self.failure: str | None = None
        self.gone = threading.Event()
        try:
            self.process = subprocess.Popen(  # noqa: S603 -- our own interpreter and module
                [
                    sys.executable,
                    "-P",  # the installed ringleader, never one in the working directory
                    "-m",
                    _LAUNCHER,
                    str(config_path),
                    str(theirs.fileno()),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                pass_fds=(theirs.fileno(),),
                text=True,
                bufsize=1,
            )
        finally:
            theirs.close()
        self._reader = threading.Thread(target=self._read, name="ringleader-launcher", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        leave_signals_to_main()
        stdout: IO[str] | None = self.process.stdout
        assert stdout is not None
        for line in stdout:
            try:
                data = json.loads(line)
                event = data["event"]
                if event == "failed":
                    self.failure = data["error"]
                elif event == "forked":
                    self._slots.release()
                elif event == "exited":
                    if "error" in data:  # never forked
                        self._slots.release()
                    self._on_exit(data["serial"], data["status"], data.get("error"))
            except Exception:  # noqa: BLE001 -- keep reading, or the launcher blocks on its pipe
                log.warning("the node launcher printed something unexpected: %r", line[:200])
        self.gone.set()
        for _ in range(_IN_FLIGHT):  # nobody will answer: let senders find out
            try:
                self._slots.release()
            except ValueError:
                break
        self._on_gone()  # its children died with it (PR_SET_PDEATHSIG)

    def spawn(self, request: dict[str, Any], stdin: int, stdout: int) -> bool:
        """Ask for a node process with these pipes; ``False`` if the launcher is gone."""
        self._slots.acquire()
        if self.gone.is_set():
            return False
        try:
            with self._lock:
                socket.send_fds(self._requests, [json.dumps(request).encode()], [stdin, stdout])
        except OSError:
            return False
        return True

    def kill(self, serial: int) -> None:
        try:
            with self._lock:
                self._requests.send(json.dumps({"kill": serial}).encode())
        except OSError:
            pass  # the launcher is gone, and its children with it

    def close(self) -> None:
        """End the launcher (it kills any child still running) and wait for it."""
        stdin = self.process.stdin
        try:
            if stdin is not None:
                stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(_STOP_WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._reader.join(2.0)
        self._requests.close()
        if self.process.stdout is not None:
            self.process.stdout.close()


class _Child:
    """One node process: its pipes, and the thread that reads what it prints."""

    def __init__(
        self,
        node: int,
        serial: int,
        *,
        launcher: _Launcher,
        sink: Callable[[NodeEvent], None],
        changed: threading.Condition,
    ) -> None:
        self.node = node
        self.serial = serial
        self.incarnation = 0
        self.address: str | None = None
        self.listening = threading.Event()
        self.linked = threading.Event()
        self.ready = threading.Event()
        self.exited = threading.Event()
        self.returncode: int | None = None
        self.failure: str | None = None  # what the node said went wrong, if it did
        self.statuses: queue.SimpleQueue[NodeStatus] = queue.SimpleQueue()
        self._launcher = launcher
        self._sink = sink
        self._changed = changed
        self._stdin_lock = threading.Lock()
        self._their_stdin, stdin_w = os.pipe()
        stdout_r, self._their_stdout = os.pipe()
        self.stdin: IO[str] | None = os.fdopen(stdin_w, "w", encoding="utf-8", buffering=1)
        self.stdout: IO[str] = os.fdopen(stdout_r, encoding="utf-8")
        self._reader = threading.Thread(
            target=self._read, name=f"ringleader-node-{node}-reader", daemon=True
        )
        self._reader.start()

    def launch(self, request: dict[str, Any]) -> None:
        """Ask the launcher for the process, handing it the process's ends of the pipes."""
        try:
            spawned = self._launcher.spawn(
                {"spawn": self.serial, **request}, self._their_stdin, self._their_stdout
            )
        finally:
            os.close(self._their_stdin)
            os.close(self._their_stdout)
        if not spawned:
            self.failure = self._launcher.failure or "the node launcher is gone"
            self.exit(1)

    def _read(self) -> None:
        leave_signals_to_main()
        for line in self.stdout:
            try:
                self._handle(line)
            except Exception:  # noqa: BLE001 -- keep reading, or the child blocks on its pipe
                log.warning("node %s printed something unexpected: %r", self.node, line[:200])

    def _handle(self, line: str) -> None:
        data = json.loads(line)
        event = data["event"]
        if event == "listening":
            self.incarnation = data["incarnation"]
            self.address = data["address"]
            self._flag(self.listening)
        elif event == "linked":
            self._flag(self.linked)
        elif event == "ready":
            self._flag(self.ready)
        elif event == "failed":
            self.failure = data["error"]
        elif event == STATUS:
            self.statuses.put(status_from_dict(data))
        elif event != "stopped":
            self._sink(node_event(data))

    def _flag(self, flag: threading.Event) -> None:
        flag.set()
        with self._changed:
            self._changed.notify_all()

    def exit(self, status: int) -> None:
        """The launcher said this process ended (or it never began)."""
        self.returncode = status
        self._flag(self.exited)

    def command(self, text: str) -> bool:
        """Send one command line; ``False`` if the child is gone."""
        try:
            with self._stdin_lock:
                stdin = self.stdin
                assert stdin is not None
                stdin.write(text + "\n")
                stdin.flush()
        except (BrokenPipeError, ValueError, OSError, AssertionError):
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

    def wait(self, timeout: float | None = None) -> bool:
        """Until the process has ended (``False`` if it still runs after ``timeout`` s)."""
        return self.exited.wait(timeout)

    def kill(self) -> None:
        if not self.exited.is_set():
            self._launcher.kill(self.serial)
            if not self.wait(_STOP_WAIT):
                log.warning("node %s did not die within %g s of SIGKILL", self.node, _STOP_WAIT)
        self._close_pipes()

    def close_stdin(self) -> None:
        with self._stdin_lock:
            stdin, self.stdin = self.stdin, None
            try:
                if stdin is not None:
                    stdin.close()
            except OSError:
                pass

    def stop(self) -> None:
        """Close stdin (the child stops cleanly) and wait; kill it if it does not stop."""
        self.close_stdin()
        if not self.wait(_STOP_WAIT):
            log.warning("node %s did not stop within %g s: killed", self.node, _STOP_WAIT)
        self.kill()

    def _close_pipes(self) -> None:
        self.close_stdin()
        self._reader.join(2.0)
        with contextlib.suppress(OSError):
            self.stdout.close()


class ProcessCluster(SetUpOnEnter):
    """Every node of ``config`` as a ``ringleader node`` process; see the module docs.

    Implements what :class:`~ringleader.cluster._supervisor.SupervisorActor` drives, like
    :class:`~ringleader.LocalCluster`.  Nodes without an address in the config get one
    here: a socket file in a private directory (``ipc``) or a port each binds itself
    (``tcp``).  A set-up that fails raises :class:`~ringleader.SetupError`
    naming the node and what it said went wrong.
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
        #: ``trace`` when the cluster closes; crashes are recorded here (a restarted
        #: child records its restart in its part).
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
        self._serials: dict[int, _Child] = {}  # every child ever started, by serial
        self._incarnations: dict[int, int] = {}
        self._lives: dict[int, int] = {}  # node → the processes started for it
        self._lock = threading.Lock()
        self._changed = threading.Condition()  # a child listens, is ready, fails or exits
        self._launcher: _Launcher | None = None
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
            spec if spec.address is not None else replace(spec, address=self._address(spec.id))
            for spec in config.nodes
        )
        # Written once, the ports left to the nodes as they are: every node, also one
        # restarted later (given the addresses found), reads this same config, whose
        # members and addresses make the cluster's identity.
        any_port = any(spec.address is not None and spec.address.endswith(":*") for spec in nodes)
        self.config = config = config.replace(nodes=nodes)
        self._config_path.write_text(config.to_toml(), encoding="utf-8")
        self._env.update(secret_env(config))
        self._launcher = _Launcher(self._config_path, self._env, self._exited, self._gone)
        for spec in config.nodes:
            self._spawn(spec.id, fresh=True)
        self._wait_all("listening", lambda child: child.listening)
        self.addresses = {node: str(child.address) for node, child in self._children.items()}
        if any_port:  # every node linked before any boots (and pings a neighbour)
            for child in self._children.values():
                child.command(link_line(self.addresses))
            self._wait_all("linked", lambda child: child.linked)
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
        return _ANY_PORT

    def _spawn(self, node: int, *, fresh: bool) -> _Child:
        assert self._launcher is not None
        life = self._lives[node] = self._lives.get(node, 0) + 1
        request: dict[str, Any] = {"node": node, "fresh": fresh, "incarnation": life}
        if not fresh:  # back at its address, linked to everyone's
            request["addresses"] = {str(n): a for n, a in self.addresses.items()}
        if self._trace is not None:
            part = self._tmpdir / f"trace-{node}-{len(self._parts)}.jsonl"
            self._parts.append(part)
            request["trace"] = str(part)
            request["trace_heartbeats"] = self._trace_heartbeats
        with self._lock:
            serial = len(self._serials)
            child = _Child(
                node, serial, launcher=self._launcher, sink=self._sink, changed=self._changed
            )
            self._serials[serial] = child
            self._children[node] = child
        child.launch(request)
        if self._trace is not None:
            self._part_of[id(child)] = self._parts[-1]
        return child

    def _exited(self, serial: int, status: int, error: str | None) -> None:
        """From the launcher's reader: child ``serial`` ended with ``status``."""
        with self._lock:
            child = self._serials.get(serial)
        if child is not None:
            if error is not None and child.failure is None:
                child.failure = error
            child.exit(status)

    def _gone(self) -> None:
        """From the launcher's reader: it has ended, and every child with it."""
        with self._lock:
            children = list(self._serials.values())
        for child in children:
            if not child.exited.is_set():
                child.exit(-signal.SIGKILL)

    def _wait_all(self, what: str, flag: Callable[[_Child], threading.Event]) -> None:
        """Until every child is ``what``; the first to fail (exit, or say it failed) or
        the timeout raises :class:`SetupError`."""
        children = list(self._children.values())
        launcher = self._launcher
        assert launcher is not None
        with self._changed:
            while True:
                waiting = [child for child in children if not flag(child).is_set()]
                if not waiting:
                    break
                for child in waiting:
                    if child.exited.is_set() or launcher.gone.is_set():
                        self._failed(child, what)
                if self._deadline.expired():
                    child = waiting[0]
                    raise SetupError(
                        child.node,
                        f"its process was not {what} within the {self.config.timeout:g} s timeout"
                        + (f" ({len(waiting)} nodes were not)" if len(waiting) > 1 else ""),
                    )
                self._changed.wait(min(0.1, max(0.001, self._deadline.left())))
        for child in children:
            self._incarnations[child.node] = child.incarnation

    def _failed(self, child: _Child, what: str) -> None:
        launcher = self._launcher
        assert launcher is not None
        child.wait(2.0)  # a line it wrote before it exited may still be on its way
        child._reader.join(2.0)
        if child.failure is not None:  # its own words name it: not twice
            raise SetupError(child.node, child.failure.removeprefix(f"node {child.node}: "))
        if launcher.failure is not None:
            raise SetupError(None, f"the node processes could not start: {launcher.failure}")
        if launcher.gone.is_set():
            code = launcher.process.wait(_STOP_WAIT)
            raise SetupError(
                None,
                f"the process that starts the nodes exited (status {code}) before every "
                f"node was {what}; its error is on stderr above",
            )
        raise SetupError(
            child.node,
            f"its process exited (status {child.returncode}) before it was {what}; "
            "its error is on stderr above",
        )

    def _wait(self, child: _Child, what: str, flag: threading.Event, deadline: Deadline) -> None:
        with self._changed:
            while not flag.is_set():
                if child.exited.is_set():
                    self._failed(child, what)
                if deadline.expired():
                    raise SetupError(
                        child.node,
                        f"its process was not {what} within the {self.config.timeout:g} s timeout",
                    )
                self._changed.wait(min(0.1, max(0.001, deadline.left())))
        self._incarnations[child.node] = child.incarnation

    def close(self) -> None:
        """Stop every child (killing any that will not stop); safe to call twice."""
        with self._lock:
            children = list(self._children.values())
            self._children.clear()
        for child in children:  # all at once: each stops on its own
            child.close_stdin()
        for child in children:
            child.stop()
        try:
            if self._launcher is not None:
                self._launcher.close()
                self._launcher = None
            if self._trace is not None:
                self._merge_trace(self._trace)
        finally:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def trace_violations(self, safety: SafetyChecker) -> None:
        """Put the checks the run broke in its trace, where each was broken (the
        parts' clock is the wall clock; the checker's, the monotonic one)."""
        if self._trace is None:
            return
        wall = time.time() - time.monotonic()
        for violation in safety.violations:
            if violation.at is None:
                continue  # the end state's: the report says it
            node = violation.node if violation.node is not None else violation.nodes[0]
            self._faults.append(
                {
                    "event": "violation",
                    "t": wall + safety.began + violation.at,
                    "node": node,
                    "check": violation.kind,
                    "nodes": list(violation.nodes),
                    "epoch": violation.epoch,
                    "detail": violation.detail,
                }
            )

    def _merge_trace(self, path: Path) -> None:
        """The children's parts (and the crashes) as one trace."""
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
        from ringleader.traces import trace_header  # noqa: PLC0415 -- only for a traced run

        with path.open("w", encoding="utf-8") as out:
            merge_parts(parts, out, header=trace_header(self.config, mode="processes"))

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
        child = self._spawn(node, fresh=False)  # it records its restart when it boots
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
