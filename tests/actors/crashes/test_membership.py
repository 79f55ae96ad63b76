"""Membership changes alone: a node's configuration as events and actions, no IO."""

from __future__ import annotations

from ringleader.actors.crashes import (
    Acknowledged,
    Add,
    Changed,
    Committed,
    Configuration,
    Follow,
    HandOverFirst,
    Heard,
    Keep,
    Lead,
    Membership,
    Refused,
    Remove,
    Retired,
)

FOUNDING = Configuration.founding([1, 2, 3], {1: "h:1", 2: "h:2", 3: "h:3"})
#: The founding configuration as the leader of round 4 re-issues it before a change.
REISSUED = FOUNDING.reissued(4)


def _leader(me: int = 3, catch_up: int = 2) -> Membership:
    """Node ``me`` leading round 4 of the founding configuration, re-issued and
    committed in it (node 1 answered): ready to change it."""
    m = Membership(me, REISSUED, catch_up=catch_up)
    m.handle(Lead(4), 0.0)
    m.handle(Acknowledged(1, 4, REISSUED), 0.1)
    assert m.ready and m.reissued
    return m


def test_a_leader_re_issues_its_configuration_in_its_round_before_a_change() -> None:
    # Rule 5: committed in its round, then re-issued there (its key (4, 0), newer than any
    # configuration an earlier round made) and committed again; the change asked for is
    # made then.  The same members: the majorities, and the lease, go on.
    m = Membership(3, FOUNDING)
    m.handle(Lead(4), 0.0)
    m.handle(Acknowledged(1, 4, FOUNDING), 0.1)
    assert m.ready and not m.reissued
    assert m.handle(Add(4, "h:4"), 0.2) == [Keep(REISSUED), Changed(REISSUED, FOUNDING)]
    assert REISSUED.key == (4, 0) and REISSUED.same_members(FOUNDING)
    assert m.handle(Add(5), 0.25) == [
        Refused(Add(5), "a change is not committed yet: version 0 (round 4): voters 1,2,3")
    ]
    learner = REISSUED.add(4, "h:4", 4)
    assert m.handle(Acknowledged(2, 4, REISSUED), 0.3) == [
        Committed(REISSUED, 0.3),
        Keep(learner),
        Changed(learner, REISSUED),
    ]
    assert m.pending == learner and m.reissued
    # A leader that steps down before its re-issue is committed makes no change.
    m = Membership(3, FOUNDING)
    m.handle(Lead(4), 0.0)
    m.handle(Acknowledged(1, 4, FOUNDING), 0.1)
    m.handle(Remove(1), 0.2)
    assert m.queued == Remove(1)
    m.handle(Follow(), 0.3)
    assert m.queued is None and m.configuration == REISSUED


def test_a_new_leader_commits_its_configuration_in_its_round_before_any_change() -> None:
    m = Membership(3, FOUNDING)
    assert m.handle(Lead(4), 0.0) == []
    assert not m.ready and m.pending == FOUNDING
    refused = m.handle(Add(4, "h:4"), 0.1)
    assert refused == [
        Refused(
            Add(4, "h:4"),
            "its configuration is not committed yet: version 0 (round 0): voters 1,2,3",
        )
    ]
    assert m.handle(Acknowledged(1, 3, FOUNDING), 0.2) == []  # another round's answer
    assert m.handle(Acknowledged(1, 4, FOUNDING), 0.3) == [Committed(FOUNDING, 0.3)]
    assert m.ready and m.committed == FOUNDING


def test_only_the_leader_changes_the_configuration() -> None:
    m = Membership(1, FOUNDING)
    assert m.handle(Add(4), 0.0) == [Refused(Add(4), "node 1 does not lead: ask the leader")]
    assert m.configuration == FOUNDING


