"""The steady rules alone: one node's :class:`SteadyRules` over a seat that records what
the rules ask of their member.  No member, host, clock or socket: every step is one call
at a given time, and what the rules did is read from the seat (as h11's ``test_state.py``
drives its state machine alone).

The seat is the smallest thing :class:`~ringleader.actors.crashes._steady_rules.Seat`
declares: a round (:class:`Rounds`), a lease, and a round's state, leader and epoch that
the test sets.  The rules' own logic — whom a node stands by, what it acknowledges, when
it asks for a round and what it answers — is all that runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from ringleader.actors.core import Action, NodeState, NodeView, Notice, Send
from ringleader.actors.crashes import Lease, LeaseSettings, Ping, Pong, SteadySettings
from ringleader.actors.crashes._crash_policy import NewRound
from ringleader.actors.crashes._handover import HandOver
from ringleader.actors.crashes._prevote import ANY_ATTEMPT, PreVote, PreVoteReply
from ringleader.actors.crashes._rounds import Rounds
from ringleader.actors.crashes._steady_rules import SteadyRules
from ringleader.actors.crashes._tenure import Tenure

#: A heartbeat every 50 ms, suspicion after 300 ms, a 200 ms lease: the defaults.
SETTINGS = SteadySettings(heartbeat=0.05, suspect_after=0.3, reelect_after=1.0, lease=0.2)
QUORUM = SteadySettings(
    heartbeat=0.05, suspect_after=0.3, reelect_after=1.0, lease=0.2, quorum=True
)
MEMBERS = (1, 2, 3)


@dataclass
class Round:
    """The round's part of the seat: its state, leader and epoch, set by the test."""

    state: NodeState = NodeState.UNDECIDED
    elected: int | None = None
    epoch: int = 0

    def follow(self, leader: int) -> None:
        self.state, self.elected = NodeState.NOT_LEADER, leader

    def cancel_timers(self) -> None:
        pass


@dataclass
class Seat:
    """Node ``id`` of a three-node cluster, as the steady rules see it."""

    id: int = 1
    settings: SteadySettings = SETTINGS
    now: float = 0.0
    floor: int = 0
    election: Round = field(default_factory=Round)
    emitted: list[Action] = field(default_factory=list)
    moves: list[tuple[object, ...]] = field(default_factory=list)
    suspected: frozenset[int] = frozenset()
    recovery: None = None  # (a node that lost its state: not here)
    configuration: None = None  # (every member votes)

    def __post_init__(self) -> None:
        others = tuple(m for m in MEMBERS if m != self.id)
        self.view = NodeView(self.id, 1.0, others, others, members=MEMBERS)
        self.rounds = Rounds(self.view, 0)
        lease = LeaseSettings(
            self.settings.lease,
            self.settings.heartbeat,
            self.settings.suspect_after,
            self.settings.quorum,
        )
        self.lease = Lease(lease, peers=others)
        self.tenure = Tenure(self.id, (NodeState.UNDECIDED, None, 0), self.settings.lease)
        self.rules = SteadyRules(self, self.settings, len(MEMBERS))

    # -- what the rules read ---------------------------------------------------------

    @property
    def state(self) -> NodeState:
        return self.election.state

    @property
    def elected(self) -> int | None:
        return self.election.elected

    @property
    def epoch(self) -> int:
        return self.election.epoch

    # -- what the rules do to their member: recorded ----------------------------------

    def emit(self, action: Action) -> None:
        self.emitted.append(action)

    def answer_heartbeat(self, leader: int, ping: Ping, epoch: int, answer: int) -> None:
        self.emitted.append(Send(leader, Pong(ping.seq), answer))

    def counts(self, peer: int) -> bool:
        return peer in MEMBERS  # (every member votes here)

    def new_round(self, why: str, subject: int | None = None) -> None:
        self.moves.append(("new_round", why, subject))

    def enter(self, epoch: int, *, initiator: bool = False) -> None:
        self.election.epoch = epoch
        self.rounds.enter(epoch)

    def tick(self) -> None:
        self.moves.append(("tick",))

    def demote(self, reason: str) -> None:
        self.election.state = NodeState.UNDECIDED
        self.moves.append(("demote", reason))

    def adopt(self, leader: int, epoch: int) -> None:
        self.election.epoch = epoch
        self.election.follow(leader)
        self.rules.adopted(leader, epoch)
        self.moves.append(("adopt", leader, epoch))

    def rewatch(self) -> None:
        pass

    # -- the test's own moves --------------------------------------------------------

    def follows(self, leader: int, epoch: int, at: float) -> None:
        """This node follows ``leader`` of round ``epoch``, whose heartbeat came at
        ``at``."""
        self.now = at
        self.election = Round(NodeState.NOT_LEADER, leader, epoch)
        self.rounds.enter(epoch)
        self.rules.entered()
        self.rules.heard_leader(leader, epoch)

    def leads(self, epoch: int, *, lease_until: float | None) -> None:
        """This node leads round ``epoch``, its lease held until ``lease_until``."""
        self.election = Round(NodeState.LEADER, self.id, epoch)
        self.rounds.enter(epoch)
        self.lease.begin(epoch)
        if lease_until is not None:
            seq = self.lease.beat(lease_until - self.settings.lease)
            for peer in self.lease.peers:
                self.lease.answer(peer, seq, epoch, lease_until - self.settings.lease)

    def sent(self, kind: type) -> list[Send]:
        return [a for a in self.emitted if isinstance(a, Send) and isinstance(a.message, kind)]


