"""What an exploration lets happen: the orderings, the timers, and the faults."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

__all__ = ["START_RULES", "TIMER_RULES", "Options"]

#: When an initiator may wake up: ``"any"`` at any moment, as the notes let any process
#: start at any time — a message that reaches it first draws it in as a process that is
#: not an initiator (it never starts a run of its own afterwards); ``"first"`` before it
#: handles anything, as real runs and the simulator do (a node listed as initiator sends
#: its own election message first, whatever arrives).
START_RULES = ("any", "first")

#: When a pending timer may fire: ``"quiet"`` only when no message is in flight (every
#: answer a timer waits for has arrived: the notes' synchrony assumption, T longer than
#: any delay), and then the one with the least time left first; ``"any"`` at any moment
#: (T may fire before an answer arrives).
TIMER_RULES = ("quiet", "any")


@dataclass(frozen=True)
class Options:
    """What may happen in an explored run, besides every order of the events.

    ``unordered``: links are not FIFO (any message in flight may be delivered next);
    ``unordered_links`` makes only those links so. ``starts``: one of
    :data:`START_RULES`. ``timers``: one of :data:`TIMER_RULES`. ``crashes``: up to that
    many nodes crash (crash-stop: a crashed node does nothing more; what it sent is
    still delivered, what is sent to it is lost), at any moment while the run is still
    going on, among ``crashable`` (``None``: any node); with ``restarts``, a crashed
    node may come back while the run is still going on, as a new member that recovers
    (as the simulator restarts it), each crash at most once. ``losses``: up to that many
    messages in flight are lost, on ``lossy_links`` (``None``: any link);
    ``duplicates``: up to that many are delivered twice, on ``duplicating_links``.
    ``partitions``: each a split of the nodes into groups (the nodes of no group are one
    group more) that may begin at any moment and heal at any later one (messages sent
    across it meanwhile are lost). ``pauses``:
    nodes that may stop at any moment and resume at any later one (meanwhile they handle
    nothing, and the other nodes' timers do not wait for the messages on their way to
    them). Links are ``(sender, receiver)`` ids.
    """

    unordered: bool = False
    unordered_links: frozenset[tuple[int, int]] = frozenset()
    starts: str = "any"
    timers: str = "quiet"
    crashes: int = 0
    crashable: frozenset[int] | None = None
    restarts: bool = False
    losses: int = 0
    lossy_links: frozenset[tuple[int, int]] | None = None
    duplicates: int = 0
    duplicating_links: frozenset[tuple[int, int]] | None = None
    partitions: tuple[tuple[frozenset[int], ...], ...] = ()
    pauses: tuple[int, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.starts not in START_RULES:
            raise ValueError(f"starts must be one of {', '.join(START_RULES)}, not {self.starts!r}")
        if self.timers not in TIMER_RULES:
            raise ValueError(f"timers must be one of {', '.join(TIMER_RULES)}, not {self.timers!r}")
        for name in ("crashes", "losses", "duplicates"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0")

    @staticmethod
    def links(pairs: Collection[tuple[int, int]] | None) -> frozenset[tuple[int, int]] | None:
        """``pairs`` as a set of links (``None`` stays ``None``: every link)."""
        return None if pairs is None else frozenset((a, b) for a, b in pairs)

    def as_dict(self) -> dict[str, object]:
        """What may happen, as the ``--json`` report and the lab give it."""
        return {
            "unordered": self.unordered,
            "starts": self.starts,
            "timers": self.timers,
            "crashes": self.crashes,
            "restarts": self.restarts,
            "losses": self.losses,
            "duplicates": self.duplicates,
            "partitions": [[sorted(group) for group in split] for split in self.partitions],
            "pauses": list(self.pauses),
        }

    @property
    def faulty(self) -> bool:
        """Whether anything beyond the orderings and the timers may happen."""
        return bool(
            self.crashes or self.losses or self.duplicates or self.partitions or self.pauses
        )
