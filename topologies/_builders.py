"""Topology builders: configured nodes in, :class:`Wiring` out."""

from __future__ import annotations

from collections.abc import Sequence

from ._wiring import NodeSpec, Wiring

__all__ = ["unidirectional_ring"]


def unidirectional_ring(nodes: Sequence[NodeSpec]) -> Wiring:
    """A one-way ring in list order: node i sends to node i+1, the last to the first."""
    ids = [n.id for n in nodes]
    out = {ids[i]: (ids[(i + 1) % len(ids)],) for i in range(len(ids))}
    return Wiring("unidirectional_ring", tuple(nodes), out)
