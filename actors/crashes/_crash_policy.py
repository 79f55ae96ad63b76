"""How an algorithm lives with crashes: who watches whom, and what a suspicion does.

The slides (``_chang_roberts.py``, ``_bully.py`` …) assume that nobody crashes.  A
:class:`~ringleader.actors.Member` composes an election with a failure detector, epochs
and recovery, and asks the algorithm's crash policy the questions whose answers depend on
the algorithm: which nodes to watch and to ping, whom a restarted node asks for the
epoch, what a suspicion or a node heard from again leads to, and whether a node may
proclaim itself.

A policy talks one way.  It sees the node through a narrow :class:`Situation` (who is
suspected, the members, its rank, the round's state) and answers with values: sets of
nodes, a yes or no, or an intent — :class:`NewRound` or :class:`Retry` — that the member
carries out.  It never calls into the election or the member, and it keeps no state of
its own, so one policy object serves every node of a run.

:class:`CrashPolicy` is the default (watch the neighbours; a suspected leader, or any
suspicion during an election, starts a new round, as notes 002 say);
``_ring_repair.py`` and ``_bully_crashes.py`` hold the others.  Which algorithm lives
with which policy is declared where the algorithms are registered
(:data:`~ringleader.actors.CRASH_POLICIES`).
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import ClassVar, Protocol

from ringleader.actors.core import NodeState, NodeView

__all__ = ["CrashPolicy", "Intent", "NewRound", "Retry", "Situation"]


class Situation(Protocol):
    """What a crash policy sees of one node (a :class:`~ringleader.actors.Member`)."""

    @property
    def id(self) -> int: ...

    @property
    def view(self) -> NodeView:
        """The node's place: its neighbours, every member in ring order, capacities."""
        ...

    @property
    def rank(self) -> int | None:
        """Its position in ``view.members`` (``None`` if alone or not listed)."""
        ...

    @property
    def suspected(self) -> Set[int]:
        """The nodes its failure detector suspects now."""
        ...

    @property
    def above(self) -> Set[int]:
        """Its out-neighbours with a larger ``(capacity, id)`` (Bully's "higher")."""
        ...

    @property
    def below(self) -> Set[int]:
        """Its out-neighbours with a smaller ``(capacity, id)``."""
        ...

    @property
    def state(self) -> NodeState:
        """The current round's state."""
        ...

    @property
    def elected(self) -> int | None:
        """The current round's leader, if decided."""
        ...

    @property
    def epoch(self) -> int:
        """The current round's number."""
        ...

    @property
    def started(self) -> bool:
        """Whether the node has started its own run in the current round."""
        ...

    @property
    def initiator(self) -> bool:
        """Whether the node initiated the current round."""
        ...


@dataclass(frozen=True, slots=True)
class NewRound:
    """Leave the current round for a new one of this node's own: ``why`` in words,
    ``subject`` the node whose crash or return set it off."""

    why: str
    subject: int | None = None


@dataclass(frozen=True, slots=True)
class Retry:
    """Ask the election to do again what a suspected node may have taken with it
    (see :meth:`~ringleader.actors.Election.retry`)."""


#: What a policy may ask for after a suspicion or a return: ``None`` is nothing.
Intent = NewRound | Retry | None


class CrashPolicy:
    """The default: watch the out-neighbours; a suspected leader, or a suspected node
    while undecided, starts a new round."""

    #: How the failure detector is wired, in words (``ringleader check``, the docs).
    watches: str = "its neighbours"
    #: A restarted node waits for a neighbour to take it back and start the new round
    #: (rings: only the predecessor can link to it again), instead of starting one
    #: itself as soon as it has learnt the current epoch.
    rejoin_by_neighbour: ClassVar[bool] = False

    def watch(self, node: Situation) -> set[int]:
        """The nodes ``node``'s failure detector watches now."""
        return set(node.view.out)

    def steady_watch(self, node: Situation) -> set[int]:
        """Under the service modes' steady rules (``_steady.py``), while a leader leads:
        the nodes ``node`` watches besides the leader it follows.  By default none: the
        leader's heartbeat reaches every member and their answers are its lease, so the
        detector's traffic grows with n, not n²."""
        return set()

    def ping(self, node: Situation, watched: set[int]) -> set[int]:
        """The nodes to ping each heartbeat, given the ones watched (default: those).

        A node may ping nodes it does not watch (a leader its followers, so that they all
        hear from it at the same moment and suspect it together if it dies), or skip
        watched nodes that ping it anyway."""
        return watched

    def probe(self, node: Situation) -> set[int]:
        """Suspected nodes to keep pinging, to notice when they come back."""
        return set()

    def rejoin(self, node: Situation) -> set[int]:
        """The nodes a restarted node pings to learn the current epoch."""
        return set(node.view.out)

    def successor(self, node: Situation) -> int:
        """The node a ring election sends to: as wired (see ``RingRepair``)."""
        return node.view.out[0]

    def predecessor(self, node: Situation) -> int:
        return node.view.out[-1]

    def on_suspect(self, node: Situation, peer: int) -> Intent:
        """``peer`` is suspected: if it led, or ``node`` is in the middle of an
        election, a new round (notes 002)."""
        if peer == node.elected or node.state is NodeState.UNDECIDED:
            return NewRound(f"crash of {peer}", peer)
        return None

    def on_recovered(self, node: Situation, peer: int) -> Intent:
        """A suspected ``peer`` sent something again (it had not crashed, or restarted)."""
        return None

    def may_proclaim(self, node: Situation) -> bool:
        """Whether ``node`` may proclaim itself leader in its round now (default: yes)."""
        return True
