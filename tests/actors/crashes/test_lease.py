"""The leader's lease alone: heartbeats numbered, acknowledgements counted, the lease's
end on the leader's own clock.  Times are given, never read: each step is one call."""

from __future__ import annotations

import pytest

from ringleader.actors.crashes import Lease, LeaseSettings

#: The defaults: a heartbeat every 50 ms, suspicion after 300 ms, so a 200 ms lease.
SETTINGS = LeaseSettings(lease=0.2, heartbeat=0.05, suspect_after=0.3)


def test_the_default_lease_leaves_two_heartbeats_below_suspicion() -> None:
    assert LeaseSettings.default_lease(0.05, 0.3) == pytest.approx(0.2)
    assert LeaseSettings.default_lease(0.1, 0.3) == 0.0  # no room to renew it: none
    assert LeaseSettings.of({}) is None  # no failure detector, no lease
    assert LeaseSettings.of({"heartbeat": 0.05, "lease": 0}) is None
    default = LeaseSettings.of({"heartbeat": 0.05})
    assert default is not None and default.lease == pytest.approx(0.2)
    assert (SETTINGS.beats, SETTINGS.silent_beats) == (4, 2)


def test_a_lease_runs_from_the_send_time_of_the_acknowledged_heartbeat() -> None:
    lease = Lease(SETTINGS, peers=[2])
    lease.begin(epoch=3)
    assert not lease.held and lease.until == 0.0
    seq = lease.beat(now=10.0)
    assert lease.answer(2, seq, epoch=3, now=10.04) is True  # arrived 40 ms later
    assert lease.until == pytest.approx(10.2)  # sent at 10.0, not answered at 10.04
    assert lease.holds(10.19) and not lease.holds(10.2)


def test_an_answer_from_another_round_is_no_acknowledgement() -> None:
    lease = Lease(SETTINGS, peers=[2])
    lease.begin(epoch=3)
    seq = lease.beat(now=0.0)
    assert lease.answer(2, seq, epoch=2, now=0.01) is False  # still in the older round
    assert not lease.held
    assert lease.elsewhere(2) and not lease.live(2)


def test_an_answer_with_another_configuration_key_is_no_acknowledgement() -> None:
    # Rule L1 (docs/design/membership.md): a lease is counted in one configuration; an
    # answer in the leader's round but holding another configuration acknowledges
    # nothing, though its sender is still answering (it holds the lease back).
    quorum = LeaseSettings(0.2, 0.05, 0.3, quorum=True)
    lease = Lease(quorum, peers=[2, 3])
    lease.begin(epoch=3)
    seq = lease.beat(now=0.0)
    assert lease.answer(2, seq, epoch=3, now=0.01, current=False) is False
    assert lease.answer(3, seq, epoch=3, now=0.01, current=False) is False
    assert not lease.held and not lease.live(2)
    seq = lease.beat(now=0.05)
    assert lease.answer(2, seq, epoch=3, now=0.06, current=True) is False  # 3 still answers
    assert lease.answer(3, seq, epoch=3, now=0.06, current=True) is True
    assert lease.until == pytest.approx(0.25)  # from the heartbeat both acknowledged


def test_every_answering_follower_must_acknowledge() -> None:
    lease = Lease(SETTINGS, peers=[2, 3])
    lease.begin(epoch=1)
    seq = lease.beat(now=0.0)
    assert lease.answer(2, seq, epoch=1, now=0.01) is False  # 3 has not answered yet
    assert lease.answer(3, seq, epoch=1, now=0.02) is True
    assert lease.until == pytest.approx(0.2)


def test_a_silent_follower_stops_holding_the_lease_back_without_a_gap() -> None:
    lease = Lease(SETTINGS, peers=[2, 3])
    lease.begin(epoch=1)
    now = 0.0
    for _ in range(2):  # both answer the first two heartbeats
        seq = lease.beat(now)
        lease.answer(2, seq, 1, now + 0.01)
        lease.answer(3, seq, 1, now + 0.01)
        now += 0.05
    assert lease.until == pytest.approx(0.05 + 0.2)
    ends = []
    for _ in range(4):  # 3 falls silent: 2 alone answers
        seq = lease.beat(now)
        lease.refresh(now)
        lease.answer(2, seq, 1, now + 0.01)
        ends.append(lease.until)
        assert lease.holds(now + 0.01), f"a gap at {now}"
        now += 0.05
    assert ends[-1] == pytest.approx(now - 0.05 + 0.2)  # renewed by 2 alone at the end
    assert not lease.live(3)


