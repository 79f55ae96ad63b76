"""The report of a run: what ``ringleader run`` prints, and its ``--json`` form."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ringleader.actors import DETECTOR_KINDS, Bound, SafetyChecker, agreement
from ringleader.actors.host import NodeStatus

__all__ = ["ElectionReport", "FaultReport", "NodeReport", "Report"]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


@dataclass(frozen=True)
class ElectionReport:
    """One election round: ``leader`` is ``None`` for a round another superseded.

    ``trigger`` is what set the round off, as its node said it (``start``, ``crash of 5``,
    ``recovery of 5`` …); ``started_by`` that node; ``at`` when (s after the run began).
    Rounds that one cause set off make one election: ``election`` numbers it (from 1,
    in time order) and ``cause`` words it as it was observed (``5 suspected: silent for
    0.30 s``, ``5 restarted``, ``first start``).
    """

    epoch: int
    leader: int | None
    trigger: str
    detection_s: float | None
    duration_s: float | None
    messages: int
    started_by: int | None = None
    at: float | None = None
    election: int = 1
    cause: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "epoch": self.epoch,
            "leader": self.leader,
            "trigger": self.trigger,
            "detection_s": _round(self.detection_s),
            "duration_s": _round(self.duration_s),
            "messages": self.messages,
            "started_by": self.started_by,
            "at": _round(self.at),
            "election": self.election,
            "cause": self.cause,
        }


@dataclass(frozen=True)
class FaultReport:
    """A fault as applied: ``at`` s after the run began; ``node`` is who it hit.

    For a crash, ``detection_s`` is the time from the crash to the first suspicion of
    the node, and ``failover_s`` the time from the crash until every live node agreed on
    a live leader again (``None`` if they never stopped agreeing, e.g. a follower died
    and nobody had to elect).
    """

    at: float
    action: str
    target: int | str
    node: int | None
    skipped: str | None = None
    detection_s: float | None = None
    failover_s: float | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "at": _round(self.at),
            "action": self.action,
            "target": self.target,
            "node": self.node,
        }
        if self.action == "crash" and not self.skipped:
            out["detection_s"] = _round(self.detection_s)
            out["failover_s"] = _round(self.failover_s)
        if self.skipped:
            out["skipped"] = self.skipped
        return out


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
    timeout.  ``safe``: no check of :mod:`ringleader.actors.checks` broken in any state
    the run passed through (``safety``: the checker that saw them all; without one, the
    end states alone: no two leaders, and no node's ``elected`` names anyone but the node
    with the largest ``(capacity, id)``, notes 000's safety condition).
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
    heartbeats: int = 0  # the failure detector's pings and pongs
    #: Election messages sent that never arrived (their receiver was down …); counted
    #: in ``messages_by_type`` too, as the notes count every message sent.
    lost: int = 0
    elections: list[ElectionReport] = field(default_factory=list)
    faults: list[FaultReport] = field(default_factory=list)
    safety: SafetyChecker | None = None
    first_election_messages: int | None = None  # with a detector: the first round's count
    mode: str = "threads"
    #: The cluster could not be set up: which node failed (``None``: not one node's
    #: fault) and why.  Nothing ran; the nodes are all ``not_started``.
    setup_failed: tuple[int | None, str] | None = None

    @classmethod
    def from_run(
        cls,
        statuses: list[NodeStatus],
        *,
        crashed: dict[int, NodeStatus],
        live: set[int],
        expected_leader: int | None,
        earlier: Iterable[NodeStatus] = (),
        **fields: Any,
    ) -> Report:
        """A supervised run: ``statuses`` of live nodes, ``crashed`` as last seen; the
        frames of ``earlier`` lives (of nodes restarted since) count too."""
        every = sorted([*statuses, *crashed.values()], key=lambda s: s.id)
        report = cls.from_statuses(
            every, expected_leader=expected_leader or 0, earlier=earlier, **fields
        )
        report.nodes = [
            NodeReport(n.id, "crashed" if n.id not in live else n.state, n.elected, n.capacity)
            for n in report.nodes
        ]
        leader = report.leader
        if leader is not None:  # its epoch is its fencing token
            report.epoch = next(s.epoch for s in statuses if s.id == leader)
        return report

    @classmethod
    def from_statuses(
        cls,
        statuses: list[NodeStatus],
        *,
        expected_leader: int,
        earlier: Iterable[NodeStatus] = (),
        **fields: Any,
    ) -> Report:
        """``statuses``: one per node; ``earlier``: lives of nodes restarted since, whose
        frames count too."""
        by_type: dict[str, int] = {}
        rejected: dict[str, int] = {}
        heartbeats = lost = 0
        lives = [*statuses, *earlier]
        for status in lives:
            for kind, count in status.sent.items():
                if kind in DETECTOR_KINDS:
                    heartbeats += count
                else:
                    by_type[kind] = by_type.get(kind, 0) + count
            for kind, count in status.lost.items():
                by_type[kind] = by_type.get(kind, 0) + count
                lost += count
            for reason, count in status.rejected.items():
                rejected[reason] = rejected.get(reason, 0) + count
        return cls(
            n=len(statuses),
            nodes=[NodeReport(s.id, s.state, s.elected, s.capacity) for s in statuses],
            messages_by_type=dict(sorted(by_type.items())),
            expected_leader=expected_leader,
            rejected_frames=rejected,
            send_failures=sum(s.send_failures for s in lives),
            errors=sum(s.errors for s in lives),
            heartbeats=heartbeats,
            lost=lost,
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
        """Every live node names one leader, which says it leads (see
        :func:`~ringleader.actors.agreement`)."""
        return agreement({n.id: (n.state, n.elected, None) for n in self.live_nodes}) is not None

    @property
    def live_nodes(self) -> list[NodeReport]:
        return [n for n in self.nodes if n.state != "crashed"]

    @property
    def safe(self) -> bool:
        if self.safety is not None:
            return not self.safety.violations
        return set(self.leaders) <= {self.expected_leader} and all(
            n.elected in (None, self.expected_leader) for n in self.nodes
        )

    @property
    def bound_holds(self) -> bool:
        counted = (
            self.total if self.first_election_messages is None else self.first_election_messages
        )
        return self.bound.holds(counted)

    @property
    def bound_counted(self) -> bool:
        """Whether the election the notes' formula counts ran to its end, and its count is
        its own: a run cut short by its timeout, or a first election a crash broke off,
        proves nothing about it; nor does one whose round another node's crash struck,
        with no later election (:attr:`bound_unchecked`)."""
        return self.bound_unchecked is None

    @property
    def bound_unchecked(self) -> str | None:
        """Why the notes' count was not checked, if it was not."""
        if self.first_election_messages is None:
            return None if self.finished else "not finished: nothing to hold it to"
        if not self.elections or self.elections[0].leader is None:
            return "not finished: nothing to hold it to"
        first = self.elections[0]
        if any(e.election > 1 for e in self.elections):
            return None  # a crash set a new election off: no repair of the first round
        for fault in self.faults:
            if fault.action == "crash" and not fault.skipped and fault.node != first.leader:
                # The cluster stayed in the first round and repaired itself there (a
                # ring sends its announcement round again): those messages count as its.
                return (
                    f"not checked: node {fault.node} crashed in the first election's round, "
                    "so its count takes in what the crash set off"
                )
        return None

    @property
    def bound_broken(self) -> bool:
        """The notes' message count was checked and does not hold: a problem, exit 1
        (the first election's count in a supervised run with a failure detector)."""
        return self.bound_counted and not self.bound_holds

    @property
    def ok(self) -> bool:
        """Exit status 0: finished, safe and agreed, and the notes' count held."""
        return self.finished and self.safe and self.agreed and not self.bound_broken

    @property
    def problems(self) -> list[str]:
        problems = []
        if self.setup_failed is not None:
            node, reason = self.setup_failed
            return [
                f"set-up failed: {reason}"
                if node is None
                else f"set-up failed: node {node}: {reason}"
            ]
        if not self.finished:
            undecided = [n.id for n in self.nodes if n.state == "undecided"]
            problems.append(
                f"did not finish in time ({len(undecided)} of {self.n} nodes undecided)"
                if undecided
                else "did not finish in time (messages still in flight)"
            )
        if self.safety is not None:  # every state of the run was checked
            problems.extend(f"unsafe: {v}" for v in self.safety.violations[:10])
            if len(self.safety.violations) > 10:
                problems.append(f"… and {len(self.safety.violations) - 10} more violations")
            if self.safety.violations and self.assumption:
                problems.append(self.assumption)
        if self.first_election_messages is not None:
            if self.bound_counted and not self.bound_holds:
                relation = "=" if self.bound.exact else "≤"
                problems.append(
                    f"the first election took {self.first_election_messages} messages, but the "
                    f"notes give {self.bound.formula} {relation} {self.bound.value}"
                )
            return problems
        if self.safety is None:  # only the end state is known: judge it
            problems.extend(self._end_problems())
        if self.finished and not self.bound.holds(self.total):
            relation = "=" if self.bound.exact else "≤"
            problems.append(
                f"{self.total} messages, but the notes give {self.bound.formula} "
                f"{relation} {self.bound.value}"
            )
        return problems

    def _end_problems(self) -> list[str]:
        """What is unsafe in the nodes' end states (a report without a checker)."""
        problems = []
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
        return problems

    def as_dict(self) -> dict[str, Any]:
        bound = self.bound.as_dict()
        bound["holds"] = self.bound_holds if self.bound_counted else None
        if self.first_election_messages is not None:
            bound["counted"] = "first election"
        out = {
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
            "messages": {
                "total": self.total,
                "by_type": dict(self.messages_by_type),
                "heartbeats": self.heartbeats,
                "lost": self.lost,
            },
            "bound": bound,
            "elapsed_s": None if self.elapsed_s is None else round(self.elapsed_s, 6),
            "setup_s": round(self.setup_s, 6),
            "frames": {"rejected": dict(self.rejected_frames), "send_failures": self.send_failures},
            "errors": self.errors,
            "problems": self.problems,
        }
        out["mode"] = self.mode
        if self.setup_failed is not None:
            node, reason = self.setup_failed
            out["setup_failed"] = {"node": node, "reason": reason}
        if self.first_election_messages is not None:  # a crash schedule
            out["elections"] = [e.as_dict() for e in self.elections]
            out["faults"] = [f.as_dict() for f in self.faults]
        if self.safety is not None:
            out["safety"] = self.safety.as_dict()
        return out
