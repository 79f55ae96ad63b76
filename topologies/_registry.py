"""Which topologies exist and which election algorithms fit each."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ringleader.actors import ALGORITHMS, Election

from ._builders import (
    Edges,
    bidirectional_ring,
    full_mesh,
    graph,
    spanning_tree,
    unidirectional_ring,
)
from ._wiring import NodeSpec, Wiring

__all__ = ["TOPOLOGIES", "Topology"]


@dataclass(frozen=True)
class Topology:
    """A topology: how to wire it, its default algorithm and every algorithm that fits."""

    name: str
    title: str
    build: Callable[[Sequence[NodeSpec], Edges | None], Wiring]
    algorithms: tuple[str, ...]  # the first is the default

    @property
    def default(self) -> str:
        return self.algorithms[0]

    def algorithm(self, name: str) -> type[Election]:
        """The class for ``name`` (``"auto"``: the default); ``KeyError`` if it does not fit."""
        name = self.default if name == "auto" else name
        if name not in self.algorithms:
            raise KeyError(name)
        return ALGORITHMS[name]


TOPOLOGIES: dict[str, Topology] = {
    t.name: t
    for t in (
        Topology(
            "unidirectional_ring",
            "unidirectional ring",
            unidirectional_ring,
            ("chang_roberts", "lelann"),
        ),
        Topology(
            "bidirectional_ring",
            "bidirectional ring",
            bidirectional_ring,
            ("hirschberg_sinclair", "chang_roberts", "lelann"),
        ),
        Topology("spanning_tree", "spanning tree", spanning_tree, ("tree", "echo")),
        Topology("full_mesh", "full mesh", full_mesh, ("bully", "bully_broadcast", "echo")),
        Topology("graph", "graph", graph, ("echo",)),
    )
}
