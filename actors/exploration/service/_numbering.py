"""Messages in flight, numbered so that a run that goes on for ever has finitely many.

A leader numbers its heartbeats (``Ping.seq``, answered by ``Pong.seq``) and an asker its
pre-vote attempts (``PreVote.attempt``, answered by ``PreVoteReply.attempt``): numbers
that grow for ever.  A member only ever compares such numbers with each other (its lease
remembers none older than its horizon; an asker only asks whether a reply answers its
attempt in progress), so the explorer writes each one as how far it is behind its
owner's newest — the sender's for a ``ping`` or a ``prevote``, the receiver's for a
``pong`` or a ``prevote_reply`` — and moves them all back when the owner numbers new
ones.  A number further back than its owner tells apart is written as :data:`ANCIENT`.
Every other message is as it was sent.

:class:`Numbering` numbers every message of an exploration written so, and turns one
back into a message for a member: counted from the member's own numbers if they are its,
from a base of the explorer's if not (a member keeps no one else's numbers: it only
answers with them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from ringleader.actors.core import Message
from ringleader.actors.crashes import ANY_ATTEMPT, Ping, Pong, PreVote, PreVoteReply

__all__ = ["ANCIENT", "BASE", "Numbering"]

#: How far back a number too old to tell apart from older ones is written.
ANCIENT = -(10**6)
#: Where the numbers of a message from another owner are counted from, when a member
#: receives it: far enough that a number this far back is still one (they count from 1).
BASE = 2 * 10**6
_SEQ, _ATTEMPT = 0, 1


def _with(message: Message, name: str, value: int) -> Message:
    """``message`` with its field ``name`` set to ``value`` (its numbered field)."""
    changed: Message = replace(cast(Any, message), **{name: value})
    return changed


def _numbered(message: Message) -> tuple[str, int, int] | None:
    """``(field, counter, owner)`` of a message that carries a number (owner +1: its
    sender's, -1: its receiver's), else ``None``: a plain ping or pong, a reply to any
    attempt, any other message."""
    if isinstance(message, Ping) and message.seq > 0:
        return "seq", _SEQ, 1
    if isinstance(message, Pong) and message.seq > 0:
        return "seq", _SEQ, -1
    if isinstance(message, PreVote):
        return "attempt", _ATTEMPT, 1
    if isinstance(message, PreVoteReply) and message.attempt != ANY_ATTEMPT:
        return "attempt", _ATTEMPT, -1
    return None


class Numbering:
    """Every message of an exploration, its number counted back from its owner's newest
    (see the module's docstring), numbered.

    ``horizon``: how far back a heartbeat is told apart (the lease's); attempts before
    the one in progress are all alike.  Per message number: :attr:`items` (the message,
    its number set to 0 if it has one, and its epoch), :attr:`back` (how far behind its
    owner's newest, or ``None``), :attr:`owner` (+1 its sender, -1 its receiver, 0 none)
    and :attr:`counter` (0 heartbeats, 1 attempts).
    """

    def __init__(self, horizon: int) -> None:
        self.horizon = horizon
        self.items: list[tuple[Message, int]] = []
        self.back: list[int | None] = []
        self.owner: list[int] = []
        self.counter: list[int] = []
        self._ids: dict[tuple[Message, int, int | None], int] = {}
        self._moved: dict[tuple[int, int, int], int] = {}

    def __len__(self) -> int:
        return len(self.items)

    def _clamp(self, back: int, counter: int) -> int:
        limit = self.horizon if counter == _SEQ else 0
        return back if back >= -limit else ANCIENT

    def _intern(self, message: Message, epoch: int, back: int | None) -> int:
        key = (message, epoch, back)
        number = self._ids.get(key)
        if number is None:
            number = self._ids[key] = len(self.items)
            kind = message.kind
            self.items.append((message, epoch))
            self.back.append(back)
            self.owner.append(0 if back is None else (1 if kind in ("ping", "prevote") else -1))
            self.counter.append(_SEQ if kind in ("ping", "pong") else _ATTEMPT)
        return number

    def own(self, message: Message, epoch: int, newest: tuple[int, int]) -> int:
        """A member sends ``message`` of round ``epoch`` (its own numbers are ``newest``
        now, as :attr:`~ringleader.actors.Member.numbering` says): its number."""
        found = _numbered(message)
        if found is None:
            return self._intern(message, epoch, None)
        name, counter, owner = found
        if owner < 0:  # an answer: counted from the base it was handed
            back = self._clamp(getattr(message, name) - BASE, counter)
        else:
            back = self._clamp(getattr(message, name) - newest[counter], counter)
        return self._intern(_with(message, name, 0), epoch, back)

    def moved(self, number: int, heartbeats: int, attempts: int) -> int:
        """Message ``number`` once its owner numbered ``heartbeats`` more heartbeats and
        ``attempts`` more attempts."""
        back = self.back[number]
        step = heartbeats if self.counter[number] == _SEQ else attempts
        if back is None or not step or back == ANCIENT:
            return number
        key = (number, heartbeats, attempts)
        found = self._moved.get(key)
        if found is None:
            message, epoch = self.items[number]
            found = self._moved[key] = self._intern(
                message, epoch, self._clamp(back - step, self.counter[number])
            )
        return found

    def message(self, number: int, own: tuple[int, int]) -> tuple[Message, int]:
        """Message ``number`` as its receiver, whose own numbers are ``own``, is handed
        it, and its epoch."""
        message, epoch = self.items[number]
        back = self.back[number]
        if back is None:
            return message, epoch
        counter = self.counter[number]
        name = "seq" if counter == _SEQ else "attempt"
        base = BASE if self.owner[number] > 0 else own[counter]
        if back != ANCIENT:
            value = base + back
        elif counter == _SEQ:
            value = base - self.horizon - 1
        else:
            value = -1  # an attempt before the one in progress (never ANY_ATTEMPT)
        if counter == _SEQ:
            value = max(1, value)  # (a young leader has none this far back: Lease.key)
        return _with(message, name, value), epoch
