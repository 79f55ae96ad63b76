"""What a sans-IO node asks its host to do: send, set or cancel a timer, keep, publish,
report.

An election returns the first three; a :class:`~ringleader.actors.Member` (the election
composed with the parts that survive crashes) may add the others.  A host carries them
out in the order given: a :class:`Persist` comes first, and nothing after it may be
carried out unless it succeeded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ._message import Message

__all__ = [
    "Action",
    "CancelTimer",
    "Notice",
    "Persist",
    "Publish",
    "Send",
    "SetTimer",
    "StateChanged",
]


class Send(NamedTuple):
    """One message to send to node ``to``, stamped with the sender's ``epoch``.

    A named tuple, not a frozen dataclass like the others: one is made for every message
    sent, and a tuple is made in half the time.
    """

    to: int
    message: Message
    epoch: int = 1


class SetTimer(NamedTuple):
    """Fire ``name`` at this node after ``delay`` seconds (replacing a pending one).

    A named tuple too: the failure detector sets one again for every message from a
    peer it watches."""

    name: str
    delay: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    """Forget the pending timer ``name``, if any."""

    name: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the host should report.

    ``kind`` is ``"suspect"`` (``node`` is suspected to have crashed), ``"recovered"``
    (``node`` answers again), ``"election"`` (this node starts election round
    ``epoch``; ``detail`` says why, and ``node`` is the node whose crash or return set it
    off, if any), ``"prevote"`` and ``"handover"`` (the steady rules), or one of the
    leadership's: ``"lost"`` (this node no longer leads round ``epoch``; ``detail`` says
    why; ``at`` is when its leadership ended), ``"state"`` (its state or leader
    changed: the :class:`StateChanged` of this event) and ``"lease"`` (its lease begins
    in round ``epoch`` at ``at``; ``since``, when known, is when the leadership before
    it ended).  ``at`` and ``since`` are on the node's own clock (the ``now`` its host
    gives it); ``None`` means the moment the host reports it.
    """

    kind: str
    node: int | None = None
    epoch: int = 0
    detail: str = ""
    at: float | None = None
    since: float | None = None


@dataclass(frozen=True, slots=True)
class Persist:
    """Make ``epoch`` (the highest this node has seen) and ``acknowledged`` (the round it
    acknowledged last, and that round's leader) durable before carrying out anything
    after this action; if that fails, carry out nothing more and stop, as a crash would.
    Only a member told that its host keeps its state asks for it.  ``configuration``:
    a newer configuration of the cluster this node learned (a
    ``ringleader.actors.crashes.Configuration``, the membership's ``Keep``), to keep
    too; ``None``: the one kept is still this node's."""

    epoch: int
    acknowledged: tuple[int, int | None]
    configuration: object | None = None


@dataclass(frozen=True, slots=True)
class Publish:
    """What this node believes, for readers on other threads: ``leader`` (``None``
    while undecided), ``epoch``, and ``lease_until``, the moment on this node's clock
    until which it may count itself leader (0: it holds no lease; infinity: no lease is
    configured, its word alone counts).  Carried out before any send after it: a peer
    may act on what follows at once."""

    leader: int | None
    epoch: int
    lease_until: float


@dataclass(frozen=True, slots=True)
class StateChanged:
    """This node's state, the leader it names and its epoch changed to these (a host
    that traces a run records it before the first send or timer that follows)."""

    state: str
    elected: int | None
    epoch: int


#: What a node asks its host to do.
Action = Send | SetTimer | CancelTimer | Notice | Persist | Publish | StateChanged
