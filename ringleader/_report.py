"""The report of a run: what ``ringleader run`` prints, and its ``--json`` form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from actors import Bound, NodeStatus

__all__ = ["NodeReport", "Report"]


@dataclass(frozen=True)
class NodeReport:
    id: int
    state: str
    elected: int | None
    capacity: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "state": self.state,
            "elected": self.elected,
            "capacity": self.capacity,
        }


@dataclass
class Report:
    """The outcome of one election run.

    ``finished``: every node decided and no message was left in flight before the
    timeout.  ``safe``: no two leaders, and no node's ``elected`` names anyone but the
    node with the largest ``(capacity, id)`` (notes 000's safety condition).
    ``agreed``: every node that is not crashed has ``elected == leader``.
    """

    topology: str
    algorithm: str
    transport: str
    n: int
    nodes: list[NodeReport]
    messages_by_type: dict[str, int]
    bound: Bound
    expected_leader: int
    epoch: int = 1
    elapsed_s: float | None = None
    setup_s: float = 0.0
    finished: bool = False
    rejected_frames: dict[str, int] = field(default_factory=dict)
    assumption: str | None = None  # what the algorithm needs to be safe, if anything
    send_failures: int = 0
    errors: int = 0

    @classmethod
    def from_statuses(
        cls, statuses: list[NodeStatus], *, expected_leader: int, **fields: Any
    ) -> Report:
        by_type: dict[str, int] = {}
        rejected: dict[str, int] = {}
        for status in statuses:
            for kind, count in status.sent.items():
                by_type[kind] = by_type.get(kind, 0) + count
            for reason, count in status.rejected.items():
                rejected[reason] = rejected.get(reason, 0) + count
        return cls(
            n=len(statuses),
            nodes=[NodeReport(s.id, s.state, s.elected, s.capacity) for s in statuses],
            messages_by_type=dict(sorted(by_type.items())),
            expected_leader=expected_leader,
            rejected_frames=rejected,
            send_failures=sum(s.send_failures for s in statuses),
            errors=sum(s.errors for s in statuses),
            **fields,
        )

    @property
    def total(self) -> int:
        return sum(self.messages_by_type.values())

    @property
    def leaders(self) -> list[int]:
        return [n.id for n in self.nodes if n.state == "leader"]

    @property
    def leader(self) -> int | None:
        leaders = self.leaders
        return leaders[0] if len(leaders) == 1 else None

    @property
    def agreed(self) -> bool:
        leader = self.leader
        return leader is not None and all(
            n.elected == leader for n in self.nodes if n.state != "crashed"
        )

    @property
    def safe(self) -> bool:
        return set(self.leaders) <= {self.expected_leader} and all(
            n.elected in (None, self.expected_leader) for n in self.nodes
        )

    @property
    def ok(self) -> bool:
        """Exit status 0: finished, safe and agreed."""
        return self.finished and self.safe and self.agreed

    @property
    def problems(self) -> list[str]:
        problems = []
        if not self.finished:
            undecided = [n.id for n in self.nodes if n.state == "undecided"]
            problems.append(
                f"did not finish in time ({len(undecided)} of {self.n} nodes undecided)"
                if undecided
                else "did not finish in time (messages still in flight)"
            )
        if len(self.leaders) > 1:
            problems.append(
                f"unsafe: {len(self.leaders)} leaders ({', '.join(map(str, self.leaders))})"
            )
        wrong = [n.id for n in self.nodes if n.elected not in (None, self.expected_leader)]
        if wrong:
            more = f" and {len(wrong) - 10} more" if len(wrong) > 10 else ""
            problems.append(
                f"unsafe: nodes {', '.join(map(str, wrong[:10]))}{more} elected someone other "
                f"than node {self.expected_leader}, the largest (capacity, id)"
            )
        if (wrong or len(self.leaders) > 1) and self.assumption:
            problems.append(self.assumption)
        if self.finished and not self.bound.holds(self.total):
            relation = "=" if self.bound.exact else "≤"
            problems.append(
                f"{self.total} messages, but the notes give {self.bound.formula} "
                f"{relation} {self.bound.value}"
            )
        return problems

    def as_dict(self) -> dict[str, Any]:
        bound = self.bound.as_dict()
        bound["holds"] = self.bound.holds(self.total)
        return {
            "topology": self.topology,
            "algorithm": self.algorithm,
            "transport": self.transport,
            "n": self.n,
            "leader": self.leader,
            "agreed": self.agreed,
            "epoch": self.epoch,
            "finished": self.finished,
            "safe": self.safe,
            "nodes": [n.as_dict() for n in self.nodes],
            "messages": {"total": self.total, "by_type": dict(self.messages_by_type)},
            "bound": bound,
            "elapsed_s": None if self.elapsed_s is None else round(self.elapsed_s, 6),
            "setup_s": round(self.setup_s, 6),
            "frames": {"rejected": dict(self.rejected_frames), "send_failures": self.send_failures},
            "errors": self.errors,
            "problems": self.problems,
        }
