"""One node of a cluster in this process, for a service that wants a leader: :class:`Node`.

A :class:`Node` binds its own address from the config, links to its out-neighbours (and
later to any member, to repair a ring), and keeps its failure detector running.  By
default it joins whatever cluster it finds, as a restarted node does: it asks its
neighbours for the current epoch and starts an election above it, or starts the first
one if nobody answers within ``suspect_after``; so peers may start in any order.  It is
what ``ringleader node`` runs (:func:`ringleader.service._standalone.serve`).

A node of a service keeps what must survive it in its state file (``_state_file.py``):
the highest epoch it has seen, made durable before it acts on a new one, and its
incarnation counter; a restarted node starts above that epoch.  And it leads only with a
majority's lease (``quorum = true``) unless its config says ``quorum = false``.  A node a
supervisor runs for ``ringleader run`` (``incarnation`` given) keeps neither: the
teaching runs count the notes' messages and epochs from 1.

Three threads are involved.  The node's actor (a Pykka thread) runs the election and
never waits for the service.  A thread of the node's own runs the service's callbacks,
one at a time and in the order things happened, so that a slow callback delays later
callbacks but never the election.  And whatever thread the service likes reads
:attr:`Node.is_leader`, :attr:`Node.leader` and :attr:`Node.epoch` (or all at once,
:meth:`Node.leadership`) at any time without asking the actor: they come from the
:class:`~ringleader.actors.host.Leadership` it publishes.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, Any

import pykka

from ringleader.actors.crashes import Configuration
from ringleader.actors.faults import Misbehaving
from ringleader.actors.host import (
    Boot,
    Connect,
    GetStatus,
    Identity,
    Leadership,
    Listen,
    NodeActor,
    NodeEvent,
    NodeStatus,
    Resign,
    Start,
)
from ringleader.errors import ConfigError, RingleaderError, TransferRefused, TransportError
from ringleader.topologies import Config, load_config
from ringleader.transport import ZmqNetwork

from ._assembly import check_standalone, node_codec, node_member, node_network, service_settings
from ._callbacks import STOPPED, Callbacks, LeaderChange
from ._health import Verdict, alive, ready
from ._node_options import NodeOptions, check_node_id
from ._protocol import event_dict, leads_dict, status_dict
from ._state_file import NEW, StateFile
from ._view import LeadershipView, view_of

if TYPE_CHECKING:  # imported when used: a node without metrics or changes() needs neither
    from ringleader.traces import PartWriter

    from ._metrics import NodeMetrics

__all__ = ["Node"]

log = logging.getLogger(__name__)

Emit = Callable[[dict[str, Any]], None]
#: How long :meth:`Node.stop` waits for the actor, then for the callbacks thread (s).
STOP_TIMEOUT = 10.0


class _ServiceActor(NodeActor):
    """A node's actor on a daemon thread: a service that ends (or crashes) without
    :meth:`Node.stop` must exit, not hang on it; :func:`_stop_at_exit` stops it first."""

    use_daemon_thread = True


#: The nodes started and not yet stopped, stopped when the interpreter exits.
_started: weakref.WeakSet[Node] = weakref.WeakSet()


def _stop_at_exit() -> None:
    for node in list(_started):
        node.stop()


def _stop_them_at_exit() -> None:
    """(Re)registered whenever a node's actor starts: after the ``weakref.finalize`` exit
    hook that closes its inbox, so that it runs before that hook (last in, first out)."""
    atexit.unregister(_stop_at_exit)
    atexit.register(_stop_at_exit)


class Node:
    """Node ``node_id`` of ``config`` (a :class:`~ringleader.Config` or the path of a
    TOML file), run in this process.

    :meth:`start` it (or use it as a context manager), read :attr:`is_leader` and
    :attr:`epoch` wherever the service needs them, :meth:`stop` it when done.  The
    callbacks, all optional, run on the node's callbacks thread, one at a time, in order:

    - ``on_elected(epoch)``: this node now leads (with a lease, the default: once its
      followers have acknowledged it, when :attr:`is_leader` turns true); ``epoch`` is
      its fencing token;
    - ``on_lost(epoch, reason)``: it no longer leads ``epoch``: ``"superseded"`` (a newer
      round or another leader), ``"stopped"`` (:meth:`stop` was called), ``"failed"``
      (it could not keep its state and stopped by itself: see :attr:`failure`);
    - ``on_leader_change(leader, epoch)``: its view of the leader changed (``leader``
      ``None`` while an election is under way);
    - ``on_failed(error)``: the node stopped by itself, leader or follower (after
      ``on_lost(epoch, "failed")`` if it led): it could not keep its state; ``error`` is
      :attr:`failure`, a :class:`~ringleader.StateError` naming the file.

    A callback that raises is logged with its traceback; the node carries on.  A process
    that ends without :meth:`stop` still exits: its nodes are stopped on the way out.
    ``metrics``: ``"HOST:PORT"`` to serve Prometheus metrics there (port 0: any free
    one, see :attr:`metrics_address`), at ``/metrics``, with ``/healthz`` and
    ``/readyz`` beside them (``docs/reference/node.md``).  ``secret``: the cluster's
    secret, instead of the one the config names.

    A node follows the steady rules (``docs/steady-leader.md``): it never starts or
    joins a round against a leader that still holds its lease, a restarted node follows
    the leader it finds, :meth:`resign` and :meth:`stop` hand the leadership over to the
    next node at once, and only the leader sends heartbeats.  ``steady=False`` runs the
    notes' rules instead (``ringleader run``'s processes mode, whose nodes count messages
    as the slides do).

    The node keeps its state (the highest epoch it has seen, its incarnation counter) in
    a file under the config's ``state_dir`` (see ``docs/service-guarantees.md``);
    :meth:`start` raises :class:`~ringleader.StateError` if that file is missing after the
    node has run here, corrupt, unwritable or in use.  ``fresh_state``: start over
    instead, with no epoch kept (the fencing token may then go back, unless a quorum
    keeps it).

    For a supervisor (``ringleader run``'s processes): ``incarnation`` numbers this life
    and the node keeps no state (the teaching runs count epochs from 1), with the
    config's ``quorum`` as it is; ``fresh`` makes it a member of a cluster started all
    at once (epoch 1, initiating only once told, :meth:`initiate`) rather than one that
    joins by itself, whose addresses may have a wildcard port (``tcp://127.0.0.1:*``: it
    binds any free port and says which in its ``listening`` line; :meth:`link` then gets
    everyone's); ``addresses`` are the nodes' addresses where the config leaves their
    ports to them, as a supervisor found them (a node restarted into such a cluster binds
    its own there and links to the others'; the config itself, and so the cluster's
    identity, stays as written).  For ``ringleader node``: ``emit`` receives every event
    as the dict its ``--json`` line shows; ``trace`` writes its part of a trace.

    ``options``: these options as one :class:`~ringleader.service.NodeOptions` (what
    ``ringleader node`` passes), instead of the keywords.  Either way they are checked
    once: options of the wrong kind, or that do not go together, raise a
    :class:`TypeError` naming them.
    """

    def __init__(
        self,
        config: Config | str | os.PathLike[str],
        node_id: int,
        *,
        on_elected: Callable[[int], object] | None = None,
        on_lost: Callable[[int, str], object] | None = None,
        on_leader_change: Callable[[int | None, int], object] | None = None,
        on_failed: Callable[[RingleaderError], object] | None = None,
        metrics: str | None = None,
        secret: bytes | None = None,
        emit: Emit | None = None,
        fresh: bool = False,
        addresses: Mapping[int, str] | None = None,
        trace: PartWriter | None = None,
        fresh_state: bool = False,
        incarnation: int | None = None,
        steady: bool = True,
        options: NodeOptions | None = None,
    ) -> None:
        check_node_id(node_id)
        given = NodeOptions(
            metrics=metrics,
            secret=secret,
            fresh=fresh,
            addresses=addresses,
            fresh_state=fresh_state,
            incarnation=incarnation,
            steady=steady,
        )
        if options is None:
            options = given
        elif given != NodeOptions():
            raise TypeError("give the node's options either as keywords or as options, not both")
        if not isinstance(config, Config):
            config = load_config(config)
        ids = [n.id for n in config.nodes]
        if node_id not in ids:
            shown = ", ".join(str(i) for i in ids[:12]) + (", …" if len(ids) > 12 else "")
            raise ConfigError(
                config.source, "nodes", f"there is no node {node_id}", f"ids: {shown}"
            )
        check_standalone(config, any_port=options.fresh or options.addresses is not None)
        self._settings = service_settings(config, teaching=options.supervised)
        self._metrics_at = options.metrics_at
        self.config = config
        self.id = node_id
        #: Every node's address: the config's, with the ports left to the nodes as found.
        self._addresses = {**config.addresses, **(options.addresses or {})}
        #: Where the node's peers dial it (its ``advertise`` address, if given)...
        self.address = self._addresses[node_id]
        #: ... and what it binds (another address only with ``advertise``).
        spec = next(n for n in config.nodes if n.id == node_id)
        self._advertised = spec.advertise is not None
        self._bind = spec.address if self._advertised else self.address
        #: This life's number: the supervisor's, else counted in the state file (known
        #: once started).
        self.incarnation = options.incarnation or 0
        self._options = options
        self._state: StateFile | None = None
        self._emit = emit
        self._trace = trace
        # Every publication (a lease granted too) wakes wait_for_leader.
        self._leadership = Leadership(node_id, on_publish=self._wake)
        self._ref: pykka.ActorRef[_ServiceActor] | None = None
        self._network: ZmqNetwork | None = None
        self._metrics: NodeMetrics | None = None
        self._running = False
        self._lifecycle = threading.Lock()  # start and stop, one at a time
        self._decided = threading.Condition()  # notified when the node's view changes
        self._watchers: list[Callable[[], object]] = []  # told too (see watch())
        #: The peers its failure detector suspects now, replaced whole (read anywhere).
        self._suspects: frozenset[int] = frozenset()
        self._closing = False  # a stop is under way (or done)
        self._callbacks = Callbacks(
            node_id,
            on_elected=on_elected,
            on_lost=on_lost,
            on_leader_change=on_leader_change,
            leads_at_lease=bool(self._settings.get("lease")),
            on_failed=None if on_failed is None else lambda why: on_failed(self._failed(why)),
        )
        #: The configuration without this node that it learned while running (``None``
        #: while it is a member, or waits to be added): see :attr:`removed`.
        self._removed: str | None = None
        #: The epoch of the last ``lost`` line, until a ``leader`` or ``lease`` line
        #: (for ``emit``: a lease regained in that epoch says ``leader`` again).
        self._lost_epoch: int | None = None

    # -- reading, from any thread ---------------------------------------------------------

    @property
    def leader(self) -> int | None:
        """The node this one believes leads (``None`` while an election is under way,
        or before :meth:`start`)."""
        return self._leadership.read()[0]

    @property
    def epoch(self) -> int:
        """The epoch this node knows: it grows with every election, so the leader's epoch
        is a fencing token: stamp writes with it, and let the store refuse older ones.
        Restarted, before its first round, the highest epoch its state file kept."""
        return self._leadership.read()[1]

    @property
    def is_leader(self) -> bool:
        """Whether this node leads at this instant (read from the clock and what its actor
        last published, never from a stale belief: right after a pause, ``False`` once its
        lease has run out)."""
        return self._leadership.is_leader()

    def leadership(self) -> LeadershipView:
        """The leader, epoch, lease end and whether this node leads, read at once: one
        publication of the node's actor and one read of the clock, so that the fields go
        together (two reads of :attr:`leader` and :attr:`epoch` may straddle an
        election)."""
        return view_of(self._leadership)

    @property
    def configuration(self) -> Configuration:
        """The cluster's configuration as this node keeps it: its members (voters and
        learners), their addresses and its version (see docs/design/membership.md).  The
        config file's list of nodes is version 0; the state file keeps it across the
        node's lives (before :meth:`start`, and for a supervised node, the config
        file's)."""
        state = self._state
        return self._founding() if state is None else state.configuration

    def _founding(self) -> Configuration:
        return Configuration.founding(self.config.founding, self._addresses)

    @property
    def removed(self) -> str | None:
        """If the cluster removed this node while it ran, the configuration without it
        (in words: ``version 3 (round 7): voters 1,2``), else ``None``.  A removed node
        takes no part any more; ``ringleader node`` stops it (docs/how-to/membership.md)."""
        return self._removed

    @property
    def running(self) -> bool:
        """Between :meth:`start` and :meth:`stop`."""
        return self._running

    @property
    def failure(self) -> RingleaderError | None:
        """Why the node stopped by itself, if it did: it could not keep its state (a
        :class:`~ringleader.StateError` naming the file); ``None`` otherwise."""
        return None if self._state is None else self._state.failure

    def _failed(self, why: str) -> RingleaderError:
        return self.failure or RingleaderError(why)

    def alive(self) -> Verdict:
        """``(ok, why)``: what ``/healthz`` answers (200 when ok, else 503): the node
        runs, and did not stop by itself; ``why`` is one line."""
        return alive(self.id, self._running, self.failure)

    def ready(self) -> Verdict:
        """``(ok, why)``: what ``/readyz`` answers: it knows a leader holding a lease,
        or is it (``ringleader/service/_health.py``); ``why`` is one line."""
        return ready(self.leadership(), self._running, self.failure, self._suspects)

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """``(host, port)`` the metrics are served on (``None`` without ``metrics``)."""
        return None if self._metrics is None else self._metrics.address

    def wait_for_leader(self, timeout: float | None = None) -> int:
        """Wait up to ``timeout`` s (``None``: for ever) until this node knows a leader
        (itself: once :attr:`is_leader` is true, its lease granted); return its id.
        Raises :class:`TimeoutError` when the time runs out, and
        :class:`~ringleader.TransportError` if the node is not running."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._decided:
            while True:
                leader = self.known_leader()
                if leader is not None:
                    return leader
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError(f"node {self.id}: no leader within {timeout} s")
                # Woken by the next event or publication (its own lease comes with a
                # heartbeat's answers, and is published).
                self._decided.wait(left)

    def known_leader(self) -> int | None:
        """What :meth:`wait_for_leader` waits for, now: the leader this node knows (itself
        once its lease is granted), or ``None``; raises as it does."""
        if self.failure is not None:
            raise self.failure
        if not self._running:
            raise TransportError(f"node {self.id} is not running")
        view = self.leadership()
        granting = view.leader == self.id and not view.is_leader
        return None if granting else view.leader

    def watch(self, wake: Callable[[], object]) -> Callable[[], None]:
        """Call ``wake()`` (on the node's threads: it must not wait) whenever what
        :meth:`known_leader` says may have changed; returns the function that stops it.
        For a waiter that cannot block a thread (:class:`~ringleader.AsyncNode`)."""
        with self._decided:
            self._watchers.append(wake)

        def unwatch() -> None:
            with self._decided:
                if wake in self._watchers:
                    self._watchers.remove(wake)

        return unwatch

    def status(self, timeout: float = 10.0) -> NodeStatus:
        """The node's view and counters (asked of its actor: waits while it is busy)."""
        status = self._ask(GetStatus(), timeout)
        assert isinstance(status, NodeStatus)
        return status

    def resign(self, to: int | None = None, *, timeout: float = 10.0) -> None:
        """Hand the leadership over, if this node leads: ``on_lost(epoch, "resigned")``
        at once, and the next node leads within about two heartbeats (the live node the
        algorithm would elect next: the largest ``(capacity, id)``).  Nothing happens on
        a node that does not lead.

        ``to``: hand over to that node; raises :class:`~ringleader.TransferRefused`
        saying why if this node does not lead, or that node is not a live member (it has
        not answered this leader's heartbeat within the lease).  Waits up to ``timeout``
        s for the node's answer."""
        if to is None:
            self._tell(Resign())
            return
        if isinstance(to, bool) or not isinstance(to, int):
            raise TypeError(f"to must be a node id (an int), not {to!r}")
        refused = self._ask(Resign(to), timeout)
        if refused is not None:
            raise TransferRefused(f"node {self.id} cannot hand over to node {to}: {refused}")

    async def changes(self) -> AsyncIterator[LeaderChange]:
        """Each change this node sees, in order, for ``async for`` in asyncio.

        Starts with the current view (a ``"leader"`` change) if the node has one; ends
        when the node stops.  Any number of consumers, in any event loops.
        """
        async for change in self._callbacks.changes():
            yield change

    # -- running ----------------------------------------------------------------------------

    def start(self) -> Node:
        """Bind, link, start the failure detector and join (or start) the election;
        returns the node.  The leader comes later: see :meth:`wait_for_leader`."""
        self.open()
        self.boot()
        return self

    def __enter__(self) -> Node:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def open(self) -> None:
        """The first half of :meth:`start` (for a supervisor): start the node's actor and
        threads, bind its address, start linking to its out-neighbours, serve metrics."""
        with self._lifecycle:
            if self._ref is not None:
                raise TransportError(f"node {self.id} was already started")
            if self._closing:
                raise TransportError(f"node {self.id} was stopped: make a new Node")
            try:
                self._open()
            except BaseException:
                self._close()
                raise

    def _open(self) -> None:
        config, node_id = self.config, self.id
        settings = self._settings
        state = None
        if not self._options.supervised:
            # Before the node sends anything: this life's number, counted durably.
            self._state = state = StateFile.open(
                config, node_id, fresh=self._options.fresh_state, founding=self._founding()
            )
            self.incarnation = state.incarnation
        floor = 0 if state is None else state.epoch  # (before the node can raise it)
        if floor:  # what its readers see until the actor's first word: the epoch it kept
            self._leadership.publish(None, floor, 0.0)
        member = node_member(config, node_id, self._options, settings, state)
        codec = node_codec(config, self._options)
        self._network = node_network(config, node_id, settings)
        if self._metrics_at is not None:
            from ._metrics import NodeMetrics  # noqa: PLC0415 -- the Prometheus client

            self._metrics = NodeMetrics(
                self._leadership,
                self._status_now,
                alive=self.alive,
                ready=self.ready,
                failed=lambda: self.failure is not None,
                name=config.cluster or f"{config.cluster_id:016x}",
            )
            self._metrics.serve(*self._metrics_at)
        self._callbacks.start()
        trace = self._trace
        _started.add(self)
        self._ref = _ServiceActor.start(
            member,
            network=self._network,
            codec=codec,
            incarnation=self.incarnation,
            events=self._on_event,
            trace=None if trace is None else trace.trace,
            leadership=self._leadership,
            misbehaving=Misbehaving(config.network) if config.network else None,
            identity=Identity(config.definition, first_hello=config.definition.suspect_after),
            durable=state,
        )
        _stop_them_at_exit()
        self._running = True
        bound = self._ask(Listen(self._bind))
        extra: dict[str, Any] = {}
        if self._advertised:  # peers dial another address than the one bound
            extra["bound"] = bound
        else:
            self.address = self._addresses[node_id] = bound
        address = self.address
        peers = {p: self._addresses[p] for p in config.wiring.out[node_id]}
        if not any(a.endswith(":*") for a in peers.values()):  # else known at link()
            self._ask(Connect(peers, 0.0, dict(self._addresses)))
        if self._metrics is not None:
            host, port = self._metrics.address or ("", 0)
            extra["metrics"] = f"{host}:{port}"
        if state is not None:
            extra["state"] = state.start
            extra["state_file"] = str(state.path)
            extra["epoch_floor"] = floor
            if state.start == NEW:
                log.info(
                    "node %s starts here for the first time: its state is kept in %s "
                    "[leader none, epoch %d]",
                    node_id,
                    state.path,
                    floor,
                )
        self._line("listening", address=address, **extra)

    def link(self, addresses: Mapping[int, str]) -> None:
        """For a supervisor that let its nodes pick their ports (see ``fresh``): every
        node's address, found once all were listening; the node links to its
        out-neighbours there (before anyone boots)."""
        self._addresses.update(addresses)
        peers = {p: self._addresses[p] for p in self.config.wiring.out[self.id]}
        self._ask(Connect(peers, 0.0, dict(self._addresses)))
        self._line("linked")

    def boot(self, wait: float = 0.0) -> None:
        """The second half of :meth:`start`: start the failure detector (after up to
        ``wait`` s for the links to connect); a node that is not ``fresh`` then joins or
        starts an election by itself."""
        out = self.config.wiring.out[self.id]
        unknown = sorted(p for p in out if self._addresses[p].endswith(":*"))
        if unknown:
            raise TransportError(
                f"node {self.id}: the addresses of nodes {unknown} are not known yet "
                "(their ports are left to them): link() gives them"
            )
        if wait > 0:
            peers = {p: self._addresses[p] for p in out}
            self._ask(Connect(peers, wait, dict(self._addresses)), timeout=wait + 10.0)
        self._tell(Boot())
        self._line("ready")

    def initiate(self) -> None:
        """Initiate an election (a ``fresh`` node; any other starts one by itself)."""
        self._tell(Start())

    def stop(self) -> None:
        """Stop the node: its actor, sockets, metrics server and callbacks thread (after
        the callbacks still waiting, and ``on_lost(epoch, "stopped")`` if it led: it hands
        the leadership over first, as :meth:`resign` does).  Safe to call twice, and from
        a callback (then it does not wait for that thread)."""
        if threading.current_thread() is self._callbacks.thread:
            # Another thread's stop() may hold the lock while it waits for this thread
            # (on_lost(epoch, "stopped") calling stop()): then that stop is enough.
            while not self._lifecycle.acquire(timeout=0.05):
                if self._closing:
                    return
            try:
                self._close()
            finally:
                self._lifecycle.release()
            return
        with self._lifecycle:
            self._close()

    def _close(self) -> None:
        self._closing = True
        _started.discard(self)
        ref, self._ref = self._ref, None
        if ref is not None:
            if self._options.steady and self._leadership.is_leader():
                ref.tell(Resign(reason=STOPPED, stopping=True))  # before its links close
            try:
                ref.stop(timeout=STOP_TIMEOUT)
            except pykka.Timeout:
                log.warning("node %s did not stop within %s s", self.id, STOP_TIMEOUT)
        self._running = False
        self._wake()
        if self._network is not None:
            self._network.close()
            self._network = None
        if self._trace is not None:
            self._trace.close()
            self._trace = None
        self._callbacks.stop(STOP_TIMEOUT)
        self._callbacks.end_changes()
        if self._metrics is not None:
            self._metrics.close()
        if self._state is not None:
            self._state.close()  # the lock; the state stays, and so does self.failure

    # -- for ringleader node ------------------------------------------------------------

    def event_line(self, event: str, **fields: Any) -> dict[str, Any]:
        """One of the node's own ``--json`` lines (``listening``, ``ready``, ``stopped``)."""
        return {
            "event": event,
            "node": self.id,
            "t": round(time.time(), 6),
            "mono": time.monotonic(),
            "incarnation": self.incarnation,
            **fields,
        }

    def status_line(self) -> dict[str, Any]:
        """The ``status`` line: :meth:`status` as a dict (and the trace flushed)."""
        status = status_dict(self.status())
        if self._trace is not None:  # a supervisor asks before it kills: lose no event
            self._trace.flush()
        return status

    def _line(self, event: str, **fields: Any) -> None:
        if self._emit is not None:
            self._emit(self.event_line(event, **fields))

    def _ask(self, message: object, timeout: float = 10.0) -> Any:
        ref = self._ref
        if ref is None:
            raise TransportError(f"node {self.id} is not running")
        return ref.ask(message, timeout=timeout)

    def _tell(self, message: object) -> None:
        ref = self._ref
        if ref is None:
            raise TransportError(f"node {self.id} is not running")
        ref.tell(message)

    def _status_now(self) -> NodeStatus | None:
        """The status for a scrape: ``None`` if the actor is gone or busy for 1 s."""
        try:
            return self.status(timeout=1.0)
        except (TransportError, pykka.ActorDeadError, pykka.Timeout):
            return None

    # -- events: on the actor's thread, then on the callbacks thread ----------------------

    def _on_event(self, event: NodeEvent) -> None:
        """Called on the actor's thread for every event: never waits for the service."""
        if self._emit is not None:
            self._emit_event(event)
        if self._metrics is not None:
            self._metrics.observe(event)
        if event.kind == "failed":  # it could not keep its state, and stopped
            self._running = False
        elif event.kind == "removed":
            self._removed = event.detail or "a configuration without it"
            self._wake()
        elif event.kind == "suspect" and event.subject is not None:
            self._suspects = self._suspects | {event.subject}
        elif event.kind == "recovered":
            self._suspects = self._suspects - {event.subject}
        if event.kind in ("state", "lost", "lease", "failed"):
            self._wake()
            self._callbacks.put(event)

    def _emit_event(self, event: NodeEvent) -> None:
        """``event``'s line; a line that changes who leads, or whether the lease is held,
        carries ``leads`` (this node's view just after it, see :func:`leads_dict`).  A
        lease regained in the epoch of the last ``lost`` comes after a ``leader`` line
        saying so, as any other lease comes after one: a reader that follows the
        ``leader`` lines alone never misses a leader.  (Not for a supervisor's node: its
        checks read each ``leader`` line as a change of state.)"""
        assert self._emit is not None
        kind = event.kind
        if kind not in ("state", "lease", "lost", "failed"):
            self._emit(event_dict(event))
            return
        leads = leads_dict(self.leadership())
        regained = kind == "lease" and self._lost_epoch == event.epoch
        if regained and not self._options.supervised:
            self._emit({**event_dict(replace(event, kind="state")), "leads": leads})
        self._lost_epoch = event.epoch if kind == "lost" else None
        self._emit({**event_dict(event), "leads": leads})

    def _wake(self) -> None:
        """Wake every :meth:`wait_for_leader`: what it waits on may have changed."""
        with self._decided:
            self._decided.notify_all()
            watchers = list(self._watchers)
        for wake in watchers:
            wake()
