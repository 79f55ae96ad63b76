"""The failure detector (notes 002): ping, pong, and suspicion after silence."""

from __future__ import annotations

from dataclasses import dataclass

from ._message import Message

__all__ = ["DETECTOR_KINDS", "DETECTOR_MESSAGES", "Ping", "Pong"]


@dataclass(frozen=True, slots=True)
class Ping(Message):
    """The failure detector's ``ping``: are you alive?  (Carries no field: the frame's
    epoch says which election round the sender is in.)"""

    kind = "ping"


@dataclass(frozen=True, slots=True)
class Pong(Message):
    """The answer to a ``ping``."""

    kind = "pong"


#: Message kinds of the failure detector, which every algorithm understands.
DETECTOR_MESSAGES: tuple[type[Message], ...] = (Ping, Pong)
DETECTOR_KINDS = frozenset(m.kind for m in DETECTOR_MESSAGES)
