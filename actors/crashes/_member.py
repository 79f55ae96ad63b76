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

In the service modes (``steady=True``) it holds the steady rules too
(``_steady_rules.py``; in words, ``_steady.py``): a round it wants is asked for first
(``_prevote.py``), a round or a leader against a live leader is not joined, a restarted
node follows the leader it hears, a leader hands over (``_handover.py``), and only the
leader pings.  Their messages (``prevote``, ``handover`` …) stop at the member, as the
detector's do.

Every entry point takes the time, ``now``, on the node's own clock (seconds; only
differences count): the lease runs from the moment a heartbeat left, a heartbeat found
far overdue shows that the node itself stood still, and the leadership's reports carry
their moments (``_tenure.py``).  What the host must do comes back as actions, in the
order it must do them (see :meth:`Member.flush`): nothing of the member is read or
written by its host.

With a ``configuration`` (``_configuration.py``: the member list as versioned state,
``docs/design/membership.md``) only its voters count: the lease's majority and the
pre-vote's are counted among them, and a *learner* (a member that does not vote yet)
starts no round, runs no election, is handed no leadership: it follows the leader it
hears, and its answers hold the lease back as any follower's do.  :meth:`Member.configure`
changes it while the node runs (the leader's lease starts over in the new one).
The member runs the configuration's :class:`~ringleader.actors.crashes.Membership`
(``_membership.py``) beside its election: a leader's heartbeat carries its configuration's
key, and the configuration to a follower whose answer showed an older one; a follower
that acknowledges the heartbeat learns it (kept durably first: it rides the
:class:`Persist` the event's actions begin with), and its answer carries its key (and its
configuration, if newer: the leader adopts it).  The lease counts only answers that
carried the leader's key (``docs/design/membership.md``, rule L1).

Timers have two name spaces: an algorithm's own (``answer``) and the parts' (with a
colon: ``detector:heartbeat``, ``detector:suspect:7``, ``rounds:stall``,
``rounds:behind``, ``recovery:rejoin``, ``lease:end``, ``lease:sit_out``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Set
from dataclasses import replace

from ringleader.actors.core import (
    Action,
    CancelTimer,
    Election,
    Message,
    NodeState,
    NodeView,
    Notice,
    Persist,
    Send,
    SetTimer,
)

from ._configuration import Configuration, newer
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
from ._lease import Lease, LeaseSettings
from ._membership import (
    Acknowledged,
    Add,
    Changed,
    Committed,
    Follow,
    Heard,
    Lead,
    Membership,
    MembershipAction,
    Refused,
    Remove,
    Retired,
    Told,
)
from ._moments import reached
from ._prevote import PreVote, PreVoteReply
from ._recovery import REJOIN, Recovery
from ._rounds import BEHIND, STALL, Rounds
from ._steady import STEADY_KINDS, SteadySettings
from ._steady_rules import SteadyRules
from ._tenure import Tenure

__all__ = ["PROOF_OF_DEATH", "Member"]

#: The detail of a ``suspect`` notice that comes from proof of death, not silence.
PROOF_OF_DEATH = "connection refused"

#: The timer of a leader that resigned: how long it sits out, unless a new leader's
#: heartbeat reaches it first, and how long it stands against no leader that replaces it
#: (``Member.resign``).
SIT_OUT = "lease:sit_out"
#: The end of this leader's lease on its clock (the steady rules: its ``lost`` comes
#: then, not at its next heartbeat).
LEASE_END = "lease:end"
#: A round that stalls is started again every ``reelect_after``, doubling up to this
#: many times ``reelect_after``.
STALL_BACKOFF = 8

_EMPTY: Set[int] = frozenset()


#: No peer (shared: every member starts with it).
_NOBODY: frozenset[int] = frozenset()


class Member:
    """Node ``view.id`` running ``algorithm``, round after round.

    ``initiator``: it initiates the first election when started.  ``recovering``: it was
    restarted after a crash and knows no epoch yet (see ``_recovery.py``); ``floor``: the
    highest epoch its previous lives saw, if its host kept it (its rounds start above);
    ``acknowledged``: the round they acknowledged last and its leader.  ``steady``: the
    service modes' steady rules (with the failure detector and a lease).  ``durable``:
    its host keeps what must survive it, :attr:`seen` and :attr:`acknowledged`; the
    member then asks for them to be made durable (:class:`Persist`) before anything that
    rests on them.  ``configuration``: the cluster's configuration (its voters and
    learners); without one every member of ``view`` votes.
    """

    # A simulated run holds 100,000 of them and touches one per event: no __dict__.
    __slots__ = (
        "_above",
        "_behind",
        "_below",
        "_kept",
        "_now",
        "_older",
        "_out",
        "_parting",
        "_plain",
        "_promise_due",
        "_resigned",
        "_sitting_out",
        "_stall",
        "_stalling",
        "_voting_view",
        "algorithm",
        "configuration",
        "detector",
        "durable",
        "election",
        "floor",
        "id",
        "lease",
        "membership",
        "policy",
        "recovery",
        "retired",
        "rounds",
        "settings",
        "steady",
        "suspected",
        "tenure",
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
        durable: bool = False,
        configuration: Configuration | None = None,
    ) -> None:
        self.algorithm = algorithm
        #: The cluster's configuration (``None``: every member of the view votes).
        self.configuration = configuration
        #: The part that keeps the configuration and changes it (``_membership.py``):
        #: fed the configurations the heartbeats and their answers carry.
        self.membership = None if configuration is None else Membership(view.id, configuration)
        #: Peers whose last answer to this node's heartbeat showed an older configuration
        #: key: its next heartbeat to them carries the configuration itself.  (Immutable:
        #: the empty one is shared, and a simulated run holds 100,000 members.)
        self._older: frozenset[int] = _NOBODY
        #: Members a change of this leader's removed, until it is committed: its
        #: heartbeat goes to them too, carrying the configuration, so that a removed node
        #: that still hears it learns it is no member any more (and stops).
        self._parting: frozenset[int] = _NOBODY
        #: This node learned a configuration without itself: it takes no part in rounds
        #: (one restarted with such a configuration kept has retired already).
        self.retired = configuration is not None and view.id not in configuration.members
        self.view = view
        self.id = view.id
        self._voting_view = self._voters_view()
        self.policy = policy
        self._out: list[Action] = []
        self._now = 0.0
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
        self.durable = durable
        # What is durable so far (only a durable member keeps it: a simulated run holds
        # 100,000 members that keep nothing).
        self._kept = (
            (rounds.seen, (rounds.acked, rounds.acked_leader), self.configuration_key)
            if durable
            else None
        )
        self.recovery = Recovery(floor) if recovering else None
        self._stall = 0.0 if self.settings is None else self.settings.reelect_after
        self._stalling = False  # a "rounds:stall" timer is pending
        self._behind = False  # a "rounds:behind" timer is pending
        lease = LeaseSettings.of(view.settings) if self.detector is not None else None
        #: The leader's lease (``_lease.py``), when the detector runs and a lease is set.
        self.lease = (
            None if lease is None else Lease(lease, self._peers(), self.suspected, self._voters())
        )
        self._sitting_out = False  # resigned: silent until a new leader is heard
        self._resigned = False  # resigned less than reelect_after ago: joins no round
        self._above: Set[int] | None = None  # looked up when first asked for
        self._below: Set[int] = _EMPTY
        #: The service modes' steady rules (``_steady_rules.py``), when ``steady`` and the
        #: detector and a lease are on; ``None`` in the notes' teaching runs.
        self.steady: SteadyRules | None = None
        rules = SteadySettings.of(view.settings) if steady else None
        if rules is not None and self.lease is not None:
            voters = view.members if configuration is None else configuration.voters
            self.steady = SteadyRules(self, rules, max(1, len(voters)))
        self.election = self._election(self.rounds.epoch, initiator)
        #: What this node reports of its leadership (``_tenure.py``).
        self.tenure = Tenure(
            self.id,
            (self.election.state, self.election.elected, self.election.epoch),
            None if self.lease is None else self.lease.settings.lease,
            floor,
        )
        #: No failure detector and never restarted: nobody is ever suspected, and a
        #: message of the current round is the election's business alone.
        self._plain = self.detector is None and self.recovery is None
        #: A restarted node's promise (rule 7) starts with its first event, whatever
        #: that is: a host may hand it a frame before its boot.
        self._promise_due = self.recovery is not None and self.steady is not None

    def _peers(self) -> list[int]:
        """Every other member: whom a leader's heartbeat goes to."""
        configuration, me = self.configuration, self.id
        if configuration is None:
            return [m for m in self.view.members if m != me]
        return [m for m in self.view.members if m != me and m in configuration.members]

    def _voters_view(self) -> NodeView:
        """The view the elections run in: the voters alone (a learner is nobody's
        candidate and is sent no election message)."""
        view, configuration = self.view, self.configuration
        if configuration is None or configuration.voters.issuperset(view.members):
            return view
        voters = configuration.voters | {view.id}  # (a learner's own view: its own place)

        def kept(nodes: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(n for n in nodes if n in voters)

        return replace(
            view, out=kept(view.out), inbound=kept(view.inbound), members=kept(view.members)
        )

    def _voters(self) -> frozenset[int] | None:
        configuration = self.configuration
        return None if configuration is None else configuration.voters

    @property
    def voter(self) -> bool:
        """Whether this node votes: it may start a round and lead (a learner may not)."""
        configuration = self.configuration
        return configuration is None or self.id in configuration.voters

    def _member(self, peer: int) -> bool:
        """Whether ``peer`` is a member of this node's configuration (voter or learner)."""
        configuration = self.configuration
        return configuration is None or peer in configuration.members

    def counts(self, peer: int) -> bool:
        """Whether ``peer``'s answers count in a majority (a learner's do not)."""
        configuration = self.configuration
        return configuration is None or peer in configuration.voters

    def configure(self, configuration: Configuration, *, now: float) -> list[Action]:
        """The cluster's configuration is ``configuration`` from ``now`` on (a newer one
        than this node's: its host made it durable first; one not newer changes
        nothing).  Majorities are counted in it from now on; a leader's lease starts over
        (rule L2: it holds none until a majority of the new voters acknowledge a
        heartbeat sent from now on); a leader that no longer votes steps down
        ("removed"); a node that is no member any more retires."""
        self._at(now)
        membership = self.membership
        if membership is None:
            self.membership = Membership(self.id, configuration)
            self._configure(configuration)
        else:
            # (Its Keep: made durable by the host already.  One not newer: nothing.)
            self._membership(membership.learn(configuration))
        if self._kept is not None and self.configuration is configuration:
            self._kept = (*self._kept[:2], configuration.key)  # (durable already)
        return self.flush()

    def _configure(self, configuration: Configuration) -> None:
        """Count majorities in ``configuration`` from now on (see :meth:`configure`)."""
        self.configuration = configuration
        self._voting_view = self._voters_view()  # (the next round's election runs in it)
        self._above = None
        lease, steady = self.lease, self.steady
        if lease is not None:
            if self.state is NodeState.LEADER and lease.holds(self._now):
                # Its lease starts over (rule L2): the ``lost`` that says so names the
                # change, where a lapse's says "lease expired".
                self.tenure.demoted = "reconfigured"
            lease.reconfigure(self._peers(), configuration.voters)
        if steady is not None:
            steady.reconfigure(len(configuration.voters))
        if self.state is NodeState.LEADER and not self.voter:
            self.demote("removed", rejoin=False)
        if self.detector is not None:
            self.rewatch()

    @property
    def committed(self) -> bool:
        """Whether this node leads and its configuration is committed in its round (a
        majority of its voters acknowledged a heartbeat carrying it): it may change it."""
        membership = self.membership
        return membership is not None and self.state is NodeState.LEADER and membership.ready

    @property
    def configuration_key(self) -> tuple[int, int]:
        """The key of this node's configuration (the founding one's, ``(0, 0)``, without
        one): what its heartbeats and its answers to them carry."""
        configuration = self.configuration
        return (0, 0) if configuration is None else configuration.key

    def _membership(self, actions: list[MembershipAction]) -> None:
        """Carry out what the membership asks (``Keep``: the :class:`Persist` this
        event's actions begin with, see :meth:`_reports`)."""
        was_retired = self.retired
        changed_now = False
        for action in actions:
            if type(action) is Changed and action.configuration.same_members(action.previous):
                # Re-issued in a newer round (rule 5): its key alone changed, so the same
                # majorities count and the lease goes on; the heartbeats carry it.
                self.configuration = action.configuration
                self._older = frozenset(self._peers())
            elif type(action) is Changed:
                changed_now = True
                self._configure(action.configuration)
                self._older = frozenset(self._peers())  # (their answers show an older key)
                members = action.configuration.members
                parting = action.previous.members - members - {self.id}
                if parting or self._parting:
                    self._parting = (self._parting | parting) - members
                self.retired = False
                self._out.append(
                    Notice("configuration", None, self.epoch, action.configuration.describe())
                )
            elif type(action) is Committed and not changed_now:
                self._parting = _NOBODY  # (told with the heartbeats since the change)
            # Committed as it was made (the leader the only voter left): no heartbeat
            # has told the members removed yet; the next one does (see _beat).
            elif type(action) is Retired:
                if not was_retired:  # (a node that was no member: nothing to say)
                    configuration = self.configuration
                    what = "" if configuration is None else configuration.describe()
                    self._out.append(Notice("removed", self.id, self.epoch, what))
                self.retired = True

    def answer_heartbeat(self, leader: int, ping: Ping, epoch: int, answer: int) -> None:
        """Answer heartbeat ``ping`` of ``leader`` of round ``epoch`` with a ``pong`` in
        round ``answer``.  An acknowledgement (``answer`` is ``epoch``) first learns the
        configuration the ping carries, if it is newer (kept durably before the pong
        leaves: the :class:`Persist` comes first); the pong carries this node's key,
        and its configuration if that is newer than the ping's."""
        membership = self.membership
        if membership is not None and answer == epoch and ping.configuration is not None:
            self._membership(membership.handle(Heard(leader, epoch, ping.configuration), self._now))
        self._out.append(Send(leader, self._pong(ping.seq, ping.configuration_key), answer))

    def _pong(self, seq: int, theirs: tuple[int, int]) -> Pong:
        configuration = self.configuration
        if configuration is None:
            return Pong(seq)
        made_in, version = configuration.key
        return Pong(seq, version, made_in, newer(configuration, theirs))

    def _election(self, epoch: int, initiator: bool) -> Election:
        return self.algorithm(
            self._voting_view, initiator=initiator, epoch=epoch, around=self, outbox=self._out
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

    @property
    def now(self) -> float:
        """The time of the event handled last, on the node's clock."""
        return self._now

    @property
    def lease_until(self) -> float:
        """Until when, on this node's clock, the lease it published last lasts (0: none;
        infinity: no lease configured, a leader's word alone counts)."""
        return self.tenure.until

    @property
    def numbering(self) -> tuple[int, int]:
        """How far this node has numbered the messages it numbers: its leader's
        heartbeats (``Ping.seq``, answered by ``Pong.seq``) and its pre-vote attempts
        (``PreVote.attempt``, answered by ``PreVoteReply.attempt``).  Only differences
        between these numbers count (an explorer counts them back from here)."""
        lease, steady = self.lease, self.steady
        return (
            0 if lease is None else lease.seq,
            0 if steady is None else steady.prevoting.attempt,
        )

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
        view = self._voting_view
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

    def own_round(self) -> bool:
        """In the teaching runs, where this round may not have it proclaim itself.  The
        service modes' steady rules keep the rounds they were explored with: the node
        runs its election in the round it was drawn into, and starts its own only if
        it finds no higher node alive there."""
        return self.steady is None and not self.may_proclaim()

    def new_round(self, why: str, subject: int | None = None) -> None:
        """Start a round of this node's own, one epoch above any it has seen; ``why`` in
        words, ``subject`` the node whose crash or return caused it, if any.  A learner
        starts none."""
        if not self.voter:
            return
        self._resigned = False  # (a resigned node's own round: its leader went silent)
        self.enter(self.rounds.next_epoch(), initiator=True)
        self._out.append(Notice("election", subject, self.epoch, why))
        self.election.ensure_started()

    # -- entry points for hosts --------------------------------------------------------

    def handle_boot(self, *, now: float) -> list[Action]:
        """The node is up and linked to its peers, ``now``: start the failure detector,
        if any.

        Hosts call this once per node (incarnation), before or after :meth:`handle_start`.
        """
        self._at(now)
        settings = self.settings
        if settings is not None:
            self.tick()
            if self.recovery is not None:
                for peer in sorted(self.policy.rejoin(self)):
                    self._out.append(Send(peer, PING, self.epoch))
                self._out.append(SetTimer(REJOIN, settings.suspect_after))
            elif self.state is NodeState.UNDECIDED:
                self._arm_stall()
        return self.flush()

    def handle_start(self, *, now: float) -> list[Action]:
        """This node initiates an election (once; later calls send nothing)."""
        self._at(now)
        if self.recovery is None and self.voter:
            self.election.initiate()
            if self.detector is not None:
                self.rewatch()
        return self.flush()

    def handle_message(  # noqa: PLR0911, PLR0912 -- the plain path inlined: a call less per message
        self, sender: int, message: Message, epoch: int = 1, *, now: float
    ) -> list[Action]:
        """Handle ``message`` of election round ``epoch`` from node ``sender``, arrived
        ``now``."""
        election = self.election
        if self._plain and epoch == election.epoch:
            # No crash handling, this round's message: the election alone has a say (a
            # simulated run of 100,000 nodes makes a million of these calls, inlined).
            self._now = now
            election.receive(sender, message)
            out = self._out[:]
            self._out.clear()
            said = self.tenure.said
            if election.state is not said[0] or election.elected != said[1]:
                return self._reports(out)
            return out
        self._at(now)
        rounds = self.rounds
        if epoch > rounds.seen:  # noqa: PLR1730 -- a call less per message
            rounds.seen = epoch
        detector = self.detector
        if detector is not None:
            self.tenure.heard(sender, now)
            if detector.heard(sender):
                self._recovered(sender)
        if message.kind in DETECTOR_KINDS:
            self._detector_message(sender, message, epoch)
            return self.flush()
        if message.kind in STEADY_KINDS:
            membership = self.membership
            if (
                isinstance(message, PreVote | PreVoteReply)
                and message.configuration is not None
                and membership is not None
            ):
                # Learnt first, from any member (a retired one too: it may be added back).
                told = Told(sender, message.configuration)
                self._membership(membership.handle(told, now))
            if self.steady is not None and not self.retired:  # (a retired node: none)
                self.steady.message(sender, message, epoch)
            return self.flush()
        if (
            self._sitting_out
            or (self.recovery is not None and not self.recovery.admits(epoch))
            or not self.voter
        ):
            # Resigned, so out of this round; or perhaps meant for this node's previous
            # life; or a learner, which runs no election (it follows the leader it hears).
            rounds.stale += 1
            return self.flush()
        election = self.election
        if epoch != election.epoch:
            # Fenced off: an older round, or (steady rules) a round against a live leader.
            older = epoch < election.epoch
            if older or (self.steady is not None and self.steady.held(sender)):
                rounds.stale += 1
                if older and self.steady is None:  # answered all the same (Bully: ok)
                    election.fenced(sender, message, epoch)
                return self.flush()
        if self._resigned:
            # It resigned less than reelect_after ago and follows a leader heard since:
            # another node's round that reaches it (a lower node's Bully election, a ring
            # token) would have it stand again, and win (the notes' algorithms elect the
            # largest candidate).  It sits out again instead: the round goes on without it.
            self._sitting_out = True
            rounds.stale += 1
            return self.flush()
        if epoch != election.epoch:
            self.enter(epoch)
            election = self.election
        election.receive(sender, message)
        if detector is not None:
            self.rewatch()
        return self.flush()

    def handle_timer(self, name: str, *, now: float) -> list[Action]:
        """Timer ``name`` fired ``now`` (one this member set and did not cancel since).

        A timer of the failure detector that finds the node has stood still is void: the
        stall gave every peer a fresh window and a heartbeat already."""
        if self._at(now) and (name == HEARTBEAT or name.startswith(SUSPECT)):
            return self.flush()
        if ":" not in name:
            self.election.timeout(name)
            if self.detector is not None:
                self.rewatch()
        else:
            self._part_timer(name, now)
        return self.flush()

    def _part_timer(self, name: str, now: float) -> None:
        """A timer of one of the member's parts fired."""
        if name == HEARTBEAT:
            self.tick()
        elif name.startswith(SUSPECT):
            if not self._sitting_out:
                self._suspect(int(name[len(SUSPECT) :]))
        elif name == LEASE_END:
            lease = self.lease
            if (
                self.steady is not None
                and lease is not None
                and lease.until > 0
                and reached(now, lease.until)
            ):
                self.steady.lease_ran_out()
        elif name == SIT_OUT:
            self._sat_out()
        elif name == STALL:
            self._stalling = False
            self._stalled()
        elif name == BEHIND:
            self._behind = False
            if (
                self.epoch < self.rounds.seen
                and self.recovery is None
                and not (self._sitting_out or self._resigned)  # (it waits for their leader)
            ):
                self._round(NewRound(f"behind epoch {self.rounds.seen}"))
                self.rewatch()
        elif name == REJOIN:
            self._rejoined()

    def peer_dead(self, node: int, *, now: float) -> list[Action]:
        """Proof that ``node``'s process is dead (the host's link to it was refused):
        suspect it now rather than after ``suspect_after`` of silence, if it is watched
        and the fast path is on.  Silence is never proof: only a host that saw a refusal
        calls this (see docs/how-to/crashes.md, "How it works").

        A leader's lease waits no longer for a follower whose newest answer
        acknowledged it, watched or not (:meth:`~ringleader.actors.Lease.gone`).
        Under the steady rules the leader this node follows is not suspected if it
        handed over: a leader that stops hands over first, and its successor's heartbeat
        is awaited (if it does not come, the old leader's silence is suspected, as any)."""
        self._at(now)
        steady = self.steady
        if steady is not None and steady.handed_over_by(node):
            return self.flush()  # its stop, not a crash
        detector = self.detector
        if detector is None or not detector.settings.fast_failover:
            return self.flush()
        lease = self.lease
        if lease is not None and lease.gone(node, now):
            self._leads_with(lease)  # (its lease no longer waits for the dead one)
        if detector.dead(node):
            self._out.append(Notice("suspect", node, self.epoch, PROOF_OF_DEATH))
            self.carry_out(self.policy.on_suspect(self, node))
            self.rewatch()
        return self.flush()

    def resign(
        self,
        *,
        now: float,
        to: int | None = None,
        reason: str = "resigned",
        stopping: bool = False,
    ) -> tuple[str | None, list[Action]]:
        """The leader steps down, ``now``; returns why it cannot hand over to ``to``
        (``None``: it did what was asked), and the actions.

        Under the steady rules it hands over (``_handover.py``): to ``to``, or the live
        member the notes' algorithms would elect; ``stopping``: the node is about to
        stop, and names the live member that joined last.  Otherwise (the teaching runs'
        rules) it steps down at once ("resigned") and sits out: it answers nothing and
        sends nothing, so its followers suspect it and elect another without it, until a
        new leader's heartbeat reaches it (it follows that one) or ``reelect_after`` has
        passed.  Until ``reelect_after`` has passed it stands against none of the
        leaders that replace it, for that election may end in more than one leader in
        turn (Bully: the first node to suspect it proclaims itself in a round of its
        own, and a lower node's round draws that one into another): it follows each
        newer leader it hears without starting a round above it (nor one because it is
        behind: it waits for that round's leader), and another node's round that
        reaches it sends it back to sitting out (a round of its own when its leader goes
        silent it still starts).  A chosen ``to`` needs the steady rules.
        Not leading, it does nothing."""
        self._at(now)
        steady = self.steady
        if to is not None:
            refused = self.refuse_hand_over(to)
            if refused is None:
                assert steady is not None
                steady.hand_over(to, reason)
            return refused, self.flush()
        if steady is not None:
            steady.hand_over(reason=reason, stopping=stopping)
        elif self.state is NodeState.LEADER:
            self.demote("resigned", rejoin=False)
            if self.settings is not None:
                self._sitting_out = self._resigned = True
                self._out.append(SetTimer(SIT_OUT, self.settings.reelect_after))
        return None, self.flush()

    def transfer(self, to: int, *, now: float) -> tuple[str | None, list[Action]]:
        """An operator asks the leader to hand over to ``to`` (``ringleader transfer``),
        ``now``: why it cannot (``None``: done, or done already: a question asked again
        once it has handed over, or once ``to`` leads), and the actions."""
        steady = self.steady
        if (steady is not None and steady.handed_to == to) or (
            self.state is not NodeState.UNDECIDED and self.elected == to
        ):
            self._at(now)
            return None, self.flush()
        return self.resign(now=now, to=to, reason="resigned")

    def request(self, change: Add | Remove, *, now: float) -> tuple[str | None, list[Action]]:
        """An operator asks this node for a membership ``change`` (add a member as a
        learner, or remove one), ``now``: ``None`` if it made the change (it is pending
        until a majority of the new configuration's voters acknowledge it: the
        membership's ``Committed``), else why not in one line (see
        :meth:`refuse_change`), and the actions.  The new configuration is kept first
        (the :class:`Persist` the actions begin with), then counted in (its lease starts
        over, rule L2), and the next heartbeat carries it.  Asked to remove itself, the
        leader hands over first (rule 7) and says whom to ask next."""
        self._at(now)
        refused = self.refuse_change(change)
        membership = self.membership
        if refused is not None or membership is None:
            return refused, self.flush()
        if isinstance(change, Remove) and change.node == self.id:
            to = self._heir()
            assert to is not None and self.steady is not None
            self.steady.hand_over(to, f"node {self.id} is being removed")
            return (
                f"node {self.id} leads: it hands over to node {to} first; ask node {to} "
                f"to remove node {self.id}",
                self.flush(),
            )
        actions = membership.handle(change, now)
        for action in actions:
            if type(action) is Refused:  # (refuse_change said it would not be)
                raise AssertionError(action.reason)
        self._membership(actions)
        return None, self.flush()

    def refuse_change(self, change: Add | Remove, now: float | None = None) -> str | None:
        """Why this node makes no membership ``change`` now, in one line, or ``None``:
        it is not the leader, has a change pending or its configuration not committed
        in its round (rule 5), the change makes no configuration (a member added twice,
        the last voter removed), it holds no lease (rule L3), the voters left by a
        removal would have no live majority (they could elect nobody), or, removing
        itself, has no live voter to hand over to.  Asking changes nothing; ``now``:
        the time on its clock (its last event's if not given)."""
        membership = self.membership
        if membership is None:
            return f"node {self.id} runs no configuration: its members are fixed"
        if self.state is not NodeState.LEADER:
            return f"node {self.id} does not lead: ask the leader"
        refused = membership.refuse(change)
        if refused is not None:
            return refused
        lease = self.lease
        if lease is not None and not lease.holds(self._now if now is None else now):
            return f"node {self.id} holds no lease now: ask again once a majority answers"
        if isinstance(change, Remove):
            return self._refuse_removal(change.node, membership.configuration.voters)
        return None

    def _refuse_removal(self, node: int, voters: frozenset[int]) -> str | None:
        """Why this leader does not remove ``node`` from ``voters`` now (see
        :meth:`refuse_change`), or ``None``.  Removing itself, it is asked before it
        hands over: a removal its heir would refuse moves no leadership."""
        lease = self.lease
        if lease is not None:
            # As etcd's strict reconfiguration check: no removal that leaves the voters
            # without a live majority (answering this leader within its lease): they
            # would elect nobody.
            left = voters - {node}
            live = ({self.id} - {node}) | {p for p in left if lease.live(p)}
            if len(left & live) <= len(left) // 2:
                down = ",".join(map(str, sorted(left - live)))
                names = ",".join(map(str, sorted(left)))
                return (
                    f"removing node {node} would leave voters {names} without a live "
                    f"majority (node {down} not answering)"
                )
        if node == self.id:  # it hands over first: to a live voter
            heir = self._heir()
            return None if heir is not None else self.refuse_hand_over(max(voters - {node}))
        return None

    def _heir(self) -> int | None:
        """The voter a leader removing itself hands over to: the highest other voter fit
        to lead (live, in its lease), or ``None``."""
        others = sorted((self._voters() or frozenset()) - {self.id})
        for to in reversed(others):
            if self.refuse_hand_over(to) is None:
                return to
        return None

    def refuse_hand_over(self, to: int) -> str | None:
        """Why this node cannot hand over to ``to`` now (see ``_handover.py``), or
        ``None``."""
        if self.steady is None:
            return "a hand-over needs the service modes' steady rules (and a lease)"
        return self.steady.refuse_hand_over(to)

    def flush(self) -> list[Action]:
        """The actions of the event just handled, in the order the host carries them out:
        a :class:`~ringleader.actors.core.Persist` first (if the host keeps this node's
        state and it changed), then a :class:`~ringleader.actors.core.Publish` (if what
        it believes changed) and a :class:`~ringleader.actors.core.StateChanged` (if its
        state changed), the event's notices, sends and timers, and the
        leadership's notices last (``lost``, ``state``, ``lease``: ``_tenure.py``)."""
        if self._stalling and self.election.state is not NodeState.UNDECIDED:
            self._stalling = False
            self._out.append(CancelTimer(STALL))
            assert self.settings is not None
            self._stall = self.settings.reelect_after
        lease = self.lease
        if lease is not None:
            election = self.election
            if election.state is NodeState.LEADER:
                if lease.epoch != election.epoch:  # from its next heartbeat on
                    if self.steady is None:
                        lease.begin(election.epoch)
                    elif not self.rounds.may_acknowledge(election.epoch, self.id):
                        # Steady rules: it acknowledged another leader of this round, so
                        # it leads it with no lease (one leader per round): it steps
                        # down, and a round above follows.
                        self.demote("superseded")
                    else:
                        # Steady rules: a peer known to be down holds no first lease
                        # back, and the first heartbeat goes now, not at the next tick.
                        lease.begin(election.epoch, self.suspected)
                        self.tick()
            elif lease.epoch is not None:
                lease.end()
        membership = self.membership
        if membership is not None:
            election = self.election
            leads = election.epoch if election.state is NodeState.LEADER else None
            if membership.epoch != leads:
                event = Follow() if leads is None else Lead(leads)
                self._membership(membership.handle(event, self._now))
        out = self._out[:]
        self._out.clear()
        return self._reports(out)

    def _reports(self, body: list[Action]) -> list[Action]:
        """``body`` with what the host must keep, publish and report around it."""
        now, tenure, election, lease = self._now, self.tenure, self.election, self.lease
        stance = (election.state, election.elected, election.epoch)
        if self._kept is None and tenure.settled(stance):
            return body  # nothing new to say, nor to keep
        if lease is None:
            until = math.inf
        elif lease.basis is not None and lease.epoch is not None and stance[0] is NodeState.LEADER:
            until = lease.until
        else:
            until = 0.0
        held = tenure.until
        lapsed = lease is not None and stance[0] is NodeState.LEADER and lease.lapsed
        publish, moved = tenure.publish(stance, until, now, lapsed=lapsed)
        steady = self.steady is not None
        changed, last = tenure.report(stance, held, until, now, steady=steady)
        front: list[Action] = []
        if self._kept is not None:  # durable
            rounds = self.rounds
            kept_epoch, kept_acked, kept_key = self._kept
            acked = (rounds.acked, rounds.acked_leader)
            key = self.configuration_key
            if rounds.seen > kept_epoch or acked != kept_acked or key != kept_key:
                self._kept = (rounds.seen, acked, key)
                # (A newer configuration is kept with them: the membership's Keep.)
                configuration = self.configuration if key != kept_key else None
                front.append(Persist(rounds.seen, acked, configuration))
        if publish is not None:
            front.append(publish)
        if changed is not None:
            front.append(changed)
        if moved and steady:
            # Steady rules: the lease ends on its own clock, not at the next heartbeat.
            front.append(
                CancelTimer(LEASE_END) if reached(now, until) else SetTimer(LEASE_END, until - now)
            )
        if not (front or last):
            return body
        return [*front, *body, *last]

    # -- what the node's own stalls and its parts ask (``Seat``) ------------------------

    def emit(self, action: Action) -> None:
        self._out.append(action)

    def _at(self, now: float) -> bool:
        """An event at ``now``: True if it finds that this node stood still meanwhile
        (then that is handled first)."""
        self._now = now
        if self._promise_due:
            self._promise_due = False
            assert self.steady is not None
            self.steady.restarted()
        detector = self.detector
        if detector is None:
            return False
        late = detector.stood_still(now)
        if late is None:
            return False
        self._out.append(Notice("stalled", None, self.epoch, f"{late:.3f} s"))
        self._stood_still()
        return True

    def _stood_still(self) -> None:
        """This node itself stood still (its heartbeat came far too late: the process
        was stopped, or starved).  Its peers were not silent, it was: each gets a fresh
        suspicion window, and a leader steps down ("paused") before it acts on anything
        else: its lease ran out meanwhile, and its followers may have elected another.
        Then a heartbeat, so that they hear from it at once."""
        detector = self.detector
        assert detector is not None
        detector.forgive_own_stall()
        steady = self.steady
        if steady is not None:
            steady.stood_still()
        elif self.state is NodeState.LEADER:
            self.demote("paused")
        if not self._sitting_out:
            self.tick()

    # -- rounds ------------------------------------------------------------------------

    def enter(self, epoch: int, *, initiator: bool = False) -> None:
        """Leave the current round for round ``epoch``."""
        self.election.cancel_timers()
        self.rounds.enter(epoch)
        if self.recovery is not None:
            self.recovery = None
            self._out.append(CancelTimer(REJOIN))
        self.election = self._election(epoch, initiator)
        if self.settings is not None:
            self._arm_stall()
        if self.steady is not None:
            self.steady.entered()

    def _arm_stall(self) -> None:
        self._stalling = True
        self._out.append(SetTimer(STALL, self._stall))

    def _stalled(self) -> None:
        """Undecided for ``reelect_after`` s (doubling, up to :data:`STALL_BACKOFF`
        times): a round of its own, so that no round waits for ever on a message a
        crashed node took with it."""
        if self.state is not NodeState.UNDECIDED or self.recovery is not None:
            return
        stall = self._stall
        self._round(NewRound(f"no leader after {stall:g} s"))
        assert self.settings is not None
        self._stall = min(stall * 2, self.settings.reelect_after * STALL_BACKOFF)
        self._arm_stall()
        self.rewatch()

    def _round(self, wish: NewRound) -> None:
        """A round is wanted: started at once in the teaching runs; under the steady rules
        asked for first (the pre-vote).  A learner wants none."""
        if not self.voter:
            return
        if self.steady is None:
            self.new_round(wish.why, wish.subject)
        else:
            self.steady.round(wish)

    # -- the failure detector -----------------------------------------------------------

    def tick(self) -> None:
        """A heartbeat of this node, now."""
        detector = self.detector
        assert detector is not None
        now = self._now
        if self._sitting_out:
            detector.next_beat(now)
            return
        steady = self.steady
        if steady is not None:
            steady.tick()
        self.rewatch()
        policy = self.policy
        ping = policy.ping(self, detector.watched) | (policy.probe(self) & detector.suspected)
        if steady is not None and self.elected is not None and self.state is NodeState.NOT_LEADER:
            ping.discard(self.elected)  # its leader's heartbeat is answered: no ping to it
        lease = self.lease
        if lease is not None and lease.epoch is not None:
            lease.refresh(now)
            self._leads_with(lease)
            # Steady rules: a lease that ran out comes back with the answers (rule 5),
            # but a leadership never granted one in its round is given up, and so is one
            # without its lease that, with a quorum, a follower refuses (it will never
            # acknowledge this round: the lease might never come back).
            if lease.expired and (steady is None or not lease.granted):
                self.demote("lease expired")
            elif steady is not None and lease.settings.quorum and lease.refused:
                self.demote("superseded")
            else:
                ping -= self._beat(lease)
        detector.tick(ping, self.epoch, now)

    # -- the lease ---------------------------------------------------------------------

    def _leads_with(self, lease: Lease) -> None:
        """Its lease may have been granted: a round it led with a lease counts as one it
        acknowledged (``Rounds.acked``)."""
        if lease.basis is not None and lease.epoch is not None:
            self.rounds.acknowledge(lease.epoch, self.id)

    def _beat(self, lease: Lease) -> set[int]:
        """A leader's numbered heartbeat to every other member; returns them."""
        seq, epoch = lease.beat(self._now), self.epoch
        configuration, older = self.configuration, self._older
        if configuration is None:
            ping = full = Ping(seq)
        else:
            made_in, version = configuration.key
            ping = Ping(seq, version, made_in)
            full = Ping(seq, version, made_in, configuration) if older else ping
        for peer in lease.peers:
            self._out.append(Send(peer, full if peer in older else ping, epoch))
        if self._parting and configuration is not None:
            told = Ping(seq, configuration.version, configuration.epoch, configuration)
            for peer in self._parting:
                self._out.append(Send(peer, told, epoch))
            membership = self.membership
            if membership is not None and membership.committed == configuration:
                self._parting = _NOBODY  # committed as it was made: told once, now
        return set(lease.peers)

    def demote(self, reason: str, *, rejoin: bool = True) -> None:
        """Stop leading, undecided in the same round; ``rejoin``: if no leader is heard
        of within ``suspect_after``, start a round."""
        self.election.step_down()
        self.tenure.demoted = reason
        if self.lease is not None:
            self.lease.end()
        if self.steady is not None:
            self.steady.demoted()
        if rejoin and self.settings is not None:
            self._stall = self.settings.suspect_after
            self._arm_stall()

    def adopt(self, leader: int, epoch: int) -> None:
        """Heard the heartbeat of ``leader`` of a newer round ``epoch``: follow it, as a
        node that missed that round (paused, partitioned, resigned) learns it.  A node
        that would win against that leader then starts a round above it at once (the
        notes' algorithms elect the largest candidate: Bully's top node takes over), but
        not one that resigned less than ``reelect_after`` ago (see :meth:`resign`): the
        leader it hears may be the first of several that replace it, and it stands
        against none of them."""
        self.enter(epoch)
        self.election.follow(leader)
        self._sitting_out = False  # (if it was: a new leader was heard)
        if self.steady is not None:
            self.steady.adopted(leader, epoch)
        elif not self._resigned and self.view.candidate > self.view.neighbour(leader):
            self.new_round(f"above leader {leader}", leader)
        self.rewatch()

    def _sat_out(self) -> None:
        """A resigned node's time out is over: it may stand in rounds again, and if no
        new leader reached it (or another node's round sent it back), it speaks again."""
        self._resigned = False
        if not self._sitting_out:
            return
        self._sitting_out = False
        assert self.detector is not None and self.settings is not None
        self.detector.forgive_own_stall()
        if self.state is NodeState.UNDECIDED:
            self._stall = self.settings.suspect_after
            self._arm_stall()
        self.tick()

    def rewatch(self) -> None:
        """Watch whom the crash policy (or the steady rules) say, now."""
        detector = self.detector
        assert detector is not None
        watch = self.policy.watch(self) if self.steady is None else self.steady.watch()
        watch.discard(self.id)
        detector.watch(watch)

    def _suspect(self, node: int) -> None:
        detector = self.detector
        assert detector is not None
        if detector.expired(node):
            self._out.append(Notice("suspect", node, self.epoch))
            self.carry_out(self.policy.on_suspect(self, node))
            self.rewatch()

    def _recovered(self, node: int) -> None:
        self._out.append(Notice("recovered", node, self.epoch))
        if self._sitting_out:
            return
        self.carry_out(self.policy.on_recovered(self, node))
        self.rewatch()

    def carry_out(self, intent: Intent) -> None:
        """Do what the crash policy asked for."""
        if isinstance(intent, NewRound):
            self._round(intent)
        elif intent is not None:  # Retry
            self.election.retry()

    def _detector_message(self, sender: int, message: Message, epoch: int) -> None:
        kind = message.kind
        seq = message.seq if isinstance(message, Ping | Pong) else 0
        if seq > 0 and isinstance(message, Ping):  # a leader's heartbeat
            if self.steady is not None:
                self.steady.heartbeat(sender, epoch, message)
                return
            if self.recovery is None:
                if epoch > self.epoch:
                    self.adopt(sender, epoch)
                if not self._sitting_out:
                    self.answer_heartbeat(sender, message, epoch, self._answering_epoch())
                return
        if seq > 0 and isinstance(message, Pong):  # an answer to this node's heartbeat
            if sender in self._parting or not self._member(sender):
                return  # a member removed (told, or no member any more): it counts for nothing
            self._heartbeat_answered(sender, message, epoch)
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

    def _heartbeat_answered(self, sender: int, pong: Pong, epoch: int) -> None:
        """``sender`` answered this node's heartbeat: the membership and the lease hear it."""
        current = self._answered(sender, pong, epoch)
        lease = self.lease
        if lease is not None and lease.answer(sender, pong.seq, epoch, self._now, current=current):
            self._leads_with(lease)

    def _answered(self, peer: int, pong: Pong, epoch: int) -> bool:
        """``peer`` answered this node's heartbeat in round ``epoch`` with ``pong``:
        the membership hears the configuration it holds (a leader adopts a newer one);
        True if that is this node's own (then it may count for the lease: rule L1)."""
        membership = self.membership
        if membership is None:
            return pong.configuration_key == (0, 0)
        theirs, mine = pong.configuration_key, self.configuration_key
        if theirs < mine:
            if peer not in self._older:
                self._older |= {peer}
            return False
        configuration = pong.configuration if theirs > mine else self.configuration
        if configuration is not None and configuration.key == theirs:
            event = Acknowledged(peer, epoch, configuration)
            self._membership(membership.handle(event, self._now))
        if peer in self._older:
            self._older -= {peer}
        return theirs == self.configuration_key

    def _answering_epoch(self) -> int:
        """The epoch a ``pong`` carries in the teaching runs' rules: a pong in the
        leader's epoch acknowledges its heartbeat (``_lease.py``), and a node that has
        seen a newer epoch never acknowledges an older one, so it answers in the newest
        it has seen.  A restarted node still recovering answers in epoch 0: it
        acknowledges nothing."""
        if self.recovery is not None:
            return self.epoch
        return max(self.epoch, self.rounds.seen)

    # -- recovery ------------------------------------------------------------------------

    def _rejoined(self) -> None:
        recovery = self.recovery
        if recovery is None:
            return
        self.rounds.heard_of(recovery.learned or 0)
        why = "start" if recovery.learned is None else f"recovery of {self.id}"
        subject = None if recovery.learned is None else self.id
        # Nobody answered with an epoch: there is no cluster yet (or no live one).  Under
        # the steady rules no leader's heartbeat came either: it asks for a round.
        self._round(NewRound(why, subject))
        self.rewatch()

    def key(self) -> Hashable:
        """This node's state as a hashable value: two members of one node with equal keys
        behave alike from now on (the explorer tells states apart by it).  The election's
        :meth:`~ringleader.actors.Election.key` and every part's state, its times counted
        from the last event's and its heartbeats back from the newest; counters that only
        report (:attr:`stale`), the leadership's reports and lazily filled caches are left
        out."""
        detector, lease, recovery, steady = self.detector, self.lease, self.recovery, self.steady
        now = self._now
        due = None if detector is None else detector.due
        return (
            self.election.key(),
            self.rounds.epoch,
            self.rounds.seen,
            self.rounds.acked,
            self.rounds.acked_leader,
            self.floor,
            None if recovery is None else ("recovering", recovery.learned),
            self._stall,
            self._stalling,
            self._behind,
            self._sitting_out,
            self._resigned,
            None
            if detector is None
            else (
                frozenset(detector.watched),
                frozenset(detector.suspected),
                None if due is None else round(due - now, 9),
            ),
            None if lease is None else lease.key(now),
            None if steady is None else steady.key(),
            self._membership_key(),
        )

    def _membership_key(self) -> Hashable:
        """The membership's part of :meth:`key`: its own state (the configuration, who
        answered with which key, what is committed), who is sent the configuration (the
        members that answered with an older one, those a change removed), and whether
        this node retired."""
        membership = self.membership
        if membership is None:
            return None
        return (membership.key(), self._older, self._parting, self.retired)

    def __repr__(self) -> str:
        return f"<Member {self.id} {self.election!r}>"
