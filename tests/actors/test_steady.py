"""The steady rules of the service modes (``actors/crashes/_steady.py``, ``_prevote.py``,
``_handover.py``): members in virtual time (``tests/steady_world.py``), with a quorum and
without.  The teaching runs (``steady=False``) keep the notes' behaviour: the last test
shows the difference.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ringleader.actors import ALGORITHMS, Member, NewRound, NodeState, crash_policy
from ringleader.actors.algorithms._bully import Coordinator
from ringleader.actors.core import Action, Persist, Publish, Send
from ringleader.actors.crashes import (
    Add,
    Configuration,
    Lease,
    LeaseSettings,
    Membership,
    Ping,
    Pong,
    PreVote,
    PreVoteReply,
    Remove,
    SteadySettings,
)
from ringleader.actors.crashes._prevote import PreVoting
from ringleader.topologies import ConfigError, load_config
from tests.steady_world import DELAY, HEARTBEAT, SUSPECT_AFTER, World


def settled(world: World, seconds: float = 3.0) -> tuple[int, int]:
    """Run until the live nodes agree (at most ``seconds``); the (leader, epoch)."""
    for _ in range(round(seconds / HEARTBEAT)):
        if (agreed := world.agreed()) is not None:
            return agreed
        world.run(HEARTBEAT)
    raise AssertionError(f"no agreement within {seconds} s: {world.views()}")


def _settled_three(configuration: Configuration) -> tuple[World, int, int]:
    """Nodes 1, 2, 3 holding ``configuration`` (their state files kept), run until they
    agree and half a second more: the world, the leader and its epoch."""
    world = World(ids=(1, 2, 3), durable=True, configuration=configuration)
    world.boot()
    leader, epoch = settled(world)
    world.run(0.5)
    return world, leader, epoch


def started(**kw: object) -> World:
    world = World(**kw)  # type: ignore[arg-type]
    world.boot()
    assert settled(world)[0] == 5
    world.run(1.0)
    return world


# -- the pre-vote, alone ---------------------------------------------------------------------


def test_a_pre_vote_needs_a_majority_counting_the_asker() -> None:
    voting = PreVoting(majority=3, quorum=True, retry=6, patience=40)
    ask = voting.want(NewRound("crash of 5", 5))
    assert ask is not None and ask.attempt == 1
    assert voting.want(NewRound("again")) is None  # already asking: the first reason stays
    assert not voting.reply(1, PreVoteReply(1, granted=False))
    assert not voting.reply(2, PreVoteReply(1, granted=True))
    assert not voting.reply(2, PreVoteReply(0, granted=True))  # an older attempt
    assert voting.reply(3, PreVoteReply(1, granted=True))  # 2, 3 and the asker


def test_a_pre_vote_is_asked_again_less_and_less_often() -> None:
    voting = PreVoting(majority=3, quorum=True, retry=2, patience=8)
    voting.want(NewRound("crash of 5"))
    asked = [n for n in range(1, 40) if voting.tick()[0] is not None]
    assert asked[:4] == [2, 6, 14, 22]  # every 2, 4, 8 heartbeats, then every 8


def test_without_a_quorum_nobody_saying_no_for_long_enough_is_enough() -> None:
    voting = PreVoting(majority=3, quorum=False, retry=2, patience=8)
    voting.want(NewRound("crash of 5"))
    ticks = [voting.tick() for _ in range(7)]
    voting.reply(1, PreVoteReply(voting.attempt, granted=False))  # a no: patience again
    ticks += [voting.tick() for _ in range(7)]
    assert not any(anyway for _, anyway in ticks)
    assert voting.tick()[1]
    assert not PreVoting(majority=3, quorum=True, retry=2, patience=8).tick()[1]


# -- sticky leadership -----------------------------------------------------------------------


@pytest.mark.parametrize("quorum", [True, False], ids=["quorum", "no-quorum"])
@pytest.mark.parametrize(("cut", "seconds"), [((1, 2), 1.0), ((1, 2), 1.9), ((3,), 1.9)])
def test_followers_cut_off_and_healed_change_nothing(
    quorum: bool, cut: tuple[int, ...], seconds: float
) -> None:
    world = started(quorum=quorum)
    before, t0 = world.agreed(), world.now
    world.isolated = set(cut)
    world.run(seconds)
    world.isolated = set()
    world.run(1.0)
    assert world.agreed() == before
    assert world.since(t0) == []
    assert world.elections(t0) == []
    # They wanted a round (their leader went silent) and asked; the others said no.
    asked = [n for t, n, a in world.notices if t >= t0 and a.kind == "prevote"]
    assert set(asked) == set(cut)


@pytest.mark.parametrize("cut", [(1, 2), (3,)])
def test_without_a_quorum_a_long_cut_elects_on_the_small_side_and_the_majority_stays(
    cut: tuple[int, ...],
) -> None:
    world = started(quorum=False)
    before, t0 = world.agreed(), world.now
    world.isolated = set(cut)
    world.run(5.0)  # longer than reelect_after: nobody said no, so they elect
    small = max(cut)
    assert {world.views()[n] for n in cut} == {(small, world.views()[small][1])}
    world.isolated = set()
    world.run(1.0)
    assert settled(world) == before  # the majority's leader stays; the small side follows
    assert [(c.node, c.kind) for c in world.since(t0)] == [(small, "led"), (small, "lost")]


def test_with_a_quorum_the_small_side_never_elects() -> None:
    world = started(quorum=True)
    before, t0 = world.agreed(), world.now
    world.isolated = {1, 2}
    world.run(5.0)
    assert world.elections(t0) == []
    assert world.views()[1] == before  # it still names its leader; it just cannot reach it
    world.isolated = set()
    world.run(0.5)
    assert world.agreed() == before and world.since(t0) == []


def test_without_a_quorum_two_halves_meet_and_the_newer_round_stays() -> None:
    world = World(ids=(1, 2, 3, 4), quorum=False)
    world.boot()
    first = settled(world)
    world.isolated = {1, 2}  # 2|2: no side has a majority
    world.run(5.0)
    low = world.views()[1]
    assert low[0] == 2 and low[1] > first[1] and world.views()[4] == first
    world.isolated = set()
    world.run(1.0)
    assert settled(world) == low  # the newer round's leader stays; 4 follows it


def test_without_a_quorum_two_leaders_nobody_answers_meet_and_the_newer_round_stays() -> None:
    """1 and 2, cut off from 3 and 4 and from each other, each lead a round of their
    own; then 1 and 2 can talk.  Each used to follow the other, since nobody answered
    it: nobody led, round after round (in the 2|2 split of tests/system/test_multihost.py,
    1 and 2 start their rounds at once, and both proclaim)."""
    world = World(ids=(1, 2, 3, 4), quorum=False)
    world.boot()
    first = settled(world)
    world.isolated = {1, 2}
    world.blocked = {frozenset((1, 2))}
    world.run(5.0)  # longer than reelect_after: each elects itself
    views = world.views()
    assert views[1][0] == 1 and views[2][0] == 2 and first[1] < views[1][1] < views[2][1]
    t0 = world.now
    world.blocked = set()
    world.run(1.0)
    assert world.views()[1] == world.views()[2] == views[2]  # the newer round's leader
    assert [(c.node, c.kind) for c in world.since(t0)] == [(1, "lost")]
    world.isolated = set()
    world.run(1.0)
    assert settled(world) == views[2]


@pytest.mark.parametrize("quorum", [True, False], ids=["quorum", "no-quorum"])
def test_a_flapping_follower_changes_nothing(quorum: bool) -> None:
    world = started(quorum=quorum)
    before, t0 = world.agreed(), world.now
    for _ in range(10):
        world.isolated = {3}
        world.run(0.4)
        world.isolated = set()
        world.run(0.6)
    assert world.agreed() == before and world.since(t0) == []


def test_a_node_cut_off_from_its_leader_alone_does_not_depose_it() -> None:
    world = started()
    before, t0 = world.agreed(), world.now
    stale = {n: m.stale for n, m in world.members.items()}
    world.blocked = {frozenset((1, 5))}  # 1 hears everyone but its leader
    world.run(3.0)
    assert world.agreed() == before and world.elections(t0) == []
    # Nobody even started a round that another had to refuse.
    assert {n: m.stale for n, m in world.members.items()} == stale


@pytest.mark.parametrize("node", [1, 3, 5])
def test_a_restarted_node_follows_the_leader_it_finds(node: int) -> None:
    world = started()
    leader, epoch = world.agreed()  # type: ignore[misc]
    world.crash(node)
    world.run(0.1 if node != 5 else 1.0)
    t0 = world.now
    world.boot(node)
    world.run(1.0)
    if node != leader:  # a follower (even the top one, and never preempting): no change
        assert world.agreed() == (leader, epoch)
        assert world.since(t0) == [] and world.elections(t0) == []
    else:  # the leader: the others elected 4 meanwhile, and it stays
        assert world.agreed() is not None and world.agreed()[0] == 4  # type: ignore[index]
        assert world.since(t0) == []


def _restarted(
    acknowledged: tuple[int, int | None] | None,
    now: float | None,
    configuration: Configuration | None = None,
) -> Member:
    """Node 1 of three, restarted with what its state file kept (epoch 7, and
    ``configuration``), booted at ``now`` (``None``: not yet)."""
    view = World(ids=(1, 2, 3))._view(1)
    member = Member(
        ALGORITHMS["bully"],
        view,
        recovering=True,
        floor=7,
        acknowledged=acknowledged,
        policy=crash_policy(ALGORITHMS["bully"]),
        steady=True,
        durable=True,
        configuration=configuration,
    )
    if now is not None:
        member.handle_boot(now=now)
    return member


def test_a_restarted_node_in_no_round_yet_publishes_the_epoch_it_kept_not_0() -> None:
    # Its readers (node.epoch, /readyz, the watcher) said epoch 0 until its first round,
    # though its state file kept 7: every round it enters is above that.
    member = _restarted(None, now=None)
    published = [a for a in member.handle_boot(now=10.0) if isinstance(a, Publish)]
    assert [(p.leader, p.epoch) for p in published] == [(None, 7)]
    assert member.epoch == 0  # the round it is in: none yet


def _pongs(actions: list[Action]) -> list[tuple[int, int]]:
    return [(a.to, a.epoch) for a in actions if isinstance(a, Send) and a.message.kind == "pong"]


def test_a_restarted_node_keeps_its_last_life_s_promise_for_a_vouch() -> None:
    # Its last life acknowledged 2, leader of epoch 7, perhaps a moment before it went
    # down: 2's lease may run until a vouch after that.  Restarted at 10.0, it grants no
    # pre-vote and acknowledges no leader but 2 (in 7) until 10.0 + vouch: a lease of 3's
    # would overlap 2's (the explorer found it: two leases at one instant).  It follows 3
    # meanwhile and does not answer its heartbeat (an answer in epoch 0 would tell 3 it
    # is refused, and 3 would step down).
    vouch = SUSPECT_AFTER - HEARTBEAT
    member = _restarted((7, 2), now=10.0)
    asked = member.handle_message(3, PreVote(1), 0, now=10.01)
    assert [a.message for a in asked if isinstance(a, Send)] == [PreVoteReply(1, False)]
    member.handle_message(3, Coordinator(), 8, now=10.02)  # 3 leads 8: followed
    assert (member.state, member.elected, member.epoch) == (NodeState.NOT_LEADER, 3, 8)
    assert _pongs(member.handle_message(3, Ping(1), 8, now=10.03)) == []
    assert _pongs(member.handle_message(3, Ping(2), 8, now=10.0 + vouch - 0.001)) == []
    assert member.acknowledged == (7, 2)
    assert _pongs(member.handle_message(3, Ping(3), 8, now=10.0 + vouch)) == [(3, 8)]
    assert member.acknowledged == (8, 3)
    # A leader of an older round is told no, as ever.
    assert _pongs(member.handle_message(2, Ping(50), 7, now=10.0 + vouch)) == [(2, 8)]
    # The leader it acknowledged last is acknowledged at once, as before.
    again = _restarted((7, 2), now=20.0)
    again.handle_message(2, Ping(40), 7, now=20.01)
    assert _pongs(again.handle_message(2, Ping(41), 7, now=20.02)) == [(2, 7)]
    # A node that led the round it acknowledged last made no promise to another: it
    # acknowledges the leader it finds at once.
    led = _restarted((7, 1), now=30.0)
    assert led.steady is not None and not led.steady.promising
    led.handle_message(3, Coordinator(), 8, now=30.01)
    assert _pongs(led.handle_message(3, Ping(1), 8, now=30.02)) == [(3, 8)]
    # A new node cannot tell itself from one whose state was lost: it keeps it too.
    new = _restarted((0, None), now=40.0)
    assert new.steady is not None and new.steady.promising


def test_a_restarted_node_keeps_its_promise_from_its_first_event_even_before_its_boot() -> None:
    # A host may hand the member a frame before its boot (one that arrived while its
    # links were made): the promise starts with that frame, not with the boot.
    member = _restarted((7, 2), now=None)
    member.handle_message(3, Coordinator(), 8, now=10.0)
    assert _pongs(member.handle_message(3, Ping(1), 8, now=10.01)) == []
    member.handle_boot(now=10.02)
    assert member.steady is not None and member.steady.promising
    assert member.acknowledged == (7, 2)


def test_a_restarted_node_s_own_lease_runs_from_no_heartbeat_of_its_promise() -> None:
    member = _restarted((7, 2), now=10.0)
    lease = member.lease
    assert lease is not None and lease.not_before == pytest.approx(10.0 + SUSPECT_AFTER - HEARTBEAT)
    lease.begin(9, absent={3})  # (3 is down)
    early = lease.beat(10.05)
    assert not lease.answer(2, early, 9, now=10.06) and not lease.held
    late = lease.beat(lease.not_before)
    assert lease.answer(2, late, 9, now=lease.not_before + 0.001) and lease.held
    assert lease.until == pytest.approx(lease.not_before + 0.2)
    # Alone (nobody to ask), no more: a lease needs a heartbeat sent after the promise.
    alone = Lease(LeaseSettings(0.2, HEARTBEAT, SUSPECT_AFTER, quorum=True), ())
    alone.not_before = 1.0
    alone.begin(3)
    alone.beat(0.95)
    assert not alone.refresh(0.96) and not alone.held
    alone.beat(1.0)
    assert alone.refresh(1.0) and alone.held


def test_with_preempt_a_higher_node_takes_over_in_one_hand_over() -> None:
    world = started(preempt=True)
    world.crash(5)
    world.run(1.0)
    assert world.agreed()[0] == 4  # type: ignore[index]
    t0 = world.now
    world.boot(5)
    world.run(1.0)
    assert world.agreed()[0] == 5  # type: ignore[index]
    changes = [(c.node, c.kind, c.why) for c in world.since(t0)]
    assert changes == [(4, "lost", "preempted"), (5, "led", "")]
    assert world.elections(t0) == [(5, "handed over by 4")]  # no election race


def leases(world: World, seconds: float) -> list[tuple[int, int]]:
    """Run ``seconds``, a millisecond at a time; every lease taken meanwhile, in order:
    (node, epoch) each time a node starts holding its lease in a round."""
    taken: list[tuple[int, int]] = []
    holding: set[tuple[int, int]] = set()
    for _ in range(round(seconds / 0.001)):
        world.run(0.001)
        now = {
            (n, m.epoch)
            for n, m in world.members.items()
            if n not in world.down and m.lease is not None and m.lease.held
        }
        taken += sorted(now - holding)
        holding = now
    return taken


def test_an_old_leader_back_after_a_newer_one_died_leads_only_in_a_newer_round() -> None:
    # 3 leads; cut off, it keeps its round without a lease while 1 and 2 elect 2 in a
    # newer one; 2 dies as 3 comes back.  1 acknowledged 2's round: with a quorum it never
    # acknowledges 3's older one again, and 3, answered from a newer round, steps down: a
    # new round above both, so the fencing token never goes back.
    world = World(ids=(1, 2, 3), quorum=True)
    world.boot()
    taken = leases(world, 1.0)
    world.isolated = {3}
    taken += leases(world, 3.0)
    assert world.views()[1] == (2, world.views()[2][1]) and world.views()[3][0] == 3
    world.crash(2)
    world.isolated = set()
    taken += leases(world, 3.0)
    epochs = [epoch for _, epoch in taken]
    assert epochs == sorted(epochs), taken  # never a lease in a round below an earlier one
    rounds = list(dict.fromkeys(taken))  # (a leader may take its lease again in its round)
    assert [node for node, _ in rounds] == [3, 2, 3], taken
    assert settled(world) == rounds[-1] and rounds[-1][1] > rounds[1][1]


def test_a_crashed_leader_is_replaced_after_suspect_after() -> None:
    world = started()
    t0 = world.now
    world.crash(5)
    leader, _ = settled(world)
    assert leader == 4
    took = next(c.at for c in world.since(t0, "led")) - t0
    assert SUSPECT_AFTER - HEARTBEAT <= took < SUSPECT_AFTER + 0.2  # from its last heartbeat


def test_with_a_quorum_no_majority_means_no_leader_and_without_one_a_slow_one() -> None:
    for quorum in (True, False):
        world = started(quorum=quorum)
        for node in (5, 4, 3):
            world.crash(node)
        world.run(4.0)
        leaders = {c.node for c in world.since(0.0, "led")} - {5}
        assert leaders == (set() if quorum else {2}), quorum


# -- hand-over -------------------------------------------------------------------------------


def test_resign_hands_over_to_the_next_within_a_round_trip() -> None:
    world = started()
    t0 = world.now
    world.call(5, "resign")
    world.run(2 * HEARTBEAT)
    changes = world.since(t0)
    assert [(c.node, c.kind, c.why) for c in changes] == [
        (5, "lost", "resigned"),
        (4, "led", ""),
    ]
    assert changes[1].at - changes[0].at < 2 * HEARTBEAT
    assert world.agreed() is not None and world.agreed()[0] == 4  # type: ignore[index]
    world.run(1.0)
    assert len(world.since(t0)) == 2  # and it stays (no preemption by 5)


def test_a_hand_over_to_a_chosen_node_and_its_refusals() -> None:
    world = started()
    five = world.members[5]
    assert five.refuse_hand_over(9) == "node 9 is not a member of the cluster"
    assert five.refuse_hand_over(5) == "node 5 already leads"
    assert world.members[2].refuse_hand_over(1) == "node 2 does not lead"
    world.crash(1)
    world.run(0.5)  # longer than the lease: 1 no longer answers
    assert "node 1 is not live" in (five.refuse_hand_over(1) or "")
    assert five.refuse_hand_over(2) is None
    t0 = world.now
    world.call(5, "resign", to=2)
    world.run(HEARTBEAT)
    assert world.agreed() is not None and world.agreed()[0] == 2  # type: ignore[index]
    assert [(c.node, c.kind) for c in world.since(t0)] == [(5, "lost"), (2, "led")]


def test_learners_follow_never_lead_and_are_promoted_by_the_leader_once_caught_up() -> None:
    # Voters 1,2,3; 4 and 5 are learners (docs/design/membership.md): the notes' Bully
    # would elect 5, but a learner starts no round and runs no election.  The leader
    # promotes a learner once it acknowledged CATCH_UP heartbeats carrying the
    # configuration (rule 6), and its heartbeat carries each new version to every member.
    learners = Configuration(1, 1, frozenset({1, 2, 3}), frozenset({4, 5}))
    world = World(configuration=learners)
    world.boot()
    leader, epoch = settled(world)
    assert leader == 3  # the largest voter
    three = world.members[3]
    assert three.refuse_hand_over(5) == (
        "node 5 is a learner: it votes in no round yet, so it may not lead"
    )
    # Killing a learner changes nothing: the voters keep their majority and lease; 4 is
    # promoted, 5 (silent) is not.
    world.crash(5)
    t0 = world.now
    world.run(1.0)
    promoted = learners.promote(4, epoch)
    assert promoted.key == (epoch, 2)
    assert {world.members[n].configuration for n in (1, 2, 3, 4)} == {promoted}
    assert world.holds_lease(3) and world.agreed() == (3, epoch)
    assert not world.since(t0, "lost")
    assert {c.node for c in world.changes if c.kind == "led"} == {3}
    assert three.lease.majority == 3  # type: ignore[union-attr]
    # 4 votes now: it may be handed leadership.
    assert three.refuse_hand_over(4) is None
    world.call(3, "resign", to=4)
    world.run(HEARTBEAT)
    assert world.agreed() == (4, world.members[4].epoch)
    assert world.members[4].epoch > epoch  # the fencing token only grows


def test_a_leader_whose_lease_starts_over_in_a_new_configuration_says_reconfigured() -> None:
    """Each change starts the leader's lease over (rule L2): its ``lost`` says
    ``reconfigured`` — nothing expired, no heartbeat was missed — and its ``lease``
    follows once a majority of the new voters answered."""
    world = World(ids=(1, 2, 3, 4), durable=True, configuration=Configuration.founding([1, 2, 3]))
    world.boot()
    world.run(2.0)
    leader = next(n for n in (1, 2, 3) if world.holds_lease(n))
    t0 = world.now
    assert world.call(leader, "request", Add(4)) is None
    world.run(1.0)
    said = [(n, a.kind, a.detail) for t, n, a in world.notices if t >= t0 and n == leader]
    leases = [(kind, detail) for _, kind, detail in said if kind in ("lost", "lease")]
    # Added as a learner, then promoted: two changes, each a lease started over.
    assert leases == [("lost", "reconfigured"), ("lease", "")] * 2, said
    assert world.holds_lease(leader)


def test_a_leader_removing_itself_refuses_first_if_the_voters_left_could_elect_nobody() -> None:
    """Voters 1,2,3, node 1 down: removing leader 3 would leave voters 1,2 without a live
    majority.  It is refused before any hand-over (it used to hand over to node 2, which
    then refused: a failover for nothing); with node 1 back it hands over."""
    world, leader, epoch = _settled_three(Configuration.founding([1, 2, 3]))
    assert leader == 3
    world.crash(1)
    world.run(1.0)  # node 1's last answer ages out of the leader's lease
    refused = world.members[3].refuse_change(Remove(3))
    assert refused == (
        "removing node 3 would leave voters 1,2 without a live majority (node 1 not answering)"
    )
    t0 = world.now
    world.call(3, "request", Remove(3))
    world.run(0.5)
    assert world.agreed() is None or world.agreed() == (3, epoch)
    assert not world.since(t0), world.since(t0)  # nobody lost or took the lead
    assert world.members[3].refuse_change(Remove(2)) is not None  # (the same for another)


def test_a_leader_that_is_no_voter_any_more_steps_down_and_a_voter_takes_over() -> None:
    world = World(ids=(1, 2, 3), configuration=Configuration.founding([1, 2, 3]))
    world.boot()
    leader, epoch = settled(world)
    assert leader == 3
    world.run(1.0)
    removed = world.members[3].configuration.remove(3, epoch)  # type: ignore[union-attr]
    t0 = world.now
    for node in (1, 2, 3):
        world.call(node, "configure", removed)
    assert [(c.node, c.kind, c.why) for c in world.since(t0)] == [(3, "lost", "removed")]
    for _ in range(round(3.0 / HEARTBEAT)):  # never two leases at once
        world.run(HEARTBEAT / 5)
        assert not (world.holds_lease(3) or (world.holds_lease(1) and world.holds_lease(2)))
        if world.holds_lease(2):
            break
    assert world.holds_lease(2) and world.members[2].epoch > epoch
    assert not world.members[3].voter and world.members[2].lease.majority == 2  # type: ignore[union-attr]


def test_a_stopping_leader_hands_over_to_the_node_that_joined_last() -> None:
    world = started()
    world.crash(2)
    world.run(0.5)
    world.boot(2)  # restarted: it joined last
    world.run(0.5)
    world.call(5, "resign", reason="stopped", stopping=True)
    world.run(HEARTBEAT)
    assert world.agreed() is not None and world.agreed()[0] == 2  # type: ignore[index]


def test_a_stopping_leader_s_refused_connection_after_its_hand_over_is_no_crash() -> None:
    """A leader that stops hands over, then its process goes: its followers find its
    connection refused, some before the successor's heartbeat came.  That is its stop,
    not a crash: they wait for the successor (issue 32: a follower logged "suspects node
    2: connection refused", and won "the round (crash of 2)")."""
    world = started()
    t0 = world.now
    world.call(5, "resign", reason="stopped", stopping=True)
    world.run(1.5 * DELAY)  # the hand-over has reached every node, 4's heartbeat not yet
    world.crash(5)
    for node in (1, 2, 3, 4):
        world.call(node, "peer_dead", 5)
    world.run(1.0)
    assert world.agreed() is not None and world.agreed()[0] == 4  # type: ignore[index]
    told = [(n, a.kind) for t, n, a in world.notices if t >= t0 and a.kind != "stalled"]
    assert (5, "handover") in told
    assert [(n, k) for n, k in told if k in ("suspect", "prevote", "election")] == [
        (4, "election")  # its take-over, "handed over by 5"
    ]
    assert [(c.node, c.kind, c.why) for c in world.since(t0)] == [
        (5, "lost", "stopped"),
        (4, "led", ""),
    ]


def test_a_follower_whose_process_is_gone_holds_the_lease_back_no_longer() -> None:
    """The leader watches no follower under the steady rules, so a follower that stopped
    (a rolling restart) held the leader's lease back until it had missed all but two of
    a lease's heartbeats: one heartbeat before the lease's end, counted in heartbeats,
    which a loaded machine runs late while the lease ends on the clock (issue 30: the
    lease lapsed).  Its refused connection is proof enough, as it acknowledged this
    leader last: it counts no longer."""
    world = started()
    five = world.members[5]
    assert five.lease is not None
    lease = five.lease.settings.lease
    world.crash(1)
    t0 = world.now
    world.call(5, "peer_dead", 1)
    world.run(2 * HEARTBEAT)
    # Renewed by the others' answers to a heartbeat sent since, not stuck at 1's last.
    assert five.lease.until >= t0 + HEARTBEAT + lease
    assert not five.lease.live(1)
    world.run(1.0)
    assert world.since(t0) == []
    world.boot(1)  # back: it follows, and counts again once it acknowledges
    world.run(1.0)
    assert world.since(t0) == [] and five.lease.live(1)


def test_a_leader_that_stood_still_past_its_lease_names_no_leader_when_it_wakes() -> None:
    """Its first event after the pause finds its lease ran out: it publishes that it
    names no leader (``leads`` of its first line, ``lost``), not itself, until a majority
    answers it again in its round (issue 32: the first line after SIGCONT named itself,
    though another led by then, as here)."""
    world = started()
    t0 = world.now
    world.pause(5, 0.28)  # longer than its lease (0.2 s), shorter than suspect_after
    world.run(1.0)
    after = [(t, p) for t, n, p in world.publications if n == 5 and t > t0]
    assert after[0][0] == pytest.approx(t0 + 0.28)
    assert (after[0][1].leader, after[0][1].lease_until) == (None, 0.0)
    told = [(a.kind, a.detail) for t, n, a in world.notices if n == 5 and t > t0]
    assert told[:2] == [("stalled", told[0][1]), ("lost", "paused")]
    assert world.agreed() is not None  # and the cluster goes on, with one leader


# -- the detector's traffic ------------------------------------------------------------------


@pytest.mark.parametrize("steady", [True, False], ids=["steady", "teaching"])
def test_detector_frames_per_node_grow_with_n_only_in_the_teaching_runs(steady: bool) -> None:
    per_node = {}
    for n in (5, 20, 40):
        world = World(ids=tuple(range(1, n + 1)), steady=steady)
        world.boot()
        settled(world, 5.0)
        world.run(1.0)
        t0 = world.now
        world.run(1.0)
        frames = world.frames(t0, world.now, ("ping", "pong"))
        per_node[n] = frames / n / (1.0 / HEARTBEAT)  # per node and heartbeat
    if steady:  # the leader's heartbeat and each follower's answer
        assert all(value <= 2.0 for value in per_node.values()), per_node
    else:  # every node pings every higher one
        assert per_node[40] > 4 * per_node[5], per_node


def test_in_the_teaching_runs_a_restarted_top_node_takes_over_by_an_election() -> None:
    world = started(steady=False)
    world.crash(5)
    world.run(1.0)
    t0 = world.now
    world.boot(5)
    world.run(1.0)
    assert world.agreed() is not None and world.agreed()[0] == 5  # type: ignore[index]
    assert any("above leader" in why or "recovery" in why for _, why in world.elections(t0))
    assert world.members[5].state is NodeState.LEADER


# -- the config ----------------------------------------------------------------------------


def test_preempt_is_a_config_key_off_by_default(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('topology = "full_mesh"\nnodes = 3\n')
    settings = SteadySettings.of(load_config(path).node_settings())
    assert settings is not None and not settings.preempt and not settings.quorum
    path.write_text('topology = "full_mesh"\nnodes = 3\npreempt = true\nquorum = true\n')
    config = load_config(path)
    settings = SteadySettings.of(config.node_settings())
    assert settings is not None and settings.preempt and settings.quorum
    again = tmp_path / "again.toml"
    again.write_text(config.to_toml())
    assert load_config(again).node_settings()["preempt"] == 1.0
    path.write_text('topology = "full_mesh"\nnodes = 3\npreempt = "yes"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "\n" not in message and "p.toml" in message and "preempt" in message


# -- the configuration on the heartbeat (docs/design/membership.md, rule 3) ---------------


def test_a_follower_keeps_a_newer_configuration_from_its_leader_before_it_answers() -> None:
    founding = Configuration.founding([1, 2, 3])
    world, leader, epoch = _settled_three(founding)
    assert leader == 3
    newer = founding.remove(2, epoch)  # made by the leader, in its round
    one = world.members[1]
    ping = Ping(1_000, newer.version, newer.epoch, newer)
    actions = one.handle_message(3, ping, epoch, now=world.now)
    # Kept first, with the round and the acknowledgement; then the pong: an
    # acknowledgement (in the leader's epoch) carrying the new key and no configuration
    # (the leader's is not older).
    assert type(actions[0]) is Persist and actions[0].configuration == newer
    assert [a for a in actions[1:] if type(a) is Persist] == []
    pongs = [a for a in actions if type(a) is Send and type(a.message) is Pong]
    assert pongs == [Send(3, Pong(1_000, newer.version, newer.epoch), epoch)]
    assert one.configuration == newer and one.configuration_key == (epoch, 1)
    # An older configuration (or the same again) changes nothing and is not kept again.
    again = one.handle_message(3, Ping(1_001, 0, 0, founding), epoch, now=world.now)
    assert one.configuration == newer
    assert [a for a in again if type(a) is Persist] == []
    assert [a.message for a in again if type(a) is Send] == [Pong(1_001, 1, epoch, newer)]


def test_a_newer_configuration_from_another_leader_s_heartbeat_is_not_learned() -> None:
    # Only an acknowledged heartbeat teaches a configuration: a node never learns one
    # from a leader it does not follow (the proof's "never learns its sibling").
    founding = Configuration.founding([1, 2, 3])
    world = World(ids=(1, 2, 3), configuration=founding)
    world.boot()
    _, epoch = settled(world)
    world.run(0.5)
    other = Configuration(1, epoch - 1, frozenset({1, 2}))
    one = world.members[1]
    actions = one.handle_message(2, Ping(7, 1, epoch - 1, other), epoch - 1, now=world.now)
    assert one.configuration == founding
    ((pong,),) = [[a for a in actions if type(a) is Send]]
    assert pong.epoch != epoch - 1 and pong.message == Pong(7, 0, 0)  # refused, old key


def test_a_leader_adopts_the_newer_configuration_a_follower_answers_with() -> None:
    founding = Configuration.founding([1, 2, 3])
    world, leader, epoch = _settled_three(founding)
    three = world.members[3]
    assert leader == 3 and world.holds_lease(3)
    # Version 1, made by the leader of round 1, reached node 1 alone.
    newer = Configuration(1, 1, frozenset({1, 2, 3}))
    seq = three.numbering[0]
    actions = three.handle_message(1, Pong(seq, 1, 1, newer), epoch, now=world.now)
    assert type(actions[0]) is Persist and actions[0].configuration == newer
    assert three.configuration == newer and three.lease is not None
    # The same members: the same majorities, so the lease goes on (a configuration with
    # other voters starts it over, L2: the next test).
    assert three.lease.held
    t0 = world.now
    world.run(0.5)
    assert {m.configuration for m in world.members.values()} == {newer}
    assert world.holds_lease(3) and world.agreed() == (3, epoch)
    assert not world.since(t0, "lost")


def test_the_lease_counts_only_acknowledgements_that_carried_the_leader_s_key() -> None:
    founding = Configuration.founding([1, 2, 3])
    world = World(ids=(1, 2, 3), configuration=founding)
    world.boot()
    _, epoch = settled(world)
    world.run(0.5)
    sent = len(world.sent)
    assert not [
        s
        for _, _, s in world.sent
        if isinstance(s.message, Ping | Pong) and s.message.configuration
    ]
    newer = founding.remove(1, epoch)  # voters 2, 3: a majority is both
    world.call(3, "configure", newer)
    assert not world.holds_lease(3)  # it starts over in the new configuration (L2)
    for _ in range(100):  # (a second at most)
        world.run(HEARTBEAT / 10)
        # Node 2 answered with the old key until it learned the new one from a heartbeat:
        # only then is the lease back.
        if world.holds_lease(3):
            assert world.members[2].configuration == newer
            break
    assert world.holds_lease(3)
    # The configuration itself went to 2 only until its answers showed the new key, and
    # to 1, the member removed, only until the change was committed: so that it learns
    # it is no member any more.
    full = [
        (t, s.to)
        for t, n, s in world.sent[sent:]
        if n == 3 and type(s.message) is Ping and s.message.configuration
    ]
    assert 1 <= len([t for t, to in full if to == 2]) <= 2
    assert 1 <= len([t for t, to in full if to == 1]) <= 2
    assert {to for _, to in full} == {1, 2}
    assert world.members[1].retired
    world.run(0.5)
    later = [
        s
        for t, n, s in world.sent[sent:]
        if n == 3 and type(s.message) is Ping and t > world.now - 0.4
    ]
    assert later and all(
        s.message.configuration is None and s.message.configuration_key == newer.key for s in later
    )
    assert all(s.to == 2 for s in later)  # (nothing to node 1 any more)


def test_a_follower_that_learns_a_configuration_without_itself_retires() -> None:
    founding = Configuration.founding([1, 2, 3])
    world = World(ids=(1, 2, 3), configuration=founding)
    world.boot()
    _, epoch = settled(world)
    world.run(0.5)
    one = world.members[1]
    assert one.handle_message(2, PreVote(1), epoch, now=world.now)  # answered, until:
    without = founding.remove(1, epoch)
    one.handle_message(3, Ping(1_000, 1, epoch, without), epoch, now=world.now)
    assert one.retired and one.configuration == without and not one.voter
    # It answers no pre-vote any more, and starts no round of its own.
    assert one.handle_message(2, PreVote(2), epoch, now=world.now) == []
    one.new_round("asked to")
    assert one.epoch == epoch


def test_a_leader_makes_a_change_it_is_asked_for_one_at_a_time() -> None:
    founding = Configuration.founding([1, 2, 3])
    world, leader, epoch = _settled_three(founding)
    three, one = world.members[3], world.members[1]
    assert leader == 3 and world.holds_lease(3)
    assert one.refuse_change(Remove(2)) == "node 1 does not lead: ask the leader"
    assert three.refuse_change(Add(2)) == "node 2 is already a member"
    assert three.refuse_change(Remove(1)) is None  # (asking changes nothing)
    assert three.configuration == founding
    refused, actions = three.request(Remove(1), now=world.now)
    # Re-issued in its round first (rule 5), kept first: the same members, so the lease
    # goes on; a second change waits.
    reissued = founding.reissued(epoch)
    assert refused is None and three.configuration == reissued
    assert type(actions[0]) is Persist and actions[0].configuration == reissued
    assert three.lease is not None and three.lease.held
    assert three.refuse_change(Remove(2)) == (
        f"a change is not committed yet: version 0 (round {epoch}): voters 1,2,3"
    )
    # Once a follower holds it, the removal is made: kept first, then counted in; its
    # lease starts over (L2) until 2 holds it too.
    without = founding.remove(1, epoch)
    for _ in range(20):
        world.run(DELAY / 2)
        if three.configuration == without:
            break
    assert three.configuration == without and not three.lease.held
    # One change at a time: the next waits until this one is committed.
    assert three.refuse_change(Remove(2)) == (
        f"a change is not committed yet: version 1 (round {epoch}): voters 2,3"
    )
    world.call(3, "request", Remove(2))
    assert three.configuration == without
    world.run(0.5)
    assert world.holds_lease(3) and world.members[2].configuration == without
    assert three.membership is not None and three.membership.committed == without
    assert three.refuse_change(Add(1)) is None
    # The removed node heard the heartbeats that carried the change until it was
    # committed: it knows it is no member, and retired.
    assert one.configuration == without and one.retired
    # A hand-over to the node removed is refused as one to no member, not as one to a
    # member that does not answer (``ringleader transfer --to 1`` said "not live").
    assert three.refuse_hand_over(1) == (
        f"node 1 is no member now: version 1 (round {epoch}): voters 2,3 "
        "(ringleader member add it first)"
    )


def test_a_node_removed_down_to_one_voter_is_still_told_and_retires() -> None:
    # From voters 1, 2 to voter 2 alone: the change is committed the moment the leader
    # makes it (a majority of {2} is 2), before any heartbeat carried it; node 1 must
    # hear it all the same, or it runs on as a member, unaware (``ringleader member
    # remove --id 1`` left its ``ringleader node`` running, suspecting node 2).
    founding = Configuration.founding([1, 2])
    world = World(ids=(1, 2), durable=True, configuration=founding)
    world.boot()
    leader, epoch = settled(world)
    world.run(0.5)
    two, one = world.members[2], world.members[1]
    assert leader == 2 and world.holds_lease(2)
    world.call(2, "request", Remove(1))
    without = founding.remove(1, epoch)
    for _ in range(40):  # (the leader re-issues its configuration first: rule 5)
        world.run(DELAY / 2)
        if two.membership is not None and two.membership.committed == without:
            break
    assert two.membership is not None and two.membership.committed == without
    world.run(HEARTBEAT + 2 * DELAY)  # its next heartbeat, not a pre-vote much later
    assert one.configuration == without and one.retired


def test_an_answer_from_a_node_no_member_any_more_counts_for_nothing() -> None:
    # Node 1 removed (voters 2,3): its answer to a heartbeat that told it, arriving once
    # the change is committed, acknowledges nothing: neither the membership nor the
    # lease counts a node outside the configuration (rule L1).
    founding = Configuration.founding([1, 2, 3])
    world, leader, epoch = _settled_three(founding)
    three = world.members[3]
    assert leader == 3 and three.membership is not None and three.lease is not None
    world.call(3, "request", Remove(1))
    world.run(0.5)
    without = founding.remove(1, epoch)
    assert three.membership.committed == without and world.members[1].retired
    answer = Pong(three.lease.seq, without.version, without.epoch)
    three.handle_message(1, answer, epoch, now=three.now)
    assert three.membership.acknowledged_by() == {2}
    assert not three.lease.live(1)


def test_a_leader_asked_to_remove_itself_hands_over_and_the_next_removes_it() -> None:
    founding = Configuration.founding([1, 2, 3])
    world, _, epoch = _settled_three(founding)
    assert world.call(3, "request", Remove(3)) == (
        "node 3 leads: it hands over to node 2 first; ask node 2 to remove node 3"
    )
    assert world.members[3].configuration == founding
    world.run(HEARTBEAT * 2)
    two = world.members[2]
    assert world.agreed() == (2, two.epoch) and two.epoch > epoch
    world.run(0.5)
    assert world.call(2, "request", Remove(3)) is None
    world.run(0.5)
    without = founding.remove(3, two.epoch)
    assert {world.members[n].configuration for n in (1, 2)} == {without}
    # Node 3 hears no heartbeat any more, so never learns its removal (rule 8): its
    # pre-votes are refused while 1 and 2 hear their leader.
    t0 = world.now
    world.run(2.0)
    assert world.holds_lease(2) and not world.since(t0, "lost")
    assert world.members[3].state is not NodeState.LEADER


def test_a_leader_without_its_lease_makes_no_change() -> None:
    world = World(ids=(1, 2, 3), configuration=Configuration.founding([1, 2, 3]))
    world.boot()
    settled(world)
    world.run(0.5)
    world.crash(1)
    world.crash(2)
    world.run(1.0)
    three = world.members[3]
    refused = three.refuse_change(Remove(1))
    assert refused == "node 3 holds no lease now: ask again once a majority answers"


def test_a_node_restarted_with_a_configuration_without_itself_is_retired() -> None:
    without = Configuration.founding([1, 2, 3]).remove(1, 4)
    member = _restarted((7, 3), 0.0, without)
    assert member.retired and not member.voter
    actions = member.handle_message(2, PreVote(1), 8, now=0.1)
    assert [a for a in actions if type(a) is Send] == []  # no pre-vote answered


def test_a_removed_node_that_never_learned_it_is_granted_no_pre_vote() -> None:
    # Node 1 is removed while it hears its leader no more: it never learns it, so once
    # the leader is gone it asks for rounds for ever.  Node 2 grants it none (it would
    # not take part in its round): else, with node 1's round never joined, every retry
    # made the epochs grow without end (found by explore --service --changes 1).
    founding = Configuration.founding([1, 2, 3])
    world = World(ids=(1, 2, 3), configuration=founding)
    world.boot()
    _, epoch = settled(world)
    world.run(0.5)
    world.crash(1)
    assert world.call(3, "request", Remove(1)) is None
    world.run(0.5)
    two = world.members[2]
    assert two.configuration == founding.remove(1, epoch)
    world.crash(3)
    world.run(1.0)  # node 2 stands by no leader now
    replies = [
        a.message
        for a in two.handle_message(1, PreVote(77, founding), epoch, now=world.now)
        if type(a) is Send and type(a.message) is PreVoteReply
    ]
    # (The answer carries node 2's newer configuration: see the next test.)
    assert replies == [PreVoteReply(77, False, founding.remove(1, epoch))]


def test_a_node_removed_while_it_was_down_learns_it_from_a_pre_vote_answer() -> None:
    # Node 1 is down while the leader removes it: the heartbeats that would tell it are
    # lost.  Back, it hears no leader (none sends to it any more) and asks for a round:
    # the answers (no) carry the newer configuration, so node 1 learns it is removed,
    # says so and retires, instead of asking for rounds for ever.
    founding = Configuration.founding([1, 2, 3])
    world = World(ids=(1, 2, 3), configuration=founding)
    world.boot()
    leader, epoch = settled(world)
    assert leader == 3
    world.run(0.5)
    world.crash(1)
    world.run(0.3)  # (longer than the lease: node 1 no longer counts as live)
    assert world.call(3, "request", Remove(1)) is None
    world.run(1.0)
    without = founding.remove(1, epoch)
    assert world.members[2].configuration == without
    world.boot(1)  # (its state file never heard of the removal)
    world.run(2.0)
    one = world.members[1]
    assert one.retired and one.configuration == without
    removed = [n for _, node, n in world.notices if node == 1 and n.kind == "removed"]
    assert len(removed) == 1 and world.holds_lease(3)


def test_a_removal_that_leaves_no_live_majority_is_refused() -> None:
    # Node 1 is down: removing node 2 would leave voters 1,3 with one of them up, a
    # cluster that elects nobody (found by explore --service --changes 1 --crashes 1).
    world = World(ids=(1, 2, 3), configuration=Configuration.founding([1, 2, 3]))
    world.boot()
    settled(world)
    world.run(0.5)
    world.crash(1)
    world.run(0.3)  # longer than the lease: 1 no longer counts as live
    three = world.members[3]
    assert world.holds_lease(3)
    assert three.refuse_change(Remove(2)) == (
        "removing node 2 would leave voters 1,3 without a live majority (node 1 not answering)"
    )
    assert three.refuse_change(Remove(1)) is None  # voters 2,3, both up


def test_a_learner_promoted_while_down_learns_it_from_a_pre_vote() -> None:
    # Node 4 was down while the leader promoted it: back, it holds the configuration that
    # made it a learner, while 1, 2 and 3 count it a voter.  The leader (3) then dies:
    # with voters 1,2,4 left, every majority needs node 4, which runs no election while
    # it thinks itself a learner, and no leader is left to tell it (under Bully, 1 and 2
    # waited for it round after round: `no_progress`, found by explore --service
    # --faults 2 --changes 2).  A pre-vote carries the asker's configuration: 4 learns
    # it from the first node that asks it for a round, and votes.
    learner = Configuration(1, 1, frozenset({1, 2, 3}), frozenset({4}))
    world = World(ids=(1, 2, 3, 4), configuration=learner)
    world.boot()
    leader, epoch = settled(world)
    assert leader == 3
    world.crash(4)
    promoted = learner.promote(4, epoch)
    for node in (1, 2, 3):
        world.call(node, "configure", promoted)
    world.run(0.5)
    world.boot(4)  # (its state file holds the learner's configuration)
    world.run(0.2)
    assert world.members[4].configuration == learner
    world.crash(3)
    t0 = world.now
    leader, epoch = settled(world, 5.0)
    assert leader == 4 and world.members[4].configuration == promoted
    world.run(0.5)
    assert world.holds_lease(4) and world.now - t0 < 2.0


def test_a_change_made_in_an_older_round_never_meets_a_majority_that_missed_it() -> None:
    # Raft's single-server bug of 2015, in this service's terms.  Voters 1,2,3,4 and
    # learner 5.  Leader 4 removes node 1 (S: voters 2,3,4) and is cut off before its
    # heartbeat carried S anywhere.  Leader 3 takes over in a newer round, commits the
    # configuration there and promotes 5 (S': voters 1..5) with nodes 1 and 5; node 2 is
    # cut off in between.  S and S' are two changes apart: a majority of S ({2,4}) and
    # one of S' ({1,3,5}) share nobody.  Node 4, back in touch with node 2 alone, led a
    # newer round with S and node 2 adopted it: two leases at once.  A leader now
    # re-issues its configuration in its own round (and commits that) before it changes
    # it, so node 2 holds a configuration newer than S and never adopts it.
    c = Configuration(1, 1, frozenset({1, 2, 3, 4}), frozenset({5}))
    world = World(ids=(1, 2, 3, 4, 5), configuration=c)
    world.boot()
    world.crash(5)
    leader, _ = settled(world)
    world.run(0.5)
    assert leader == 4 and world.holds_lease(4)

    def cut(node: int, others: tuple[int, ...]) -> None:
        world.blocked.update(frozenset((node, other)) for other in others)

    def never_two_leases(seconds: float) -> None:
        for _ in range(round(seconds / (HEARTBEAT / 4))):
            world.run(HEARTBEAT / 4)
            holding = [n for n in world.ids if world.holds_lease(n)]
            assert len(holding) <= 1, (world.now, holding, world.views())

    assert world.call(4, "request", Remove(1)) is None
    four = world.members[4]
    for _ in range(100):  # until node 4 made S: then it is cut off at once
        if four.configuration is not None and four.configuration.version == 2:
            break
        world.run(DELAY / 4)
    cut(4, (1, 2, 3, 5))
    never_two_leases(2.0)
    assert world.holds_lease(3)
    cut(2, (1, 3, 5))
    world.boot(5)
    never_two_leases(2.0)
    world.blocked.discard(frozenset((2, 4)))
    never_two_leases(3.0)


def test_without_the_re_issue_the_same_steps_give_two_leases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The test above is not clean by chance: with the rule broken on purpose (a leader
    # changes its configuration as it found it), the same steps give two leases.
    monkeypatch.setattr(Membership, "reissued", property(lambda self: True))
    with pytest.raises(AssertionError, match="len"):
        test_a_change_made_in_an_older_round_never_meets_a_majority_that_missed_it()
