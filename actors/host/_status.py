"""What a node tells whoever runs it: events as they happen, its status when asked."""

from __future__ import annotations

from dataclasses import dataclass, field

from ringleader.actors.core import Difference
from ringleader.actors.crashes import DETECTOR_KINDS, STEADY_KINDS, Configuration

__all__ = ["NodeEvent", "NodeStatus"]


@dataclass(frozen=True, slots=True)
class NodeEvent:
    """Something a node reports as it happens.

    ``kind`` is ``"state"`` (its state or leader changed), ``"suspect"`` /
    ``"recovered"`` (its failure detector suspects ``subject``, or hears from it again),
    ``"election"`` (it starts election round ``epoch``; ``detail`` says why),
    ``"lost"`` (it no longer leads round ``epoch``; ``detail`` says why: ``superseded``
    by a newer round or another leader, ``lease expired``, ``paused`` (it stood still
    itself) or ``resigned`` — reported before the ``"state"`` that shows it; ``at`` is
    when its leadership ended, the end of its lease if that came first), ``"lease"`` (a
    leader's lease begins in round ``epoch``; ``at`` read before it was published;
    ``since``, when known, is when the leadership before it ended: its own lease, or the
    previous leader's last heartbeat heard here plus the lease, or its hand-over),
    ``"prevote"`` (under the steady rules it asks the others for a round; ``detail`` says
    why, ``subject`` whose silence set it off), ``"handover"`` (a leader hands over to
    ``subject``; ``detail``: ``resigned``, ``stopped``, ``preempted``),
    ``"rejected"`` (it dropped a frame; ``detail`` is the reason, e.g. ``bad_signature``,
    then what was wrong; ``address`` where it came from, when the transport says),
    ``"other_cluster"`` (node ``subject``, at ``address``, runs a cluster defined
    otherwise: ``detail`` names the difference in a line, ``differences`` one by one) or
    ``"failed"`` (it could not keep its state, and stops; ``detail`` is one line naming
    the file).
    """

    node: int
    kind: str
    state: str
    elected: int | None
    epoch: int
    at: float
    incarnation: int = 1
    subject: int | None = None
    detail: str = ""
    address: str | None = None
    differences: tuple[Difference, ...] = ()
    since: float | None = None


@dataclass(frozen=True)
class NodeStatus:
    """A node's view and counters, as of the moment it was asked."""

    id: int
    capacity: float
    state: str
    elected: int | None
    epoch: int
    incarnation: int
    address: str | None
    sent: dict[str, int] = field(default_factory=dict)
    received: int = 0  # frames admitted (authentic, addressed here, fresh)
    rejected: dict[str, int] = field(default_factory=dict)
    send_failures: int = 0
    errors: int = 0
    last_activity: float | None = None
    started: bool = False
    timers: int = 0  # pending timers
    sent_by_epoch: dict[int, int] = field(default_factory=dict)  # election messages
    #: Frames that failed the signature, by the address they came from.
    bad_signatures: dict[str, int] = field(default_factory=dict)
    #: Election messages sent that never left (the peer down, no connection), by kind:
    #: the notes count them as sent; ``sent`` counts the frames that left.
    lost: dict[str, int] = field(default_factory=dict)
    #: Peers that run a cluster defined otherwise: peer → the line naming the difference.
    other_clusters: dict[int, str] = field(default_factory=dict)
    #: The cluster's configuration as this node keeps it (``None``: it runs none).
    configuration: Configuration | None = None
    #: This node leads and its configuration is committed in its round (a majority of
    #: its voters acknowledged a heartbeat carrying it).
    committed: bool = False

    @property
    def sent_total(self) -> int:
        return sum(self.sent.values())

    @property
    def election_sent(self) -> int:
        """Messages sent but the failure detector's and the steady rules'."""
        return sum(n for kind, n in self.sent.items() if kind not in DETECTOR_KINDS | STEADY_KINDS)
