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
(``_steady_rules.py``, whose methods it inherits; their state is ``_steady.py``): a
round it wants is asked for first (``_prevote.py``), a round or a leader against a live
leader is not joined, a restarted node follows the leader it hears, a leader hands over
(``_handover.py``), and only the leader pings.  Their messages (``prevote``,
``handover`` …) stop at the member, as the detector's do.

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

from ._crash_policy import CrashPolicy, Intent, NewRound, Situation
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
from ._lease import Lease, LeaseSettings
from ._recovery import REJOIN, Recovery
from ._rounds import BEHIND, STALL, Rounds
from ._steady import STEADY_KINDS, Steady, SteadySettings
from ._steady_rules import SteadyRules

__all__ = ["PROOF_OF_DEATH", "Member"]

#: The detail of a ``suspect`` notice that comes from proof of death, not silence.
PROOF_OF_DEATH = "connection refused"

#: The timer of a leader that resigned: how long it sits out, unless a new leader's
#: heartbeat reaches it first.
SIT_OUT = "lease:sit_out"

_EMPTY: Set[int] = frozenset()


class Member(SteadyRules):
    """Node ``view.id`` running ``algorithm``, round after round.

    ``initiator``: it initiates the first election when started.  ``recovering``: it was
    restarted after a crash and knows no epoch yet (see ``_recovery.py``); ``floor``: the
    highest epoch its previous lives saw, if its host kept it (its rounds start above).

    What must survive the node is :attr:`seen`, the highest epoch it has seen, and
    :attr:`acknowledged`: a host that keeps them (``ringleader node``) reads them after
    each event and makes them durable before it carries out that event's actions
    (``acknowledged`` comes back as the argument of the same name).
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
        "floor",
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
        acknowledged: tuple[int, int | None] | None = None,
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
        # The round its previous lives acknowledged last, and its leader; if the host did
        # not keep it, its floor's, with a leader not known: it acknowledges none of
        # that round, only newer ones.
        rounds = self.rounds
        rounds.acked, rounds.acked_leader = acknowledged or (floor, None)
        #: The highest epoch its previous lives saw (0 if none was kept): it never acts on,
        #: nor follows a leader of, an epoch below it.
        self.floor = floor
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
    def acknowledged(self) -> tuple[int, int | None]:
        """The round this node acknowledged last (a leader's heartbeat answered in its
        epoch, or its own lease) and that round's leader: what a host with stable storage
        keeps beside :attr:`seen`, so that a restarted node acknowledges no older round,
        nor a second leader of that one."""
        return self.rounds.acked, self.rounds.acked_leader

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

        Under the steady rules it hands over instead (``hand_over``, from the steady rules)."""
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
            self._leads_with(lease)
            # Steady rules: a lease that ran out comes back with the answers (rule 5),
            # but a leadership never granted one in its round is given up, and so is one
            # without its lease that, with a quorum, a follower refuses (it will never
            # acknowledge this round: the lease might never come back).
            if lease.expired and (steady is None or not lease.granted):
                self._demote("lease expired")
            elif steady is not None and lease.settings.quorum and lease.refused:
                self._demote("superseded")
            else:
                ping -= self._beat(lease)
        detector.tick(ping, self.epoch)

    # -- the lease ---------------------------------------------------------------------

    def _leads_with(self, lease: Lease) -> None:
        """Its lease may have been granted: a round it led with a lease counts as one it
        acknowledged (``Rounds.acked``)."""
        if lease.basis is not None and lease.epoch is not None:
            self.rounds.acknowledge(lease.epoch, self.id)

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

    def _situation(self) -> Situation:
        return self

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
            if epoch >= self.floor:  # (never a leader of an epoch its earlier lives passed)
                self._heartbeat(sender, epoch, seq)
            # (In the epoch it follows: a node that stands by its live leader acknowledges
            # it even after hearing of a newer round, which gets no majority from it.  A
            # restarted node that has not found its leader yet answers in its floor: a
            # leader of an older round learns that it will not be acknowledged here.)
            self._out.append(Send(sender, Pong(seq), self._answer(sender, epoch)))
            return
        if seq > 0 and kind == "ping" and self.recovery is None:  # a leader's heartbeat
            if epoch > self.epoch:
                self._adopt(sender, epoch)
            if not self._sitting_out:
                self._out.append(Send(sender, Pong(seq), self._answering_epoch()))
            return
        lease = self.lease
        if seq > 0 and lease is not None and lease.answer(sender, seq, epoch):
            self._leads_with(lease)
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

    def _answer(self, leader: int, epoch: int) -> int:
        """Under the steady rules, the epoch of this node's ``pong`` to the heartbeat of
        ``leader`` of round ``epoch``.

        - ``epoch``, an acknowledgement, only to the leader it follows in that round,
          and only if it acknowledged no other leader of the round
          (``Rounds.may_acknowledge``);
        - else its own epoch, or its floor if that is larger (a restarted node that has
          not found its leader): a leader of an older round learns that it is refused;
        - and 0 if that is ``epoch`` itself: a refusal in the leader's own round.
        """
        rounds = self.rounds
        if (
            epoch == self.epoch
            and leader == self.elected
            and leader != self.id
            and rounds.may_acknowledge(epoch, leader)
        ):
            rounds.acknowledge(epoch, leader)
            return epoch
        mine = max(self.epoch, self.floor)
        return 0 if mine == epoch else mine

    def _answering_epoch(self) -> int:
        """The epoch a ``pong`` carries: a pong in the leader's epoch acknowledges its
        heartbeat (``_lease.py``), and a node that has seen a newer epoch never
        acknowledges an older one, so it answers in the newest it has seen.  A restarted
        node still recovering answers in epoch 0: it acknowledges nothing."""
        if self.recovery is not None:
            return self.epoch
        return max(self.epoch, self.rounds.seen)

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
            self.rounds.acked,
            self.rounds.acked_leader,
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
