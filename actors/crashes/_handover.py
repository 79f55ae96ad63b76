"""The hand-over: a leader that stops leading names its successor (etcd's MoveLeader,
Raft's TimeoutNow).

The leader ends its lease first, then tells every member ``handover(to)``.  The node
named takes over at once in a round of its own (one epoch above any it has seen, dealt by
its rank, so nobody else can lead that epoch) and sends its heartbeat; the others follow
it as soon as its heartbeat reaches them.  No election runs, so the successor leads
after about one heartbeat's round trip instead of ``suspect_after`` of silence plus an
election, and the old leader's lease has ended before the new one can begin.

Who may be named (:func:`refusal` says why not): a voting member of the cluster (no
learner: ``docs/design/membership.md``), other than the leader, that answered the
leader's heartbeat in its round within the lease (:meth:`~ringleader.actors.Lease.live`).
Without a name, the leader hands over to the live voter the notes' algorithms would
elect: the largest ``(capacity, id)`` (:func:`successor`); a leader that stops, to the
live voter that joined last (in a rolling restart, one already restarted).

With ``preempt = true`` a node above the leader that joins the cluster (restarted, or
back after a partition) asks for the leadership, ``handover_request``; the leader hands
it over to the largest live member above itself: one clean hand-over, not an election
race.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ringleader.actors.core import Candidate, Message, NodeView

from ._configuration import Configuration
from ._lease import Lease

__all__ = ["HandOver", "HandOverRequest", "refusal", "successor"]


@dataclass(frozen=True, slots=True)
class HandOver(Message):
    """The leader of the frame's epoch steps down; node ``to`` leads next."""

    kind = "handover"
    to: int


@dataclass(frozen=True, slots=True)
class HandOverRequest(Message):
    """A node above the leader asks for the leadership (``preempt = true``)."""

    kind = "handover_request"


def refusal(
    view: NodeView,
    lease: Lease | None,
    leading: bool,
    to: int,
    configuration: Configuration | None = None,
) -> str | None:
    """Why the leader of ``view`` cannot hand over to ``to`` now, or ``None``;
    ``configuration``: the leader's current one (a node of the config file it no longer
    lists, removed or never added, is no member)."""
    me = view.id
    if not leading:
        return f"node {me} does not lead"
    if to == me:
        return f"node {to} already leads"
    if to not in view.members:
        return f"node {to} is not a member of the cluster"
    if configuration is not None and to not in configuration.members:
        return (
            f"node {to} is no member now: {configuration.describe()} "
            "(ringleader member add it first)"
        )
    if lease is None:
        return "a hand-over needs the leader's lease (lease = 0 turns it off)"
    return _unfit(me, lease, to)


def _unfit(me: int, lease: Lease, to: int) -> str | None:
    """Why member ``to`` may not take over from leader ``me`` now, or ``None``."""
    if to in lease.peers and to not in lease.voting:  # a learner
        return f"node {to} is a learner: it votes in no round yet, so it may not lead"
    if not lease.live(to):
        return (
            f"node {to} is not live: it has not answered node {me}'s heartbeat in its "
            f"round within the lease"
        )
    return None


def successor(
    view: NodeView, lease: Lease, among: Iterable[int] | None = None, *, newest: bool = False
) -> int | None:
    """The live voter the notes' algorithms would elect next (largest ``(capacity, id)``)
    — among ``among`` if given; ``None`` if there is none.

    ``newest``: the live member that joined (or came back) last instead, the choice of a
    leader that stops: in a rolling restart that is one already restarted, so that the
    restart costs one change of leader, not one per node."""
    voting = lease.voting
    if among is None:
        among = voting
    elif len(voting) != len(lease.peers):  # learners: none of them may be named
        among = set(among).intersection(voting)
    live = [p for p in among if lease.live(p)]
    if not live:
        return None
    if newest:
        return max(live, key=lambda p: (lease.joined(p), view.neighbour(p)))
    best: Candidate = max(view.neighbour(p) for p in live)
    return best.id