def test_a_follower_stands_by_its_leader_while_its_heartbeat_is_within_the_lease() -> None:
    seat = Seat(id=1)
    seat.follows(leader=3, epoch=3, at=10.0)
    assert seat.rules.leader_live
    assert seat.rules.held(2) and seat.rules.held(None)  # another asker, or a wish
    assert not seat.rules.held(3)  # not against the leader itself
    seat.now = 10.0 + SETTINGS.vouch
    assert not seat.rules.leader_live and not seat.rules.held(2)


def test_a_follower_does_not_stand_by_a_leader_it_knows_to_be_dead() -> None:
    seat = Seat(id=1)
    seat.follows(leader=3, epoch=3, at=10.0)
    seat.suspected = frozenset({3})
    assert not seat.rules.held(2)


def test_a_leader_stands_only_while_its_lease_is_held() -> None:
    seat = Seat(id=3)
    seat.leads(epoch=3, lease_until=None)
    assert not seat.rules.held(1)  # a leader just elected yields, as in the notes
    seat.leads(epoch=3, lease_until=10.2)
    assert seat.rules.held(1)


def test_a_prevote_is_refused_while_the_leader_is_live_then_granted_unasked() -> None:
    seat = Seat(id=1)
    seat.follows(leader=3, epoch=3, at=10.0)
    seat.rules.message(2, PreVote(attempt=1), epoch=3)
    (no,) = seat.sent(PreVoteReply)
    assert (no.to, no.message) == (2, PreVoteReply(1, False))
    assert seat.rules.refused == {2}
    seat.emitted.clear()
    seat.now = 10.0 + SETTINGS.vouch  # the leader is silent for the lease: say yes now
    seat.rules.regrant()
    (yes,) = seat.sent(PreVoteReply)
    assert (yes.to, yes.message) == (2, PreVoteReply(ANY_ATTEMPT, True))
    assert seat.rules.refused == set()


def test_a_prevote_is_granted_by_a_node_with_no_live_leader() -> None:
    seat = Seat(id=1)
    seat.rules.message(2, PreVote(attempt=4), epoch=0)
    (yes,) = seat.sent(PreVoteReply)
    assert yes.message == PreVoteReply(4, True) and not seat.rules.refused


def test_a_wanted_round_is_asked_for_first_and_starts_once_a_majority_says_yes() -> None:
    seat = Seat(id=1)
    seat.rules.round(NewRound("leader silent", 3))
    assert [type(a.message) for a in seat.sent(PreVote)] == [PreVote, PreVote]
    assert sorted(a.to for a in seat.sent(PreVote)) == [2, 3]
    assert any(isinstance(a, Notice) and a.kind == "prevote" for a in seat.emitted)
    assert seat.moves == []  # not started yet
    attempt = seat.sent(PreVote)[0].message.attempt
    seat.rules.message(2, PreVoteReply(attempt, True), epoch=0)  # 2 and itself: 2 of 3
    assert seat.moves == [("new_round", "leader silent", 3)]


def test_a_refusal_starts_no_round() -> None:
    seat = Seat(id=1)
    seat.rules.round(NewRound("leader silent", 3))
    attempt = seat.sent(PreVote)[0].message.attempt
    seat.rules.message(2, PreVoteReply(attempt, False), epoch=0)
    assert seat.moves == []


def test_a_leader_and_a_node_with_a_live_leader_want_no_round() -> None:
    leader = Seat(id=3)
    leader.leads(epoch=3, lease_until=10.2)
    leader.rules.round(NewRound("stalled"))
    follower = Seat(id=1)
    follower.follows(leader=3, epoch=3, at=10.0)
    follower.rules.round(NewRound("stalled"))
    assert leader.emitted == leader.moves == follower.emitted == follower.moves == []


