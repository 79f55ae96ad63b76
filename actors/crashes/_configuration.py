"""A cluster's configuration: who its members are, as versioned state every node keeps.

A :class:`Configuration` is one version of the member list: the **voters** (they count
in every majority and may lead) and the **learners** (non-voting members: they hear the
leader and answer it, but count in no majority and never start a round, until they are
promoted).  It is a value: a change makes a new one, one version up, stamped with the
epoch of the leader that made it.

Configurations are ordered by :attr:`Configuration.key`, ``(epoch, version)``, the way
Raft orders logs by their last entry's term, then index: two leaders of different rounds
may each make a version ``v + 1`` of one configuration (the first never got it to a
majority), and the later round's wins everywhere.  A node keeps the newest one it has
heard of, and a configuration takes effect on a node as soon as it learns it (Ongaro's
thesis, §4.1).

The founding configuration is the config file's list of nodes: version 0, epoch 0, every
node a voter.

Single-server changes (:meth:`Configuration.add`, :meth:`~Configuration.promote`,
:meth:`~Configuration.remove`) change one voter at most
(:meth:`Configuration.differs_by_one`), so that any majority of a configuration and any
majority of the next share a node: with ``n`` voters before and ``n + 1`` after, two
majorities hold at least ``(n // 2 + 1) + ((n + 1) // 2 + 1) = n + 2`` places among ``n + 1`` nodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

__all__ = ["Configuration", "ConfigurationError", "newer"]


class ConfigurationError(ValueError):
    """A change that does not apply to a configuration (one line, for people)."""


@dataclass(frozen=True, slots=True)
class Configuration:
    """One version of the member list.  ``addresses`` maps members (voters and learners)
    to where they listen (a member without one is left out)."""

    version: int
    epoch: int
    voters: frozenset[int]
    learners: frozenset[int] = frozenset()
    addresses: tuple[tuple[int, str], ...] = field(default=())

    @classmethod
    def founding(
        cls, voters: Iterable[int], addresses: Mapping[int, str] | None = None
    ) -> Configuration:
        """The configuration a config file defines: version 0, every node a voter."""
        ids = frozenset(voters)
        if not ids:
            raise ConfigurationError("a cluster needs at least one voter")
        return cls(0, 0, ids, frozenset(), _addresses(addresses or {}, ids))

    def __post_init__(self) -> None:
        # (Also what a configuration decoded from a heartbeat is checked against.)
        if not self.voters:
            raise ConfigurationError("a configuration needs at least one voter")
        if self.version < 0 or self.epoch < 0:
            raise ConfigurationError("a configuration's version and round are never negative")
        if self.voters & self.learners:
            both = ",".join(map(str, sorted(self.voters & self.learners)))
            raise ConfigurationError(f"node {both} both a voter and a learner")

    @property
    def key(self) -> tuple[int, int]:
        """The order of configurations: the newer has the larger key."""
        return (self.epoch, self.version)

    @property
    def members(self) -> frozenset[int]:
        """Voters and learners: every node the leader sends its heartbeat to."""
        return self.voters | self.learners

    @property
    def majority(self) -> int:
        """How many voters make a majority."""
        return len(self.voters) // 2 + 1

    def is_quorum(self, nodes: Iterable[int]) -> bool:
        """Whether ``nodes`` include a majority of the voters (learners and strangers
        count for nothing)."""
        return len(self.voters.intersection(nodes)) >= self.majority

    def address(self, node: int) -> str | None:
        return dict(self.addresses).get(node)

    def differs_by_one(self, other: Configuration) -> bool:
        """Whether the voters of ``other`` and these differ by one node at most: then
        every majority of one shares a node with every majority of the other."""
        return len(self.voters ^ other.voters) <= 1

    def same_members(self, other: Configuration) -> bool:
        """Whether ``other`` lists the same voters, learners and addresses (one is the
        other re-issued, or both are)."""
        return (self.voters, self.learners, self.addresses) == (
            other.voters,
            other.learners,
            other.addresses,
        )

    def reissued(self, epoch: int) -> Configuration:
        """The same members, re-issued by the leader of round ``epoch`` (its version
        kept): newer than every configuration made in an earlier round, as Raft's
        leader's first entry of its term is (docs/design/membership.md, rule 5)."""
        return replace(self, epoch=epoch)

    # -- single-server changes: each makes the next version, in round ``epoch`` --

    def add(self, node: int, address: str | None, epoch: int) -> Configuration:
        """``node`` joins as a learner (no majority changes)."""
        if node in self.members:
            raise ConfigurationError(f"node {node} is already a member")
        addresses = dict(self.addresses)
        if address is not None:
            addresses[node] = address
        return self._next(epoch, self.voters, self.learners | {node}, addresses)

    def promote(self, node: int, epoch: int) -> Configuration:
        """Learner ``node`` becomes a voter."""
        if node not in self.learners:
            raise ConfigurationError(f"node {node} is not a learner")
        return self._next(epoch, self.voters | {node}, self.learners - {node})

    def remove(self, node: int, epoch: int) -> Configuration:
        """``node`` (voter or learner) leaves; the last voter never does."""
        if node not in self.members:
            raise ConfigurationError(f"node {node} is not a member")
        if self.voters == {node}:
            raise ConfigurationError(f"node {node} is the last voter")
        addresses = {n: a for n, a in self.addresses if n != node}
        return self._next(epoch, self.voters - {node}, self.learners - {node}, addresses)

    def _next(
        self,
        epoch: int,
        voters: frozenset[int],
        learners: frozenset[int],
        addresses: Mapping[int, str] | None = None,
    ) -> Configuration:
        if epoch < self.epoch:
            raise ConfigurationError(f"round {epoch} is older than this configuration's")
        kept = dict(self.addresses) if addresses is None else addresses
        return Configuration(
            self.version + 1, epoch, voters, learners, _addresses(kept, voters | learners)
        )

    # -- the state file --

    def to_json(self) -> dict[str, object]:
        return {
            "version": self.version,
            "epoch": self.epoch,
            "voters": sorted(self.voters),
            "learners": sorted(self.learners),
            "addresses": {str(n): a for n, a in self.addresses},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Configuration:
        """The configuration :meth:`to_json` wrote; a :class:`ConfigurationError` for
        anything else."""
        try:
            version, epoch = data["version"], data["epoch"]
            voters, learners = data["voters"], data.get("learners", [])
            addresses = data.get("addresses", {})
            if not (
                _whole(version)
                and _whole(epoch)
                and isinstance(voters, list)
                and isinstance(learners, list)
                and isinstance(addresses, dict)
                and all(_whole(n) for n in [*voters, *learners])
            ):
                raise TypeError
            ids = frozenset(voters) | frozenset(learners)
            kept = {int(n): str(a) for n, a in addresses.items()}
        except (KeyError, TypeError, ValueError):
            raise ConfigurationError(f"not a configuration: {dict(data)!r}") from None
        assert isinstance(version, int) and isinstance(epoch, int)
        if not voters:
            raise ConfigurationError("a configuration needs at least one voter")
        return cls(version, epoch, frozenset(voters), frozenset(learners), _addresses(kept, ids))

    def describe(self) -> str:
        """For people: ``version 2 (round 7): voters 1,2,3; learners 4``."""
        text = f"version {self.version} (round {self.epoch}): voters {_ids(self.voters)}"
        return text + (f"; learners {_ids(self.learners)}" if self.learners else "")


def newer(mine: Configuration | None, theirs: tuple[int, int] | None) -> Configuration | None:
    """``mine`` if it is newer than the configuration whose key is ``theirs`` (``None``:
    the other holds none), else ``None``: what an answer carries back (rule 3)."""
    if mine is None or (theirs is not None and mine.key <= theirs):
        return None
    return mine


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _ids(nodes: Iterable[int]) -> str:
    return ",".join(map(str, sorted(nodes)))


def _addresses(
    addresses: Mapping[int, str], members: frozenset[int]
) -> tuple[tuple[int, str], ...]:
    return tuple(sorted((n, a) for n, a in addresses.items() if n in members))
