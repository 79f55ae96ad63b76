"""The steady rules, as a member applies them in the service modes (``steady=True``).

A round a node wants is asked for first (the pre-vote, ``_prevote.py``); a node that
hears its live leader says no, and neither starts nor joins a round against it; a
restarted node follows the leader it hears; a leader that resigns or stops names its
successor (``_handover.py``); with ``preempt``, a node above the leader asks it for the
leadership; and a leader whose lease ran out on its host's clock keeps its round and
leads again once a majority answers.  The state these rules keep is ``_steady.py``'s.

:class:`SteadyRules` is part of :class:`~ringleader.actors.crashes.Member` (which
inherits it): these are the member's methods that apply the steady rules, kept apart so
that the member's own routing reads as it did.  What they use of the member is declared
at the top of the class and defined by ``Member``.
"""

from __future__ import annotations

from collections.abc import Set

from ringleader.actors.core import Action, Election, Message, NodeState, NodeView, Notice, Send

from ._crash_policy import CrashPolicy, Intent, NewRound, Situation
from ._detector import FailureDetector, Pong
from ._handover import HandOver, HandOverRequest, refusal, successor
from ._lease import Lease
from ._prevote import PreVote, PreVoteReply
from ._recovery import Recovery
from ._rounds import Rounds
from ._steady import Steady

__all__ = ["SteadyRules"]


class SteadyRules:
    """The steady rules' methods of a member (see the module's docstring)."""

    __slots__ = ()

    # What the rules use of the member, defined by ``Member``.
    id: int
    view: NodeView
    policy: CrashPolicy
    election: Election
    lease: Lease | None
    steady: Steady | None
    detector: FailureDetector | None
    recovery: Recovery | None
    rounds: Rounds
    suspected: Set[int]
    _out: list[Action]

    @property
    def state(self) -> NodeState:
        raise NotImplementedError

    @property
    def elected(self) -> int | None:
        raise NotImplementedError

    @property
    def epoch(self) -> int:
        raise NotImplementedError

    def new_round(self, why: str, subject: int | None = None) -> None:
        raise NotImplementedError

    def flush(self) -> list[Action]:
        raise NotImplementedError

    def _enter(self, epoch: int, *, initiator: bool = False) -> None:
        raise NotImplementedError

    def _tick(self) -> None:
        raise NotImplementedError

    def _demote(self, reason: str, *, rejoin: bool = True) -> None:
        raise NotImplementedError

    def _adopt(self, leader: int, epoch: int) -> None:
        raise NotImplementedError

    def _rewatch(self) -> None:
        raise NotImplementedError

    def _carry_out(self, intent: Intent) -> None:
        raise NotImplementedError

    def _situation(self) -> Situation:
        """The member as its crash policy sees it."""
        raise NotImplementedError

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
            return self.policy.watch(self._situation())
        watch = self.policy.steady_watch(self._situation())
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
            self._carry_out(self.policy.on_suspect(self._situation(), leader))
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
        if epoch == election.epoch and (
            election.state is NodeState.UNDECIDED
            or (
                election.state is NodeState.NOT_LEADER
                and steady.quiet >= steady.settings.live_beats
            )
        ):
            # The leader of this very round (its announcement has not come, or was lost
            # with a crashed node), or another leader of it while this node's own is
            # silent (a round of the notes' Bully can end with two, on either side of a
            # cut link): follow it.  (It acknowledges only one leader per round: see
            # ``Member._answer``.)
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
            # to follow, newer or not — but with a quorum never one of a round older than
            # one this node acknowledged (that round may have held a lease since).
            if self._may_follow(epoch):
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
        is newer, once a majority answers it from another round; between two leaders
        without a majority, the newer round's stays.  (Not "if nobody answers it": two
        leaders that nobody answers yet, each alone in a round of its own, then followed
        each other, and nobody led.)"""
        lease = self.lease
        assert lease is not None
        mine = sum(1 for peer in lease.peers if lease.live(peer))
        if mine + 1 >= lease.majority:
            return
        elsewhere = sum(1 for peer in lease.peers if lease.elsewhere(peer))
        if self._may_follow(epoch) and (epoch > self.epoch or elsewhere >= lease.majority):
            self._adopt(other, epoch)

    def _may_follow(self, epoch: int) -> bool:
        """Whether this node may start to follow a leader of round ``epoch``.  With a
        quorum, not if it acknowledged a newer round (``Rounds.acked``): a lease in that
        round needed a majority of acknowledgements, and a lease in an older round after
        it needs one too, so each member of a majority that acknowledged a round never
        acknowledges an older one — the fencing token never goes back.  Without a
        quorum, always (after a cut, the majority's older leader stays)."""
        lease = self.lease
        return lease is None or not lease.settings.quorum or epoch >= self.rounds.acked

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
