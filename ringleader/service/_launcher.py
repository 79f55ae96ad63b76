"""Starting a cluster's node processes fast: one process imports what a node needs and
reads the config once, then forks a node process whenever asked (a fork server).

A ``ringleader node`` process spends a third of a second importing Python before it
runs; fifty of them started together keep two CPUs busy for seconds.  A fork costs a
few milliseconds, and the child has everything loaded already.  Each child runs what
``ringleader node CONFIG --id N --json --supervised`` runs (:func:`run_node`), with its
own stdin and stdout: the supervisor's pipes, handed over with the request.

The protocol, with the process that started the launcher (the supervisor):

- the launcher's stdin stays open as long as the supervisor lives: its end (the
  supervisor closed it, or died) kills every child still running, and the launcher
  exits;
- requests are datagrams on a Unix socket (its descriptor number is the second argument):
  ``{"spawn": SERIAL, "node": N, "fresh": …, "incarnation": …, "trace": …,
  "trace_heartbeats": …, "addresses": {…}}`` with two descriptors attached (the
  child's stdin and stdout), or ``{"kill": SERIAL}`` (``SIGKILL``, if that child still runs);
- the launcher answers on its stdout, one JSON object per line: ``{"event": "ready"}``
  once loaded (or ``{"event": "failed", "error": …}``, and it exits), ``{"event":
  "forked", "serial": S, "pid": P}``, ``{"event": "exited", "serial": S, "status": C}``
  (``C`` as ``subprocess.Popen.returncode`` gives it: ``-9`` for ``SIGKILL``).

Children die with the launcher (``PR_SET_PDEATHSIG``), which dies with the thread that
started it: no node outlives its supervisor.  The launcher forks only while it has no
thread besides its main one and no ZeroMQ context.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import selectors
import signal
import socket
import sys
import traceback
from typing import Any, NoReturn

from ringleader.errors import ConfigError, RingleaderError, UsageError
from ringleader.topologies import Config, load_config

from ._node_options import NodeOptions
from ._standalone import die_with_parent, run_node

__all__ = ["main"]

log = logging.getLogger(__name__)

#: The largest request (a spawn with every node's address; 1,000 nodes take ~40 kB).
MAX_REQUEST = 1 << 20


class _Launcher:
    """The fork server: reads requests, forks node processes, reaps them, says so."""

    def __init__(self, config: Config, requests: socket.socket) -> None:
        self.config = config
        self.requests = requests
        self.children: dict[int, int] = {}  # serial → pid, until reaped
        self._selector: selectors.BaseSelector | None = None
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        os.set_blocking(self._wake_r, False)

    def answer(self, **fields: Any) -> None:
        try:
            sys.stdout.write(json.dumps(fields) + "\n")
            sys.stdout.flush()
        except OSError:  # the supervisor is gone: its end of stdin says so next
            log.debug("could not tell the supervisor %r", fields)

    def serve(self) -> None:
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # only to wake the loop
        signal.set_wakeup_fd(self._wake_w)
        selector = self._selector = selectors.DefaultSelector()
        selector.register(self.requests, selectors.EVENT_READ, "request")
        selector.register(0, selectors.EVENT_READ, "parent")
        selector.register(self._wake_r, selectors.EVENT_READ, "child")
        self.answer(event="ready")
        try:
            while True:
                for key, _ in selector.select():
                    if key.data == "request":
                        self._request()
                    elif key.data == "child":
                        while True:
                            try:
                                if not os.read(self._wake_r, 512):
                                    break
                            except BlockingIOError:
                                break
                        self._reap()
                    elif not os.read(0, 512):  # the supervisor is gone
                        return
        finally:
            self._kill_all()

    def _request(self) -> None:
        try:
            data, fds, _, _ = socket.recv_fds(self.requests, MAX_REQUEST, 2)
        except InterruptedError:
            return
        if not data:
            return
        request = json.loads(data)
        if "kill" in request:
            for fd in fds:
                os.close(fd)
            pid = self.children.get(request["kill"])
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
            return
        serial = request["spawn"]
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            self.answer(event="exited", serial=serial, status=1, error="no pipes came with it")
            return
        stdin, stdout = fds
        try:
            pid = os.fork()
        except OSError as exc:
            os.close(stdin)
            os.close(stdout)
            self.answer(event="exited", serial=serial, status=1, error=f"fork failed: {exc}")
            return
        if pid == 0:
            self._become_node(request, stdin, stdout)
        os.close(stdin)
        os.close(stdout)
        self.children[serial] = pid
        self.answer(event="forked", serial=serial, pid=pid)

    def _reap(self) -> None:
        by_pid = {pid: serial for serial, pid in self.children.items()}
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            serial = by_pid.get(pid)
            if serial is not None:
                del self.children[serial]
                code = os.waitstatus_to_exitcode(status)
                self.answer(event="exited", serial=serial, status=code)

    def _kill_all(self) -> None:
        for pid in self.children.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in list(self.children.values()):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        self.children.clear()

    def _become_node(self, request: dict[str, Any], stdin: int, stdout: int) -> NoReturn:
        """In the child: the launcher's state dropped, the node run; never returns."""
        code = 1
        try:
            launcher = os.getppid()
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            die_with_parent()
            if os.getppid() != launcher:  # the launcher died before that took effect
                os._exit(1)
            self.requests.close()
            if self._selector is not None:
                self._selector.close()
            os.close(self._wake_r)
            os.close(self._wake_w)
            os.dup2(stdin, 0)
            os.dup2(stdout, 1)
            os.close(stdin)
            os.close(stdout)
            sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 -- for the process
            sys.stdout = open(1, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
            code = _run_child(self.config, request)
        except BaseException:  # noqa: BLE001 -- whatever happens, never back into the loop
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
            os._exit(code)


def _run_child(config: Config, request: dict[str, Any]) -> int:
    """``ringleader node --supervised`` for ``request``'s node; its exit status."""
    node = int(request["node"])
    given = request.get("addresses")  # a restart: everyone's, as first found
    addresses = None if given is None else {int(k): str(v) for k, v in given.items()}
    try:
        run_node(
            config,
            node,
            out=sys.stdout,
            commands=sys.stdin,
            options=NodeOptions(
                fresh=bool(request.get("fresh")),
                addresses=addresses,
                incarnation=int(request.get("incarnation", 1)),
            ),
            trace=request.get("trace"),
            trace_heartbeats=bool(request.get("trace_heartbeats")),
        )
    except (ConfigError, UsageError) as exc:
        sys.stderr.write(f"ringleader node: error: {exc}\n")
        return 2
    except RingleaderError as exc:
        sys.stderr.write(f"ringleader node: error: {exc}\n")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m ringleader.service._launcher CONFIG FD``."""
    path, fd = sys.argv[1:] if argv is None else argv
    requests = socket.socket(fileno=int(fd))
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the supervisor's to handle
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    launcher = None
    try:
        launcher = _Launcher(load_config(path), requests)
    except RingleaderError as exc:
        sys.stdout.write(json.dumps({"event": "failed", "error": str(exc)}) + "\n")
        sys.stdout.flush()
        return 1
    launcher.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
