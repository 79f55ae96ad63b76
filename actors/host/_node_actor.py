"""The node: a Pykka actor that hosts one sans-IO election and one end of the wire.

Its inbox (a :class:`~ringleader.actors.host.Inbox`) holds control messages from whoever runs the
cluster (``Listen``, ``Connect``, ``Start``, ``GetStatus``) and also waits on the node's
transport mailbox, so the actor's own thread receives every frame, as ``bytes``, with no
receiver thread in between.  A frame is opened by the node's
:class:`~ringleader.transport.Session` (signature, addressing, replay checks, then
unpickling), handed
to the algorithm, and whatever the algorithm returns is sealed and sent on the node's
links.  Nodes talk to each other only through frames: election traffic never uses Pykka
``ask``, so two nodes can never wait on each other.

Nothing a frame contains can stop the actor: a frame that fails a check is dropped and
counted, and an exception from the algorithm itself is logged with its traceback and
counted, and the node carries on.

With a misbehaving network (``[[faults]]``: :mod:`ringleader.actors.faults`) the node
asks it about each message it sends: it drops the ones the network loses, holds the
late ones on its own timers (``network:held:<n>``) and sends them then, sends a copy
of the ones it duplicates, and stands still for its own pauses (``network:pause:<n>``,
as :class:`Pause` does).  Without one none of this code runs: the send and timer
methods are only swapped for these when the node is given a network to misbehave.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import pykka

from ringleader.actors.core import Action, CancelTimer, NodeState, NodeView, Notice, Send, SetTimer
from ringleader.actors.crashes import DETECTOR_KINDS, HEARTBEAT, STEADY_KINDS, SUSPECT, Member
from ringleader.actors.faults import Misbehaving
from ringleader.actors.tracing import NodeTrace
from ringleader.transport import (
    Codec,
    FrameRejected,
    Links,
    Mailbox,
    Network,
    Session,
    TransportError,
)

from ._control import Boot, Connect, Crash, GetStatus, Listen, Pause, PeerDead, Resign, Start
from ._durable import Durable
from ._identity import HELLO, ClusterNotice, Identity
from ._inbox import Inbox, TimerFired
from ._leadership import Leadership
from ._queries import (
    HOST_KINDS,
    OPERATOR,
    StatusAnswer,
    StatusQuery,
    TransferAnswer,
    TransferQuery,
)
from ._signals import leave_signals_to_main
from ._status import NodeEvent, NodeStatus
from ._tally import Tally

__all__ = ["NodeActor"]

log = logging.getLogger(__name__)

#: Election rounds whose message counts a node keeps (``NodeStatus.sent_by_epoch``).
EPOCHS_KEPT = 256
#: Links to reply addresses a node keeps open: operators' (``ringleader status``) and
#: nodes' of other clusters (their notices).
REPLY_LINKS = 4
#: Addresses whose frames failing the signature a node counts apart; the rest together.
ADDRESSES_KEPT = 64
#: Where a frame came from when the transport does not say.
UNKNOWN_ADDRESS = "an unknown address"
OTHER_ADDRESSES = "other addresses"


EventSink = Callable[[NodeEvent], None]

#: Frames that are not election messages (neither counted nor waited on): the failure
#: detector's and the steady rules'.
CONTROL_KINDS = DETECTOR_KINDS | STEADY_KINDS
#: The host's own timer: the end of this leader's lease on its clock (steady rules).
LEASE_END = "host:lease_end"

#: Clusters whose senders' set is kept, shared by their nodes (see _senders).
SENDER_SETS_KEPT = 8
_sender_sets: dict[int, tuple[tuple[int, ...], frozenset[int]]] = {}
_sender_sets_lock = threading.Lock()


def _senders(view: NodeView) -> frozenset[int]:
    """Who may send to the node of ``view``: any member of the cluster (to repair a
    ring), else its in-neighbours; and the operator.

    The views of one cluster share one ``members`` tuple, so its nodes share one set:
    a set per node would hold n² entries (1.6 GB for 5,000 nodes).  Kept by the tuple's
    identity, the tuple held alongside so that its id cannot be reused meanwhile.
    """
    if not view.members:
        return frozenset((*view.inbound, OPERATOR))
    key = id(view.members)
    with _sender_sets_lock:
        kept = _sender_sets.get(key)
        if kept is None or kept[0] is not view.members:
            if len(_sender_sets) >= SENDER_SETS_KEPT:
                del _sender_sets[next(iter(_sender_sets))]
            kept = _sender_sets[key] = (view.members, frozenset((*view.members, OPERATOR)))
    return kept[1]


class NodeActor(pykka.ThreadingActor):
    """Hosts ``member`` (one node's election and crash handling) on ``network``,
    signing with ``codec``; ``misbehaving``: the ``[[faults]]`` network entries it
    carries out on its own sends (see the module's docs); ``durable``: where what must
    survive the node is kept (see ``_durable.py``), if anywhere."""

    def __init__(
        self,
        member: Member,
        *,
        network: Network,
        codec: Codec,
        incarnation: int = 1,
        events: EventSink | None = None,
        trace: NodeTrace | None = None,
        tally: tuple[Tally, int] | None = None,
        leadership: Leadership | None = None,
        misbehaving: Misbehaving | None = None,
        identity: Identity | None = None,
        durable: Durable | None = None,
    ) -> None:
        super().__init__()
        self.member = member
        self._durable = durable
        self.trace = trace
        # Where this node counts its election messages for a progress display, if asked.
        self._tally: Tally | None = None if tally is None else tally[0]
        self._slot = 0 if tally is None else tally[1]
        self.id = member.id
        self._network = network
        view = member.view
        self._session = Session(codec, self.id, incarnation, peers=_senders(view))
        self._directory: Mapping[int, str] = {}
        self._sent_by_epoch: Counter[int] = Counter()
        self._events = events
        self._links: Links | None = None
        self._mailbox: Mailbox | None = None
        self._sent: Counter[str] = Counter()
        self._lost_sends: Counter[str] = Counter()  # election messages the links would not take
        self._received = 0
        self._rejected: Counter[str] = Counter()
        self._bad_signatures: Counter[str] = Counter()  # address → frames
        self._send_failures = 0
        self._errors = 0
        self._last_activity: float | None = None
        # With the failure detector on: when each peer was last heard from, and how
        # recently that must be for a send to it to wait for room (see _send).
        self._heard_at: dict[int, float] = {}
        self._fresh = None if member.settings is None else 2 * member.settings.heartbeat
        self._reply_links: dict[str, Links] = {}  # reply address → link, latest last
        # A service node's cluster identity: it tells nodes of other clusters how they
        # differ (``_identity.py``); ``None`` in a run whose nodes share one process.
        self._identity = identity
        self._reported: tuple[NodeState, int | None, int] = (
            member.state,
            member.elected,
            member.epoch,
        )
        # The lease (see _lease_init): when each numbered heartbeat left, and until when
        # this node may count itself leader.
        self._lease_init()
        # Read by other threads (``ringleader.Node.is_leader``) without asking this actor.
        self.leadership = leadership
        self._publish()
        # A misbehaving network (see the module's docs): only then are sends and timers
        # routed through it.
        self._misbehaving = misbehaving or None
        if self._misbehaving is not None:
            self._network_init()

    def __str__(self) -> str:
        return f"node {self.id}"

    # -- Pykka hooks ---------------------------------------------------------------

    actor_inbox: Inbox
    _beat_due: float | None  # when the next heartbeat is due (see _lease_init)
    _leased_epoch: int | None
    _lost_epoch: int | None
    _previous: tuple[int, float] | None
    _published_at: float

    @staticmethod
    def _create_actor_inbox() -> Inbox:
        return Inbox()

    def on_receive(self, message: Any) -> Any:  # noqa: PLR0911, PLR0912 -- a dispatcher
        if self._beat_due is not None and self._check_stall(message):
            return None
        if type(message) is bytes:  # a frame from the mailbox (or anyone: it is checked)
            try:  # (_guarded, written out: this is every hop)
                self._inbound(message)
            except Exception:  # noqa: BLE001 -- logged with its traceback by _failed
                self._failed()
            return None
        if type(message) is TimerFired:
            self._guarded(self._timer, message.name)
            return None
        if isinstance(message, Start):
            self._guarded(self._start)
            return None
        if isinstance(message, Boot):
            self._guarded(self._boot)
            return None
        if isinstance(message, Crash):
            self._crash()
            return None
        if isinstance(message, Resign):
            return self._resign(message)
        if isinstance(message, Pause):
            self._pause(message.seconds)
            return None
        if isinstance(message, GetStatus):
            return self.status()
        if isinstance(message, PeerDead):
            self._guarded(self._peer_dead, message.node)
            return None
        if isinstance(message, Listen):
            return self._listen(message.address)
        if isinstance(message, Connect):
            return self._connect(message.peers, message.timeout, message.directory)
        log.warning("%s ignored an unexpected %r", self, message)
        return None

    def on_start(self) -> None:
        leave_signals_to_main()

    def on_stop(self) -> None:
        if self.leadership is not None:  # a stopped node leads nothing
            self.leadership.publish(None, self.member.epoch, 0.0)
        for links in self._reply_links.values():
            links.close(abrupt=True)
        self._reply_links.clear()
        if self._links is not None:
            self._links.close()
            self._links = None
        if self._mailbox is not None:
            self.actor_inbox.detach()
            self._mailbox.close()
            self._mailbox = None

    # -- control --------------------------------------------------------------------

    def _listen(self, address: str | None) -> str:
        if self._mailbox is not None:
            raise TransportError(f"{self} is already listening at {self._mailbox.address}")
        if self.trace is not None and self.member.recovering:
            self.trace.restart()  # back: from now on frames reach it
        self._mailbox = self._network.listen(self.id, address)
        self._mailbox.on_reject = self._reject  # CURVE: frames from the wrong key
        self.actor_inbox.attach(self._mailbox)
        return self._mailbox.address

    def _connect(
        self, peers: Mapping[int, str], timeout: float, directory: Mapping[int, str] | None
    ) -> list[int]:
        if self._links is not None:
            self._links.close()
        self._directory = directory or peers
        self._links = self._network.connect(peers, node=self.id)
        settings = self.member.settings
        if settings is not None and settings.fast_failover:
            self._links.on_refused(self._refused)  # tcp, ipc: proof of death
        return self._links.wait_ready(timeout)

    def _refused(self, peer: int) -> None:
        """From the network's monitor thread: ``peer``'s connection was refused."""
        with contextlib.suppress(pykka.ActorDeadError):  # this node has stopped meanwhile
            self.actor_ref.tell(PeerDead(peer))

    def _peer_dead(self, peer: int) -> None:
        self._after(self.member.peer_dead(peer))

    def _start(self) -> None:
        self._after(self.member.handle_start())

    def _boot(self) -> None:
        if self._misbehaving is not None:
            self._network_boot()
        self._after(self.member.handle_boot())
        if self._identity is not None:  # the first notices once peers could have answered
            self.actor_inbox.schedule(HELLO, self._identity.hello(time.monotonic())[1])

    def _crash(self) -> None:
        log.info("%s crashes", self)
        if self._links is not None:
            self._links.close(abrupt=True)
            self._links = None
        if self._mailbox is not None:
            self.actor_inbox.detach()
            self._mailbox.close()
            self._mailbox = None
        self.stop()

    def status(self) -> NodeStatus:
        return NodeStatus(
            id=self.id,
            capacity=self.member.view.capacity,
            state=str(self.member.state),
            elected=self.member.elected,
            epoch=self.member.epoch,
            incarnation=self._session.incarnation,
            address=self._mailbox.address if self._mailbox else None,
            sent=dict(self._sent),
            lost=dict(self._lost_sends),
            received=self._received,
            rejected=self._rejections(),
            send_failures=self._send_failures,
            errors=self._errors,
            last_activity=self._last_activity,
            started=self.member.started,
            timers=self.actor_inbox.timers,
            sent_by_epoch=dict(self._sent_by_epoch),
            bad_signatures=dict(self._bad_signatures),
            other_clusters={} if self._identity is None else dict(self._identity.others),
        )

    def _rejections(self) -> dict[str, int]:
        rejected = dict(self._rejected)
        if self.member.stale:
            rejected["stale_epoch"] = self.member.stale
        return rejected

    # -- the message path -------------------------------------------------------------

    def _guarded(self, handler: Callable[..., None], *args: Any) -> None:
        try:
            handler(*args)
        except Exception:  # noqa: BLE001 -- logged with its traceback by _failed
            self._failed()

    def _failed(self) -> None:
        """Count and log (with its traceback) the exception being handled."""
        self._errors += 1
        log.exception("%s: error while handling a message; the node carries on", self)

    def _inbound(self, frame: bytes) -> None:
        try:
            header, message = self._session.open(frame)
        except FrameRejected as rejected:
            self._reject(rejected, self._mailbox.sender() if self._mailbox else None)
            return
        sender, epoch = header.sender, header.epoch
        if sender == OPERATOR or header.kind in HOST_KINDS:
            self._operator(sender, header.incarnation, message)
            return
        # Admitted: written by a cluster member for this node, in order, never seen
        # before.  Counted as received even if the algorithm drops it for a stale epoch,
        # so that sent and received frames balance once the cluster is quiet.
        self._received += 1
        if self._fresh is not None:
            self._heard_at[sender] = time.monotonic()
        if self.trace is not None:
            self.trace.received(sender, message, epoch, header.incarnation, header.seq)
        self._after(self.member.handle_message(sender, message, epoch))

    def _operator(self, sender: int, incarnation: int, message: object) -> None:
        """Answer an operator's :class:`StatusQuery` or :class:`TransferQuery` on a link
        of its own.

        Only the operator may ask, and it may only ask; neither the question nor the
        answer counts as election traffic.
        """
        if sender != OPERATOR and type(message) is ClusterNotice:
            return  # of this very cluster: a peer that has not heard from this node yet
        answer: StatusAnswer | TransferAnswer
        if sender == OPERATOR and type(message) is StatusQuery:
            answer = StatusAnswer(self.status())
        elif sender == OPERATOR and type(message) is TransferQuery:
            answer = self._transfer(message.to)
        else:
            what = f"{type(message).__name__} from node {sender}"
            self._reject(FrameRejected("unknown_sender", what, authentic=True))
            return
        frame = self._session.seal(
            OPERATOR, answer.kind, self.member.epoch, answer, to_incarnation=incarnation
        )
        links = self._reply_link(OPERATOR, message.reply_to)
        # Never wait: a link still connecting drops the answer, and the operator, who
        # asks again until answered, gets the next one over the same, connected link.
        if links is not None and not links.send(OPERATOR, frame, wait=False):
            log.debug("%s: status answer to %s not sent yet", self, message.reply_to)

    def _reply_link(self, peer: int, address: str) -> Links | None:
        """A link to ``peer`` at ``address``, outside the cluster's directory (an
        operator's reply address, a node of another cluster), kept for the next time."""
        links = self._reply_links.pop(address, None)
        if links is None:
            try:
                links = self._network.connect({peer: address}, node=self.id)
            except TransportError as exc:
                log.info("%s cannot answer %s: %s", self, address, exc)
                return None
        # Most recent last; the oldest link goes when there are too many.
        self._reply_links[address] = links
        while len(self._reply_links) > REPLY_LINKS:
            self._reply_links.pop(next(iter(self._reply_links))).close(abrupt=True)
        return links

    def _transfer(self, to: int) -> TransferAnswer:
        """An operator's ``ringleader transfer``: hand over to ``to`` if this node leads."""
        member = self.member
        steady = member.steady
        if (steady is not None and steady.handed_to == to) or (
            member.state is not NodeState.UNDECIDED and member.elected == to
        ):
            refused = None  # a question asked again: it has handed over already
        else:
            refused = self._resign(Resign(to))
        leader = None if member.state is NodeState.UNDECIDED else member.elected
        return TransferAnswer(refused, leader, member.epoch)

    def _reject(self, rejected: FrameRejected, address: str | None = None) -> None:
        reason = rejected.reason
        self._rejected[reason] += 1
        if reason == "wrong_cluster" and self._identity is not None:
            self._guarded(self._other_cluster, rejected)
            if self._identity.explained(rejected.header):
                return  # its difference was named: counted, not reported frame by frame
        if reason == "bad_signature":
            address = self._bad_signature(address or UNKNOWN_ADDRESS)
        elif reason == "incompatible" and self._rejected[reason] == 1:
            log.warning("%s refuses a peer: %s", self, rejected.detail)
        else:
            log.debug("%s dropped a frame: %s", self, rejected)
        if self._events is not None:
            self._events(self._event("rejected", detail=str(rejected), address=address))

    def _bad_signature(self, address: str) -> str:
        """Count a frame that failed the signature under its address (returned: past
        :data:`ADDRESSES_KEPT` addresses, a new one counts as :data:`OTHER_ADDRESSES`);
        warn once per address: a peer that keeps sending them likely has another secret."""
        counts = self._bad_signatures
        if address not in counts and len(counts) >= ADDRESSES_KEPT:
            address = OTHER_ADDRESSES
        counts[address] += 1
        if counts[address] == 1:
            log.warning(
                "%s: frames from %s fail the signature: does its secret differ?", self, address
            )
        return address

    # -- cluster identity (``_identity.py``) ------------------------------------------------

    def _other_cluster(self, rejected: FrameRejected) -> None:
        """An authentic frame of another cluster: if it is that node's notice, name the
        difference (once per peer and cluster); answer it with this node's (once)."""
        identity, header = self._identity, rejected.header
        if identity is None or header is None:
            return
        peer = header.sender
        notice = self._session.codec.load_foreign(header, rejected.payload, ClusterNotice.kind)
        if type(notice) is ClusterNotice:
            heard = identity.hear(peer, header.cluster, notice.definition)
            if heard is not None:
                line, found = heard
                log.warning(
                    "%s: %s (at %s); its frames are dropped: give every node the same config",
                    self,
                    line,
                    notice.reply_to,
                )
                if self._events is not None:
                    event = self._event("other_cluster", peer, line, address=notice.reply_to)
                    self._events(dataclasses.replace(event, differences=tuple(found)))
            address: str | None = notice.reply_to
        else:
            address = self._directory.get(peer)
        if address and identity.answer(peer, header.cluster):
            self._notify(peer, address)

    def _hello(self) -> None:
        """This node's notice to each peer it links to and has not heard from since the
        last time (it may run another cluster, and not know this node); then again later,
        twice as late each time."""
        assert self._identity is not None
        since, delay = self._identity.hello(time.monotonic())
        if self._links is not None:
            for peer in self._directory:
                if peer != self.id and peer in self._links and self._heard_at.get(peer, 0) < since:
                    self._notify(peer, None)
        self.actor_inbox.schedule(HELLO, delay)

    def _notify(self, peer: int, address: str | None) -> None:
        """Send this node's notice to ``peer``: on its link (``address`` ``None``, or the
        address this node links it at: never waiting), else on a reply link to
        ``address`` (waiting for it to connect, up to the send timeout)."""
        identity, mailbox, links = self._identity, self._mailbox, self._links
        if identity is None or mailbox is None:
            return
        reply_to = self._directory.get(self.id) or mailbox.address
        notice = identity.notice(reply_to)
        frame = self._session.seal(peer, notice.kind, self.member.epoch, notice)
        if links is not None and peer in links and address in (None, self._directory.get(peer)):
            links.send(peer, frame, wait=False)
        elif address is not None:
            reply = self._reply_link(peer, address)
            if reply is not None:
                reply.send(peer, frame)

    def _timer(self, name: str) -> None:
        if name == HELLO:
            self._hello()
            return
        if name == LEASE_END:
            if time.monotonic() >= self._lease_until > 0:
                self._after(self.member.lease_ran_out())
            return
        if self.trace is not None:
            self.trace.timer(name)
        self._after(self.member.handle_timer(name))

    def _after(self, actions: list[Action]) -> None:
        """Do what the algorithm asked for, once a newly seen epoch is durable (if this
        node keeps its state): before any send, acknowledgement or lease of it."""
        durable = self._durable
        member = self.member
        if (
            durable is not None
            and (member.seen > durable.epoch or member.acknowledged != durable.acknowledged)
            and not self._keep(durable)
        ):
            return
        self._carry_out(actions)

    def _carry_out(self, actions: list[Action]) -> None:
        """Do what the algorithm asked for and report a change of state."""
        election = self.member.election
        self._last_activity = at = time.monotonic()
        events = self._events
        now = (election.state, election.elected, election.epoch)
        changed = now != self._reported
        held, leased = self._lease_until, self._lease is not None and self._leased(at, changed)
        # The trace shows a change of state after what set it off (a suspicion) and before
        # the sends (a handler decides, or enters a round, then sends).
        untraced = changed and self.trace is not None
        for action in actions:
            if untraced and type(action) is not Notice:
                untraced = self._trace_state()
            if type(action) is Send:
                self._send(action)
            elif type(action) is SetTimer:
                self.actor_inbox.schedule(action.name, action.delay)
                if action.name == HEARTBEAT:
                    self._beat_due = self._last_activity + action.delay
            elif type(action) is CancelTimer:
                self.actor_inbox.cancel(action.name)
            elif type(action) is Notice:
                log.info("%s: %s %s %s", self, action.kind, action.node, action.detail)
                if self.trace is not None and action.kind == "suspect":
                    self.trace.suspect(action.node, action.epoch)  # type: ignore[arg-type]
                if events is not None:
                    events(self._event(action.kind, action.node, action.detail, action.epoch))
        if untraced:
            self._trace_state()
        self._report(now if changed else None, held, at)
        if leased and events is not None and self._lease_until > at:
            self._leasing(at)

    def _keep(self, durable: Durable) -> bool:
        """Make the member's newest epoch and acknowledged round durable; if they cannot
        be, the node must not act on them: report ``failed`` and stop as a crash would,
        and return False."""
        try:
            durable.save(self.member.seen, self.member.acknowledged)
        except Exception as exc:  # noqa: BLE001 -- whatever it is, the node cannot go on
            log.error("%s stops: it cannot keep its state: %s", self, exc)
            if self.leadership is not None:  # it leads nothing from now on
                self.leadership.publish(None, self.member.epoch, 0.0)
            if self._events is not None:
                self._events(self._event("failed", detail=str(exc)))
            self._crash()
            return False
        return True

    def _report(
        self, changed: tuple[NodeState, int | None, int] | None, held: float, at: float
    ) -> None:
        """Report a change of state (``changed``: the new one) or of leadership (``held``:
        the end of the lease before)."""
        member = self.member
        steady = member.steady
        if steady is not None and steady.handed_over_by is not None:
            self._gone(steady.handed_over_by, at)  # its lease ended before it said so
            steady.handed_over_by = None
        if changed is not None:
            self._changed(changed, held)
        elif held > 0 and self._lease_until == 0 and steady is not None:
            # Steady rules: the lease ran out (or the node stood still), the round goes on.
            self._lost(member.epoch, member.demoted or "lease expired", held)
            member.demoted = None

    def _changed(self, now: tuple[NodeState, int | None, int], held: float) -> None:
        """Report a change of state (``held``: the end of the lease before it)."""
        member, events = self.member, self._events
        was = self._reported
        self._reported = now
        if self._lease is None:
            self._publish()
        reason = member.demoted or "superseded"
        member.demoted = None
        if was[0] is NodeState.NOT_LEADER and was[1] is not None and now[1] != was[1]:
            self._gone(was[1], self._heard_at.get(was[1], math.inf) + self._lease_s)
        if now[0] is NodeState.NOT_LEADER:
            self._previous = None  # another leads: the failover is its to measure
        if was[0] is NodeState.LEADER and (now[0] is not NodeState.LEADER or now[2] != was[2]):
            # Its leadership ended when this was published, or when its lease ran out if
            # that was earlier (a pause ends it then, not when the node wakes).
            self._lost(was[2], reason, held)
        if events is not None:
            events(self._event("state"))

    def _lost(self, epoch: int, reason: str, held: float) -> None:
        """A ``lost`` event for ``epoch`` (once), at the end of its lease (``held``) if
        that came before the moment its end was published."""
        if self._lost_epoch == epoch:
            return
        self._lost_epoch = epoch
        self._leased_epoch = None  # a lease regained in this epoch is reported again
        published = self._published_at
        end = min(published, held) if held > 0 else published  # (0: it never held a lease)
        self._gone(self.id, end)
        if self._events is not None:
            self._events(self._event("lost", detail=reason, epoch=epoch, at=end))

    def _gone(self, leader: int, end: float) -> None:
        """The leadership of ``leader`` ended at ``end`` (as far as this node can tell):
        the start of the failover this node measures if it leads next."""
        if self._previous is None or self._previous[0] != leader:
            self._previous = (leader, min(end, time.monotonic()))

    def _leasing(self, at: float) -> None:
        """A ``lease`` event, at ``at`` (before its publication), once per epoch led;
        ``since``: when the leadership before it ended (this node's own, or the one it
        followed: its last heartbeat plus the lease, or when it handed over)."""
        epoch = self.member.epoch
        if self._leased_epoch != epoch and self._events is not None:
            self._leased_epoch = epoch
            self._lost_epoch = None
            previous, self._previous = self._previous, None
            since = None if previous is None else min(previous[1], at)
            self._events(self._event("lease", at=at, since=since))

    # -- the lease and the node's own stalls ---------------------------------------------

    def _lease_init(self) -> None:
        member = self.member
        self._lease = member.lease
        self._beats: dict[int, float] = {}  # heartbeat number → a moment before it left
        self._beat_seq = 0  # the last heartbeat number recorded
        self._lease_until = 0.0 if self._lease is not None else math.inf
        self._lease_s = 0.0 if self._lease is None else self._lease.settings.lease
        self._leased_epoch = None  # the last epoch a "lease" event was for
        self._lost_epoch = None  # the last epoch a "lost" event was for
        self._published_at = 0.0  # when the leadership was last published
        # The leadership before this node's own, and when it ended: (leader, end).
        self._previous = None
        settings = member.settings
        #: When the next heartbeat is due (once the detector runs): a timer that fires
        #: far later than that means this node itself stood still.
        self._beat_due = None
        # Past this, a peer's suspicion timer may have come due during the stall (its
        # last frame came at most a heartbeat before the last heartbeat of this node).
        self._stall_after = (
            math.inf
            if settings is None
            else max(settings.heartbeat, settings.suspect_after - 2 * settings.heartbeat)
        )

    def _leased(self, at: float, changed: bool) -> bool:
        """Record the heartbeats the member numbered since the last call as sent at
        ``at`` (before they left) and recompute the lease; True if its end moved.  A
        change of lease or state is published here, before any send: a follower may act
        on one at once (a new leader's lease must never begin before the old one ends)."""
        lease = self._lease
        assert lease is not None
        beats = self._beats
        while self._beat_seq < lease.seq:
            self._beat_seq += 1
            beats[self._beat_seq] = at
        basis = lease.basis
        if lease.epoch is None or basis is None or self.member.state is not NodeState.LEADER:
            until = 0.0
        else:
            # Heartbeat 0 is none at all: a node with nobody to ask leads from now on.
            until = beats.get(basis, at) + lease.settings.lease
            for old in [k for k in beats if k < basis]:
                del beats[old]
        moved = until != self._lease_until
        self._lease_until = until
        if moved or changed:
            self._publish()
            if moved and self.member.steady is not None:
                # Steady rules: the lease ends on its own clock, not at the next heartbeat.
                if until > at:
                    self.actor_inbox.schedule(LEASE_END, until - at)
                else:
                    self.actor_inbox.cancel(LEASE_END)
        return moved

    def _check_stall(self, message: Any) -> bool:
        """Whether this node stood still (its heartbeat is overdue by more than the
        stall threshold); if so, tell the member before anything else, and return True
        when ``message`` is a detector timer that the stall made stale (to be dropped)."""
        assert self._beat_due is not None
        late = time.monotonic() - self._beat_due
        if late <= self._stall_after:
            return False
        log.warning("%s stood still for %.3f s: a fresh start for its detector", self, late)
        self._beat_due = None
        self._guarded(self._stalled, late)
        if type(message) is TimerFired:
            name = message.name
            return name == HEARTBEAT or name.startswith(SUSPECT)
        return False

    def _stalled(self, late: float) -> None:
        self._after(self.member.handle_stall(late))

    def _resign(self, resign: Resign) -> str | None:
        """Resign, or hand over to ``resign.to``: the reason it cannot, or ``None``."""
        try:
            member = self.member
            if resign.to is None:
                steady = member.steady is not None
                if steady:
                    self._after(member.hand_over(reason=resign.reason, stopping=resign.stopping))
                else:
                    self._after(member.resign())
                return None
            refused = member.refuse_hand_over(resign.to)
            if refused is None:
                self._after(member.hand_over(resign.to, resign.reason))
            return refused
        except Exception:
            self._errors += 1
            log.exception("%s: error while resigning; the node carries on", self)
            return "the node failed to hand over (see its log)"

    def _publish(self) -> None:
        """Publish the node's leader, epoch and lease (the leader ``None`` while
        undecided)."""
        if self.leadership is not None:
            member = self.member
            leader = None if member.state is NodeState.UNDECIDED else member.elected
            self.leadership.publish(leader, member.epoch, self._lease_until)
        self._published_at = time.monotonic()

    def _trace_state(self) -> bool:
        """Record the node's state in its trace; ``False`` (done)."""
        member = self.member
        assert self.trace is not None
        self.trace.state(str(member.state), member.elected, member.epoch)
        return False

    def _event(
        self,
        kind: str,
        subject: int | None = None,
        detail: str = "",
        epoch: int | None = None,
        address: str | None = None,
        *,
        at: float | None = None,
        since: float | None = None,
    ) -> NodeEvent:
        member = self.member
        return NodeEvent(
            self.id,
            kind,
            str(member.state),
            member.elected,
            member.epoch if epoch is None else epoch,
            time.monotonic() if at is None else at,
            self._session.incarnation,
            subject,
            detail,
            address,
            since=since,
        )

    def _may_wait(self, peer: int) -> bool:
        """Whether a send to ``peer`` may wait for room, up to the send timeout.

        Never for a suspected peer.  With the failure detector on, only for a peer heard
        from within two heartbeats: every peer a node talks to is pinged, or pings it,
        every heartbeat, so a quiet one has most likely crashed, and waiting on its dead
        link would hold this node up by a whole send timeout just when its peers need it
        (a Bully node drawn into a failover round by the first to notice the crash).
        """
        if peer in self.member.suspected:
            return False
        if self._fresh is None:
            return True
        return time.monotonic() - self._heard_at.get(peer, -self._fresh) < self._fresh

    # -- a misbehaving network ---------------------------------------------------------

    def _network_init(self) -> None:
        self._network_origin = time.monotonic()  # until the node boots
        self._held: dict[str, tuple[Send, bool]] = {}
        self._held_for: Counter[int] = Counter()  # peer → messages held for it
        self._held_names = itertools.count(1)
        self._send = self._send_through  # type: ignore[method-assign]
        self._timer = self._network_timer  # type: ignore[method-assign]

    def _network_boot(self) -> None:
        """The node is up: the network's times count from now; its pauses are set."""
        network = self._misbehaving
        assert network is not None
        now = time.monotonic()
        if network.began is None:
            network.began = now
        self._network_origin = network.began
        for k, pause in enumerate(network.pauses):
            if pause.node == self.id and pause.start >= now - network.began:
                self.actor_inbox.schedule(f"network:pause:{k}", pause.start - (now - network.began))

    def _send_through(self, send: Send) -> None:
        """``send`` as the misbehaving network treats it: lost, late, or twice."""
        assert self._misbehaving is not None
        now = time.monotonic() - self._network_origin
        fate = self._misbehaving.fate(self.id, send.to, now)
        trace = self.trace
        if not fate.copies:
            log.debug("%s: the network lost %s to node %s", self, send.message.kind, send.to)
            if trace is not None:
                trace.lost(trace.now(), send.to, send.message, send.epoch, fate.lost or "lost")
            return
        for copy, delay in enumerate(fate.copies):
            if delay <= 0 and not self._held_for[send.to]:
                self._release(send, copy > 0)
            else:  # late (or behind a late one on a FIFO link): on this node's timers
                name = f"network:held:{next(self._held_names)}"
                self._held[name] = (send, copy > 0)
                self._held_for[send.to] += 1
                self.actor_inbox.schedule(name, max(0.0, delay))

    def _release(self, send: Send, copy: bool) -> None:
        """Send ``send`` now (the trace shows it leaving now: a late message leaves
        late); ``copy``: the network's copy of a message sent already."""
        trace = self.trace
        recorded = len(trace) if trace is not None else 0
        NodeActor._send(self, send)
        if copy and trace is not None:
            trace.mark_copy(recorded)

    def _network_timer(self, name: str) -> None:
        if name.startswith("network:held:"):
            send, copy = self._held.pop(name)
            self._held_for[send.to] -= 1
            self._release(send, copy)
        elif name.startswith("network:pause:"):
            assert self._misbehaving is not None
            self._pause(self._misbehaving.pauses[int(name.rsplit(":", 1)[1])].seconds)
        else:
            NodeActor._timer(self, name)

    def _pause(self, seconds: float) -> None:
        """Stand still for ``seconds``, handling nothing, as a GC pause or ``SIGSTOP``
        would stop the node: frames and timers wait (its next timer shows the stall)."""
        log.info("%s pauses for %g s", self, seconds)
        if self.trace is not None:
            self.trace.pause(seconds)
        threading.Event().wait(seconds)
        if self.trace is not None:
            self.trace.resume()

    def _send(self, send: Send) -> None:
        links = self._links
        if links is None:
            raise TransportError(f"{self} has no links yet: Connect before Start")
        to, message, epoch = send
        new = to not in links
        if new:  # a link made now (a ring repaired round a crash): let it connect
            links.add(to, self._directory[to])
        kind = message.kind
        detector = kind in CONTROL_KINDS
        session = self._session
        # A ping asks whoever is there; anything else is for the life last heard from.
        to_life = 0 if kind == "ping" else session.known(to)
        frame = session.seal(to, kind, epoch, message, to_incarnation=to_life)
        trace = self.trace
        at = None if trace is None else trace.now()  # before it leaves: its receive is later
        sent = links.send(to, frame, wait=not detector and (new or self._may_wait(to)))
        if trace is not None and at is not None:
            if sent:
                seq = session.last_seq(to)
                trace.sent(at, to, message, epoch, session.incarnation, seq)
            else:  # sent, and lost: the trace says so (P5 is down, when it knows)
                trace.lost(at, to, message, epoch, f"no connection to P{to}")
        if sent:
            self._sent[kind] += 1
        else:
            self._send_failures += 1
            level = logging.DEBUG if detector else logging.INFO
            log.log(level, "%s could not send %s to node %s; frame dropped", self, kind, to)
        if not detector:  # an election message: the notes count it, whether it left or not
            if not sent:
                self._lost_sends[kind] += 1
            if self._tally is not None:
                self._tally.counts[self._slot] += 1  # this node's slot: only it writes
            by_epoch = self._sent_by_epoch
            if epoch not in by_epoch and len(by_epoch) >= EPOCHS_KEPT:
                del by_epoch[min(by_epoch)]  # a long-lived node keeps the latest only
            by_epoch[epoch] += 1
