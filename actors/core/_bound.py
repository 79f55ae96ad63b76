"""The notes' message counts: a formula, its value for one arrangement, exact or a bound."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ._view import Candidate

__all__ = ["Bound", "Graph"]


class Graph(Protocol):
    """Who talks to whom, as far as an algorithm's message-count formula cares."""

    @property
    def candidates(self) -> Sequence[Candidate]:
        """Every node, in the order the topology lists them (ring order on a ring)."""
        ...

    @property
    def out(self) -> Mapping[int, Sequence[int]]:
        """Each node's out-neighbours."""
        ...


@dataclass(frozen=True)
class Bound:
    """The notes' message count for a run: ``exact`` (it must be met) or an upper bound."""

    formula: str
    value: int
    exact: bool

    def holds(self, messages: int) -> bool:
        return messages == self.value if self.exact else messages <= self.value

    def as_dict(self) -> dict[str, Any]:
        return {"formula": self.formula, "value": self.value, "exact": self.exact}
