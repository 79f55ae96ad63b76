"""A member of the cluster: an election, and the parts that let it survive crashes.

A host (the Pykka node actor, the simulator) runs one :class:`Member` per node.  The
member holds, side by side, the election of the current round (one object per round, as
one slide tells one election), the rounds that number and fence them (``_rounds.py``), the
failure detector (``_detector.py``, when a ``heartbeat`` is set), the recovery of a
restarted node (``_recovery.py``), the leader's lease (``_lease.py``) and the algorithm's
crash policy (who watches whom; ring repair; Bully's proclamation rule), which answers
with intents that the member carries out (``_crash_policy.py``).  It routes each event to
the part it belongs to, in this order for a message: the detector hears the sender, the
detector's own ``ping``/``pong`` stop there, recovery and the epoch fence drop what must
not be acted on, a newer epoch starts a new round, and the election handles the rest.

In the service modes (``steady=True``) it applies the steady rules too
(``_steady.py``): a round it wants is asked for first (``_prevote.py``), a round or a
leader against a live leader is not joined, a restarted node follows the leader it
hears, a leader hands over (``_handover.py``), and only the leader pings.  Their
messages (``prevote``, ``handover`` …) stop at the member, as the detector's do.

Timers have two name spaces: an algorithm's own (``answer``) and the parts' (with a
colon: ``detector:heartbeat``, ``detector:suspect:7``, ``rounds:stall``,
``rounds:behind``, ``recovery:rejoin``).
"""

from __future__ import annotations

from collections.abc import Hashable, Set

from ringleader.actors.core import (
    Action,
    CancelTimer,
    Election,
    Message,
    NodeState,
    NodeView,
    Notice,
    Send,
    SetTimer,
)

from ._crash_policy import CrashPolicy, Intent, NewRound
from ._detector import (
    DETECTOR_KINDS,
    HEARTBEAT,
    PING,
    PONG,
    SUSPECT,
    DetectorSettings,
    FailureDetector,
    Ping,
    Pong,
)
from ._handover import HandOver, HandOverRequest, refusal, successor
from ._lease import Lease, LeaseSettings
from ._prevote import PreVote, PreVoteReply
from ._recovery import REJOIN, Recovery
from ._rounds import BEHIND, STALL, Rounds
from ._steady import STEADY_KINDS, Steady, SteadySettings

__all__ = ["PROOF_OF_DEATH", "Member"]

#: The detail of a ``suspect`` notice that comes from proof of death, not silence.
PROOF_OF_DEATH = "connection refused"

#: The timer of a leader that resigned: how long it sits out, unless a new leader's
#: heartbeat reaches it first.
SIT_OUT = "lease:sit_out"

_EMPTY: Set[int] = frozenset()


