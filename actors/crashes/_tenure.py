"""A node's tenure as it reports it: what it believes, when its leadership began and
ended, and why.

After every event the member tells its host what changed, in the order the host must
carry it out (``Member.flush``):

- :class:`~ringleader.actors.core.Publish` — the leader it names, the epoch and the end of
  its lease on its clock — whenever one of them changes, before anything else is sent:
  a peer may act on what follows at once, and a new leader's lease must never be
  believed before the old one's end is;
- a :class:`~ringleader.actors.core.StateChanged` when its state, leader or epoch
  changed, first too (a host that traces records it before the event's first send or
  timer);
- last, the leadership's notices: ``"lost"`` when a leadership ends (once per epoch;
  ``at`` is when it ended: the end of its lease if that came first), ``"state"`` (its
  state changed, as the :class:`~ringleader.actors.core.StateChanged` says), and
  ``"lease"`` when a lease begins (once per epoch led; ``since`` is when the leadership
  before it ended, as far as this node can tell: its own lease, the previous leader's
  last frame heard here plus the lease, or that leader's hand-over).

Only what is reported lives here; nothing in it changes what the node does, so
``Member.key`` leaves it out.
"""

from __future__ import annotations

import math

from ringleader.actors.core import Action, NodeState, Notice, Publish, StateChanged

from ._moments import reached

__all__ = ["Tenure"]

#: (state, elected, epoch): what a node says.
Stance = tuple[NodeState, int | None, int]


class Tenure:
    """One node's reports of its leadership (see the module's docstring).

    ``node`` is its id; ``stance`` what it says when made; ``lease`` its lease in
    seconds (``None``: no lease is configured, its word alone counts: it publishes an
    infinite one).
    """

    __slots__ = (
        "_floor",
        "_heard",
        "_lease",
        "_leased_epoch",
        "_lost_epoch",
        "_node",
        "_previous",
        "_published",
        "demoted",
        "said",
    )

    def __init__(self, node: int, stance: Stance, lease: float | None, floor: int = 0) -> None:
        self._node = node
        #: The highest epoch its previous lives saw: a restarted node in no round yet
        #: publishes that, not 0 (every round it enters is above it).
        self._floor = floor
        #: What this node said last: its state, the leader it names, its epoch.
        self.said = stance
        self._published: tuple[int | None, int, float] | None = None
        self._lease = lease
        self._leased_epoch: int | None = None  # the last epoch a "lease" was reported for
        self._lost_epoch: int | None = None  # the last epoch a "lost" was reported for
        # The leadership before this node's own, and when it ended: (leader, end).
        self._previous: tuple[int, float] | None = None
        # When each peer was last heard from (a lease's failover measure needs it).
        self._heard: dict[int, float] | None = None if lease is None else {}
        #: Why this node last stopped leading by itself ("paused", "lease expired",
        #: "resigned", "superseded" …), until a ``lost`` reports it.
        self.demoted: str | None = None

    @property
    def until(self) -> float:
        """The end of the lease last published (0: none; infinity: no lease configured)."""
        published = self._published
        if published is None:
            return 0.0 if self._lease is not None else math.inf
        return published[2]

    def settled(self, stance: Stance) -> bool:
        """Whether a node without a lease has nothing to report after an event that
        leaves it saying ``stance``: it said so, and published it, already (with a
        lease, its end may move on its own)."""
        return self._lease is None and self._published is not None and stance == self.said

    def heard(self, peer: int, now: float) -> None:
        """A frame from ``peer`` arrived ``now``."""
        if self._heard is not None:
            self._heard[peer] = now

    def gone(self, leader: int, end: float, now: float) -> None:
        """The leadership of ``leader`` ended at ``end`` (as far as this node can tell):
        the start of the failover this node measures if it leads next."""
        if self._previous is None or self._previous[0] != leader:
            self._previous = (leader, min(end, now))

    def publish(
        self, stance: Stance, until: float, now: float, *, lapsed: bool = False
    ) -> tuple[Publish | None, bool]:
        """What to publish after an event (``None``: nothing changed), and whether the
        lease's end moved.  ``lapsed``: this leader's lease ran out (on its clock, or
        while it stood still) and it keeps its round: it names no leader until it holds
        a lease again, for another may lead by now."""
        state, elected, epoch = stance
        leader = None if state is NodeState.UNDECIDED or lapsed else elected
        moved = until != self.until
        news = (leader, max(epoch, self._floor), until)
        if news == self._published:
            return None, moved
        self._published = news
        return Publish(*news), moved

    def report(
        self, stance: Stance, held: float, until: float, now: float, *, steady: bool
    ) -> tuple[StateChanged | None, list[Action]]:
        """The reports of an event after which the node says ``stance`` and its lease ends
        at ``until`` (``held``: where it ended before): the :class:`StateChanged`, if its
        state changed, and the notices that go last (a ``lost``, the ``state``, a
        ``lease``)."""
        changed: StateChanged | None = None
        last: list[Action] = []
        was = self.said
        if stance != was:
            self.said = stance
            reason = self.demoted or "superseded"
            self.demoted = None
            state, elected, epoch = stance
            if was[0] is NodeState.NOT_LEADER and was[1] is not None and elected != was[1]:
                heard = math.inf if self._heard is None else self._heard.get(was[1], math.inf)
                self.gone(was[1], heard + (self._lease or 0.0), now)
            if state is NodeState.NOT_LEADER:
                self._previous = None  # another leads: the failover is its to measure
            if was[0] is NodeState.LEADER and (state is not NodeState.LEADER or epoch != was[2]):
                # Its leadership ended now, or when its lease ran out if that was earlier
                # (a pause ends it then, not when the node wakes).
                self._lost(last, was[2], reason, held, now)
            changed = StateChanged(state, elected, epoch)
            last.append(Notice("state", None, epoch))
        elif steady and held > 0 and until == 0:
            # The steady rules: the lease ran out (or the node stood still), the round
            # goes on.
            self._lost(last, stance[2], self.demoted or "lease expired", held, now)
            self.demoted = None
        if until != held and not reached(now, until):
            self._leasing(last, stance[2], now)
        return changed, last

    def _lost(self, out: list[Action], epoch: int, reason: str, held: float, now: float) -> None:
        """A ``lost`` for ``epoch`` (once), at the end of its lease (``held``) if that
        came before ``now``."""
        if self._lost_epoch == epoch:
            return
        self._lost_epoch = epoch
        self._leased_epoch = None  # a lease regained in this epoch is reported again
        end = min(now, held) if held > 0 else now
        self.gone(self._node, end, now)
        out.append(Notice("lost", epoch=epoch, detail=reason, at=end))

    def _leasing(self, out: list[Action], epoch: int, now: float) -> None:
        """A ``lease`` for ``epoch`` (once per epoch led), at ``now``."""
        if self._leased_epoch == epoch:
            return
        self._leased_epoch = epoch
        self._lost_epoch = None
        previous, self._previous = self._previous, None
        since = None if previous is None else min(previous[1], now)
        out.append(Notice("lease", epoch=epoch, at=now, since=since))
