"""One node of a config in this process: what ``ringleader node`` runs.

A :class:`StandaloneNode` binds its own address from the config, links to its
out-neighbours (and later to any member, to repair a ring), and keeps its failure
detector running.  By default it joins whatever cluster it finds, as a restarted node
does: it asks its neighbours for the current epoch and starts an election above it, or
starts the first one if nobody answers within ``suspect_after``; so peers may start in
any order.  A supervisor starting a whole cluster at once (``--supervised --fresh``)
makes each a fresh member instead that waits to be told to start, so that the first
election sends exactly the messages the notes count.

Every node event is turned into a plain dict (:mod:`._protocol`) for the ``--json``
lines on stdout and for the supervisor that reads them; :mod:`._output` writes them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import pykka

from actors import Member
from actors.host import (
    Boot,
    Connect,
    GetStatus,
    Listen,
    NodeActor,
    NodeEvent,
    NodeStatus,
    Start,
    wire_kinds,
)
from ringleader.errors import ConfigError, TransportError
from topologies import Config, node_secret
from transport import BETWEEN_PROCESSES, Codec, SocketOptions, ZmqNetwork

from ._protocol import BOOT, START, STATUS, event_dict, parse_command, status_dict
from ._tracing import PartWriter

__all__ = [
    "BAD_SIGNATURE_EVERY",
    "REJECTIONS_PER_SECOND",
    "StandaloneNode",
    "check_standalone",
    "die_with_parent",
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


def check_standalone(config: Config) -> None:
    """What a config needs for nodes in separate processes (``node``, ``status``): a
    transport between processes and a fixed address for every node."""
    if config.transport not in BETWEEN_PROCESSES:
        raise ConfigError(
            config.source,
            "transport",
            f"{config.transport} cannot reach another process",
            'use transport = "tcp" (or "ipc" on one machine)',
        )
    for index, spec in enumerate(config.nodes):
        if spec.address is None or spec.address.endswith(":*"):
            raise ConfigError(
                config.source,
                f"nodes[{index}].address",
                "every node needs a fixed address, so that its peers can find it",
                'e.g. address = "tcp://192.0.2.10:7001"',
            )


class StandaloneNode:
    """Node ``node_id`` of ``config``, alone in this process, reporting through ``emit``.

    Call :meth:`open` (bind and link), :meth:`boot` (failure detector on), and
    :meth:`start` if it should initiate; :meth:`close` stops it, also after an error.
    ``fresh``: a member of a cluster started together, as ``ringleader run`` starts one
    (epoch 1; an initiator only once told to :meth:`start`); otherwise it joins or starts
    a cluster by itself as soon as it boots, as a restarted node does.
    """

    def __init__(
        self,
        config: Config,
        node_id: int,
        *,
        emit: Emit,
        fresh: bool = False,
        secret: bytes | None = None,
        trace: PartWriter | None = None,
    ) -> None:
        ids = [n.id for n in config.nodes]
        if node_id not in ids:
            shown = ", ".join(str(i) for i in ids[:12]) + (", …" if len(ids) > 12 else "")
            raise ConfigError(
                config.source, "nodes", f"there is no node {node_id}", f"ids: {shown}"
            )
        check_standalone(config)
        self.config = config
        self.id = node_id
        self.emit = emit
        settings = config.node_settings()
        view = next(v for v in config.wiring.views(settings) if v.id == node_id)
        algorithm = config.algorithm_class
        if fresh:
            member = Member(algorithm, view, initiator=node_id in config.initiators)
        else:
            member = Member(algorithm, view, recovering=True)
        self.incarnation = time.time_ns()  # grows across restarts: no stable storage needed
        self._codec = Codec(secret or node_secret(config), config.cluster_id, wire_kinds(algorithm))
        self._network = ZmqNetwork(
            config.transport,
            nodes=1,
            links=config.n,
            options=SocketOptions(send_timeout=settings["heartbeat"]),
            curve=config.curve_keys([node_id]),
        )
        self._rejections: dict[str, tuple[int, float]] = {}  # reason → (count this s, since)
        self._rejected_total: dict[str, int] = {}  # reason → count since start
        self._bad_signatures: dict[str | None, tuple[int, float]] = {}  # → (count, shown at)
        self._lock = threading.Lock()
        self._trace = trace
        self._ref: pykka.ActorRef[NodeActor] | None = NodeActor.start(
            member,
            network=self._network,
            codec=self._codec,
            incarnation=self.incarnation,
            events=self._on_event,
            trace=None if trace is None else trace.trace,
        )
        self.address = config.addresses[node_id]

    def _ask(self, message: object, timeout: float = 10.0) -> Any:
        if self._ref is None:
            raise TransportError(f"node {self.id} is closed")
        return self._ref.ask(message, timeout=timeout)

    def open(self) -> None:
        """Bind this node's address and start linking to its out-neighbours."""
        config = self.config
        address = self._ask(Listen(self.address))
        peers = {p: config.addresses[p] for p in config.wiring.out[self.id]}
        self._ask(Connect(peers, 0.0, config.addresses))
        self.emit(self.event_line("listening", address=address))

    def boot(self, wait: float = 0.0) -> None:
        """Start the failure detector (after up to ``wait`` s for the links to connect)."""
        if wait > 0:
            config = self.config
            peers = {p: config.addresses[p] for p in config.wiring.out[self.id]}
            self._ask(Connect(peers, wait, config.addresses), timeout=wait + 10.0)
        self._ask_tell(Boot())
        self.emit(self.event_line("ready"))

    def start(self) -> None:
        """Initiate an election (a fresh node; any other starts one by itself)."""
        self._ask_tell(Start())

    def _ask_tell(self, message: object) -> None:
        if self._ref is None:
            raise TransportError(f"node {self.id} is closed")
        self._ref.tell(message)

    def status(self) -> NodeStatus:
        status = self._ask(GetStatus())
        assert isinstance(status, NodeStatus)
        return status

    def status_line(self) -> dict[str, Any]:
        status = status_dict(self.status())
        if self._trace is not None:  # a supervisor asks before it kills: lose no event
            self._trace.flush()
        return status

    def close(self) -> None:
        """Stop the node, close its sockets and the network; safe to call twice."""
        ref, self._ref = self._ref, None
        if ref is not None:
            try:
                ref.stop(timeout=10.0)
            except pykka.Timeout:
                log.warning("node %s did not stop within 10 s", self.id)
        self._network.close()
        if self._trace is not None:
            self._trace.close()
            self._trace = None

    def event_line(self, event: str, **fields: Any) -> dict[str, Any]:
        return {
            "event": event,
            "node": self.id,
            "t": round(time.time(), 6),
            "mono": time.monotonic(),
            "incarnation": self.incarnation,
            **fields,
        }

    def _on_event(self, event: NodeEvent) -> None:
        """Called on the node's actor thread for every event."""
        data = event_dict(event)
        if event.kind == "rejected" and not self._report_rejection(data, event.at):
            return
        self.emit(data)

    def _report_rejection(self, data: dict[str, Any], at: float) -> bool:
        """Count a rejected frame (``count``: per reason) and say whether to report it.

        A flood of bad frames must not become a flood of output.  A frame failing the
        signature is reported the first time one comes from its address, then at most
        every :data:`BAD_SIGNATURE_EVERY` s, with that address's running count
        (``address_count``); other reasons, the first few per reason and second.
        """
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


