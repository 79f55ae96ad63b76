"""Membership changes, one member at a time: what one node decides, sans IO.

A :class:`Membership` is the part of a node that keeps the cluster's
:class:`~ringleader.actors.crashes.Configuration` and changes it.  Like the rest of the
core it is told what happened, with the time on the node's clock, and answers with
actions for its host, in the order to carry them out (``handle(event, now) → actions``);
it touches no socket, clock or file.

The rules (Ongaro's thesis, §4.1 and §4.2, on a service without a log):

- **A configuration takes effect on a node as soon as it learns it**, from the leader's
  heartbeat (:class:`Heard`), at the leader from a follower's answer
  (:class:`Acknowledged`), or from any member's pre-vote or its answer (:class:`Told`:
  so that a node that was down while a change reached the others learns it from
  whoever asks it for a round) that carries a newer one: :class:`Keep` (durable first), then
  :class:`Changed` (majorities are counted against it from now on; the leader's lease
  starts over in it).  A node never goes back to an older one.
- **Only the leader changes it, one member at a time** (:class:`Add`,
  :class:`Remove`): a new member joins as a learner, which counts in no majority; the
  leader promotes it to a voter by itself once it has acknowledged ``catch_up``
  heartbeats carrying the current configuration.
- **A change is committed** (:class:`Committed`) once a majority of the *new*
  configuration's voters acknowledged, in the leader's round, a heartbeat carrying it.
- **One change at a time**, and **not before the leader's configuration is committed in
  its own round**: a new leader may hold a configuration that an earlier leader made and
  never committed; it first gets it acknowledged by a majority in its round (Raft's
  fix of 2015: a leader commits an entry of its own term before it changes the
  configuration).  Until then, and while a change is pending, a request is
  :class:`Refused`.
- **Removing the leader hands leadership over first** (:class:`HandOverFirst`): the
  host transfers leadership to the voter named and asks the new leader again.
- A node that learns a configuration without itself is :class:`Retired`: it takes no
  part in rounds any more.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ._configuration import Configuration, ConfigurationError

__all__ = [
    "CATCH_UP",
    "Acknowledged",
    "Add",
    "Changed",
    "Committed",
    "Follow",
    "HandOverFirst",
    "Heard",
    "Keep",
    "Lead",
    "Membership",
    "MembershipAction",
    "MembershipEvent",
    "Refused",
    "Remove",
    "Retired",
    "Told",
]

#: Heartbeats a learner acknowledges with the current configuration before it votes.
CATCH_UP = 3


# -- events: what the host tells the membership --


@dataclass(frozen=True, slots=True)
class Lead:
    """This node leads round ``epoch`` from now on (its election says so)."""

    epoch: int


@dataclass(frozen=True, slots=True)
class Follow:
    """This node leads nothing (any more)."""


@dataclass(frozen=True, slots=True)
class Heard:
    """The leader of round ``epoch`` sent a heartbeat carrying ``configuration``."""

    leader: int
    epoch: int
    configuration: Configuration


@dataclass(frozen=True, slots=True)
class Acknowledged:
    """``peer`` answered this leader's heartbeat of round ``epoch``, holding
    ``configuration``."""

    peer: int
    epoch: int
    configuration: Configuration


@dataclass(frozen=True, slots=True)
class Told:
    """``peer``'s pre-vote, or its answer to this node's, carried ``configuration``
    (the newer of two members' is adopted, whoever holds it: configurations only grow
    in key order, and a leader still commits in its own round what it learns so)."""

    peer: int
    configuration: Configuration


@dataclass(frozen=True, slots=True)
class Add:
    """An operator asks that ``node`` (listening at ``address``) become a member."""

    node: int
    address: str | None = None


@dataclass(frozen=True, slots=True)
class Remove:
    """An operator asks that ``node`` stop being a member."""

    node: int


MembershipEvent = Lead | Follow | Heard | Acknowledged | Told | Add | Remove


# -- actions: what the membership asks of its host, in order --


@dataclass(frozen=True, slots=True)
class Keep:
    """Write ``configuration`` to the state file; nothing after this action may be
    carried out unless it succeeded."""

    configuration: Configuration


@dataclass(frozen=True, slots=True)
class Changed:
    """``configuration`` is in effect on this node (it was ``previous``): count
    majorities against it, link to members it adds, unlink those it drops; a leader's
    lease starts over in it."""

    configuration: Configuration
    previous: Configuration


@dataclass(frozen=True, slots=True)
class Committed:
    """A majority of ``configuration``'s voters hold it, in this leader's round, at
    ``at`` (on this node's clock)."""

    configuration: Configuration
    at: float


@dataclass(frozen=True, slots=True)
class Refused:
    """The request ``change`` is not carried out, for ``reason`` (one line)."""

    change: Add | Remove
    reason: str


@dataclass(frozen=True, slots=True)
class HandOverFirst:
    """The leader is asked to remove itself: hand leadership over to ``to``, then ask
    the new leader for ``change``."""

    to: int
    change: Remove


@dataclass(frozen=True, slots=True)
class Retired:
    """This node is no member of ``configuration``: it starts no round and votes for
    nobody any more."""

    configuration: Configuration


MembershipAction = Keep | Changed | Committed | Refused | HandOverFirst | Retired


class Membership:
    """Node ``me``'s view of the cluster's configuration, and, when it leads, the
    changes it makes.  ``configuration`` is the one it kept (its state file's, else the
    founding one)."""

    __slots__ = (
        "_acks",
        "_caught_up",
        "catch_up",
        "committed",
        "configuration",
        "epoch",
        "me",
        "pending",
        "queued",
    )

    def __init__(self, me: int, configuration: Configuration, catch_up: int = CATCH_UP) -> None:
        self.me = me
        self.configuration = configuration
        self.catch_up = catch_up
        #: The round this node leads (``None``: it leads none).
        self.epoch: int | None = None
        #: The newest configuration this node, as leader, saw committed in its round.
        self.committed: Configuration | None = None
        #: The configuration this leader made (or found) and has not committed yet.
        self.pending: Configuration | None = None
        #: A change asked for while this leader re-issues its configuration first.
        self.queued: Add | Remove | None = None
        self._acks: dict[int, tuple[int, int]] = {}  # peer → key it answered with
        self._caught_up: dict[int, int] = {}  # learner → heartbeats answered, current

    # -- what the rest of the node asks --

    @property
    def voter(self) -> bool:
        """Whether this node counts in majorities and may lead."""
        return self.me in self.configuration.voters

    def counts(self, peer: int) -> bool:
        """Whether ``peer``'s acknowledgement counts in a majority."""
        return peer in self.configuration.voters

    def is_quorum(self, nodes: Iterable[int]) -> bool:
        """Whether ``nodes`` make a majority of the current configuration."""
        return self.configuration.is_quorum(nodes)

    @property
    def ready(self) -> bool:
        """Whether this leader may start a change: its configuration is committed in its
        round and no change is pending."""
        return (
            self.epoch is not None
            and self.pending is None
            and self.committed is not None
            and self.committed.key == self.configuration.key
        )

    # -- events --

    def handle(self, event: MembershipEvent, now: float) -> list[MembershipAction]:
        """What to do about ``event`` at ``now``, in order."""
        if isinstance(event, Lead):
            return self._lead(event.epoch, now)
        if isinstance(event, Follow):
            self.epoch = self.pending = self.committed = self.queued = None
            self._acks.clear()
            self._caught_up.clear()
            return []
        if isinstance(event, Heard):
            # (A leader hears no older, nor its own, round's leader.)
            deaf = self.epoch is not None and event.epoch <= self.epoch
            return [] if deaf else self.learn(event.configuration)
        if isinstance(event, Acknowledged):
            return self._acknowledged(event, now)
        if isinstance(event, Told):
            return self.learn(event.configuration)
        return self._request(event, now)

    def _lead(self, epoch: int, now: float) -> list[MembershipAction]:
        self.epoch = epoch
        self.committed = self.queued = None
        # Its own configuration may be one an earlier leader never committed: it is
        # this leader's to commit first, in this round.
        self.pending = self.configuration
        self._acks.clear()
        self._caught_up.clear()
        return self._count(now)

    def learn(self, configuration: Configuration) -> list[MembershipAction]:
        """Adopt ``configuration`` if it is newer than this node's (a heartbeat's, an
        answer's, a pre-vote's, or one its host made durable and applies itself)."""
        previous = self.configuration
        if configuration.key <= previous.key:
            return []
        self.configuration = configuration
        actions: list[MembershipAction] = [Keep(configuration), Changed(configuration, previous)]
        if self.epoch is not None:
            # A newer configuration than its own: made in a later round, or one this
            # leader never saw.  It commits it before anything else, and counts afresh.
            self.pending, self.committed = configuration, None
            self._acks.clear()
            self._caught_up.clear()
        if self.me not in configuration.members:
            actions.append(Retired(configuration))
        return actions

    def _acknowledged(self, event: Acknowledged, now: float) -> list[MembershipAction]:
        if self.epoch is None or event.epoch != self.epoch:
            return []
        theirs = event.configuration
        actions = self.learn(theirs)
        current = self.configuration
        if theirs.key != current.key:
            return actions  # (an older one: its next heartbeat brings it this one)
        self._acks[event.peer] = current.key
        if event.peer in current.learners:
            # (Counted up to what promotion needs: more tells nothing.)
            count = self._caught_up.get(event.peer, 0) + 1
            self._caught_up[event.peer] = min(count, self.catch_up)
        actions += self._count(now)
        return actions + self._promote(now)

    def _count(self, now: float) -> list[MembershipAction]:
        """Commit the pending configuration once a majority of its voters hold it."""
        pending = self.pending
        if pending is None:
            return []
        holding = {self.me} | {p for p, key in self._acks.items() if key == pending.key}
        if not pending.is_quorum(holding):
            return []
        self.pending, self.committed = None, pending
        actions: list[MembershipAction] = [Committed(pending, now)]
        queued, self.queued = self.queued, None
        if queued is not None:  # re-issued: the change asked for now
            actions += self._request(queued, now)
        return actions

    @property
    def reissued(self) -> bool:
        """Whether this leader's configuration bears its round (re-issued, or made, in
        it): only then may it make a change from it (rule 5)."""
        return self.configuration.epoch == self.epoch

    def _reissue(self, now: float) -> list[MembershipAction]:
        """Re-issue the configuration in this leader's round before changing it (rule 5;
        Raft's leader commits an entry of its own term first): once a majority holds
        it, no configuration made in an earlier round and never committed (a sibling)
        can be adopted by a majority that misses it."""
        return self._change(self.configuration.reissued(self._epoch), now)

    def _promote(self, now: float) -> list[MembershipAction]:
        """Promote the first learner that caught up, if no change is pending (its
        configuration re-issued in this round first)."""
        if not self.ready:
            return []
        for learner in sorted(self.configuration.learners):
            if self._caught_up.get(learner, 0) >= self.catch_up:
                if not self.reissued:
                    return self._reissue(now)
                return self._change(self.configuration.promote(learner, self._epoch), now)
        return []

    def _request(self, change: Add | Remove, now: float) -> list[MembershipAction]:
        refused = self.refuse(change)
        if refused is not None:
            return [Refused(change, refused)]
        new = self._made(change)
        if new is None:  # this leader removes itself: it hands over first (rule 7)
            assert isinstance(change, Remove)
            return [HandOverFirst(max(self.configuration.voters - {self.me}), change)]
        if not self.reissued:  # (the change is made once the re-issue is committed)
            self.queued = change
            return self._reissue(now)
        return self._change(new, now)

    def refuse(self, change: Add | Remove) -> str | None:
        """Why this node makes no ``change`` now, in one line (it does not lead, a change
        is pending, its configuration is not committed in its round, the change makes
        no configuration), or ``None``: it would make it (or, removing itself, hand over
        first).  Asking changes nothing."""
        if self.epoch is None:
            return f"node {self.me} does not lead: ask the leader"
        busy = self.busy(change)
        if busy is not None:
            return busy
        try:
            self._made(change)
        except ConfigurationError as error:
            return str(error)
        return None

    def _made(self, change: Add | Remove) -> Configuration | None:
        """The configuration ``change`` makes from this node's (``None``: it removes this
        node, which hands over first); raises :class:`ConfigurationError` if none."""
        if isinstance(change, Add):
            return self.configuration.add(change.node, change.address, self._epoch)
        if change.node != self.me:
            return self.configuration.remove(change.node, self._epoch)
        if not self.configuration.voters - {self.me}:
            raise ConfigurationError(f"node {self.me} is the last voter")
        return None

    def busy(self, change: Add | Remove) -> str | None:
        """Why this leader makes no change now (one at a time), or ``None``."""
        if self.pending is not None:
            what = "a change is" if self.committed is not None else "its configuration is"
            return f"{what} not committed yet: {self.pending.describe()}"
        if self.configuration.learners and isinstance(change, Add):
            learners = ",".join(map(str, sorted(self.configuration.learners)))
            return f"node {learners} is still catching up"
        return None

    @property
    def _epoch(self) -> int:
        assert self.epoch is not None
        return self.epoch

    def _change(self, new: Configuration, now: float) -> list[MembershipAction]:
        previous, self.configuration, self.pending = self.configuration, new, new
        self._caught_up = {n: c for n, c in self._caught_up.items() if n in new.learners}
        return [Keep(new), Changed(new, previous), *self._count(now)]

    def acknowledged_by(self) -> frozenset[int]:
        """The peers whose newest answer in this leader's round carried its current
        configuration: the only ones a lease in it may count (empty when not leading)."""
        key = self.configuration.key
        return frozenset(p for p, theirs in self._acks.items() if theirs == key)

    def copy(self) -> Membership:
        """An equal membership that changes apart from this one (for the explorer)."""
        other = type(self)(self.me, self.configuration, self.catch_up)
        other.epoch, other.committed, other.pending = self.epoch, self.committed, self.pending
        other.queued = self.queued
        other._acks, other._caught_up = dict(self._acks), dict(self._caught_up)
        return other

    def key(self) -> tuple[object, ...]:
        """This part's state as a hashable value (for the explorer's seen-set): two
        memberships with equal keys answer every event alike."""
        return (
            self.configuration,
            self.epoch,
            self.committed,
            self.pending,
            self.queued,
            frozenset(self._acks.items()),
            frozenset(self._caught_up.items()),
        )