def test_an_add_is_a_learner_first_promoted_once_it_caught_up() -> None:
    m = _leader(catch_up=2)
    actions = m.handle(Add(4, "h:4"), 1.0)
    learner = FOUNDING.add(4, "h:4", 4)
    # Adding a learner changes no majority, but it is a change: committed once a
    # majority of the voters holds it.
    assert actions == [Keep(learner), Changed(learner, REISSUED)]
    assert m.configuration == learner and m.pending == learner
    assert not m.is_quorum({3, 4}) and m.is_quorum({3, 2})
    assert m.handle(Acknowledged(4, 4, learner), 1.1) == []  # a learner: no count
    assert m.handle(Acknowledged(2, 4, learner), 1.2) == [Committed(learner, 1.2)]
    # The learner has answered once with the current configuration, and once more:
    voter = learner.promote(4, 4)
    assert m.handle(Acknowledged(4, 4, learner), 1.3) == [Keep(voter), Changed(voter, learner)]
    assert m.counts(4) and m.configuration.majority == 3
    # Committed once three of the four voters hold it: the leader, 4, and one more.
    assert m.handle(Acknowledged(4, 4, voter), 1.4) == []
    assert m.handle(Acknowledged(1, 4, learner), 1.5) == []  # the old one: no count
    assert m.handle(Acknowledged(1, 4, voter), 1.6) == [Committed(voter, 1.6)]
    assert m.ready


def test_one_change_at_a_time() -> None:
    m = _leader()
    m.handle(Remove(1), 1.0)
    assert m.pending is not None
    refused = m.handle(Remove(2), 1.1)
    assert refused == [
        Refused(Remove(2), "a change is not committed yet: version 1 (round 4): voters 2,3")
    ]
    assert m.configuration.voters == {2, 3}
    assert m.handle(Acknowledged(2, 4, m.configuration), 1.2) == [Committed(m.configuration, 1.2)]
    assert m.handle(Remove(2), 1.3)[0] == Keep(m.configuration)
    assert m.configuration.voters == {3}


def test_a_second_add_waits_for_the_first_learner() -> None:
    m = _leader()
    m.handle(Add(4), 1.0)
    m.handle(Acknowledged(1, 4, m.configuration), 1.1)
    assert m.ready
    assert m.handle(Add(5), 1.2) == [Refused(Add(5), "node 4 is still catching up")]
    # ... but the learner may be removed again.
    assert isinstance(m.handle(Remove(4), 1.3)[0], Keep)
    assert m.configuration.members == {1, 2, 3}


def test_removing_the_leader_hands_leadership_over_first() -> None:
    m = _leader(me=3)
    assert m.handle(Remove(3), 1.0) == [HandOverFirst(2, Remove(3))]
    assert m.configuration == REISSUED and m.ready  # nothing changed


def test_a_change_takes_effect_on_a_follower_as_soon_as_it_learns_it() -> None:
    follower = Membership(2, FOUNDING)
    new = FOUNDING.add(4, "h:4", 4)
    assert follower.handle(Heard(3, 4, new), 0.0) == [Keep(new), Changed(new, FOUNDING)]
    assert follower.handle(Heard(3, 4, new), 0.1) == []  # known
    assert follower.handle(Heard(1, 2, FOUNDING), 0.2) == []  # older: never back
    assert follower.configuration == new


def test_a_removed_node_retires() -> None:
    follower = Membership(1, FOUNDING)
    new = FOUNDING.remove(1, 4)
    assert follower.handle(Heard(3, 4, new), 0.0) == [
        Keep(new),
        Changed(new, FOUNDING),
        Retired(new),
    ]
    assert not follower.voter


def test_a_learner_does_not_vote_until_promoted() -> None:
    learner = Membership(4, FOUNDING.add(4, None, 4))
    assert not learner.voter
    learner.handle(Heard(3, 4, learner.configuration.promote(4, 4)), 0.0)
    assert learner.voter


