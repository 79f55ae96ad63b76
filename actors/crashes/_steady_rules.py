"""The steady rules, a part of a member in the service modes (``steady=True``).

A round a node wants is asked for first (the pre-vote, ``_prevote.py``); a node that
hears its live leader says no, and neither starts nor joins a round against it; a
restarted node follows the leader it hears; a leader that resigns or stops names its
successor (``_handover.py``); with ``preempt``, a node above the leader asks it for the
leadership; and a leader whose lease ran out on its clock keeps its round and leads
again once a majority answers.  ``_steady.py`` says the rules in words, with their
settings.

:class:`SteadyRules` holds the rules' state and applies them.  It is a part of a
:class:`~ringleader.actors.Member`, like the lease and the failure detector: the member
routes to it what concerns it and it acts on the member through what :class:`Seat`
declares — the round, the parts, and the few moves the member makes for its parts.
"""

from __future__ import annotations

from typing import Protocol

from ringleader.actors.core import Action, Election, Message, NodeState, Notice, Send

from ._configuration import Configuration, newer
from ._crash_policy import CrashPolicy, Intent, NewRound, Situation
from ._detector import FailureDetector, Ping
from ._handover import HandOver, HandOverRequest, refusal, successor
from ._lease import Lease
from ._moments import reached
from ._prevote import ANY_ATTEMPT, PreVote, PreVoteReply, PreVoting
from ._recovery import Recovery
from ._rounds import Rounds
from ._steady import SteadySettings
from ._tenure import Tenure

__all__ = ["Seat", "SteadyRules"]


class Seat(Situation, Protocol):
    """What the steady rules use of the member they are part of (a
    :class:`~ringleader.actors.Member`)."""

    @property
    def election(self) -> Election: ...

    @property
    def rounds(self) -> Rounds: ...

    @property
    def lease(self) -> Lease | None: ...

    @property
    def configuration(self) -> Configuration | None: ...

    @property
    def detector(self) -> FailureDetector | None: ...

    @property
    def recovery(self) -> Recovery | None: ...

    @property
    def policy(self) -> CrashPolicy: ...

    @property
    def tenure(self) -> Tenure: ...

    @property
    def floor(self) -> int: ...

    @property
    def now(self) -> float:
        """The time of the event being handled, on the node's clock."""
        ...

    def emit(self, action: Action) -> None:
        """Add ``action`` to what the event being handled asks of the host."""

    def answer_heartbeat(self, leader: int, ping: Ping, epoch: int, answer: int) -> None:
        """Answer heartbeat ``ping`` of ``leader`` of round ``epoch`` with a ``pong`` in
        round ``answer`` (an acknowledgement if that is ``epoch``: it first learns the
        configuration the ping carries, if newer)."""

    def counts(self, peer: int) -> bool:
        """Whether ``peer``'s answers count in a majority (a learner's do not)."""

    def new_round(self, why: str, subject: int | None = None) -> None: ...

    def enter(self, epoch: int, *, initiator: bool = False) -> None:
        """Leave the current round for round ``epoch``."""

    def tick(self) -> None:
        """A heartbeat of this node, now."""

    def demote(self, reason: str) -> None:
        """Stop leading, undecided in the same round."""

    def adopt(self, leader: int, epoch: int) -> None:
        """Follow ``leader`` of round ``epoch``."""

    def rewatch(self) -> None:
        """Watch whom the rules say, now."""

    def carry_out(self, intent: Intent) -> None:
        """Do what the crash policy asked for."""


