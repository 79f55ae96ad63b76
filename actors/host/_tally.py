"""How many election messages the nodes of a cluster have sent so far, for a progress
display: a slot per node, each written only by its node's thread, summed by anyone."""

from __future__ import annotations

__all__ = ["Tally"]


class Tally:
    """``counts[slot]`` is one node's count; :meth:`total` a snapshot of them all."""

    __slots__ = ("counts",)

    def __init__(self, nodes: int) -> None:
        self.counts = [0] * nodes

    def total(self) -> int:
        return sum(self.counts)
