"""Every node of a config as an actor in this process: :class:`LocalCluster`."""

from __future__ import annotations

import logging
import queue
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pykka

from ringleader.actors import Election, Member, NodeTrace, SafetyChecker, crash_policy
from ringleader.actors.faults import Misbehaving, Partition
from ringleader.actors.host import (
    Boot,
    Connect,
    Crash,
    GetStatus,
    Listen,
    NodeActor,
    NodeEvent,
    NodeStatus,
    Start,
    Tally,
    wire_kinds,
)
from ringleader.errors import SetupError, TransportError
from ringleader.reports import Report
from ringleader.topologies import Config, cluster_codec, run_secret
from ringleader.transport import Codec, Deadline, Network, open_network

from ._cluster import Progress, SetUpOnEnter, no_progress
from ._termination import wait_quiet

if TYPE_CHECKING:
    from ringleader.traces import RunTrace

__all__ = ["LocalCluster"]

log = logging.getLogger(__name__)

_REFRESH = 0.25  # s between progress updates while nobody decides


class LocalCluster(SetUpOnEnter):
    """Every node of ``config`` as a :class:`~ringleader.actors.host.NodeActor` in this process.

    Use it as a context manager: entering binds every mailbox and connects every link
    (and fails with :class:`~ringleader.errors.TransportError` if that cannot be done
    within the timeout); :meth:`elect` runs the election; leaving stops every actor and
    closes every socket, also after an error or Ctrl-C.  ``config.timeout`` bounds the
    whole run, set-up included.
    """

    def __init__(
        self,
        config: Config,
        *,
        progress: Progress | None = None,
        algorithm: type[Election] | None = None,
        events: Callable[[NodeEvent], None] | None = None,
        trace: RunTrace | None = None,
    ) -> None:
        self.config = config
        #: Where the nodes record what they do, when the run is traced.
        self.trace = trace
        self._traces: dict[int, NodeTrace] = {}  # each node's current life's
        self.algorithm = algorithm or config.algorithm_class
        self._policy = crash_policy(self.algorithm)
        self._progress = progress or no_progress
        self._tally = Tally(len(config.nodes))
        #: Every state the run passes through, checked (see :meth:`elect`).
        self.safety = SafetyChecker({spec.id: spec.candidate for spec in config.nodes})
        self._slots = {spec.id: slot for slot, spec in enumerate(config.nodes)}
        self._deadline = Deadline(config.timeout)
        self._events: queue.SimpleQueue[NodeEvent] = queue.SimpleQueue()
        self._sink = events or self._events.put
        self._views = {v.id: v for v in config.wiring.views(config.settings)}
        self._incarnations: dict[int, int] = {}
        self._network: Network | None = None
        self._refs: dict[int, pykka.ActorRef[NodeActor]] = {}
        self._codec: Codec | None = None
        #: Each node's mailbox address, once the cluster is set up.
        self.addresses: dict[int, str] = {}
        self.setup_s = 0.0
        self._network_began: float | None = None  # when the nodes were booted

    def _set_up(self) -> None:
        began = time.monotonic()
        config = self.config
        wiring = config.wiring
        algorithm = self.algorithm
        self._codec = cluster_codec(
            config, run_secret(config), secrets.randbits(64), wire_kinds(algorithm)
        )
        heartbeat = config.settings.get("heartbeat") if config.detector else None
        self._network = open_network(
            config.transport,
            nodes=config.n,
            links=wiring.links,
            send_timeout=heartbeat,
            curve=config.curve_keys([n.id for n in config.nodes]),
        )
        initiators = set(config.initiators)
        for view in self._views.values():
            self._refs[view.id] = self._start_node(
                Member(algorithm, view, initiator=view.id in initiators, policy=self._policy),
                incarnation=1,
            )
        bound = self._ask_all([Listen(spec.address) for spec in config.nodes])
        # Peers dial a node where it is advertised, if that is not where it is bound.
        self.addresses = addresses = {
            spec.id: spec.advertise or listened
            for spec, listened in zip(config.nodes, bound, strict=True)
        }
        self._progress("connecting", 0, config.n)
        links = {node: {peer: addresses[peer] for peer in wiring.out[node]} for node in self._refs}
        unreachable = self._ask_all(
            [Connect(links[node], self._deadline.left(), addresses) for node in self._refs]
        )
        for node, missing in zip(self._refs, unreachable, strict=True):
            if missing:
                peer = missing[0]
                raise SetupError(
                    node,
                    f"could not connect to node {peer} at {addresses[peer]} "
                    f"within the {config.timeout:g} s timeout",
                )
        self._progress("connecting", config.n, config.n)
        self._network_began = time.monotonic()
        for ref in self._refs.values():
            ref.tell(Boot())
        self._trace_network()
        self.setup_s = time.monotonic() - began

    def _misbehaving(self) -> Misbehaving | None:
        """A node's view of the misbehaving network, if ``[[faults]]`` has one (its
        clock started when the nodes were booted, also for a node restarted later)."""
        if not self.config.network:
            return None
        network = Misbehaving(self.config.network)
        network.began = self._network_began
        return network

    def _trace_network(self) -> None:
        """Partitions in the trace: when the network splits and heals."""
        if self.trace is None or self._network_began is None:
            return
        first = min(spec.id for spec in self.config.nodes)
        for entry in self.config.network:
            if isinstance(entry, Partition):
                groups = [sorted(g) for g in entry.groups]
                self.trace.network(self._network_began + entry.start, first, "partition", groups)
                if entry.end != float("inf"):
                    self.trace.network(self._network_began + entry.end, first, "heal", groups)

    def _start_node(self, member: Member, incarnation: int) -> pykka.ActorRef[NodeActor]:
        self._incarnations[member.id] = incarnation
        trace = None
        if self.trace is not None:  # a restarted node records its restart when it listens
            trace = self._traces[member.id] = self.trace.node(member.id)
        return NodeActor.start(
            member,
            network=self.network,
            codec=self.codec,
            incarnation=incarnation,
            events=self._sink,
            trace=trace,
            tally=(self._tally, self._slots[member.id]),
            misbehaving=self._misbehaving(),
        )

    @property
    def live(self) -> list[int]:
        """The nodes running now."""
        return list(self._refs)

    def incarnation(self, node: int) -> int:
        return self._incarnations[node]

    def start_initiators(self) -> None:
        for node in self.config.initiators:
            self._refs[node].tell(Start())

    def crash(self, node: int) -> NodeStatus:
        """Crash ``node`` (see :class:`~ringleader.actors.host.Crash`); return its status
        just before."""
        ref = self._refs.pop(node)
        status = ref.ask(GetStatus(), timeout=self._deadline.left() + 1.0)
        assert isinstance(status, NodeStatus)
        ref.tell(Crash())
        stopped = ref.actor_stopped.wait(5.0)
        if stopped and node in self._traces:  # its actor has stopped: nobody records there
            self._traces[node].crash()
        return status

    def restart(self, node: int) -> None:
        """Bring ``node`` back at its address, as a new incarnation that knows nothing."""
        if node in self._refs:
            raise TransportError(f"node {node} is running")
        incarnation = self._incarnations[node] + 1
        member = Member(self.algorithm, self._views[node], recovering=True, policy=self._policy)
        ref = self._start_node(member, incarnation)
        self._refs[node] = ref
        # Links first, so that the node can answer the first frame its mailbox admits.
        peers = {peer: self.addresses[peer] for peer in self.config.wiring.out[node]}
        ref.ask(Connect(peers, 0.3, self.addresses), timeout=5.0)
        address = self.addresses[node]
        deadline = Deadline(min(2.0, self._deadline.left()))
        while True:  # the dead life's endpoint may take a moment to be released
            try:
                ref.ask(Listen(address), timeout=5.0)
                break
            except TransportError:
                if deadline.expired():
                    raise
                time.sleep(0.01)
        ref.tell(Boot())

    @property
    def network(self) -> Network:
        """The transport the nodes are on (e.g. to connect a probe of your own)."""
        if self._network is None:
            raise TransportError("the cluster is not set up")
        return self._network

    @property
    def codec(self) -> Codec:
        """The cluster's codec: its secret, cluster id and message kinds."""
        if self._codec is None:
            raise TransportError("the cluster is not set up")
        return self._codec

    def _ask_all(self, messages: list[object]) -> list:  # type: ignore[type-arg]
        futures = [
            ref.ask(message, block=False)
            for ref, message in zip(self._refs.values(), messages, strict=True)
        ]
        try:
            return list(pykka.get_all(futures, timeout=self._deadline.left() + 1.0))
        except pykka.Timeout:
            raise TransportError(
                f"the nodes did not answer within the {self.config.timeout:g} s timeout"
            ) from None

    def statuses(self) -> list[NodeStatus]:
        """Every node's status, asked of all nodes at once."""
        return self._ask_all([GetStatus()] * len(self._refs))

    def elect(self) -> Report:
        """Start the initiators, wait for the election to end, and report it."""
        config = self.config
        began = time.monotonic()
        self.safety.began = began
        self.start_initiators()
        log.info("electing: %d nodes, %d initiators", config.n, len(config.initiators))
        quiet = self._wait_quiet() if self._wait_decided() else None
        finished = quiet is not None
        statuses = quiet if quiet is not None else self.statuses()  # the last sweep is final
        while True:  # the state changes since every node decided: checked too
            try:
                self._check(self._events.get_nowait())
            except queue.Empty:
                break
        self.safety.settle()
        if finished:
            self.safety.check_final({s.id: s.elected for s in statuses}, [s.id for s in statuses])
        self.trace_violations(self.safety)
        ends = [s.last_activity for s in statuses if s.last_activity is not None]
        return Report.from_statuses(
            statuses,
            expected_leader=max(config.wiring.candidates).id,
            topology=config.topology,
            algorithm=self.algorithm.name,
            transport=config.transport,
            bound=self.algorithm.bound(config.wiring, config.initiators),
            assumption=self.algorithm.assumption,
            elapsed_s=(max(ends) - began) if ends else None,
            setup_s=self.setup_s,
            finished=finished,
            safety=self.safety,
        )

    def trace_violations(self, safety: SafetyChecker) -> None:
        """Put the checks the run broke in its trace, where each was broken."""
        if self.trace is not None:
            for violation in safety.violations:
                self.trace.violation(safety.began, violation)

    def _check(self, event: NodeEvent) -> None:
        """Every state change makes a new state of the run: the checker sees it."""
        if event.kind == "state":  # the nodes' threads tell it out of order: settled later
            self.safety.later(
                event.node, event.incarnation, event.epoch, event.state, event.elected, event.at
            )

    def _wait_decided(self) -> bool:
        """Until every node has decided; the progress shows them and the messages sent,
        refreshed at least every ``_REFRESH`` s (a long LeLann run decides only at the end)."""
        n = self.config.n
        decided: set[int] = set()
        tally = self._tally
        self._progress("electing", 0, n, 0)
        while len(decided) < n:
            left = self._deadline.left()
            if left == 0:
                return False
            try:
                event = self._events.get(timeout=min(left, _REFRESH))
            except queue.Empty:
                self._progress("electing", len(decided), n, tally.total())
                continue
            self._check(event)
            if event.state != "undecided":
                decided.add(event.node)
                self._progress("electing", len(decided), n, tally.total())
        return True

    def _wait_quiet(self) -> list[NodeStatus] | None:
        """Every node's status once nothing moves (``None``: not before the timeout)."""
        self._progress("settling", 0, 1)
        quiet = wait_quiet(self.statuses, self.config.initiators, self._deadline)
        if quiet is not None:
            self._progress("settling", 1, 1)
        return quiet

    def close(self) -> None:
        """Stop every node and close the network; safe to call more than once."""
        futures = [ref.stop(block=False) for ref in self._refs.values()]
        self._refs.clear()
        try:
            pykka.get_all(futures, timeout=10.0)
        except pykka.Timeout:
            log.warning("some nodes did not stop within 10 s")
        if self._network is not None:
            self._network.close()
            self._network = None
