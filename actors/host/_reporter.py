"""What a node's actor reports: its events, as they happen, and its leadership,
published for other threads.

The member says what changed (:class:`~ringleader.actors.core.StateChanged`,
:class:`~ringleader.actors.core.Publish`, its notices); the reporter keeps the last
thing it said, to stamp every event with it, and hands events to whoever runs the node.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ringleader.actors.core import Difference, NodeState, Publish, StateChanged

from ._leadership import Leadership
from ._status import NodeEvent

__all__ = ["EventSink", "Reporter"]

EventSink = Callable[[NodeEvent], None]


class Reporter:
    """Node ``node``'s reports, in its life ``incarnation``: to ``events`` (if anyone
    listens) and ``leadership`` (if anyone reads it).  ``said`` is what its member says
    when it is made: its state, leader and epoch."""

    def __init__(
        self,
        node: int,
        incarnation: int,
        said: tuple[NodeState, int | None, int],
        *,
        events: EventSink | None = None,
        leadership: Leadership | None = None,
    ) -> None:
        self.node = node
        self.incarnation = incarnation
        self.events = events
        self.leadership = leadership
        #: What the member said last: its state, the leader it names, its epoch.
        self.said = said
        #: When it last changed, until its ``"state"`` notice reports it.
        self.changed_at: float | None = None
        #: What it published last: the leader it names, the epoch, the end of its lease
        #: (0: none; infinity: no lease is configured).
        self.published: tuple[int | None, int, float] = (None, said[2], 0.0)

    def changed(self, change: StateChanged) -> None:
        """The member's state changed (its ``"state"`` notice reports it, after the
        sends the change came with, but dated now: another node may act on those sends
        before the notice goes out, and the checks order the run's states by time)."""
        self.said = (NodeState(change.state), change.elected, change.epoch)
        self.changed_at = time.monotonic()

    def publish(self, publish: Publish) -> None:
        """Publish what the member believes, for readers on other threads."""
        self.published = (publish.leader, publish.epoch, publish.lease_until)
        if self.leadership is not None:
            self.leadership.publish(publish.leader, publish.epoch, publish.lease_until)

    def stop(self) -> None:
        """The node stops (or fails): it leads nothing from now on."""
        self.published = (None, self.said[2], 0.0)
        if self.leadership is not None:
            self.leadership.publish(None, self.said[2], 0.0)

    def report(
        self,
        kind: str,
        subject: int | None = None,
        detail: str = "",
        epoch: int | None = None,
        address: str | None = None,
        *,
        at: float | None = None,
        since: float | None = None,
        differences: tuple[Difference, ...] = (),
    ) -> None:
        """Hand an event of ``kind`` to whoever listens."""
        if self.events is None:
            return
        state, elected, said_epoch = self.said
        if kind == "state" and at is None and self.changed_at is not None:
            at, self.changed_at = self.changed_at, None
        self.events(
            NodeEvent(
                self.node,
                kind,
                str(state),
                elected,
                said_epoch if epoch is None else epoch,
                time.monotonic() if at is None else at,
                self.incarnation,
                subject,
                detail,
                address,
                differences=differences,
                since=since,
            )
        )
