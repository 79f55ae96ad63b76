"""A misbehaving network, entry by entry: what a config's ``[[faults]]`` table may ask.

Each entry holds for a window of the run, ``start`` to ``end`` seconds after the nodes
are up (virtual seconds in the simulator; ``end`` infinite: for ever).  ``link``, where
an entry has one, is ``(sender, receiver)``; ``None`` means every link.

- :class:`Partition`: the nodes split into ``groups`` (the nodes of no group are one
  group more); a message between groups is lost.
- :class:`Loss`: each message is lost with ``probability``.
- :class:`Delay`: each message takes ``delay`` seconds longer (a :class:`Distribution`);
  links stay FIFO.
- :class:`Duplicate`: each message is delivered twice with ``probability``.
- :class:`Reorder`: each message may be held back up to ``window`` seconds, and later
  ones overtake it: FIFO is lifted.
- :class:`Pause`: node ``node`` stops handling anything, as a GC pause or ``SIGSTOP``
  would stop it; what reaches it waits.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Delay",
    "Distribution",
    "Duplicate",
    "Loss",
    "NetworkFault",
    "Partition",
    "Pause",
    "Reorder",
]


@dataclass(frozen=True)
class Distribution:
    """Extra seconds: ``fixed`` (``low``), ``uniform`` (``low`` to ``high``) or
    ``exponential`` (mean ``low``)."""

    shape: str
    low: float
    high: float = 0.0

    def draw(self, rng: random.Random) -> float:
        if self.shape == "uniform":
            return rng.uniform(self.low, self.high)
        if self.shape == "exponential":
            return rng.expovariate(1.0 / self.low) if self.low > 0 else 0.0
        return self.low

    @property
    def most(self) -> float:
        """The longest it can be (infinite for an exponential one)."""
        if self.shape == "uniform":
            return self.high
        if self.shape == "exponential":
            return math.inf
        return self.low

    def as_toml(self) -> Any:
        if self.shape == "uniform":
            return [self.low, self.high]
        if self.shape == "exponential":
            return {"mean": self.low}
        return self.low

    def __str__(self) -> str:
        if self.shape == "uniform":
            return f"{self.low:g} to {self.high:g} s"
        if self.shape == "exponential":
            return f"exponential, mean {self.low:g} s"
        return f"{self.low:g} s"


@dataclass(frozen=True)
class _Entry:
    start: float
    end: float

    def active(self, now: float) -> bool:
        return self.start <= now < self.end

    def _window(self) -> dict[str, float]:
        window = {"from": self.start}
        if self.end != math.inf:
            window["until"] = self.end
        return window

    def _when(self) -> str:
        if self.start == 0 and self.end == math.inf:
            return ""
        end = "on" if self.end == math.inf else f"to {self.end:g} s"
        return f" from {self.start:g} s {end}"


@dataclass(frozen=True)
class _LinkEntry(_Entry):
    link: tuple[int, int] | None

    def on(self, sender: int, receiver: int) -> bool:
        return self.link is None or self.link == (sender, receiver)

    def _where(self) -> str:
        return "" if self.link is None else f" on P{self.link[0]} → P{self.link[1]}"

    def _link(self) -> dict[str, Any]:
        return {} if self.link is None else {"link": list(self.link)}


@dataclass(frozen=True)
class Partition(_Entry):
    groups: tuple[frozenset[int], ...]

    def apart(self, a: int, b: int) -> bool:
        """Whether ``a`` and ``b`` are on different sides."""
        return self.side(a) != self.side(b)

    def side(self, node: int) -> int:
        for k, group in enumerate(self.groups):
            if node in group:
                return k
        return -1  # the nodes of no group

    def as_toml(self) -> dict[str, Any]:
        return {"partition": [sorted(g) for g in self.groups], **self._window()}

    def __str__(self) -> str:
        sides = " | ".join(" ".join(f"P{n}" for n in sorted(g)) for g in self.groups)
        return f"partition {sides} | the rest{self._when()}"


@dataclass(frozen=True)
class Loss(_LinkEntry):
    probability: float

    def as_toml(self) -> dict[str, Any]:
        return {"loss": self.probability, **self._link(), **self._window()}

    def __str__(self) -> str:
        return f"loss {self.probability:g}{self._where()}{self._when()}"


@dataclass(frozen=True)
class Delay(_LinkEntry):
    delay: Distribution

    def as_toml(self) -> dict[str, Any]:
        return {"delay": self.delay.as_toml(), **self._link(), **self._window()}

    def __str__(self) -> str:
        return f"delay {self.delay}{self._where()}{self._when()}"


@dataclass(frozen=True)
class Duplicate(_LinkEntry):
    probability: float

    def as_toml(self) -> dict[str, Any]:
        return {"duplicate": self.probability, **self._link(), **self._window()}

    def __str__(self) -> str:
        return f"duplicate {self.probability:g}{self._where()}{self._when()}"


@dataclass(frozen=True)
class Reorder(_LinkEntry):
    window: float

    def as_toml(self) -> dict[str, Any]:
        return {"reorder": self.window, **self._link(), **self._window()}

    def __str__(self) -> str:
        return f"reorder within {self.window:g} s{self._where()}{self._when()}"


@dataclass(frozen=True)
class Pause(_Entry):
    node: int

    @property
    def seconds(self) -> float:
        return self.end - self.start

    def as_toml(self) -> dict[str, Any]:
        return {"pause": self.node, **self._window()}

    def __str__(self) -> str:
        return f"pause P{self.node} from {self.start:g} s to {self.end:g} s"


#: Any entry of a misbehaving network.
NetworkFault = Partition | Loss | Delay | Duplicate | Reorder | Pause