class Member:
    """Node ``view.id`` running ``algorithm``, round after round.

    ``initiator``: it initiates the first election when started.  ``recovering``: it was
    restarted after a crash and knows no epoch yet (see ``_recovery.py``); ``floor``: the
    highest epoch its previous lives saw, if its host kept it (its rounds start above).

    What must survive the node is :attr:`seen`, the highest epoch it has seen: a host
    that keeps it (``ringleader node``) reads it after each event and makes it durable
    before it carries out that event's actions.
    """

    # A simulated run holds 100,000 of them and touches one per event: no __dict__.
    __slots__ = (
        "_above",
        "_behind",
        "_below",
        "_out",
        "_plain",
        "_sitting_out",
        "_stall",
        "_stalling",
        "algorithm",
        "demoted",
        "detector",
        "election",
        "id",
        "lease",
        "policy",
        "recovery",
        "rounds",
        "settings",
        "steady",
        "suspected",
        "view",
    )

    def __init__(
        self,
        algorithm: type[Election],
        view: NodeView,
        *,
        initiator: bool = False,
        recovering: bool = False,
        floor: int = 0,
        policy: CrashPolicy,
        steady: bool = False,
    ) -> None:
        self.algorithm = algorithm
        self.view = view
        self.id = view.id
        self.policy = policy
        self._out: list[Action] = []
        self.settings = DetectorSettings.of(view.settings)
        self.detector = None if self.settings is None else FailureDetector(self.settings, self._out)
        #: The nodes the detector suspects (the detector's own set, read on every send).
        self.suspected: Set[int] = _EMPTY if self.detector is None else self.detector.suspected
        self.rounds = Rounds(view, 0 if recovering else 1)
        self.rounds.heard_of(floor)
        self.recovery = Recovery(floor) if recovering else None
        self._stall = 0.0 if self.settings is None else self.settings.reelect_after
        self._stalling = False  # a "rounds:stall" timer is pending
        self._behind = False  # a "rounds:behind" timer is pending
        lease = LeaseSettings.of(view.settings) if self.detector is not None else None
        #: The leader's lease (``_lease.py``), when the detector runs and a lease is set.
        self.lease = (
            None
            if lease is None
            else Lease(lease, [m for m in view.members if m != self.id], self.suspected)
        )
        #: Why this node last stopped leading by itself ("paused", "lease expired",
        #: "resigned"); the host reads it and sets it back to ``None``.
        self.demoted: str | None = None
        self._sitting_out = False  # resigned: silent until a new leader is heard
        self._above: Set[int] | None = None  # looked up when first asked for
        self._below: Set[int] = _EMPTY
        #: The service modes' steady rules (``_steady.py``), when ``steady`` and the
        #: detector and a lease are on; ``None`` in the notes' teaching runs.
        self.steady: Steady | None = None
        rules = SteadySettings.of(view.settings) if steady else None
        if rules is not None and self.lease is not None:
            self.steady = Steady(rules, max(1, len(view.members)))
        self.election = self._election(self.rounds.epoch, initiator)
        #: No failure detector and never restarted: nobody is ever suspected, and a
        #: message of the current round is the election's business alone.
        self._plain = self.detector is None and self.recovery is None

    def _election(self, epoch: int, initiator: bool) -> Election:
        return self.algorithm(
            self.view, initiator=initiator, epoch=epoch, around=self, outbox=self._out
        )

    # -- what hosts read -------------------------------------------------------------

    @property
    def state(self) -> NodeState:
        return self.election.state

    @property
    def elected(self) -> int | None:
        return self.election.elected

    @property
    def epoch(self) -> int:
        return self.election.epoch

    @property
    def started(self) -> bool:
        return self.election.started

    @property
    def seen(self) -> int:
        """The highest epoch this node has seen (in any message, in any round it entered,
        or kept from a previous life): what a host with stable storage keeps."""
        return self.rounds.seen

    @property
    def stale(self) -> int:
        """Election messages dropped for an older epoch (or a previous life)."""
        return self.rounds.stale

    @property
    def recovering(self) -> bool:
        return self.recovery is not None

    # -- what the crash policy sees (``Situation``) --------------------------------------

    @property
    def initiator(self) -> bool:
        return self.election.initiator

    @property
    def rank(self) -> int | None:
        return self.rounds.rank

    @property
    def above(self) -> Set[int]:
        if self._above is None:
            self._rank_peers()
        assert self._above is not None
        return self._above

    @property
    def below(self) -> Set[int]:
        if self._above is None:
            self._rank_peers()
        return self._below

    def _rank_peers(self) -> None:
        view = self.view
        me = view.candidate
        peers = [view.neighbour(peer) for peer in view.out if peer != self.id]
        self._above = frozenset(p.id for p in peers if p > me)
        self._below = frozenset(p.id for p in peers if p < me)

    # -- what the election may ask (``Around``) --------------------------------------

    @property
    def successor(self) -> int:
        if self._plain:  # nobody is ever suspected: the ring is as wired
            return self.view.out[0]
        return self.policy.successor(self)

    @property
    def predecessor(self) -> int:
        if self._plain:
            return self.view.out[-1]
        return self.policy.predecessor(self)

    def may_proclaim(self) -> bool:
        return self.policy.may_proclaim(self)

    def new_round(self, why: str, subject: int | None = None) -> None:
        """Start a round of this node's own, one epoch above any it has seen; ``why`` in
        words, ``subject`` the node whose crash or return caused it, if any."""
        self._enter(self.rounds.next_epoch(), initiator=True)
        self._out.append(Notice("election", subject, self.epoch, why))
        self.election.ensure_started()

    # -- entry points for hosts --------------------------------------------------------

    def handle_boot(self) -> list[Action]:
        """The node is up and linked to its peers: start the failure detector, if any.

        Hosts call this once per node (incarnation), before or after :meth:`handle_start`.
        """
        settings = self.settings
        if settings is not None:
            self._tick()
            if self.recovery is not None:
                for peer in sorted(self.policy.rejoin(self)):
                    self._out.append(Send(peer, PING, self.epoch))
                self._out.append(SetTimer(REJOIN, settings.suspect_after))
            elif self.state is NodeState.UNDECIDED:
                self._arm_stall()
        return self.flush()

    def handle_start(self) -> list[Action]:
        """This node initiates an election (once; later calls send nothing)."""
        if self.recovery is None:
            self.election.initiate()
            if self.detector is not None:
                self._rewatch()
        return self.flush()

    def handle_message(self, sender: int, message: Message, epoch: int = 1) -> list[Action]:
        """Handle ``message`` of election round ``epoch`` from node ``sender``."""
        if self._plain and epoch == self.election.epoch:
            # No crash handling, this round's message: the election alone has a say (a
            # simulated run of 100,000 nodes makes a million of these calls).
            self.election.receive(sender, message)
            out = self._out[:]
            self._out.clear()
            return out
        rounds = self.rounds
        if epoch > rounds.seen:  # noqa: PLR1730 -- a call less per message
            rounds.seen = epoch
        detector = self.detector
        if detector is not None and detector.heard(sender):
            self._recovered(sender)
        if message.kind in DETECTOR_KINDS:
            self._detector_message(sender, message, epoch)
            return self.flush()
        if message.kind in STEADY_KINDS:
            if self.steady is not None:
                self._steady_message(sender, message, epoch)
            return self.flush()
        if self._sitting_out or (self.recovery is not None and not self.recovery.admits(epoch)):
            # Resigned, so out of this round; or perhaps meant for this node's previous life.
            rounds.stale += 1
            return self.flush()
        election = self.election
        if epoch != election.epoch:
            # Fenced off: an older round, or (steady rules) a round against a live leader.
            if epoch < election.epoch or (self.steady is not None and self._held(sender)):
                rounds.stale += 1
                return self.flush()
            self._enter(epoch)
            election = self.election
        election.receive(sender, message)
        if detector is not None:
            self._rewatch()
        return self.flush()

    def handle_timer(self, name: str) -> list[Action]:
        """Timer ``name`` fired (one this member set and did not cancel since)."""
        if ":" not in name:
            self.election.timeout(name)
            if self.detector is not None:
                self._rewatch()
        elif name == HEARTBEAT:
            self._tick()
        elif name.startswith(SUSPECT):
            if not self._sitting_out:
                self._suspect(int(name[len(SUSPECT) :]))
        elif name == SIT_OUT:
            self._sat_out()
        elif name == STALL:
            self._stalling = False
            self._stalled()
        elif name == BEHIND:
            self._behind = False
            if self.epoch < self.rounds.seen and self.recovery is None and not self._sitting_out:
                self._round(NewRound(f"behind epoch {self.rounds.seen}"))
                self._rewatch()
        elif name == REJOIN:
            self._rejoined()
        return self.flush()

    def peer_dead(self, node: int) -> list[Action]:
        """Proof that ``node``'s process is dead (the host's link to it was refused):
        suspect it now rather than after ``suspect_after`` of silence, if it is watched
        and the fast path is on.  Silence is never proof: only a host that saw a refusal
        calls this (see docs/how-to/crashes.md, "How it works")."""
        detector = self.detector
        if detector is not None and detector.settings.fast_failover and detector.dead(node):
            self._out.append(Notice("suspect", node, self.epoch, PROOF_OF_DEATH))
            self._carry_out(self.policy.on_suspect(self, node))
            self._rewatch()
        return self.flush()

    def flush(self) -> list[Action]:
        """The actions of the event just handled (and the stall timer stopped if the
        node has decided meanwhile)."""
        if self._stalling and self.election.state is not NodeState.UNDECIDED:
            self._stalling = False
            self._out.append(CancelTimer(STALL))
            assert self.settings is not None
            self._stall = self.settings.reelect_after
        lease = self.lease
        if lease is not None:
            if self.election.state is NodeState.LEADER:
                if lease.epoch != self.election.epoch:  # from its next heartbeat on
                    if self.steady is None:
                        lease.begin(self.election.epoch)
                    else:
                        # Steady rules: a peer known to be down holds no first lease
                        # back, and the first heartbeat goes now, not at the next tick.
                        lease.begin(self.election.epoch, self.suspected)
                        self._tick()
            elif lease.epoch is not None:
                lease.end()
        out = self._out[:]
        self._out.clear()
        return out

    def handle_stall(self, seconds: float) -> list[Action]:
        """This node itself stood still for ``seconds`` (its host saw a timer fire that
        much too late: the process was stopped, or starved).  Its peers were not silent,
        it was: each gets a fresh suspicion window, and a leader steps down ("paused")
        before it acts on anything else: its lease ran out meanwhile, and its followers
        may have elected another.  Then a heartbeat, so that they hear from it at once.
        """
        detector = self.detector
        if detector is None:
            return self.flush()
        detector.fresh()
        steady = self.steady
        if steady is not None:
            # It cannot vouch for its leader (it was not listening), and a leader keeps
            # its round: its lease ran out meanwhile, and its host reports that.
            steady.forget_leader()
            if self.lease is not None and self.state is NodeState.LEADER:
                self.lease.lapse()
                self.demoted = "paused"
        elif self.state is NodeState.LEADER:
            self._demote("paused")
        if not self._sitting_out:
            self._tick()
        return self.flush()

    def resign(self) -> list[Action]:
        """The leader steps down at once ("resigned") and sits out: it answers nothing
        and sends nothing, so its followers suspect it and elect another without it,
        until a new leader's heartbeat reaches it (it follows that one) or
        ``reelect_after`` has passed.  Not leading, it does nothing.

        Under the steady rules it hands over instead (:meth:`hand_over`)."""
        if self.steady is not None:
            return self.hand_over()
        if self.state is NodeState.LEADER:
            self._demote("resigned", rejoin=False)
            if self.settings is not None:
                self._sitting_out = True
                self._out.append(SetTimer(SIT_OUT, self.settings.reelect_after))
        return self.flush()

    # -- rounds ------------------------------------------------------------------------

    def _enter(self, epoch: int, *, initiator: bool = False) -> None:
        """Leave the current round for round ``epoch``."""
        self.election.cancel_timers()
        self.rounds.enter(epoch)
        if self.recovery is not None:
            self.recovery = None
            self._out.append(CancelTimer(REJOIN))
        self.election = self._election(epoch, initiator)
        if self.settings is not None:
            self._arm_stall()
        steady = self.steady
        if steady is not None:  # a round is under way: nothing to ask for, nobody to wait on
            steady.idle = False
            steady.prevoting.drop()
            steady.handed_to = steady.waiting = None

    def _arm_stall(self) -> None:
        self._stalling = True
        self._out.append(SetTimer(STALL, self._stall))

    def _stalled(self) -> None:
        """Undecided for ``reelect_after`` s (doubling): a round of its own, so that no
        round waits for ever on a message a crashed node took with it."""
        if self.state is not NodeState.UNDECIDED or self.recovery is not None:
            return
        stall = self._stall
        self._round(NewRound(f"no leader after {stall:g} s"))
        self._stall = stall * 2
        self._arm_stall()
        self._rewatch()

    # -- the failure detector -----------------------------------------------------------

    def _tick(self) -> None:
        detector = self.detector
        assert detector is not None
        if self._sitting_out:
            self._out.append(SetTimer(HEARTBEAT, detector.settings.heartbeat))
            return
        steady = self.steady
        if steady is not None:
            self._steady_tick(steady)
        self._rewatch()
        policy = self.policy
        ping = policy.ping(self, detector.watched) | (policy.probe(self) & detector.suspected)
        if steady is not None and self.elected is not None and self.state is NodeState.NOT_LEADER:
            ping.discard(self.elected)  # its leader's heartbeat is answered: no ping to it
        lease = self.lease
        if lease is not None and lease.epoch is not None:
            lease.refresh()
            # Steady rules: a lease that ran out comes back with the answers (rule 5),
            # but a leadership never granted one in its round is given up.
            if lease.expired and (steady is None or not lease.granted):
                self._demote("lease expired")
            else:
                ping -= self._beat(lease)
        detector.tick(ping, self.epoch)

    # -- the lease ---------------------------------------------------------------------

    def _beat(self, lease: Lease) -> set[int]:
        """A leader's numbered heartbeat to every other member; returns them."""
        seq, epoch = lease.beat(), self.epoch
        ping = Ping(seq)
        for peer in lease.peers:
            self._out.append(Send(peer, ping, epoch))
        return set(lease.peers)

    def _demote(self, reason: str, *, rejoin: bool = True) -> None:
        """Stop leading, undecided in the same round; ``rejoin``: if no leader is heard
        of within ``suspect_after``, start a round."""
        self.election.step_down()
        self.demoted = reason
        if self.lease is not None:
            self.lease.end()
        if self.steady is not None:
            self.steady.idle = True
        if rejoin and self.settings is not None:
            self._stall = self.settings.suspect_after
            self._arm_stall()

    def _adopt(self, leader: int, epoch: int) -> None:
        """Heard the heartbeat of ``leader`` of a newer round ``epoch``: follow it, as a
        node that missed that round (paused, partitioned, resigned) learns it.  A node
        that would win against that leader then starts a round above it at once (the
        notes' algorithms elect the largest candidate: Bully's top node takes over), but
        not one that has just resigned."""
        resigned = self._sitting_out
        self._enter(epoch)
        self.election.follow(leader)
        if resigned:
            self._sitting_out = False
            self._out.append(CancelTimer(SIT_OUT))
        elif self.steady is not None:
            self.steady.heard_leader(leader, epoch)
            self._preempt(leader)
        elif self.view.candidate > self.view.neighbour(leader):
            self.new_round(f"above leader {leader}", leader)
        self._rewatch()

    def _sat_out(self) -> None:
        """A resigned node's time out is over and no new leader reached it."""
        if not self._sitting_out:
            return
        self._sitting_out = False
        assert self.detector is not None and self.settings is not None
        self.detector.fresh()
        if self.state is NodeState.UNDECIDED:
            self._stall = self.settings.suspect_after
            self._arm_stall()
        self._tick()

    def _rewatch(self) -> None:
        detector = self.detector
        assert detector is not None
        watch = self.policy.watch(self) if self.steady is None else self._steady_watch()
        watch.discard(self.id)
        detector.watch(watch)

    def _suspect(self, node: int) -> None:
        detector = self.detector
        assert detector is not None
        if detector.expired(node):
            self._out.append(Notice("suspect", node, self.epoch))
            self._carry_out(self.policy.on_suspect(self, node))
            self._rewatch()

    def _recovered(self, node: int) -> None:
        self._out.append(Notice("recovered", node, self.epoch))
        if self._sitting_out:
            return
        self._carry_out(self.policy.on_recovered(self, node))
        self._rewatch()

    def _carry_out(self, intent: Intent) -> None:
        """Do what the crash policy asked for."""
        if isinstance(intent, NewRound):
            self._round(intent)
        elif intent is not None:  # Retry
            self.election.retry()

    def _detector_message(self, sender: int, message: Message, epoch: int) -> None:
        kind = message.kind
        seq = message.seq if isinstance(message, Ping | Pong) else 0
        if seq > 0 and kind == "ping" and self.steady is not None:  # a leader's heartbeat
            self._heartbeat(sender, epoch, seq)
            # (In the epoch it follows: a node that stands by its live leader acknowledges
            # it even after hearing of a newer round, which gets no majority from it.)
            self._out.append(Send(sender, Pong(seq), self.epoch))
            return
        if seq > 0 and kind == "ping" and self.recovery is None:  # a leader's heartbeat
            if epoch > self.epoch:
                self._adopt(sender, epoch)
            if not self._sitting_out:
                self._out.append(Send(sender, Pong(seq), self._answering_epoch()))
            return
        if seq > 0 and self.lease is not None:
            self.lease.answer(sender, seq, epoch)
        if self._sitting_out:
            return
        if kind == "ping":
            pong = PONG if seq == 0 else Pong(seq)
            self._out.append(Send(sender, pong, self._answering_epoch()))
        recovery = self.recovery
        if recovery is not None and epoch > 0:  # not another restarted node's
            recovery.learn(epoch)
            # (Under the steady rules it waits for the leader's heartbeat: REJOIN.)
            if not self.policy.rejoin_by_neighbour and self.steady is None:
                self._rejoined()
        elif epoch > self.epoch and not self._behind:
            # A round took place that this node has not heard of (yet: its messages may
            # be on their way).  If it is still behind in a while, it catches up by
            # starting a round itself.
            assert self.settings is not None
            self._behind = True
            self._out.append(SetTimer(BEHIND, self.settings.suspect_after))

    def _answering_epoch(self) -> int:
        """The epoch a ``pong`` carries: a pong in the leader's epoch acknowledges its
        heartbeat (``_lease.py``), and a node that has seen a newer epoch never
        acknowledges an older one, so it answers in the newest it has seen.  A restarted
        node still recovering answers in epoch 0: it acknowledges nothing."""
        if self.recovery is not None:
            return self.epoch
        return max(self.epoch, self.rounds.seen)

    # -- the steady rules (``_steady.py``) -------------------------------------------------

    def _round(self, wish: NewRound) -> None:
        """A round is wanted: started at once in the teaching runs; under the steady rules
        asked for first (the pre-vote), and never by a leader or a node whose leader is
        live."""
        steady = self.steady
        if steady is None:
            self.new_round(wish.why, wish.subject)
            return
        if self.state is NodeState.LEADER or (wish.subject != self.elected and self._held(None)):
            return  # (a node wants no round while its live leader is not the reason)
        self._regrant()
        prevoting = steady.prevoting
        if prevoting.majority <= 1:
            self.new_round(wish.why, wish.subject)
            return
        ask = prevoting.want(wish)
        if ask is not None:
            self._out.append(Notice("prevote", wish.subject, self.epoch, wish.why))
            self._ask(ask)

    def _regrant(self) -> None:
        """This node no longer vouches for its leader: the askers it told no since it
        last heard that leader get a yes now (failover need not wait for their retry)."""
        steady = self.steady
        assert steady is not None
        refused, steady.refused = steady.refused, {}
        for asker, attempt in sorted(refused.items()):
            if not self._held(asker):
                self._out.append(Send(asker, PreVoteReply(attempt, True), self.epoch))

    def _ask(self, ask: PreVote) -> None:
        epoch = self.epoch
        for peer in self.view.members:
            if peer != self.id:
                self._out.append(Send(peer, ask, epoch))

    def _held(self, sender: int | None) -> bool:
        """Rule 2: whether this node stands by a live leader against ``sender``: it leads
        and its leadership stands, or it follows a leader other than ``sender`` whose
        heartbeat came within the lease (and that did not hand over to ``sender``)."""
        steady = self.steady
        assert steady is not None
        election = self.election
        if election.state is NodeState.LEADER:  # a leader just elected yields, as in the notes
            return self.lease is not None and self.lease.held
        if election.state is NodeState.NOT_LEADER:
            return (
                sender != election.elected
                and (sender is None or sender != steady.handed_to)
                and steady.leader_live
                and election.elected not in self.suspected  # (its process is gone)
            )
        return False

    def _steady_watch(self) -> set[int]:
        """Rule 6: who this node watches (its crash policy says who while a round is
        under way)."""
        steady = self.steady
        assert steady is not None
        state = self.election.state
        if state is NodeState.UNDECIDED and not steady.idle and self.recovery is None:
            return self.policy.watch(self)
        watch = self.policy.steady_watch(self)
        if state is NodeState.NOT_LEADER and self.elected is not None:
            watch.add(self.elected)
        return watch

    def _steady_tick(self, steady: Steady) -> None:
        """A heartbeat of this node: count the leader's silence, ask again if due."""
        election = self.election
        steady.follows(election.elected, election.epoch)  # a new one counts from now
        steady.quiet += 1
        leader = election.elected
        detector = self.detector
        assert detector is not None
        if (
            election.state is NodeState.NOT_LEADER
            and leader is not None
            and steady.leader_silent
            and detector.dead(leader)  # watched, and now suspected
        ):
            # Its frames may still come (it stepped down, or restarted): its heartbeat
            # as leader does not.  Silence, as the detector's own suspicion.
            self._out.append(Notice("suspect", leader, self.epoch))
            self._carry_out(self.policy.on_suspect(self, leader))
        ask, anyway = steady.prevoting.tick()
        if ask is not None:
            self._ask(ask)
        elif anyway:
            self._granted()

    def _granted(self) -> None:
        """The pre-vote is won (or, without a quorum, nobody said no for long enough)."""
        steady = self.steady
        assert steady is not None
        wish = steady.prevoting.wish
        if wish is None or self.state is NodeState.LEADER:
            steady.prevoting.drop()
            return
        self.new_round(wish.why, wish.subject)
        self._rewatch()

    def _heartbeat(self, sender: int, epoch: int, seq: int) -> None:
        """A leader's numbered heartbeat, under the steady rules (rules 2, 3)."""
        steady = self.steady
        assert steady is not None
        election = self.election
        if epoch == election.epoch and sender == election.elected:
            if election.state is NodeState.NOT_LEADER:
                steady.heard_leader(sender, epoch)
                self._preempt(sender)
            return
        if epoch == election.epoch and election.state is NodeState.UNDECIDED:
            # The leader of this very round (its announcement has not come, or was lost
            # with a crashed node): one leader per epoch, so follow it.
            election.cancel_timers()
            election.follow(sender)
            steady.heard_leader(sender, epoch)
            self._rewatch()
            return
        if epoch < election.epoch and (
            (election.state is NodeState.UNDECIDED and steady.idle)
            or (
                election.state is NodeState.NOT_LEADER
                and steady.quiet >= steady.settings.live_beats
            )
        ):
            # Waiting with no round under way, or following a leader silent for the
            # lease (it led a minority, and yielded): the leader that speaks is the one
            # to follow, newer or not.
            self._adopt(sender, epoch)
            return
        if election.state is NodeState.LEADER and epoch != election.epoch:
            self._met(sender, epoch)
            return
        if epoch <= election.epoch:
            return  # an older round's leader: this node's pong (its epoch) tells it
        if self._held(sender):
            steady.waiting = (sender, epoch, seq)
            return
        self._adopt(sender, epoch)

    def _met(self, other: int, epoch: int) -> None:
        """This leader hears the heartbeat of ``other``, leader of round ``epoch`` (two
        sides of a partition meet — without a quorum —, or a node led alone for a while).
        A leader that a majority answers stays.  The other follows it, whichever round
        is newer, if nobody answers it, or a majority answers it from another round;
        between two leaders without a majority, the newer round's stays."""
        lease = self.lease
        assert lease is not None
        mine = sum(1 for peer in lease.peers if lease.live(peer))
        if mine + 1 >= lease.majority:
            return
        elsewhere = sum(1 for peer in lease.peers if lease.elsewhere(peer))
        if epoch > self.epoch or mine == 0 or elsewhere >= lease.majority:
            self._adopt(other, epoch)

    def _preempt(self, leader: int) -> None:
        """With ``preempt``: a node above the leader asks it for the leadership."""
        steady = self.steady
        assert steady is not None
        if (
            steady.settings.preempt
            and not steady.resigned
            and self.view.candidate > self.view.neighbour(leader)
        ):
            self._out.append(Send(leader, HandOverRequest(), self.epoch))

    def _steady_message(self, sender: int, message: Message, epoch: int) -> None:
        steady = self.steady
        assert steady is not None
        recovery = self.recovery
        if recovery is not None and isinstance(message, PreVote | PreVoteReply):
            # The asker's round, or the one this node asks for, comes above this epoch:
            # a round it may join (0: the asker knows no epoch either, nor does anyone).
            recovery.learn(epoch)
        if isinstance(message, PreVote):
            granted = not self._held(sender)
            self._out.append(Send(sender, PreVoteReply(message.attempt, granted), self.epoch))
            if not granted:  # said yes later if this node stops vouching meanwhile
                steady.refused[sender] = message.attempt
        elif isinstance(message, PreVoteReply):
            if steady.prevoting.reply(sender, message):
                self._granted()
        elif isinstance(message, HandOver):
            self._handed_over(sender, message.to, epoch)
        elif isinstance(message, HandOverRequest):
            self._asked_for_leadership(sender)

    def _handed_over(self, sender: int, to: int, epoch: int) -> None:
        """The leader this node follows hands over to ``to``."""
        steady = self.steady
        assert steady is not None
        election = self.election
        if epoch != election.epoch or sender != election.elected or sender == self.id:
            return  # not from the leader this node follows
        steady.handed_over_by = sender
        if to == self.id:
            self._take_over(sender)
            return
        steady.handed_to = to
        steady.forget_leader()
        waiting = steady.waiting
        if waiting is not None and waiting[0] == to:  # its heartbeat came first: answer it
            leader, newer, seq = waiting
            self._adopt(leader, newer)
            self._out.append(Send(leader, Pong(seq), self.epoch))

    def _take_over(self, previous: int) -> None:
        """Lead now, in a round of this node's own (nobody else leads its epoch), and say
        so with a heartbeat at once."""
        steady = self.steady
        assert steady is not None and self.lease is not None
        self._enter(self.rounds.next_epoch(), initiator=True)
        self._out.append(Notice("election", previous, self.epoch, f"handed over by {previous}"))
        self.election.follow(self.id)
        steady.resigned = False
        self.lease.begin(self.epoch, self.suspected)
        self._tick()

    def _asked_for_leadership(self, sender: int) -> None:
        steady = self.steady
        assert steady is not None and self.lease is not None
        view = self.view
        if not steady.settings.preempt or self.state is not NodeState.LEADER:
            return
        if view.neighbour(sender) <= view.candidate:
            return
        above = [p for p in self.lease.peers if view.neighbour(p) > view.candidate]
        to = successor(view, self.lease, above)
        if to is not None:
            self._hand_over(to, "preempted")

    def refuse_hand_over(self, to: int) -> str | None:
        """Why this node cannot hand over to ``to`` now (see ``_handover.py``), or
        ``None``."""
        if self.steady is None:
            return "a hand-over needs the service modes' steady rules (and a lease)"
        return refusal(self.view, self.lease, self.state is NodeState.LEADER, to)

    def hand_over(
        self, to: int | None = None, reason: str = "resigned", *, stopping: bool = False
    ) -> list[Action]:
        """Under the steady rules: the leader ends its lease and names its successor,
        ``to``, or the live member the notes' algorithms would elect; with nobody live to
        name, it just steps down.  ``stopping``: the node is about to stop: it names the
        live member that joined last (in a rolling restart, one already restarted; see
        ``_handover.py``), and with nobody live it does nothing (its stop reports the
        loss).  Not leading, it does nothing.  Ask :meth:`refuse_hand_over` first for a
        chosen ``to``."""
        if self.steady is None or self.state is not NodeState.LEADER:
            return self.flush()
        assert self.lease is not None
        if to is None:
            to = successor(self.view, self.lease, newest=stopping)
        if to is None or self.refuse_hand_over(to) is not None:
            if not stopping:
                self._demote(reason)
                self.steady.resigned = True
        else:
            self._hand_over(to, reason)
        return self.flush()

    def _hand_over(self, to: int, reason: str) -> None:
        steady = self.steady
        assert steady is not None
        epoch = self.epoch
        self._demote(reason)  # its lease ends here, before anyone hears of the next
        steady.resigned = True
        steady.handed_to = to
        self._out.append(Notice("handover", to, epoch, reason))
        message = HandOver(to)
        for peer in self.view.members:
            if peer != self.id:
                self._out.append(Send(peer, message, epoch))
        self._rewatch()

    def lease_ran_out(self) -> list[Action]:
        """Its host saw this leader's lease run out on its clock.  Under the steady rules
        it keeps its round and its heartbeat, and leads again if a majority answers
        (rule 5); otherwise the next heartbeat demotes it ("lease expired")."""
        if self.steady is not None and self.lease is not None:
            self.lease.lapse()
        return self.flush()

    # -- recovery ------------------------------------------------------------------------

    def _rejoined(self) -> None:
        recovery = self.recovery
        if recovery is None:
            return
        self.rounds.heard_of(recovery.learned or 0)
        if self.steady is not None:  # no leader's heartbeat came: ask for a round
            if recovery.learned is None:
                self._round(NewRound("start"))
            else:
                self._round(NewRound(f"recovery of {self.id}", self.id))
            self._rewatch()
            return
        # Nobody answered with an epoch: there is no cluster yet (or no live one).
        if recovery.learned is None:
            self.new_round("start")
        else:
            self.new_round(f"recovery of {self.id}", self.id)
        self._rewatch()

    def key(self) -> Hashable:
        """This node's state as a hashable value: two members of one node with equal keys
        behave alike from now on (the explorer tells states apart by it).  The election's
        :meth:`~ringleader.actors.Election.key` and every part's state; counters that only
        report (:attr:`stale`) and lazily filled caches are left out."""
        detector, lease, recovery = self.detector, self.lease, self.recovery
        return (
            self.election.key(),
            self.rounds.epoch,
            self.rounds.seen,
            None if recovery is None else ("recovering", recovery.learned),
            self._stall,
            self._stalling,
            self._behind,
            self._sitting_out,
            self.demoted,
            None
            if detector is None
            else (frozenset(detector.watched), frozenset(detector.suspected)),
            None if lease is None else lease.key(),
        )

    def __repr__(self) -> str:
        return f"<Member {self.id} {self.election!r}>"
