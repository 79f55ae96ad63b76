"""The node: a Pykka actor that hosts one sans-IO member and one end of the wire.

Its inbox (a :class:`~ringleader.actors.host.Inbox`) holds control messages from whoever
runs the cluster (``Listen``, ``Connect``, ``Start``, ``GetStatus``) and also waits on
the node's transport mailbox, so the actor's own thread receives every frame, as
``bytes``, with no receiver thread in between.  A frame is opened by the node's
:class:`~ringleader.transport.Session` (signature, addressing, replay checks, then
decoding) and handed to the member with the time; whatever the member returns is
carried out in order: its state kept (:class:`~ringleader.actors.core.Persist`), its
leadership published, its sends sealed and sent on the node's links, its timers set,
its events reported.  The actor decides nothing about the election, the lease or the
failure detector: the member does, from the event and the time.  Nodes talk to each
other only through frames: election traffic never uses Pykka ``ask``, so two nodes can
never wait on each other.

Nothing a frame contains can stop the actor: a frame that fails a check is dropped and
counted, and an exception from the algorithm itself is logged with its traceback and
counted, and the node carries on.

Its parts, each owning its state: the :class:`~._sender.Sender` (links, counters), the
:class:`~._rejections.Rejections`, the :class:`~._reporter.Reporter` (events, the
published leadership), the :class:`~._operator_desk.OperatorDesk` and, for a service
node, its :class:`~._introductions.Introductions`; with a misbehaving network
(``[[faults]]``), :class:`~._misbehaving_sends.MisbehavingSends` on its sends.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import pykka

from ringleader.actors.core import (
    Action,
    CancelTimer,
    NodeState,
    Notice,
    Persist,
    Publish,
    Send,
    SetTimer,
    StateChanged,
)
from ringleader.actors.crashes import Add, Configuration, DetectorSettings, Member, Remove
from ringleader.actors.faults import Misbehaving
from ringleader.actors.tracing import NodeTrace
from ringleader.transport import (
    Codec,
    FrameRejected,
    Mailbox,
    Network,
    Session,
    TransportError,
)

from ._control import Boot, Connect, Crash, GetStatus, Listen, Pause, PeerDead, Resign, Start
from ._durable import Durable
from ._identity import HELLO, Identity
from ._inbox import Inbox, TimerFired
from ._introductions import Introductions
from ._leadership import Leadership
from ._log import NodeLines, log, view
from ._misbehaving_sends import NETWORK_TIMERS, MisbehavingSends
from ._operator_desk import OperatorDesk
from ._queries import (
    HOST_KINDS,
    OPERATOR,
    WATCHER,
    LeadershipNotice,
    MemberAnswer,
    MemberQuery,
    TransferAnswer,
)
from ._rejections import Rejections
from ._reply_links import ReplyLinks
from ._reporter import EventSink, Reporter
from ._sender import Sender
from ._senders import senders
from ._signals import leave_signals_to_main
from ._status import NodeStatus
from ._tally import Tally

__all__ = ["EventSink", "NodeActor"]


#: At most this many frames wait for a node's links (beyond, they are dropped, as a
#: full mailbox would: its peers say it all again at their next heartbeat).
EARLY_FRAMES = 1000


class NodeActor(pykka.ThreadingActor):
    """Hosts ``member`` (one node's election and crash handling) on ``network``,
    signing with ``codec``; ``misbehaving``: the ``[[faults]]`` network entries it
    carries out on its own sends (see ``_misbehaving_sends.py``); ``durable``: where what
    must survive the node is kept (see ``_durable.py``), if anywhere (the member must
    then be made with ``durable=True``)."""

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
        self.id = node = member.id
        self.trace = trace
        self.leadership = leadership
        self._network = network
        self._durable = durable
        view = member.view
        self._settings = DetectorSettings.of(view.settings)
        self._session = session = Session(codec, node, incarnation, peers=senders(view))
        self._mailbox: Mailbox | None = None
        self._received = 0
        #: Frames admitted while the node listens but is not linked yet (a node that
        #: joins a running cluster hears its peers' heartbeats before its own links
        #: are up): handled once it is, when it can answer them.
        self._early: list[tuple[int, Any, int]] = []
        self._errors = 0
        self._crashed = False
        self._last_activity: float | None = None
        self._reporter = Reporter(
            node,
            incarnation,
            (member.state, member.elected, member.epoch),
            events=events,
            leadership=leadership,
        )
        self._lines = NodeLines(node, member.floor)
        within = None if self._settings is None else 2 * self._settings.heartbeat
        self._sender = Sender(
            node, network, session, heard_within=within, trace=trace, tally=tally, view=self.view
        )
        self._rejections = Rejections(node)
        self._replies = ReplyLinks(node, network, view=self.view)
        self._desk = OperatorDesk(
            node,
            session,
            self._replies,
            status=self.status,
            transfer=self._transfer,
            change=self._change_members,
            epoch=lambda: self._reporter.said[2],
            leadership=self._leadership_notice,
        )
        # A service node's cluster identity: it tells nodes of other clusters how they
        # differ (``_introductions.py``); ``None`` in a run whose nodes share one process.
        self._introductions = (
            None
            if identity is None
            else Introductions(
                node,
                identity,
                session=session,
                sender=self._sender,
                replies=self._replies,
                reporter=self._reporter,
                address=lambda: None if self._mailbox is None else self._mailbox.address,
                schedule=self._schedule,
            )
        )
        self._identity = identity
        # A misbehaving network: only then are sends routed through it.
        self._misbehaving = (
            None
            if not misbehaving
            else MisbehavingSends(node, misbehaving, self._sender, self._schedule, trace)
        )
        self._send: Callable[[Send], None] = (
            self._sender.send if self._misbehaving is None else self._misbehaving.send
        )

    def __str__(self) -> str:
        return f"node {self.id}"

    def view(self) -> str:
        """What this node believes, to end its log lines: ``[leader node 3, epoch 2]``."""
        _, leader, epoch = self._reporter.said
        return view(leader, epoch)

    # -- Pykka hooks ---------------------------------------------------------------

    actor_inbox: Inbox

    @staticmethod
    def _create_actor_inbox() -> Inbox:
        return Inbox()

    def on_receive(self, message: Any) -> Any:  # noqa: PLR0911 -- a dispatcher
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
            self._guarded(lambda: self._carry_out(self.member.handle_start(now=self._now())))
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
            self._guarded(
                lambda: self._carry_out(self.member.peer_dead(message.node, now=self._now()))
            )
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
        self._reporter.stop()
        if not self._crashed:  # a crash says nothing: its observers find it silent
            self._desk.farewell(self._reporter.said[2])
        self._replies.close()
        self._sender.close()
        if self._mailbox is not None:
            self.actor_inbox.detach()
            self._mailbox.close()
            self._mailbox = None

    # -- control --------------------------------------------------------------------

    @staticmethod
    def _now() -> float:
        """The node's clock, as its member reads it: the monotonic clock."""
        return time.monotonic()

    def _schedule(self, name: str, delay: float) -> None:
        self.actor_inbox.schedule(name, delay)

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
        links = self._sender.connect(peers, directory)
        settings = self._settings
        if settings is not None and settings.fast_failover:
            links.on_refused(self._refused)  # tcp, ipc: proof of death
        ready = links.wait_ready(timeout)
        early, self._early = self._early, []
        for sender, message, epoch in early:
            self._guarded(self._admit, sender, message, epoch)
        return ready

    def _refused(self, peer: int) -> None:
        """From the network's monitor thread: ``peer``'s connection was refused."""
        with contextlib.suppress(pykka.ActorDeadError):  # this node has stopped meanwhile
            self.actor_ref.tell(PeerDead(peer))

    def _boot(self) -> None:
        if self._misbehaving is not None:
            self._misbehaving.boot()
        self._carry_out(self.member.handle_boot(now=self._now()))
        if self._introductions is not None:
            self._introductions.boot()

    def _crash(self, *, told: bool = True) -> None:
        """Stop as a crash would: ``told`` by a fault injected, or not (the caller has
        logged why)."""
        if told:
            log.info("%s crashes: told to (an injected fault) %s", self, self.view())
        self._crashed = True
        self._sender.close(abrupt=True)
        if self._mailbox is not None:
            self.actor_inbox.detach()
            self._mailbox.close()
            self._mailbox = None
        self.stop()

    def _pause(self, seconds: float) -> None:
        """Stand still for ``seconds``, handling nothing, as a GC pause or ``SIGSTOP``
        would stop the node: frames and timers wait (its member sees the stall at its
        next event)."""
        log.info("%s pauses for %g s: told to (an injected fault) %s", self, seconds, self.view())
        if self.trace is not None:
            self.trace.pause(seconds)
        threading.Event().wait(seconds)
        if self.trace is not None:
            self.trace.resume()

    def _resign(self, resign: Resign) -> str | None:
        """Resign, or hand over to ``resign.to``: the reason it cannot, or ``None``."""
        try:
            refused, actions = self.member.resign(
                now=self._now(), to=resign.to, reason=resign.reason, stopping=resign.stopping
            )
            self._carry_out(actions)
        except Exception:  # noqa: BLE001 -- logged with its traceback
            self._errors += 1
            log.exception("%s: error while resigning; the node carries on", self)
            return "the node failed to hand over (see its log)"
        return refused

    def _transfer(self, to: int) -> TransferAnswer:
        """An operator's ``ringleader transfer``: hand over to ``to`` if this node leads."""
        try:
            refused, actions = self.member.transfer(to, now=self._now())
            self._carry_out(actions)
        except Exception:  # noqa: BLE001 -- logged with its traceback
            self._errors += 1
            log.exception("%s: error while handing over; the node carries on", self)
            refused = "the node failed to hand over (see its log)"
        state, elected, epoch = self._reporter.said
        return TransferAnswer(refused, None if state is NodeState.UNDECIDED else elected, epoch)

    def _change_members(self, query: MemberQuery) -> MemberAnswer:
        """An operator's ``ringleader member add|remove``: the leader makes the change
        (pending until a majority of the new voters acknowledge it), or says why not."""
        change: Add | Remove
        if query.change == "add":
            change = Add(query.node, query.address)
        elif query.change == "remove":
            change = Remove(query.node)
        else:
            return self._member_answer(f"no such change {query.change!r}: add or remove")
        try:
            refused, actions = self.member.request(change, now=self._now())
            self._carry_out(actions)
        except Exception:  # noqa: BLE001 -- logged with its traceback
            self._errors += 1
            log.exception("%s: error while changing the members; the node carries on", self)
            refused = "the node failed to make the change (see its log)"
        else:
            if refused is None:
                log.info(
                    "%s %ss node %s at an operator's request: %s %s",
                    self,
                    query.change,
                    query.node,
                    self.member.configuration.describe() if self.member.configuration else "",
                    self.view(),
                )
        return self._member_answer(refused)

    def _member_answer(self, refused: str | None) -> MemberAnswer:
        state, elected, epoch = self._reporter.said
        leader = None if state is NodeState.UNDECIDED else elected
        return MemberAnswer(refused, self.member.configuration, leader, epoch)

    def _leadership_notice(self) -> LeadershipNotice:
        """What this node tells its observers: the leader it names, the epoch, whether it
        leads holding its lease, and for how much longer."""
        leader, epoch, until = self._reporter.published
        if math.isinf(until):  # no lease is configured: its word alone counts
            return LeadershipNotice(leader, epoch, leading=leader == self.id, lease_left=None)
        left = max(0.0, until - self._now())
        return LeadershipNotice(
            leader, epoch, leading=leader == self.id and left > 0, lease_left=round(left, 6)
        )

    def status(self) -> NodeStatus:
        member, sender = self.member, self._sender
        state, elected, epoch = self._reporter.said
        return NodeStatus(
            id=self.id,
            capacity=member.view.capacity,
            state=str(state),
            elected=elected,
            epoch=max(epoch, member.floor),  # (restarted, before its first round: the kept)
            incarnation=self._session.incarnation,
            address=self._mailbox.address if self._mailbox else None,
            sent=dict(sender.sent),
            lost=dict(sender.lost),
            received=self._received,
            rejected=self._rejections.as_dict(member.stale),
            send_failures=sender.failures,
            errors=self._errors,
            last_activity=self._last_activity,
            started=member.started,
            timers=self.actor_inbox.timers,
            sent_by_epoch=dict(sender.by_epoch),
            bad_signatures=dict(self._rejections.bad_signatures),
            other_clusters={} if self._identity is None else dict(self._identity.others),
            configuration=member.configuration,
            committed=member.committed,
        )

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
        if sender in (OPERATOR, WATCHER) or header.kind in HOST_KINDS:
            refused = self._desk.answer(sender, header.incarnation, message)
            if refused is not None:
                self._reject(refused)
            return
        # Admitted: written by a cluster member for this node, in order, never seen
        # before.  Counted as received even if the algorithm drops it for a stale epoch,
        # so that sent and received frames balance once the cluster is quiet.
        self._received += 1
        self._sender.heard(sender)
        if self.trace is not None:
            self.trace.received(sender, message, epoch, header.incarnation, header.seq)
        if self._sender.links is None:  # not linked yet: it could not answer
            if len(self._early) < EARLY_FRAMES:
                self._early.append((sender, message, epoch))
            return
        self._admit(sender, message, epoch)

    def _admit(self, sender: int, message: Any, epoch: int) -> None:
        """An admitted message, handed to the member."""
        self._carry_out(self.member.handle_message(sender, message, epoch, now=self._now()))

    def _reject(self, rejected: FrameRejected, address: str | None = None) -> None:
        address = self._rejections.count(rejected, address)
        if rejected.reason == "wrong_cluster" and self._introductions is not None:
            self._guarded(self._introductions.other_cluster, rejected)
            if self._introductions.identity.explained(rejected.header):
                return  # its difference was named: counted, not reported frame by frame
        self._reporter.report("rejected", detail=str(rejected), address=address)

    def _timer(self, name: str) -> None:
        if name == HELLO:
            if self._introductions is not None:
                self._introductions.hello()
            return
        if self._misbehaving is not None and name.startswith(NETWORK_TIMERS):
            pause = self._misbehaving.timer(name)
            if pause is not None:
                self._pause(pause)
            return
        if self.trace is not None:
            self.trace.timer(name)
        self._carry_out(self.member.handle_timer(name, now=self._now()))

    def _carry_out(self, actions: list[Action]) -> None:
        """Do what the member asked for, in its order.  (A change of state is traced
        after what set it off, a suspicion, and before the sends: a handler decides, or
        enters a round, then sends.)"""
        self._last_activity = time.monotonic()
        reporter, trace = self._reporter, self.trace
        untraced: StateChanged | None = None
        for action in actions:
            if untraced is not None and type(action) is not Notice:
                self._trace_state(untraced)
                untraced = None
            if type(action) is Send:
                self._send(action)
            elif type(action) is SetTimer:
                self.actor_inbox.schedule(action.name, action.delay)
            elif type(action) is CancelTimer:
                self.actor_inbox.cancel(action.name)
            elif type(action) is Notice:
                self._notice(action)
            elif type(action) is StateChanged:
                reporter.changed(action)
                untraced = action if trace is not None else None
            elif type(action) is Publish:
                reporter.publish(action)
                self._desk.changed()
            elif type(action) is Persist and not self._keep(action):
                return  # it could not keep its state: it stopped
        if untraced is not None:
            self._trace_state(untraced)

    def _trace_state(self, change: StateChanged) -> None:
        assert self.trace is not None
        variables = self.member.election.variables()
        self.trace.state(str(change.state), change.elected, change.epoch, variables)

    def _notice(self, notice: Notice) -> None:
        kind, node = notice.kind, notice.node
        if kind == "suspect" and node is not None:
            self._sender.suspected.add(node)
            if self.trace is not None:
                self.trace.suspect(node, notice.epoch)
        elif kind == "recovered" and node is not None:
            self._sender.suspected.discard(node)
        if kind == "stalled":
            log.warning(
                "%s stood still for %s: a fresh start for its detector", self, notice.detail
            )
            return
        said = self._reporter.said  # (its lines remember why a round began: every notice)
        line = self._lines.line(notice, (str(said[0]), said[1], said[2]))
        if line is not None:
            log.log(*line)
        self._reporter.report(
            kind, node, notice.detail, notice.epoch, at=notice.at, since=notice.since
        )

    def _keep(self, persist: Persist) -> bool:
        """Make the member's newest epoch and acknowledged round (and a newer
        configuration, if it learned one) durable; if they cannot
        be, the node must not act on them: report ``failed`` and stop as a crash would,
        and return False."""
        durable = self._durable
        if durable is None:
            return True
        try:
            configuration = persist.configuration
            if configuration is not None:
                assert isinstance(configuration, Configuration)
                durable.keep(configuration)
            durable.save(persist.epoch, persist.acknowledged)
        except Exception as exc:  # noqa: BLE001 -- whatever it is, the node cannot go on
            log.error("%s stops: it cannot keep its state: %s", self, exc)
            self._reporter.stop()  # it leads nothing from now on
            self._reporter.report("failed", detail=str(exc))
            self._crash(told=False)  # no fault was injected: the line above says why
            return False
        return True
