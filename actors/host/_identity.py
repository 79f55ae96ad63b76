"""A node's cluster identity on the wire: saying, once, how another cluster differs.

The cluster id in every frame is a digest of the cluster's definition (its members and
their addresses, its algorithm, the settings its lease rests on: see
:class:`~ringleader.actors.core.ClusterDefinition`), so an authentic frame of a node
whose config differs is refused as ``wrong_cluster`` and never acted on.  Refusing it in
silence would leave both sides guessing, so a node of a service (``ringleader node``,
``ringleader.Node``) also tells:

- to a node of another cluster whose frame it refused, it answers once, per peer and
  cluster id, with a :class:`ClusterNotice`: its own definition and its address
  (sent to the peer's address in the notice, or in its own config);
- to a peer it links to but has heard nothing from, it sends its notice now and then
  (after ``suspect_after``, then twice as long each time, up to ``HELLO_MAX``), so
  that a node whose config nobody else lists (a 4th node added to a running 3-node
  cluster) is still told;
- a notice of another cluster is the one frame of another cluster a node decodes (a
  framework kind, at the same index in every table, laid out like any other): it names
  the difference once per peer and definition, as a WARNING, a ``other_cluster`` event
  and in its status, e.g. ``node 4 runs another cluster: members 1,2,3,4; mine: members
  1,2,3``.

A notice of the node's own cluster (a peer that has not heard from it) is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ringleader.actors.core import ClusterDefinition, Difference, Message, describe_difference

__all__ = ["HELLO", "HELLO_MAX", "ClusterNotice", "Identity"]

#: The host's timer for notices to silent peers.
HELLO = "identity:hello"
#: The longest wait between two notices to a peer that stays silent (seconds).
HELLO_MAX = 60.0
#: Peers of other clusters a node names in its status, at most; and (peer, cluster)
#: pairs it remembers having answered or reported, at most.
PEERS_KEPT = 64
PAIRS_KEPT = 1024


@dataclass(frozen=True, slots=True)
class ClusterNotice(Message):
    """A node's definition of its cluster, and where it can be answered."""

    kind = "cluster_notice"
    definition: ClusterDefinition
    reply_to: str


class _Once:
    """Remembers (peer, cluster id) pairs, the oldest forgotten past ``PAIRS_KEPT``."""

    def __init__(self) -> None:
        self._seen: dict[tuple[int, int], None] = {}

    def seen(self, peer: int, cluster: int) -> bool:
        return (peer, cluster) in self._seen

    def first(self, peer: int, cluster: int) -> bool:
        """Whether this is the first time for ``(peer, cluster)``."""
        key = (peer, cluster)
        if key in self._seen:
            return False
        if len(self._seen) >= PAIRS_KEPT:
            del self._seen[next(iter(self._seen))]
        self._seen[key] = None
        return True


class Identity:
    """One node's cluster identity: its definition, the notices it answered, and what it
    heard of other clusters (:attr:`others`: peer → the line that named the difference,
    the latest last)."""

    def __init__(self, definition: ClusterDefinition, *, first_hello: float) -> None:
        self.definition = definition
        self.cluster_id = definition.cluster_id
        self.others: dict[int, str] = {}
        self._answered = _Once()
        self._reported = _Once()
        self._interval = first_hello
        self._last = 0.0  # when the last notices to silent peers went (monotonic)

    def notice(self, reply_to: str) -> ClusterNotice:
        return ClusterNotice(self.definition, reply_to)

    def answer(self, peer: int, cluster: int) -> bool:
        """Whether to answer ``peer`` of cluster ``cluster`` (once per pair)."""
        return self._answered.first(peer, cluster)

    def hear(
        self, peer: int, cluster: int, theirs: ClusterDefinition
    ) -> tuple[str, list[Difference]] | None:
        """A notice from ``peer`` of another cluster: the line that names the
        difference, the first time for this peer and cluster id; ``None`` after."""
        if not self._reported.first(peer, cluster):
            return None
        line, found = describe_difference(peer, theirs, self.definition)
        self.others.pop(peer, None)
        if len(self.others) >= PEERS_KEPT:
            del self.others[next(iter(self.others))]
        self.others[peer] = line
        return line, found

    def explained(self, header: Any) -> bool:
        """Whether the sender of an authentic frame of another cluster (its ``header``)
        has had the difference named already (for that cluster id)."""
        return header is not None and self._reported.seen(header.sender, header.cluster)

    def hello(self, now: float) -> tuple[float, float]:
        """Notices to silent peers go now: to those not heard from since the first value
        returned (the last time, or the start); the next go after the second (twice as
        long as the last wait, up to ``HELLO_MAX``)."""
        since, self._last = self._last or now, now
        delay = self._interval
        self._interval = min(2 * delay, HELLO_MAX)
        return since, delay
