"""What an operator's tool (``ringleader status``, ``ringleader transfer``) and a node
say to each other.

The operator is not a member: it signs with the cluster secret as the reserved sender
:data:`OPERATOR` and may ask a node for its status, :class:`StatusQuery`, or its leader
to hand over to another node, :class:`TransferQuery`, or to add or remove a member,
:class:`MemberQuery`, or watch its leadership,
:class:`WatchQuery` (``ringleader watch``): the node answers with a
:class:`LeadershipNotice` at once and again at each change until the watch runs out.
The node answers itself, on a link of its own, and the election never sees these
messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from ringleader.actors.core import Election, Message
from ringleader.actors.crashes import DETECTOR_MESSAGES, STEADY_MESSAGES, Configuration
from ringleader.transport import OPERATOR, WATCHER

from ._identity import ClusterNotice
from ._status import NodeStatus

__all__ = [
    "HOST_KINDS",
    "OPERATOR",
    "OPERATOR_KINDS",
    "WATCHER",
    "LeadershipNotice",
    "MemberAnswer",
    "MemberQuery",
    "StatusAnswer",
    "StatusQuery",
    "TransferAnswer",
    "TransferQuery",
    "WatchQuery",
    "wire_kinds",
]


@dataclass(frozen=True, slots=True)
class StatusQuery(Message):
    """An operator asks a node for its status; the answer goes to ``reply_to``."""

    kind = "status_query"
    reply_to: str


@dataclass(frozen=True, slots=True)
class StatusAnswer(Message):
    """A node's answer to a :class:`StatusQuery`: its ``NodeStatus``."""

    kind = "status_answer"
    status: NodeStatus


@dataclass(frozen=True, slots=True)
class TransferQuery(Message):
    """An operator asks a leader to hand over to node ``to``; the answer goes to
    ``reply_to``."""

    kind = "transfer_query"
    to: int
    reply_to: str


@dataclass(frozen=True, slots=True)
class TransferAnswer(Message):
    """A node's answer to a :class:`TransferQuery`: ``refused`` says why it did not hand
    over (``None``: it did); ``leader`` and ``epoch`` its view when it answered."""

    kind = "transfer_answer"
    refused: str | None
    leader: int | None
    epoch: int


@dataclass(frozen=True, slots=True)
class WatchQuery(Message):
    """An observer subscribes to a node's leadership, or renews its subscription, for
    ``seconds``: the node sends a :class:`LeadershipNotice` to ``reply_to`` now and at
    each change until then."""

    kind = "watch_query"
    reply_to: str
    seconds: float


@dataclass(frozen=True, slots=True)
class LeadershipNotice(Message):
    """A node's leadership as it says it: the ``leader`` it names (``None``: undecided)
    in ``epoch``; ``leading``: it is that leader and holds its lease (or no lease is
    configured); ``lease_left``: seconds its lease still runs (0 when it holds none;
    ``None``: no lease is configured, its word alone counts)."""

    kind = "leadership_notice"
    leader: int | None
    epoch: int
    leading: bool
    lease_left: float | None


@dataclass(frozen=True, slots=True)
class MemberQuery(Message):
    """An operator asks the leader to add node ``node`` (as a learner, reached at
    ``address``) or to remove it: ``change`` is ``"add"`` or ``"remove"``; the answer
    goes to ``reply_to``."""

    kind = "member_query"
    change: str
    node: int
    address: str | None
    reply_to: str


@dataclass(frozen=True, slots=True)
class MemberAnswer(Message):
    """A node's answer to a :class:`MemberQuery`: ``refused`` says why it made no
    change (``None``: it made it, pending until a majority of the new voters
    acknowledge it); ``configuration`` is its configuration when it answered, and
    ``leader`` and ``epoch`` its view."""

    kind = "member_answer"
    refused: str | None
    configuration: Configuration | None
    leader: int | None
    epoch: int


OPERATOR_MESSAGES: tuple[type[Message], ...] = (
    StatusQuery,
    StatusAnswer,
    TransferQuery,
    TransferAnswer,
    WatchQuery,
    LeadershipNotice,
    MemberQuery,
    MemberAnswer,
)
OPERATOR_KINDS = frozenset(m.kind for m in OPERATOR_MESSAGES)
#: What a watcher holding only the read-only watch key may send or be sent: a watch, a
#: status question, and their answers.
WATCH_KINDS = frozenset(m.kind for m in (WatchQuery, LeadershipNotice, StatusQuery, StatusAnswer))
#: The kinds the host answers itself, never the election: the operator's and the notice.
HOST_KINDS = OPERATOR_KINDS | {ClusterNotice.kind}


def wire_kinds(algorithm: type[Election]) -> dict[str, type[Message]]:
    """Every message kind a node running ``algorithm`` may find in a frame, by name, in
    the order of the codec's table (a kind's index is its byte on the wire): the
    framework's first, so that they have the same index in every cluster, in the order
    they came (an index never changes) — the failure detector's, the status question and
    answer, the cluster notice, the steady rules', the transfer question and answer, the
    watch and its notices —
    then the algorithm's, as it declares them."""
    framework: tuple[type[Message], ...] = (
        *DETECTOR_MESSAGES,
        StatusQuery,
        StatusAnswer,
        ClusterNotice,
        *STEADY_MESSAGES,
        TransferQuery,
        TransferAnswer,
        WatchQuery,
        LeadershipNotice,
        MemberQuery,
        MemberAnswer,
    )
    return {m.kind: m for m in (*framework, *algorithm.messages)}
