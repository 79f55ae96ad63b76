"""The cluster's configuration alone: versions, majorities, single-server changes."""

from __future__ import annotations

from itertools import combinations

import pytest

from ringleader.actors.crashes import Configuration, ConfigurationError


def _majorities(configuration: Configuration) -> list[frozenset[int]]:
    voters = sorted(configuration.voters)
    return [
        frozenset(group)
        for size in range(configuration.majority, len(voters) + 1)
        for group in combinations(voters, size)
    ]


def _overlap(a: Configuration, b: Configuration) -> bool:
    """Whether every majority of ``a`` shares a node with every majority of ``b``."""
    return all(x & y for x in _majorities(a) for y in _majorities(b))


def _next(configuration: Configuration, ids: range) -> list[Configuration]:
    """Every configuration one single-server change away (a learner added and promoted
    in one go: what matters for majorities is the voters)."""
    out = []
    for node in ids:
        if node in configuration.voters:
            if len(configuration.voters) > 1:
                out.append(configuration.remove(node, 1))
        else:
            out.append(configuration.add(node, None, 1).promote(node, 1))
    return out


def test_the_founding_configuration_is_the_config_files_list() -> None:
    founding = Configuration.founding([3, 1, 2], {1: "a:1", 2: "a:2", 3: "a:3", 9: "x:9"})
    assert (founding.version, founding.epoch, founding.voters) == (0, 0, {1, 2, 3})
    assert founding.majority == 2
    assert founding.address(9) is None  # not a member: not kept
    with pytest.raises(ConfigurationError, match="at least one voter"):
        Configuration.founding([])


def test_majorities_count_voters_only() -> None:
    c = Configuration.founding([1, 2, 3]).add(4, "h:4", epoch=5)
    assert c.learners == {4} and c.majority == 2
    assert not c.is_quorum({1, 4})  # a learner counts for nothing
    assert c.is_quorum({1, 2})
    c = c.promote(4, epoch=5)
    assert (c.voters, c.majority) == ({1, 2, 3, 4}, 3)
    assert not c.is_quorum({1, 2}) and c.is_quorum({1, 2, 4})


def test_each_change_is_the_next_version_made_in_its_round() -> None:
    c0 = Configuration.founding([1, 2, 3])
    c1 = c0.add(4, None, epoch=7)
    c2 = c1.promote(4, epoch=7)
    c3 = c2.remove(1, epoch=9)
    assert [c.version for c in (c0, c1, c2, c3)] == [0, 1, 2, 3]
    assert [c.epoch for c in (c0, c1, c2, c3)] == [0, 7, 7, 9]
    assert c0.key < c1.key < c2.key < c3.key
    with pytest.raises(ConfigurationError, match="older"):
        c3.remove(2, epoch=8)


def test_a_later_rounds_version_wins_over_an_earlier_rounds_same_version() -> None:
    base = Configuration.founding([1, 2, 3])
    made_in_5 = base.add(4, None, epoch=5)  # its leader never committed it
    made_in_7 = base.add(5, None, epoch=7)
    assert made_in_5.version == made_in_7.version == 1
    assert made_in_7.key > made_in_5.key
    assert made_in_5.add(6, None, epoch=5).key < made_in_7.key


def test_changes_that_do_not_apply_are_refused_in_one_line() -> None:
    c = Configuration.founding([1, 2])
    with pytest.raises(ConfigurationError, match="node 2 is already a member"):
        c.add(2, None, 1)
    with pytest.raises(ConfigurationError, match="node 3 is not a learner"):
        c.promote(3, 1)
    with pytest.raises(ConfigurationError, match="node 3 is not a member"):
        c.remove(3, 1)
    with pytest.raises(ConfigurationError, match="node 1 is the last voter"):
        c.remove(2, 1).remove(1, 1)
    with pytest.raises(ConfigurationError, match="both a voter and a learner"):
        Configuration(1, 1, frozenset({1, 2}), frozenset({2}))


def test_single_server_changes_keep_every_two_majorities_overlapping() -> None:
    """Every configuration reachable from {1,2,3} in up to four changes among ids 1..6,
    and each next one: every majority of one shares a node with every majority of the
    other (Ongaro §4.1), for every size from one voter to six."""
    ids = range(1, 7)
    frontier = [Configuration.founding([1, 2, 3])]
    pairs, sizes = 0, set()
    for _ in range(4):
        following = []
        for c in frontier:
            for n in _next(c, ids):
                assert c.differs_by_one(n)
                assert _overlap(c, n), (sorted(c.voters), sorted(n.voters))
                pairs += 1
                sizes.add(len(n.voters))
                following.append(n)
        frontier = following
    assert sizes == {1, 2, 3, 4, 5, 6}
    assert pairs == 1512  # six choices a step, less the last voter's removal


def test_two_changes_at_once_let_two_majorities_miss_each_other() -> None:
    """What the one-at-a-time rule prevents: two voters added at once to {1,2,3}, or two
    removed at once from {1..5}, leave a majority of each side that share no node."""
    three = Configuration.founding([1, 2, 3])
    five = three.add(4, None, 1).promote(4, 1).add(5, None, 1).promote(5, 1)
    for before, after in ((three, five), (five, five.remove(2, 1).remove(3, 1))):
        assert not before.differs_by_one(after)
        assert not _overlap(before, after)
    missed = [(x, y) for x in _majorities(three) for y in _majorities(five) if not x & y]
    assert (frozenset({1, 2}), frozenset({3, 4, 5})) in missed


def test_the_state_file_form_reads_back_equal() -> None:
    c = Configuration.founding([1, 2, 3], {1: "h:1"}).add(4, "h:4", 6)
    assert Configuration.from_json(c.to_json()) == c
    assert c.describe() == "version 1 (round 6): voters 1,2,3; learners 4"
    bad_ones: list[dict[str, object]] = [
        {},
        {"version": 1, "epoch": 0, "voters": []},
        {"version": -1, "epoch": 0, "voters": [1]},
        {"version": 1, "epoch": 0, "voters": [True]},
    ]
    for bad in bad_ones:
        with pytest.raises(ConfigurationError):
            Configuration.from_json(bad)