def serve(
    config: Config,
    node_id: int,
    *,
    emit: Emit,
    stop: threading.Event,
    commands: Any = None,
    fresh: bool = False,
    trace: str | os.PathLike[str] | None = None,
    trace_heartbeats: bool = False,
) -> None:
    """Run node ``node_id`` until ``stop`` is set.

    With ``commands`` (a supervisor's pipe), read commands from it, one per line (see
    :mod:`._protocol`); its end stops the node.  Without, boot at once.  ``fresh``: see
    :class:`StandaloneNode`.  ``trace``: write this node's part of the trace there, as
    it goes (see :mod:`actors._trace`); ``trace_heartbeats``: the detector's traffic too.
    """
    part = None
    if trace is not None:
        part = PartWriter(trace, node_id, nodes=config.n, heartbeats=trace_heartbeats)
    try:
        node = StandaloneNode(config, node_id, emit=emit, fresh=fresh, trace=part)
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
                args=(node, commands, stop),
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
        while not stop.is_set():
            time.sleep(SIGNAL_LATENCY)
    finally:
        node.close()
        if opened:
            emit(node.event_line("stopped"))


def _read_commands(node: StandaloneNode, commands: Any, stop: threading.Event) -> None:
    try:
        for line in commands:
            command, wait = parse_command(line)
            if command == BOOT:
                node.boot(wait=wait)
            elif command == START:
                node.start()
            elif command == STATUS:
                node.emit(node.status_line())
            elif command:
                log.warning("node %s: unknown command %r", node.id, command)
    except Exception:
        log.exception("node %s: the command reader failed", node.id)
    finally:
        stop.set()