class SteadyRules:
    """One node's steady rules: their state, and the rules (see the module's docstring).

    :attr:`since` is when (on this node's clock) the leader it follows was last heard as
    leader (its numbered heartbeat in this round), or when it began to follow it: how
    long it vouches for it counts from there, a pause of its own included;
    :attr:`quiet_since` is the same, but after a pause of its own counts from the end of
    the pause (its leader was not silent, it was): how long before it suspects its
    leader;
    :attr:`vouched`: that heartbeat came at all (a leader just elected is not
    defended before it has said so itself); :attr:`handed_to` is the node its leader
    handed over to (followed as soon as its heartbeat comes); :attr:`idle`: no round is
    under way here (the node waits for a leader, or for its pre-vote); :attr:`waiting`
    is a newer leader (and its epoch) whose heartbeat was dropped while the old one was
    live, to follow at once if the old one hands over to it; :attr:`resigned`: this
    node handed over and asks for nothing back; :attr:`refused`: askers told no since
    the leader was last heard; :attr:`promised_until`: a restarted node keeps its previous
    life's promise until then (:meth:`restarted`).
    """

    __slots__ = (
        "following",
        "handed_to",
        "idle",
        "member",
        "prevoting",
        "promised_until",
        "quiet_since",
        "refused",
        "resigned",
        "settings",
        "since",
        "vouched",
        "waiting",
    )

    def __init__(self, member: Seat, settings: SteadySettings, members: int) -> None:
        self.member = member
        self.settings = settings
        self.prevoting = PreVoting(
            majority=members // 2 + 1,
            quorum=settings.quorum,
            retry=settings.beats(settings.suspect_after),
            patience=settings.beats(settings.reelect_after),
        )
        self.since: float | None = None  # nobody heard yet
        self.quiet_since: float | None = None
        self.following: tuple[int | None, int] = (None, 0)  # (leader, epoch) counted for
        self.vouched = False
        self.handed_to: int | None = None
        self.waiting: tuple[int, int] | None = None  # (leader, epoch)
        self.idle = True
        self.resigned = False
        self.refused: set[int] = set()
        self.promised_until: float | None = None  # (a restarted node: see restarted)

    def reconfigure(self, voters: int) -> None:
        """The cluster's configuration changed: a pre-vote's majority is counted among
        its ``voters`` from now on."""
        self.prevoting.majority = max(1, voters) // 2 + 1

    def key(self) -> tuple[object, ...]:
        """The rules' state as a hashable value (see ``Member.key``)."""
        return (
            self.prevoting.key(),
            self._silence(),
            self.following,
            self.vouched,
            self.handed_to,
            self.waiting,
            self.idle,
            self.resigned,
            frozenset(self.refused),
            self._promise(),
        )

    def _promise(self) -> float | None:
        """How long this restarted node still keeps its last life's promise (``None``:
        no more)."""
        until = self.promised_until
        if until is None or reached(self.member.now, until):
            return None
        return round(until - self.member.now, 9)

    # -- a restarted node's promise (rule 7) -----------------------------------------

    def restarted(self) -> None:
        """This node has just restarted.  Its previous life may have acknowledged a
        leader's heartbeat just before it went down, and with it promised that leader to
        help elect nobody else for :attr:`~ringleader.actors.crashes.SteadySettings.vouch`
        (rule 2); that memory is gone, and the previous life stopped before now, so it
        keeps the promise from now for as long: until then it acknowledges no leader but
        the one its previous lives acknowledged last (its state file keeps it), grants
        no pre-vote, and no lease of its own runs from a heartbeat sent before then.

        Only a node whose state file says it led the round it acknowledged last made no
        promise to another, with a quorum (what it acknowledged is durable before it
        says so, and it acknowledges no older round after it; without a quorum it may
        have, unrecorded).  A new node cannot tell itself from one whose state was lost,
        so it keeps the promise too: a cluster's first lease comes at most that much
        later.  The member calls this at its first event, whatever that is."""
        member = self.member
        if member.rounds.acked_leader == member.id and self.settings.quorum:
            return
        until = member.now + self.settings.vouch
        self.promised_until = until
        if member.lease is not None:
            member.lease.not_before = until

    @property
    def promising(self) -> bool:
        """Whether this node still keeps its previous life's promise (:meth:`restarted`)."""
        return self._promise() is not None

    # -- the followed leader ----------------------------------------------------------

    @property
    def _vouching(self) -> bool:
        """Whether its leader's last heartbeat came within
        :attr:`~ringleader.actors.crashes.SteadySettings.vouch` (whoever says so: its own
        leader's, or, after a hand-over, the next one's)."""
        since = self.since
        return since is not None and not reached(self.member.now, since + self.settings.vouch)

    def _silence(self) -> tuple[float, float] | None:
        """How long the followed leader has not been heard, for vouching and for
        suspicion, as far as it matters (longer than ``suspect_after`` is all alike;
        ``None``: nobody heard)."""
        since, quiet = self.since, self.quiet_since
        if since is None or quiet is None:
            return None
        now, limit = self.member.now, self.settings.suspect_after
        return round(min(now - since, limit), 9), round(min(now - quiet, limit), 9)

    @property
    def leader_live(self) -> bool:
        """This node vouches for its leader: its heartbeat came within
        :attr:`~ringleader.actors.crashes.SteadySettings.vouch`."""
        return self.vouched and self._vouching

    @property
    def leader_silent(self) -> bool:
        """The followed leader's heartbeat has not come for ``suspect_after``."""
        since = self.quiet_since
        return since is None or reached(self.member.now, since + self.settings.suspect_after)

    def follows(self, leader: int | None, epoch: int) -> None:
        """This node follows ``leader`` in ``epoch`` now: counted from now if new."""
        if (leader, epoch) != self.following:
            self.following = (leader, epoch)
            self.since = self.quiet_since = self.member.now
            self.vouched = False

    def heard_leader(self, leader: int, epoch: int) -> None:
        """The heartbeat of the leader it follows came."""
        self.follows(leader, epoch)
        self.since = self.quiet_since = self.member.now
        self.vouched = True
        self.prevoting.drop()
        self.refused.clear()

    def forget_leader(self) -> None:
        """The followed leader can no longer be vouched for (it handed over)."""
        self.vouched = False

    def _unfollow(self) -> None:
        """This node follows nobody (a round is under way, or it stopped leading): its
        count starts afresh with the next leader it follows."""
        self.following = (None, 0)
        self.since = self.quiet_since = None
        self.vouched = False

    # -- hooks: what the member tells the rules --------------------------------------

    def entered(self) -> None:
        """A round is under way here: nothing to ask for, nobody to wait on."""
        self.idle = False
        self.prevoting.drop()
        self.handed_to = self.waiting = None
        self._unfollow()

    def demoted(self) -> None:
        """This node stopped leading: it waits for a leader now."""
        self.idle = True
        self._unfollow()

    def adopted(self, leader: int, epoch: int) -> None:
        """This node follows ``leader`` of round ``epoch`` from its heartbeat."""
        self.heard_leader(leader, epoch)
        self.preempt(leader)

    def stood_still(self) -> None:
        """This node stood still: a follower gives its leader a fresh window before it
        suspects it (it was silent, not its leader), but vouches for it no longer than it
        would have (the pause counts: the lease it acknowledged may have run out); a
        leader keeps its round while its lease, which ran out meanwhile, lapses."""
        member = self.member
        if self.quiet_since is not None:
            self.quiet_since = member.now  # a fresh window: it was silent, not its leader
        if member.lease is not None and member.state is NodeState.LEADER:
            member.lease.lapse()
            member.tenure.demoted = "paused"

    # -- rounds ----------------------------------------------------------------------

    def round(self, wish: NewRound) -> None:
        """A round is wanted: asked for first (the pre-vote), and never by a leader or a
        node whose leader is live."""
        member = self.member
        if member.state is NodeState.LEADER or (wish.subject != member.elected and self.held(None)):
            return  # (a node wants no round while its live leader is not the reason)
        self.regrant()
        prevoting = self.prevoting
        if prevoting.majority <= 1:
            member.new_round(wish.why, wish.subject)
            return
        ask = prevoting.want(wish)
        if ask is not None:
            member.emit(Notice("prevote", wish.subject, member.epoch, wish.why))
            self._ask(ask)

    def regrant(self) -> None:
        """This node no longer vouches for its leader: the askers it told no since it
        last heard that leader get a yes now, to whatever they ask now (failover need not
        wait for their retry)."""
        member = self.member
        refused, self.refused = self.refused, set()
        for asker in sorted(refused):
            if not self.held(asker):
                member.emit(Send(asker, PreVoteReply(ANY_ATTEMPT, True), member.epoch))

    def _ask(self, ask: PreVote) -> None:
        """Ask every other node listed, with this node's configuration (a member that
        missed a change learns it from whoever asks, rule 3)."""
        member = self.member
        epoch = member.epoch
        ask = PreVote(ask.attempt, member.configuration)
        for peer in member.view.members:
            if peer != member.id:
                member.emit(Send(peer, ask, epoch))

    def held(self, sender: int | None) -> bool:
        """Rule 2: whether this node stands by a live leader against ``sender``: it leads
        and its leadership stands, or it follows a leader other than ``sender`` whose
        heartbeat came within the lease (and that did not hand over to ``sender``)."""
        member = self.member
        election = member.election
        if election.state is NodeState.LEADER:  # a leader just elected yields, as in the notes
            return member.lease is not None and member.lease.held
        if election.state is NodeState.NOT_LEADER:
            return (
                sender != election.elected
                and (sender is None or sender != self.handed_to)
                and self.leader_live
                and election.elected not in member.suspected  # (its process is gone)
            )
        return False

    def watch(self) -> set[int]:
        """Rule 6: who this node watches (its crash policy says who while a round is
        under way)."""
        member = self.member
        state = member.election.state
        if state is NodeState.UNDECIDED and not self.idle and member.recovery is None:
            return member.policy.watch(member)
        watch = member.policy.steady_watch(member)
        if state is NodeState.NOT_LEADER and member.elected is not None:
            watch.add(member.elected)
        return watch

    def tick(self) -> None:
        """A heartbeat of this node: count the leader's silence, ask again if due."""
        member = self.member
        election = member.election
        leader = election.elected
        detector = member.detector
        assert detector is not None
        if election.state is NodeState.NOT_LEADER:
            self.follows(leader, election.epoch)  # a new one counts from now
        if (
            election.state is NodeState.NOT_LEADER
            and leader is not None
            and self.leader_silent
            and detector.dead(leader)  # watched, and now suspected
        ):
            # Its frames may still come (it stepped down, or restarted): its heartbeat
            # as leader does not.  Silence, as the detector's own suspicion.
            member.emit(Notice("suspect", leader, member.epoch))
            member.carry_out(member.policy.on_suspect(member, leader))
        ask, anyway = self.prevoting.tick()
        if ask is not None:
            self._ask(ask)
        elif anyway:
            self._granted()

    def _granted(self) -> None:
        """The pre-vote is won (or, without a quorum, nobody said no for long enough)."""
        member = self.member
        wish = self.prevoting.wish
        if wish is None or member.state is NodeState.LEADER:
            self.prevoting.drop()
            return
        member.new_round(wish.why, wish.subject)
        member.rewatch()

    # -- a leader's heartbeat --------------------------------------------------------

    def heartbeat(self, sender: int, epoch: int, ping: Ping) -> None:
        """A leader's numbered heartbeat ``ping`` of round ``epoch``, and this node's
        answer to it (rules 2, 3)."""
        member = self.member
        if self.beyond_floor(epoch):
            self._heartbeat(sender, epoch)
        # (In the epoch it follows: a node that stands by its live leader acknowledges it
        # even after hearing of a newer round, which gets no majority from it.  A
        # restarted node that has not found its leader yet answers in its floor: a leader
        # of an older round learns that it will not be acknowledged here.)
        answer = self.answer(sender, epoch)
        if answer is not None:
            member.answer_heartbeat(sender, ping, epoch, answer)

    def _heartbeat(self, sender: int, epoch: int) -> None:
        member = self.member
        election = member.election
        if epoch == election.epoch and sender == election.elected:
            if election.state is NodeState.NOT_LEADER:
                self.heard_leader(sender, epoch)
                self.preempt(sender)
            return
        if epoch == election.epoch and (
            election.state is NodeState.UNDECIDED
            or (election.state is NodeState.NOT_LEADER and not self._vouching)
        ):
            # The leader of this very round (its announcement has not come, or was lost
            # with a crashed node), or another leader of it while this node's own is
            # silent (a round of the notes' Bully can end with two, on either side of a
            # cut link): follow it.  (It acknowledges only one leader per round: see
            # ``answer``.)
            election.cancel_timers()
            election.follow(sender)
            self.heard_leader(sender, epoch)
            member.rewatch()
            return
        if epoch < election.epoch and (
            (election.state is NodeState.UNDECIDED and self.idle)
            or (election.state is NodeState.NOT_LEADER and not self._vouching)
        ):
            # Waiting with no round under way, or following a leader silent for the
            # lease (it led a minority, and yielded): the leader that speaks is the one
            # to follow, newer or not — but with a quorum never one of a round older than
            # one this node acknowledged (that round may have held a lease since).
            if self.may_follow(epoch):
                member.adopt(sender, epoch)
            return
        if election.state is NodeState.LEADER and epoch != election.epoch:
            self._met(sender, epoch)
            return
        if epoch <= election.epoch:
            return  # an older round's leader: this node's pong (its epoch) tells it
        if self.held(sender):
            self.waiting = (sender, epoch)
            return
        member.adopt(sender, epoch)

    def beyond_floor(self, epoch: int) -> bool:
        """Whether a leader of round ``epoch`` may be followed at all: never one of a
        round below the floor this node's earlier lives kept (a node whose state was
        lost may lead such a round again: following it would hand out a lease below one
        reported before)."""
        return epoch >= self.member.floor

    def answer(self, leader: int, epoch: int) -> int | None:
        """The epoch of this node's ``pong`` to the heartbeat of ``leader`` of round
        ``epoch`` (``None``: no answer yet).

        - ``epoch``, an acknowledgement, only to the leader it follows in that round,
          and only if it acknowledged no other leader of the round
          (``Rounds.may_acknowledge``); while it keeps its previous life's promise
          (:meth:`restarted`), only if that is the round and leader it acknowledged
          last, and no answer at all to any other (it would acknowledge it but may not
          yet: to the leader it is a node still restarting, not one that refuses it);
        - else its own epoch, or its floor if that is larger (a restarted node that has
          not found its leader): a leader of an older round learns that it is refused;
        - and 0 if that is ``epoch`` itself: a refusal in the leader's own round.
        """
        member = self.member
        rounds = member.rounds
        if (
            epoch == member.epoch
            and leader == member.elected
            and leader != member.id
            and rounds.may_acknowledge(epoch, leader)
        ):
            if self.promising and (rounds.acked, rounds.acked_leader) != (epoch, leader):
                return None
            rounds.acknowledge(epoch, leader)
            return epoch
        mine = max(member.epoch, member.floor)
        return 0 if mine == epoch else mine

    def _met(self, other: int, epoch: int) -> None:
        """This leader hears the heartbeat of ``other``, leader of round ``epoch`` (two
        sides of a partition meet — without a quorum —, or a node led alone for a while).
        A leader that a majority answers stays.  The other follows it, whichever round
        is newer, once a majority answers it from another round; between two leaders
        without a majority, the newer round's stays.  (Not "if nobody answers it": two
        leaders that nobody answers yet, each alone in a round of its own, then followed
        each other, and nobody led.)"""
        member = self.member
        lease = member.lease
        assert lease is not None
        mine = sum(1 for peer in lease.voting if lease.live(peer))
        if mine + 1 >= lease.majority:
            return
        elsewhere = sum(1 for peer in lease.voting if lease.elsewhere(peer))
        if self.may_follow(epoch) and (epoch > member.epoch or elsewhere >= lease.majority):
            member.adopt(other, epoch)

    def may_follow(self, epoch: int) -> bool:
        """Whether this node may start to follow a leader of round ``epoch``.  With a
        quorum, not if it acknowledged a newer round (``Rounds.acked``): a lease in that
        round needed a majority of acknowledgements, and a lease in an older round after
        it needs one too, so each member of a majority that acknowledged a round never
        acknowledges an older one — the fencing token never goes back.  Without a
        quorum, always (after a cut, the majority's older leader stays)."""
        lease = self.member.lease
        return lease is None or not lease.settings.quorum or epoch >= self.member.rounds.acked

    def preempt(self, leader: int) -> None:
        """With ``preempt``: a node above the leader asks it for the leadership."""
        member = self.member
        view = member.view
        if self.settings.preempt and not self.resigned and view.candidate > view.neighbour(leader):
            member.emit(Send(leader, HandOverRequest(), member.epoch))

    # -- the rules' own messages -----------------------------------------------------

    def message(self, sender: int, message: Message, epoch: int) -> None:
        """One of the rules' messages (``prevote``, ``handover`` …) from ``sender``."""
        member = self.member
        recovery = member.recovery
        if recovery is not None and isinstance(message, PreVote | PreVoteReply):
            # The asker's round, or the one this node asks for, comes above this epoch:
            # a round it may join (0: the asker knows no epoch either, nor does anyone).
            recovery.learn(epoch)
        if isinstance(message, PreVote):
            # A node that is no voter in this node's configuration (one removed that never
            # learned it) is granted no round: this node would not take part in it.
            voter = member.counts(sender)
            granted = voter and not self.held(sender) and not self.promising
            theirs = message.configuration
            mine = newer(member.configuration, None if theirs is None else theirs.key)
            member.emit(Send(sender, PreVoteReply(message.attempt, granted, mine), member.epoch))
            if not granted and voter:  # said yes later if this node stops vouching meanwhile
                self.refused.add(sender)
        elif isinstance(message, PreVoteReply):
            if member.counts(sender) and self.prevoting.reply(sender, message):
                self._granted()
        elif isinstance(message, HandOver):
            self._handed_over(sender, message.to, epoch)
        elif isinstance(message, HandOverRequest):
            self._asked_for_leadership(sender)

    def _handed_over(self, sender: int, to: int, epoch: int) -> None:
        """The leader this node follows hands over to ``to``."""
        member = self.member
        election = member.election
        if epoch != election.epoch or sender != election.elected or sender == member.id:
            return  # not from the leader this node follows
        member.tenure.gone(sender, member.now, member.now)  # its lease ended before it said so
        if to == member.id:
            self._take_over(sender)
            return
        self.handed_to = to
        self.forget_leader()
        waiting = self.waiting
        if waiting is not None and waiting[0] == to:  # its heartbeat came first: follow it
            member.adopt(*waiting)

    def handed_over_by(self, node: int) -> bool:
        """Whether ``node`` is the leader this node follows and it handed over (to
        :attr:`handed_to`, whose heartbeat is awaited): a leader that stops hands over
        first, so its process going away is its stop, not a crash."""
        member = self.member
        return (
            self.handed_to is not None
            and node == member.elected
            and member.state is NodeState.NOT_LEADER
        )

    def _take_over(self, previous: int) -> None:
        """Lead now, in a round of this node's own (nobody else leads its epoch), and say
        so with a heartbeat at once."""
        member = self.member
        assert member.lease is not None
        member.enter(member.rounds.next_epoch(), initiator=True)
        member.emit(Notice("election", previous, member.epoch, f"handed over by {previous}"))
        member.election.follow(member.id)
        self.resigned = False
        member.lease.begin(member.epoch, member.suspected)
        member.tick()

    def _asked_for_leadership(self, sender: int) -> None:
        member = self.member
        assert member.lease is not None
        view = member.view
        if not self.settings.preempt or member.state is not NodeState.LEADER:
            return
        if view.neighbour(sender) <= view.candidate:
            return
        above = [p for p in member.lease.peers if view.neighbour(p) > view.candidate]
        to = successor(view, member.lease, above)
        if to is not None:
            self._hand_over(to, "preempted")

    # -- hand-over -------------------------------------------------------------------

    def refuse_hand_over(self, to: int) -> str | None:
        """Why this node cannot hand over to ``to`` now (see ``_handover.py``), or
        ``None``."""
        member = self.member
        return refusal(
            member.view, member.lease, member.state is NodeState.LEADER, to, member.configuration
        )

    def hand_over(
        self, to: int | None = None, reason: str = "resigned", *, stopping: bool = False
    ) -> None:
        """The leader ends its lease and names its successor, ``to``, or the live member
        the notes' algorithms would elect; with nobody live to name, it just steps down.
        ``stopping``: the node is about to stop: it names the live member that joined
        last (in a rolling restart, one already restarted; see ``_handover.py``), and
        with nobody live it does nothing (its stop reports the loss).  Not leading, it
        does nothing.  Ask :meth:`refuse_hand_over` first for a chosen ``to``."""
        member = self.member
        if member.state is not NodeState.LEADER:
            return
        assert member.lease is not None
        if to is None:
            to = successor(member.view, member.lease, newest=stopping)
        if to is None or self.refuse_hand_over(to) is not None:
            if not stopping:
                member.demote(reason)
                self.resigned = True
        else:
            self._hand_over(to, reason)

    def _hand_over(self, to: int, reason: str) -> None:
        member = self.member
        epoch = member.epoch
        member.demote(reason)  # its lease ends here, before anyone hears of the next
        self.resigned = True
        self.handed_to = to
        member.emit(Notice("handover", to, epoch, reason))
        message = HandOver(to)
        for peer in member.view.members:
            if peer != member.id:
                member.emit(Send(peer, message, epoch))
        member.rewatch()

    def lease_ran_out(self) -> None:
        """This leader's lease ran out on its clock: it keeps its round and its
        heartbeat, and leads again if a majority answers (rule 5)."""
        lease = self.member.lease
        if lease is not None:
            lease.lapse()
