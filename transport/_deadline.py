"""A deadline on the monotonic clock, for waits made of several shorter waits."""

from __future__ import annotations

import time

__all__ = ["Deadline"]


class Deadline:
    """The moment ``seconds`` from now; :meth:`left` says how long until then (never
    below zero)."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def left_ms(self) -> int:
        """:meth:`left` in whole milliseconds, as ZeroMQ's polls take it."""
        return round(self.left() * 1000)

    def expired(self) -> bool:
        return self.left() == 0
