"""What may happen in an explored run of a service: faults, each bounded by a count."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CHANGES", "FAULTS", "ServiceOptions"]

#: The faults, in the order a state counts what is left of each, with what each is.
FAULTS = {
    "crashes": "a node crashes (what it sent may still arrive; what is sent to it is lost)",
    "restarts": "a crashed node restarts with its state file kept",
    "wipes": "a crashed node restarts with its state lost (at most a minority of the nodes)",
    "partitions": "the network splits into two sides (any two), and later heals",
    "cuts": "one link goes down (both ways), and later comes back",
    "losses": "a message in flight is lost",
    "duplicates": "a message is delivered twice",
    "pauses": "a node stands still (its clock runs on, as under SIGSTOP), then resumes",
}

#: What an operator may ask the leader for, as many times as ``changes`` says: the
#: model's nodes are the config's, so a change removes one of them (the leader itself:
#: it hands over first) or adds a removed one back, as a learner (its promotion to a
#: voter, once it caught up, is the leader's own, a second change).
CHANGES = "remove any member, or add a removed node back as a learner"


@dataclass(frozen=True)
class ServiceOptions:
    """How many of each fault may strike in an explored run (see :data:`FAULTS`), at
    any moment; ``delay``: the most ticks a frame may take (``None``: any time);
    ``capacity``: how many frames a link holds in flight (a frame sent onto a full link
    is lost, as a send that times out drops it; ``None``: as many as are sent, which
    needs a bound on delays to keep the states finite); ``proof_of_death``: a node
    linked to one that crashed learns it (its connection refused), at any moment after
    the crash, if its config's ``fast_failover`` says so.  ``changes``: how many
    membership changes an operator may ask the leader for, one at a time, at any moment
    (not a fault: the changes asked are the ``CHANGES`` menu)."""

    crashes: int = 0
    restarts: int = 0
    wipes: int = 0
    partitions: int = 0
    cuts: int = 0
    losses: int = 0
    duplicates: int = 0
    pauses: int = 0
    delay: int | None = 0
    capacity: int | None = None
    proof_of_death: bool = True
    changes: int = 0

    def __post_init__(self) -> None:
        for name in FAULTS:
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0")
        if self.changes < 0:
            raise ValueError("changes must be at least 0")
        if self.delay is not None and self.delay < 0:
            raise ValueError("delay must be at least 0 ticks")
        if self.capacity is not None and self.capacity < 1:
            raise ValueError("a link must hold at least one frame")
        if self.delay is None and self.capacity is None:
            raise ValueError(
                "frames that may take any time need links of a bounded capacity "
                "(else a run may pile up frames for ever)"
            )

    @classmethod
    def each(cls, count: int, **kw: object) -> ServiceOptions:
        """``count`` of every fault."""
        return cls(**dict.fromkeys(FAULTS, count), **kw)  # type: ignore[arg-type]

    @property
    def budgets(self) -> tuple[int, ...]:
        """How many of each fault, in :data:`FAULTS`' order."""
        return tuple(getattr(self, name) for name in FAULTS)

    def describe(self) -> str:
        """The faults in words: ``crashes 1, restarts 1, …`` (those above 0)."""
        counted = [f"{name} {getattr(self, name)}" for name in FAULTS if getattr(self, name)]
        return ", ".join(counted) or "no faults"