def test_with_a_quorum_a_majority_of_the_cluster_is_needed() -> None:
    quorum = LeaseSettings(0.2, 0.05, 0.3, quorum=True)
    lease = Lease(quorum, peers=[2, 3, 4, 5], dead={3, 4, 5})  # three suspected
    assert lease.majority == 3
    lease.begin(epoch=1, absent={3, 4, 5})
    seq = lease.beat(now=0.0)
    assert lease.answer(2, seq, 1, now=0.01) is False  # itself and 2: no majority of 5
    assert not lease.held


def test_a_lease_not_renewed_expires_after_its_heartbeats() -> None:
    lease = Lease(SETTINGS, peers=[2])
    lease.begin(epoch=1)
    seq = lease.beat(now=0.0)
    lease.answer(2, seq, 1, now=0.01)
    # A lease's worth of heartbeats, plus one for the wait on their answers.
    for beat in range(1, SETTINGS.beats + 2):
        lease.beat(now=beat * 0.05)
        assert not lease.expired, beat
    lease.beat(now=(SETTINGS.beats + 2) * 0.05)
    assert lease.expired and not lease.held


def test_a_lapsed_lease_needs_a_heartbeat_sent_after_the_lapse() -> None:
    lease = Lease(SETTINGS, peers=[2])
    lease.begin(epoch=1)
    old = lease.beat(now=0.0)
    lease.answer(2, old, 1, now=0.01)
    lease.lapse()
    assert not lease.held and lease.granted  # granted once in this round
    assert lease.answer(2, old, 1, now=0.3) is False  # a late answer to an old heartbeat
    new = lease.beat(now=0.35)
    assert lease.answer(2, new, 1, now=0.36) is True
    assert lease.until == pytest.approx(0.55)


def test_answers_beyond_the_horizon_are_ignored() -> None:
    lease = Lease(SETTINGS, peers=[2])
    lease.begin(epoch=1)
    first = lease.beat(now=0.0)
    for beat in range(1, lease.horizon + 1):
        lease.beat(now=beat * 0.05)
    assert lease.answer(2, first, 1, now=9.0) is False
    assert lease.answer(2, lease.seq + 1, 1, now=9.0) is False  # not sent yet


def test_learners_hold_the_lease_back_but_count_in_no_majority() -> None:
    quorum = LeaseSettings(0.2, 0.05, 0.3, quorum=True)
    down = {2, 3}  # the failure detector's suspects, read live
    # Voters 1,2,3 (this leader is 1); 4 and 5 are learners.
    lease = Lease(quorum, peers=[2, 3, 4, 5], dead=down, voters={1, 2, 3})
    assert lease.majority == 2 and lease.voting == (2, 3)
    lease.begin(epoch=1, absent=down)
    seq = lease.beat(now=0.0)
    assert lease.answer(4, seq, 1, now=0.01) is False
    assert lease.answer(5, seq, 1, now=0.01) is False  # 1, 4 and 5: no voter but itself
    assert not lease.held
    down.discard(2)
    assert lease.answer(2, seq, 1, now=0.02) is True  # 1 and 2: a majority of 1,2,3
    assert lease.until == pytest.approx(0.2)


def test_a_change_of_configuration_starts_the_lease_over() -> None:
    lease = Lease(SETTINGS, peers=[2, 3])
    lease.begin(epoch=1)
    old = lease.beat(now=0.0)
    lease.answer(2, old, 1, now=0.01)
    lease.answer(3, old, 1, now=0.01)
    assert lease.held
    # Node 4 joins as a voter (after its time as a learner): the lease starts over.
    lease.reconfigure([2, 3, 4], voters={1, 2, 3, 4})
    assert not lease.held and lease.until == 0.0 and lease.granted
    assert lease.majority == 3
    assert lease.answer(2, old, 1, now=0.02) is False  # a heartbeat of the old one
    new = lease.beat(now=0.05)
    for peer in (2, 3):
        assert lease.answer(peer, new, 1, now=0.06) is False  # 4 answers still, in time
    assert lease.answer(4, new, 1, now=0.07) is True
    assert lease.until == pytest.approx(0.25)
    # A member removed is forgotten: it holds nothing back.
    lease.reconfigure([2, 3], voters={1, 2, 3})
    assert lease.peers == (2, 3) and not lease.live(4)
    # A leadership never granted a lease stays one that never was.
    fresh = Lease(SETTINGS, peers=[2])
    fresh.begin(epoch=2)
    fresh.reconfigure([2, 3], voters={1, 2, 3})
    assert not fresh.granted