def test_a_follower_acknowledges_its_leader_and_no_other_of_the_same_round() -> None:
    seat = Seat(id=1)
    seat.follows(leader=3, epoch=5, at=10.0)
    assert seat.rules.answer(3, 5) == 5  # an acknowledgement
    assert seat.rounds.acked == 5
    seat.election.elected = 2  # (say it followed another leader of round 5 since)
    assert seat.rules.answer(2, 5) == 0  # a refusal in the leader's own round
    assert seat.rules.answer(2, 4) == 5  # an older round's leader learns this epoch


def test_a_restarted_node_answers_in_its_floor_and_follows_nobody_below_it() -> None:
    seat = Seat(id=1, floor=7)
    assert seat.rules.answer(3, 5) == 7
    assert not seat.rules.beyond_floor(6) and seat.rules.beyond_floor(7)
    seat.now = 1.0
    seat.rules.heartbeat(3, epoch=5, ping=Ping(1))
    assert seat.moves == [] and seat.election.elected is None  # not followed
    (pong,) = [a for a in seat.emitted if isinstance(a, Send)]
    assert (pong.to, pong.epoch) == (3, 7)


def test_with_a_quorum_no_round_older_than_one_acknowledged_is_followed() -> None:
    seat = Seat(id=1, settings=QUORUM)
    seat.follows(leader=3, epoch=5, at=10.0)
    seat.rules.answer(3, 5)
    assert seat.rules.may_follow(5) and not seat.rules.may_follow(4)
    without = Seat(id=1)
    without.follows(leader=3, epoch=5, at=10.0)
    without.rules.answer(3, 5)
    assert without.rules.may_follow(4)  # without a quorum the majority's older leader stays


def test_a_newer_leaders_heartbeat_waits_while_the_old_leader_is_live() -> None:
    seat = Seat(id=1)
    seat.follows(leader=3, epoch=5, at=10.0)
    seat.now = 10.05
    seat.rules.heartbeat(2, epoch=6, ping=Ping(1))
    assert seat.rules.waiting == (2, 6) and seat.election.elected == 3
    seat.now = 10.0 + SETTINGS.vouch  # the old leader silent for the lease
    seat.rules.heartbeat(2, epoch=6, ping=Ping(2))
    assert ("adopt", 2, 6) in seat.moves and seat.election.elected == 2


def test_a_hand_over_demotes_the_leader_before_anyone_hears_of_the_next() -> None:
    seat = Seat(id=3)
    seat.leads(epoch=3, lease_until=10.2)
    seat.now = 10.1
    seat.rules.hand_over(to=2)
    assert seat.moves[0] == ("demote", "resigned")
    assert sorted(a.to for a in seat.sent(HandOver)) == [1, 2]
    assert all(a.message == HandOver(2) and a.epoch == 3 for a in seat.sent(HandOver))
    assert seat.rules.resigned and seat.rules.handed_to == 2


def test_a_follower_told_of_a_hand_over_stops_vouching_and_follows_the_next() -> None:
    seat = Seat(id=1)
    seat.follows(leader=3, epoch=3, at=10.0)
    seat.rules.message(3, HandOver(2), epoch=3)
    assert seat.rules.handed_to == 2 and not seat.rules.leader_live
    assert not seat.rules.held(2)  # the successor is not refused
    seat.rules.message(2, HandOver(1), epoch=3)  # not from the leader it follows: ignored
    assert seat.rules.handed_to == 2


@pytest.mark.parametrize("pause", [0.1, 1.0])
def test_a_pause_of_its_own_gives_the_leader_a_fresh_window_but_no_longer_vouching(
    pause: float,
) -> None:
    seat = Seat(id=1)
    seat.follows(leader=3, epoch=3, at=10.0)
    seat.now = 10.0 + pause
    seat.rules.stood_still()
    assert seat.rules.quiet_since == seat.now  # suspicion counts from the end of the pause
    assert seat.rules.since == 10.0  # vouching still counts from the heartbeat
    assert not seat.rules.leader_silent
    assert seat.rules.leader_live == (pause < SETTINGS.vouch)


def test_a_paused_leader_keeps_its_round_and_its_lease_lapses() -> None:
    seat = Seat(id=3)
    seat.leads(epoch=3, lease_until=10.2)
    seat.now = 11.0
    seat.rules.stood_still()
    assert not seat.lease.held and seat.election.state is NodeState.LEADER
