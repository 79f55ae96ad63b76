"""What ``ringleader node`` runs: one :class:`~ringleader.Node` of a config in this
process, its events written out as lines.

The command line's node *is* a :class:`~ringleader.Node` (one code path with the library):
:func:`serve` starts one and keeps it until told to stop.  By default it joins whatever
cluster it finds, as a restarted node does; a supervisor starting a whole cluster at once
(``--supervised --fresh``) makes each a fresh member instead that waits to be told to
start, so that the first election sends exactly the messages the notes count.

Every node event is turned into a plain dict (``_protocol.py``) for the ``--json``
lines on stdout and for the supervisor that reads them; :mod:`._output` writes them, and
:class:`RejectionThrottle` keeps a flood of bad frames from becoming a flood of lines.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

from ringleader.topologies import Config

from ._assembly import check_standalone
from ._node import Node
from ._node_options import NodeOptions
from ._output import EventWriter, describe
from ._protocol import BOOT, LINK, START, STATUS, link_addresses, parse_command

__all__ = [
    "BAD_SIGNATURE_EVERY",
    "REJECTIONS_PER_SECOND",
    "RejectionThrottle",
    "check_standalone",
    "die_with_parent",
    "run_node",
    "serve",
]

log = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], None]
#: Rejected-frame events a node reports per reason and second; the rest are counted only.
REJECTIONS_PER_SECOND = 10
#: Frames failing the signature are reported once per address, then with the address's
#: running count at most this often (s).
BAD_SIGNATURE_EVERY = 10.0
#: The longest the main thread of ``serve`` sleeps at a time: how late a signal's handler
#: may run when the kernel delivered the signal to another thread.
SIGNAL_LATENCY = 0.1


class RejectionThrottle:
    """Passes a node's lines on to ``emit``, but only some of its ``rejected_frame`` ones.

    Every rejected frame is counted (``count``: per reason, since the start).  A frame
    failing the signature is reported the first time one comes from its address, then at
    most every :data:`BAD_SIGNATURE_EVERY` s, with that address's running count
    (``address_count``); other reasons, the first :data:`REJECTIONS_PER_SECOND` per reason
    and second.  Called on the node's actor thread.
    """

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self._rejections: dict[str, tuple[int, float]] = {}  # reason → (count this s, since)
        self._rejected_total: dict[str, int] = {}  # reason → count since start
        self._bad_signatures: dict[str | None, tuple[int, float]] = {}  # → (count, shown at)
        self._lock = threading.Lock()

    def __call__(self, data: dict[str, Any]) -> None:
        if data["event"] != "rejected_frame" or self._report(data, data["mono"]):
            self._emit(data)

    def _report(self, data: dict[str, Any], at: float) -> bool:
        reason = data["reason"]
        with self._lock:
            data["count"] = self._rejected_total[reason] = self._rejected_total.get(reason, 0) + 1
            if reason == "bad_signature":
                count, shown = self._bad_signatures.get(data["address"], (0, -BAD_SIGNATURE_EVERY))
                due = at - shown >= BAD_SIGNATURE_EVERY
                self._bad_signatures[data["address"]] = (count + 1, at if due else shown)
                data["address_count"] = count + 1
                return due
            count, since = self._rejections.get(reason, (0, at))
            if at - since >= 1.0:
                count, since = 0, at
            self._rejections[reason] = (count + 1, since)
        return count < REJECTIONS_PER_SECOND


def die_with_parent() -> None:
    """Linux: have the kernel SIGKILL this process when the process that started it dies,
    so that a supervised node never outlives its supervisor, however that one ends."""
    try:
        import ctypes  # noqa: PLC0415 -- Linux only, and only for supervised nodes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig, sigkill = 1, 9
        libc.prctl(pr_set_pdeathsig, sigkill, 0, 0, 0)
    except (OSError, AttributeError):
        log.debug("prctl(PR_SET_PDEATHSIG) is not available here")


def run_node(
    config: Config,
    node_id: int,
    *,
    out: TextIO,
    json_lines: bool = True,
    commands: TextIO | None = None,
    options: NodeOptions | None = None,
    trace: str | os.PathLike[str] | None = None,
    trace_heartbeats: bool = False,
) -> None:
    """``ringleader node``, once its arguments are read: :func:`serve` node ``node_id``
    until SIGTERM, its events written to ``out`` (JSON lines, or lines for people).

    With ``commands`` (a supervisor's pipe, ``--supervised``): read commands there, stop
    when they end, ignore Ctrl-C (the supervisor's to handle) and die with the parent
    process; a failure to start is also written to ``out`` as a ``failed`` line (with
    ``error``, what went wrong) before it is raised.  Without: stop on Ctrl-C too.
    """
    stop = threading.Event()
    output = EventWriter(out, json.dumps if json_lines else describe, on_closed=stop.set)

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    if commands is not None:
        die_with_parent()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGINT, on_signal)
    try:
        serve(
            config,
            node_id,
            emit=output.emit,
            stop=stop,
            commands=commands,
            options=options,
            trace=trace,
            trace_heartbeats=trace_heartbeats,
        )
    except Exception as exc:
        if commands is not None:
            error = str(exc) or type(exc).__name__
            output.emit({"event": "failed", "node": node_id, "t": time.time(), "error": error})
        raise
    finally:
        output.close()


def serve(
    config: Config,
    node_id: int,
    *,
    emit: Emit,
    stop: threading.Event,
    commands: Any = None,
    options: NodeOptions | None = None,
    trace: str | os.PathLike[str] | None = None,
    trace_heartbeats: bool = False,
) -> None:
    """Run node ``node_id`` until ``stop`` is set.

    With ``commands`` (a supervisor's pipe), read commands from it, one per line (see
    ``_protocol.py``); its end stops the node, which follows the notes' rules (``steady``
    off, whatever ``options`` say).  Without, boot at once.  ``options``: see
    :class:`~ringleader.Node`.  ``trace``: write this node's part of the trace there, as
    it goes (see :mod:`ringleader.actors.tracing`); ``trace_heartbeats``: the detector's
    traffic too.  A node that cannot keep its state stops, and this raises its
    :class:`~ringleader.StateError`; a node the cluster removed (``removed`` line) stops,
    and this returns.
    """
    part = None
    if trace is not None:
        from ringleader.traces import PartWriter  # noqa: PLC0415 -- only a traced node

        part = PartWriter(trace, node_id, nodes=config.n, heartbeats=trace_heartbeats)
    try:
        node = Node(
            config,
            node_id,
            emit=RejectionThrottle(emit),
            trace=part,
            # supervised: ringleader run's teaching rules
            options=replace(options or NodeOptions(), steady=commands is None),
        )
    except BaseException:
        if part is not None:
            part.close()
        raise
    opened = False
    try:
        node.open()
        opened = True
        if commands is not None:
            reader = threading.Thread(
                target=_read_commands,
                args=(node, commands, stop, emit),
                name="ringleader-commands",
                daemon=True,
            )
            reader.start()
        else:
            node.boot()
        # Python runs signal handlers on the main thread only, between bytecodes.  The
        # kernel gives a process's signal to any thread not blocking it (after a SIGCONT,
        # often another one than this), so the main thread must wake by itself to run
        # the handler: in slices, never one wait without a timeout.  And not in
        # stop.wait(): the handler calls stop.set(), which takes the event's lock (not
        # reentrant), and would wait forever for it if it ran as this thread held it.
        # A private event instead of time.sleep: the same slices, and they also work
        # under libfaketime, whose clock_nanosleep fails (the wall clock stepped back).
        pause = threading.Event()
        while not stop.is_set():
            if node.failure is not None:
                raise node.failure
            if node.removed is not None:  # (its ``removed`` line says so): it stops
                break
            pause.wait(SIGNAL_LATENCY)
    finally:
        node.stop()
        if opened:
            emit(node.event_line("stopped"))


def _read_commands(node: Node, commands: Any, stop: threading.Event, emit: Emit) -> None:
    try:
        for line in commands:
            command, wait = parse_command(line)
            if command == BOOT:
                node.boot(wait=wait)
            elif command == LINK:
                node.link(link_addresses(line))
            elif command == START:
                node.initiate()
            elif command == STATUS:
                emit(node.status_line())
            elif command:
                log.warning("node %s: unknown command %r", node.id, command)
    except Exception:
        log.exception("node %s: the command reader failed", node.id)
    finally:
        stop.set()
