"""Membership changes explored: the core's own rules, every ordering, two checks."""

from __future__ import annotations

from typing import Any

import pytest

from ringleader.actors.crashes import Add, Membership, MembershipAction, Remove
from ringleader.actors.exploration.service import ChangesModel, explore_changes


class _TwoAtOnce(Membership):
    """A broken rule, only here: a leader starts a change while one is pending."""

    def busy(self, change: Add | Remove) -> str | None:
        return None


def test_removing_members_the_leader_included_is_explored_clean() -> None:
    found = explore_changes(ChangesModel([1, 2, 3], rounds=2, changes=2))
    assert found.complete
    assert (found.states, found.depth) == (17_155, 17)
    assert found.findings == {}


def test_adding_a_member_a_learner_then_a_voter_is_explored_clean() -> None:
    found = explore_changes(ChangesModel([1, 2, 3], [4], rounds=2, changes=1))
    assert found.complete
    assert (found.states, found.depth) == (54_217, 19)
    assert found.findings == {}


def test_two_changes_at_once_are_caught_as_two_leases() -> None:
    found = explore_changes(ChangesModel([1, 2, 3], rounds=2, changes=2, membership=_TwoAtOnce))
    detail, path = found.findings["two_leases"]
    assert detail == "P1 and P2 hold a lease at the same instant"
    assert path == [
        ("elect", 1),
        ("change", 1, Remove(2)),  # P1 leads round 1 and re-issues its configuration
        ("beat", 1, 2),  # P2 holds it: committed, and the removal made (voters 1,3) ...
        ("change", 1, Remove(3)),  # ... and at once voters 1: P1 is its own majority
        ("expire", 2),
        ("elect", 2),  # P2, still holding voters 1,2,3, leads round 2 with P3
        ("beat", 2, 3),
    ]
    assert "token_back" in found.findings


class _AssumesCommitted(Membership):
    """A broken rule, only here: a new leader takes its configuration as committed in
    its round, and changes it as it is (the single-server changes' bug of 2015)."""

    def _lead(self, epoch: int, now: float) -> list[MembershipAction]:
        actions = super()._lead(epoch, now)
        self.pending, self.committed = None, self.configuration
        return actions

    @property
    def reissued(self) -> bool:
        return True


@pytest.mark.timeout(400)  # two searches of some 80,000 states each
def test_a_change_before_the_leaders_configuration_is_committed_is_caught() -> None:
    found = explore_changes(
        ChangesModel([1, 2, 3], rounds=3, changes=2, membership=_AssumesCommitted)
    )
    detail, path = found.findings["two_leases"]
    assert detail == "P1 and P3 hold a lease at the same instant"
    assert path == [
        ("elect", 1),
        ("beat", 1, 2),  # P1 leads round 1 with P2
        ("elect", 3),
        ("change", 3, Remove(1)),  # voters 2,3, on P3 only: never committed
        ("expire", 3),
        ("elect", 3),  # round 3: P3 takes voters 2,3 as committed ...
        ("change", 3, Remove(2)),  # ... and goes on to 3 alone
    ]
    # The same bounds with the rule kept: clean.
    clean = explore_changes(ChangesModel([1, 2, 3], rounds=3, changes=2))
    assert (clean.complete, clean.states, clean.findings) == (True, 86_911, {})


def _run(model: ChangesModel, events: list[tuple[object, ...]]) -> Any:
    state = model.initial()
    for event in events:
        (state,) = [after for step, after in model.steps(state) if step == event]
    return state


def test_the_leader_hands_over_before_it_is_removed() -> None:
    """The model's run of a leader's removal: asked to remove itself, P3 stops leading;
    P2 leads the next round and removes it, and hears from it no more."""
    model = ChangesModel([1, 2, 3], rounds=2, changes=2)
    state = _run(
        model,
        [
            ("elect", 3),
            ("beat", 3, 1),
            ("change", 3, Remove(3)),  # hands over: P3 leads no more
            ("expire", 1),
            ("elect", 2),
            ("beat", 2, 1),
            ("change", 2, Remove(3)),  # re-issued in round 2 first (rule 5) ...
            ("beat", 2, 1),  # ... and committed: the removal is made
            ("beat", 2, 1),  # voters 1,2 hold it: committed
        ],
    )
    assert ("beat", 2, 3) not in [step for step, _ in model.steps(state)]
    nodes = state.nodes
    leader, removed = nodes[1].membership, nodes[2]
    assert leader.configuration.voters == {1, 2}
    assert leader.committed == leader.configuration
    assert model.holders(state) == [2]
    assert removed.membership.epoch is None


def test_a_broken_rule_is_not_needed_to_reach_a_change() -> None:
    """The clean searches do reach committed changes (they are not clean for want of
    any): an add committed and promoted, within the bounds the tests explore."""
    model = ChangesModel([1, 2, 3], [4], rounds=2, changes=1)
    state = _run(
        model,
        [
            ("elect", 1),
            ("beat", 1, 2),
            ("change", 1, Add(4)),  # re-issued in round 1 first (rule 5) ...
            ("beat", 1, 2),  # ... and committed: the learner is added
            ("beat", 1, 2),
            ("beat", 1, 4),  # the learner answers: caught up (catch_up 1), promoted
            ("beat", 1, 2),
            ("beat", 1, 4),
        ],
    )
    leader = state.nodes[0].membership
    assert leader.configuration.voters == {1, 2, 3, 4}
    assert leader.committed == leader.configuration
    assert model.holders(state) == [1]
