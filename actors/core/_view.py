"""What one node knows of the cluster: itself, its neighbours, everyone's criterion."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["Candidate", "NodeView"]


class Candidate(NamedTuple):
    """The election criterion: the largest ``(capacity, id)`` wins.

    Ordering is the tuple's, so equal capacities go to the larger id and the order is
    strict (ids are unique), as notes 003 require of capacities.
    """

    capacity: float
    id: int


@dataclass(frozen=True, slots=True)
class NodeView:
    """What one node knows of its place: itself and its neighbours, in topology order.

    ``capacities`` holds every node's capacity, for algorithms such as Bully that
    address "every higher node"; ``members`` every node's id in topology order (ring
    order on a ring), so that a ring can be repaired around a crashed node.  Both are
    usually shared by all views of a cluster.  ``settings`` holds the tunables from the
    config (Bully's timeouts, the failure detector's ``heartbeat`` and ``suspect_after``,
    in seconds).
    """

    id: int
    capacity: float
    out: tuple[int, ...]
    inbound: tuple[int, ...]
    capacities: Mapping[int, float] = field(default_factory=dict)
    settings: Mapping[str, float] = field(default_factory=dict)
    members: tuple[int, ...] = ()

    @property
    def candidate(self) -> Candidate:
        return Candidate(self.capacity, self.id)

    def neighbour(self, node: int) -> Candidate:
        """Node ``node`` as a candidate."""
        return Candidate(self.capacities.get(node, node), node)

    def setting(self, name: str, default: float) -> float:
        """A tunable from the config, else ``default``."""
        return float(self.settings.get(name, default))
