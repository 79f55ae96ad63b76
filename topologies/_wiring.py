"""Who talks to whom: the result of a topology builder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from ringleader.actors import Candidate, NodeView

__all__ = ["NodeSpec", "Wiring"]


@dataclass(frozen=True)
class NodeSpec:
    """One node as configured: its id, its capacity (the criterion) and maybe an address
    (the one it binds) and an ``advertise`` address (the one its peers dial, if not that)."""

    id: int
    capacity: float
    address: str | None = None
    parent: int | None = None  # spanning trees: the parent, None at the root
    #: This node's own ``suspect_after`` (who notices a crash first), if it has one.
    suspect_after: float | None = None
    #: The address peers and operators dial, when not the bound ``address`` (a node
    #: behind NAT, a container's port mapping, or one that binds every interface).
    advertise: str | None = None
    #: Listed but not a member of the founding configuration (``spare = true``): a
    #: service may add it live (``ringleader member add``); until then it takes no part.
    spare: bool = False

    @property
    def dial(self) -> str | None:
        """The address to reach this node at: ``advertise`` if given, else ``address``."""
        return self.advertise if self.advertise is not None else self.address

    @property
    def candidate(self) -> Candidate:
        return Candidate(self.capacity, self.id)


@dataclass(frozen=True)
class Wiring:
    """Nodes in topology order and each node's out-neighbours (one-way links).

    A builder returns this and nothing else: it opens no socket.
    """

    topology: str
    nodes: tuple[NodeSpec, ...]
    out: Mapping[int, tuple[int, ...]]

    @cached_property
    def inbound(self) -> dict[int, tuple[int, ...]]:
        """Each node's in-neighbours, in topology order."""
        inbound: dict[int, list[int]] = {n.id: [] for n in self.nodes}
        for node in self.nodes:
            for peer in self.out[node.id]:
                inbound[peer].append(node.id)
        return {k: tuple(v) for k, v in inbound.items()}

    @property
    def candidates(self) -> Sequence[Candidate]:
        return [n.candidate for n in self.nodes]

    @property
    def links(self) -> int:
        """The number of one-way links (M in the notes' formulas)."""
        return sum(len(v) for v in self.out.values())

    def views(self, settings: Mapping[str, float] | None = None) -> list[NodeView]:
        """One :class:`~ringleader.actors.NodeView` per node, as the algorithms see themselves.

        Each view holds every node's capacity and id (one mapping and one tuple shared
        by all views) and the algorithm's ``settings`` (with a node's own
        ``suspect_after`` when it has one and the failure detector is on).
        """
        capacity = {n.id: n.capacity for n in self.nodes}
        members = tuple(n.id for n in self.nodes)
        shared = dict(settings or {})
        return [
            NodeView(
                n.id,
                n.capacity,
                self.out[n.id],
                self.inbound[n.id],
                capacity,
                shared
                if n.suspect_after is None or "heartbeat" not in shared
                else {**shared, "suspect_after": n.suspect_after},
                members,
            )
            for n in self.nodes
        ]
