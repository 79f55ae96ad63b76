"""A node's sends: each message sealed, sent on its link, counted and traced.

The node's actor carries out a member's :class:`~ringleader.actors.core.Send` here.  The
sender owns the node's links (made on its actor's thread, used and closed there), what
it knows of each peer for the wait on a full link (when it last heard from it, and
whether the member reports it suspected), and the counters a status reports.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping

from ringleader.actors.core import Send
from ringleader.actors.crashes import DETECTOR_KINDS, STEADY_KINDS
from ringleader.actors.tracing import NodeTrace
from ringleader.transport import Links, Network, Session, TransportError

from ._log import log
from ._tally import Tally

__all__ = ["EPOCHS_KEPT", "Sender"]


#: Election rounds whose message counts a node keeps (``NodeStatus.sent_by_epoch``).
EPOCHS_KEPT = 256
#: Frames that are not election messages (neither counted nor waited on): the failure
#: detector's and the steady rules'.
CONTROL_KINDS = DETECTOR_KINDS | STEADY_KINDS


class Sender:
    """Node ``node``'s sends over ``network``, sealed by ``session``.

    ``heard_within``: with the failure detector on (its heartbeat, doubled), how recently a
    peer must have been heard from for a send to it to wait for room (see
    :meth:`may_wait`); ``None`` without.  ``tally``: where the node counts its election
    messages for a progress display (the tally and its slot), if asked.
    """

    def __init__(
        self,
        node: int,
        network: Network,
        session: Session,
        *,
        heard_within: float | None,
        trace: NodeTrace | None = None,
        tally: tuple[Tally, int] | None = None,
        view: Callable[[], str] = str,
    ) -> None:
        self.node = node
        #: What the node believes, to end a log line with (``[leader node 3, epoch 2]``).
        self.view = view
        self.network = network
        self.session = session
        self.trace = trace
        self.links: Links | None = None
        self.directory: Mapping[int, str] = {}
        self._heard_within = heard_within
        self._tally: Tally | None = None if tally is None else tally[0]
        self._slot = 0 if tally is None else tally[1]
        #: When each peer was last heard from (with the failure detector on).
        self.heard_at: dict[int, float] = {}
        self.suspected: set[int] = set()  # as the member reports them
        self.sent: Counter[str] = Counter()  # frames that left, by kind
        self.lost: Counter[str] = Counter()  # election messages the links would not take
        self.failures = 0
        self.by_epoch: Counter[int] = Counter()  # election messages, by epoch

    def __str__(self) -> str:
        return f"node {self.node}"

    def connect(self, peers: Mapping[int, str], directory: Mapping[int, str] | None) -> Links:
        """Link to ``peers`` (``directory``: every node's address, for links made later)."""
        if self.links is not None:
            self.links.close()
        self.directory = directory or peers
        self.links = self.network.connect(peers, node=self.node)
        return self.links

    def close(self, *, abrupt: bool = False) -> None:
        if self.links is not None:
            self.links.close(abrupt=abrupt)
            self.links = None

    def heard(self, peer: int) -> None:
        """A frame from ``peer`` was admitted, now."""
        if self._heard_within is not None:
            self.heard_at[peer] = time.monotonic()

    def may_wait(self, peer: int) -> bool:
        """Whether a send to ``peer`` may wait for room, up to the send timeout.

        Never for a suspected peer.  With the failure detector on, only for a peer heard
        from within two heartbeats: every peer a node talks to is pinged, or pings it,
        every heartbeat, so a quiet one has most likely crashed, and waiting on its dead
        link would hold this node up by a whole send timeout just when its peers need it
        (a Bully node drawn into a failover round by the first to notice the crash).
        """
        if peer in self.suspected:
            return False
        within = self._heard_within
        if within is None:
            return True
        return time.monotonic() - self.heard_at.get(peer, -within) < within

    def send(self, send: Send) -> None:
        """Seal ``send`` and send it on its link (made now if it is new: a ring repaired
        round a crash)."""
        links = self.links
        if links is None:
            raise TransportError(f"{self} has no links yet: Connect before Start")
        to, message, epoch = send
        new = to not in links
        if new:  # a link made now: let it connect
            links.add(to, self.directory[to])
        kind = message.kind
        control = kind in CONTROL_KINDS
        session = self.session
        # A ping asks whoever is there; anything else is for the life last heard from.
        to_life = 0 if kind == "ping" else session.known(to)
        frame = session.seal(to, kind, epoch, message, to_incarnation=to_life)
        trace = self.trace
        at = None if trace is None else trace.now()  # before it leaves: its receive is later
        sent = links.send(to, frame, wait=not control and (new or self.may_wait(to)))
        if trace is not None and at is not None:
            if sent:
                seq = session.last_seq(to)
                trace.sent(at, to, message, epoch, session.incarnation, seq)
            else:  # sent, and lost: the trace says so (P5 is down, when it knows)
                trace.lost(at, to, message, epoch, f"no connection to P{to}")
        if sent:
            self.sent[kind] += 1
        else:
            self.failures += 1
            level = logging.DEBUG if control else logging.INFO
            log.log(
                level,
                "%s could not send %s to node %s: its link is down or full; frame dropped %s",
                self,
                kind,
                to,
                self.view(),
            )
        if not control:  # an election message: the notes count it, whether it left or not
            if not sent:
                self.lost[kind] += 1
            if self._tally is not None:
                self._tally.counts[self._slot] += 1  # this node's slot: only it writes
            by_epoch = self.by_epoch
            if epoch not in by_epoch and len(by_epoch) >= EPOCHS_KEPT:
                del by_epoch[min(by_epoch)]  # a long-lived node keeps the latest only
            by_epoch[epoch] += 1
