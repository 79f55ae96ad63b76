"""How an algorithm lives with crashes: who watches whom, and what a suspicion does.

The slides (``_chang_roberts.py``, ``_bully.py`` …) assume that nobody crashes.  A
:class:`~actors.Member` composes an election with a failure detector, epochs and
recovery, and asks the algorithm's crash policy the questions whose answers depend on
the algorithm: which nodes to watch and to ping, whom a restarted node asks for the
epoch, what a suspicion or a node heard from again leads to, and whether a node may
proclaim itself.  :class:`CrashPolicy` is the default (watch the neighbours; a suspected
leader, or any suspicion during an election, starts a new round, as notes 002 say);
``_ring_repair.py`` and ``_bully_crashes.py`` hold the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ._election import Election, NodeState

if TYPE_CHECKING:
    from ._member import Member

__all__ = ["CrashPolicy"]


class CrashPolicy:
    """The default: watch the out-neighbours; a suspected leader, or a suspected node
    while undecided, starts a new round."""

    #: How the failure detector is wired, in words (``ringleader check``, the docs).
    watches: str = "its neighbours"
    #: A restarted node waits for a neighbour to take it back and start the new round
    #: (rings: only the predecessor can link to it again), instead of starting one
    #: itself as soon as it has learnt the current epoch.
    rejoin_by_neighbour: ClassVar[bool] = False

    def watch(self, member: Member) -> set[int]:
        """The nodes ``member``'s failure detector watches now."""
        return set(member.view.out)

    def ping(self, member: Member, watched: set[int]) -> set[int]:
        """The nodes to ping each heartbeat, given the ones watched (default: those).

        A node may ping nodes it does not watch (a leader its followers, so that they all
        hear from it at the same moment and suspect it together if it dies), or skip
        watched nodes that ping it anyway."""
        return watched

    def probe(self, member: Member) -> set[int]:
        """Suspected nodes to keep pinging, to notice when they come back."""
        return set()

    def rejoin(self, member: Member) -> set[int]:
        """The nodes a restarted node pings to learn the current epoch."""
        return set(member.view.out)

    def successor(self, member: Member) -> int:
        """The node a ring election sends to: as wired (see ``RingRepair``)."""
        return member.view.out[0]

    def predecessor(self, member: Member) -> int:
        return member.view.out[-1]

    def on_suspect(self, member: Member, node: int) -> None:
        """``node`` is suspected: if it led, or ``member`` is in the middle of an
        election, start a new round (notes 002)."""
        if node == member.elected or member.state is NodeState.UNDECIDED:
            member.new_round(f"crash of {node}", node)

    def on_recovered(self, member: Member, node: int) -> None:
        """A suspected ``node`` sent something again (it had not crashed, or restarted)."""

    def may_proclaim(self, member: Member, election: Election) -> bool:
        """Whether ``election`` may proclaim ``member`` leader now (default: yes)."""
        return True
