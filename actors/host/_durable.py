"""What a node keeps across its lives: the host's side of stable storage.

A :class:`~ringleader.actors.Member` says what must survive its node: its
:attr:`~ringleader.actors.Member.seen`, the highest epoch it has seen, and its
:attr:`~ringleader.actors.Member.acknowledged`, the round it acknowledged last and that
round's leader; and the cluster's configuration when it learns a newer one
(:attr:`~ringleader.actors.core.Persist.configuration`).  A host that keeps them
(``ringleader node``, :class:`ringleader.Node`) gives the node's actor a
:class:`Durable`; after each event the actor makes new values durable *before* it
carries out that event's actions, so the node never sends anything of a new epoch,
acknowledges a heartbeat of it, or counts itself leader in it before that would
survive a crash.  A node whose state cannot be made durable must not act on it: the
actor reports a ``failed`` event (its detail one line naming the file) and stops, as a
crash would.  The runs that teach the notes (``ringleader run``) keep nothing.
"""

from __future__ import annotations

from typing import Protocol

from ringleader.actors.crashes import Configuration

__all__ = ["Durable"]


class Durable(Protocol):
    """Where a node's state survives it (the service's state file)."""

    @property
    def epoch(self) -> int:
        """The highest epoch made durable so far."""
        ...

    @property
    def acknowledged(self) -> tuple[int, int | None]:
        """The acknowledged round and its leader made durable so far."""
        ...

    def save(self, epoch: int, acknowledged: tuple[int, int | None]) -> None:
        """Make ``epoch`` and ``acknowledged`` durable before returning; raise (a
        one-line error naming the file) if they cannot be."""
        ...

    def keep(self, configuration: Configuration) -> bool:
        """Make ``configuration`` durable before returning, if it is newer than the one
        kept (returns whether it was); raise as :meth:`save` does."""
        ...
