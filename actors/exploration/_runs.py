"""The runs a search reports: a :class:`Path`, and the complete runs' extremes (:class:`Ends`)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Ends", "Extreme", "Path"]


@dataclass
class Path:
    """A run found: its steps (event numbers of :attr:`Model.events`), the messages it
    sent, and the state it ends in."""

    events: list[int]
    messages: int
    state: int


@dataclass
class Extreme:
    """Of the end states met so far: the first with the fewest messages (``low``, with
    ``fewest``) and the first with the most (``high``, with ``most``; -1 where a cycle
    makes it unbounded: the first such end state is kept)."""

    low: int = -1
    fewest: int = 0
    high: int = -1
    most: int = 0

    def meet(self, state: int, fewest: int, most: int) -> bool:
        """Count end state ``state``: whether it is now one of the two."""
        changed = False
        if self.low < 0 or fewest < self.fewest:
            self.low, self.fewest, changed = state, fewest, True
        if self.high < 0 or (self.most >= 0 and (most < 0 or most > self.most)):
            self.high, self.most, changed = state, most, True
        return changed


@dataclass
class Ends:
    """The complete runs' extremes: over every end state (``every``) and over those no
    fault struck on the way to (``clean``); ``cyclic``: the graph has a cycle."""

    cyclic: bool = False
    every: Extreme = field(default_factory=Extreme)
    clean: Extreme = field(default_factory=Extreme)

    def meet(self, state: int, fewest: int, most: int, clean: bool) -> bool:
        """Count end state ``state``: whether it is now one of the extremes."""
        changed = self.every.meet(state, fewest, most)
        if clean:
            changed = self.clean.meet(state, fewest, most) or changed
        return changed
