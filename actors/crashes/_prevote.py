"""The pre-vote: ask before starting a round (etcd's PreVote).

A node of a service that wants a round (its leader went silent, it restarted, its round
stalled) does not start one at once: it asks every other member first, ``prevote``, and
each answers ``prevote_reply``.  A member that still hears from a live leader — it leads
with a lease, or it follows a leader whose heartbeat reached it lately — says no; the
others say yes.  The round starts once a majority of the cluster (the asker counts
itself) has said yes.  So a node that was only cut off itself, or whose link flaps, never
starts a round that the others would join, and the epoch stays where it is: when it hears
its leader again, nothing has changed.

Without a quorum (``quorum = false``) a minority may lead, so a node that cannot reach a
majority still starts its round once it has asked for ``reelect_after`` without anyone
saying no: slower than with a majority, but never while a live leader answers it.

An attempt that is not granted is made again every ``suspect_after``, doubling up to
``reelect_after``, counted in the node's own heartbeats (no timer of its own).  The part
keeps the asker's side only; who says yes is the member's business (``Member``), since
it depends on the state of its round and its leader.  A member that said no and stops
vouching for its leader before the asker's next try says yes at once, to whatever the
asker asks now: a reply to attempt :data:`ANY_ATTEMPT`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ringleader.actors.core import Message

from ._configuration import Configuration
from ._crash_policy import NewRound

__all__ = ["ANY_ATTEMPT", "PreVote", "PreVoteReply", "PreVoting"]

#: The attempt of a reply that answers the asker's attempt in progress, whichever it is
#: (attempts count from 1): a member that said no and no longer vouches for its leader.
ANY_ATTEMPT = 0


@dataclass(frozen=True, slots=True)
class PreVote(Message):
    """Would you join a new round of mine?  ``attempt`` numbers the asker's tries;
    ``configuration`` is the asker's (``None`` without one), which a member holding an
    older one adopts (docs/design/membership.md, rule 3)."""

    kind = "prevote"
    attempt: int
    configuration: Configuration | None = None


@dataclass(frozen=True, slots=True)
class PreVoteReply(Message):
    """The answer to :class:`PreVote` ``attempt``: ``granted`` unless a live leader is
    heard here; ``configuration``, this member's when it is newer than the one the
    pre-vote carried (``None`` otherwise)."""

    kind = "prevote_reply"
    attempt: int
    granted: bool
    configuration: Configuration | None = None


class PreVoting:
    """One node's wish for a round, and its attempts to have it granted.

    ``majority``: how many members (the asker included) must say yes; ``quorum``: whether
    that is the only way (else, ``patience`` heartbeats without a no are enough too);
    ``retry``: heartbeats between attempts at first (doubling up to ``patience``).
    """

    __slots__ = (
        "_asked",
        "_every",
        "_quiet",
        "attempt",
        "grants",
        "majority",
        "patience",
        "quorum",
        "retry",
        "wish",
    )

    def __init__(self, *, majority: int, quorum: bool, retry: int, patience: int) -> None:
        self.majority = majority
        self.quorum = quorum
        self.retry = max(1, retry)
        self.patience = max(self.retry, patience)
        self.attempt = 0
        #: The round this node wants (why, and whose crash or return set it off).
        self.wish: NewRound | None = None
        self.grants: set[int] = set()
        self._asked = 0  # heartbeats since the last attempt
        self._every = self.retry  # heartbeats between attempts now
        self._quiet = 0  # heartbeats since the first attempt with nobody saying no

    @property
    def wanted(self) -> bool:
        return self.wish is not None

    def want(self, wish: NewRound) -> PreVote | None:
        """This node wants round ``wish``: the question to ask now (``None``: already
        asking; the first reason stays)."""
        if self.wish is not None:
            return None
        self.wish = wish
        self._every = self.retry
        self._quiet = 0
        return self._ask()

    def _ask(self) -> PreVote:
        self.attempt += 1
        self.grants = set()
        self._asked = 0
        return PreVote(self.attempt)

    def key(self) -> tuple[object, ...]:
        """Its state as a hashable value (``Member.key``): the attempt's number is left
        out (only whether a reply answers the attempt in progress matters), and the quiet
        heartbeats count only up to ``patience``, and only without a quorum (a node that
        cannot reach a majority asks for ever: its states must not be new for ever)."""
        quiet = 0 if self.quorum else min(self._quiet, self.patience)
        return (self.wish, frozenset(self.grants), self._asked, self._every, quiet)

    def drop(self) -> None:
        """No round is wanted any more (the leader is heard again, or a round began)."""
        self.wish = None
        self.grants = set()
        self._asked = self._quiet = 0
        self._every = self.retry

    def reply(self, sender: int, reply: PreVoteReply) -> bool:
        """``sender`` answered: True when enough have said yes to start the round."""
        if self.wish is None or reply.attempt not in (self.attempt, ANY_ATTEMPT):
            return False  # an answer to an older attempt, or nothing wanted now
        if not reply.granted:
            self._quiet = 0
            return False
        self.grants.add(sender)
        return len(self.grants) + 1 >= self.majority

    def tick(self) -> tuple[PreVote | None, bool]:
        """A heartbeat of this node: ``(the question to ask again, if due; whether to start
        the round without a majority)`` — the latter only without a quorum, once
        ``patience`` heartbeats have passed with nobody saying no."""
        if self.wish is None:
            return None, False
        self._asked += 1
        self._quiet += 1
        if not self.quorum and self._quiet >= self.patience:
            return None, True
        if self._asked < self._every:
            return None, False
        self._every = min(self._every * 2, self.patience)
        return self._ask(), False