def test_a_leader_adopts_a_newer_configuration_a_follower_answers_with_and_commits_it() -> None:
    """Node 1 led round 5, made version 1 (4 added) and reached node 2 only; node 3 now
    leads round 7 from the founding configuration: node 2's answer brings it version 1,
    which it commits in its round before anything else."""
    made_in_5 = FOUNDING.add(4, None, 5)
    m = Membership(3, FOUNDING)
    m.handle(Lead(7), 0.0)
    assert m.handle(Acknowledged(2, 7, made_in_5), 0.1) == [
        Keep(made_in_5),
        Changed(made_in_5, FOUNDING),
        Committed(made_in_5, 0.1),  # 2 and 3 of voters 1,2,3
    ]
    assert m.ready


def test_a_later_rounds_configuration_replaces_an_uncommitted_one() -> None:
    """Node 1 (round 5) made a version 1 that nobody else has; the leader of round 7
    made its own version 1: node 1 takes round 7's when it hears it."""
    made_in_5 = FOUNDING.add(4, None, 5)
    made_in_7 = FOUNDING.add(5, None, 7)
    old = Membership(1, made_in_5)
    actions = old.handle(Heard(3, 7, made_in_7), 0.0)
    assert actions == [Keep(made_in_7), Changed(made_in_7, made_in_5)]
    # And the leader of round 7 does not take round 5's back from it.
    m = Membership(3, made_in_7)
    m.handle(Lead(7), 0.0)
    assert m.handle(Acknowledged(1, 7, made_in_5), 0.1) == []
    assert m.configuration == made_in_7


def test_majorities_are_counted_against_the_current_configuration() -> None:
    m = _leader()
    assert m.is_quorum({1, 3})
    m.handle(Remove(1), 1.0)  # in effect at once, before it is committed
    assert not m.counts(1)
    assert not m.is_quorum({1, 3})
    assert m.is_quorum({2, 3})


def test_stepping_down_forgets_the_round() -> None:
    m = _leader()
    m.handle(Remove(1), 1.0)
    assert m.handle(Follow(), 1.1) == []
    assert (m.epoch, m.pending, m.committed) == (None, None, None)
    assert m.handle(Acknowledged(2, 4, m.configuration), 1.2) == []  # not leading
    assert m.configuration.voters == {2, 3}  # what it learned stays


def test_refusals_say_why_in_one_line() -> None:
    m = _leader()
    assert m.handle(Add(2), 1.0) == [Refused(Add(2), "node 2 is already a member")]
    assert m.handle(Remove(9), 1.0) == [Refused(Remove(9), "node 9 is not a member")]
    alone = Membership(1, Configuration.founding([1]))
    alone.handle(Lead(1), 0.0)
    assert alone.ready  # a majority of one: itself
    assert alone.handle(Remove(1), 0.1) == [Refused(Remove(1), "node 1 is the last voter")]


def test_equal_states_have_equal_keys() -> None:
    a, b = _leader(), _leader()
    assert a.key() == b.key()
    a.handle(Add(4), 1.0)
    assert a.key() != b.key()


def test_a_lease_counts_only_answers_that_carried_the_current_configuration() -> None:
    m = _leader()
    m.handle(Acknowledged(2, 4, REISSUED), 0.5)
    assert m.acknowledged_by() == {1, 2}
    m.handle(Remove(1), 1.0)  # a new configuration: the lease starts over in it
    assert m.acknowledged_by() == frozenset()
    m.handle(Acknowledged(2, 4, m.configuration), 1.1)
    assert m.acknowledged_by() == {2}


def test_a_copy_changes_apart() -> None:
    a = _leader()
    b = a.copy()
    assert b.key() == a.key()
    b.handle(Add(4), 1.0)
    assert b.key() != a.key() and a.configuration == REISSUED


def test_a_learner_caught_up_counts_no_further() -> None:
    """While a change is pending the learner waits for its promotion; its answers count
    up to what promotion needs and no further (else every answer is a new state)."""
    m = _leader(catch_up=2)
    m.handle(Add(4), 1.0)
    learner = m.configuration
    keys = set()
    for at in range(5):  # nobody else answers: the add stays pending
        m.handle(Acknowledged(4, 4, learner), 2.0 + at)
        keys.add(m.key())
    assert m.pending == learner and len(keys) == 2
