"""What a sans-IO election asks its host to do: send, set or cancel a timer, report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ._message import Message

__all__ = ["Action", "CancelTimer", "Notice", "Send", "SetTimer"]


class Send(NamedTuple):
    """One message to send to node ``to``, stamped with the sender's ``epoch``.

    A named tuple, not a frozen dataclass like the others: one is made for every message
    sent, and a tuple is made in half the time.
    """

    to: int
    message: Message
    epoch: int = 1


class SetTimer(NamedTuple):
    """Fire ``name`` at this node after ``delay`` seconds (replacing a pending one).

    A named tuple too: the failure detector sets one again for every message from a
    peer it watches."""

    name: str
    delay: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    """Forget the pending timer ``name``, if any."""

    name: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the host should report: ``kind`` is ``"suspect"`` (``node`` is
    suspected to have crashed), ``"recovered"`` (``node`` answers again) or
    ``"election"`` (this node starts election round ``epoch``; ``detail`` says why, and
    ``node`` is the node whose crash or return set it off, if any)."""

    kind: str
    node: int | None = None
    epoch: int = 0
    detail: str = ""


#: What a handler asks its host to do.
Action = Send | SetTimer | CancelTimer | Notice
