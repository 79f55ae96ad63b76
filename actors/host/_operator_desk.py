"""Where a node answers an operator (``ringleader status``, ``ringleader transfer``) and
tells its observers (``ringleader watch``) of each change of its leadership.

Only the operator may ask, and it may only ask; neither the question nor the answer
counts as election traffic.  The answer goes on a link of its own, to the reply address
the question gives.  A watch (:class:`WatchQuery`) lasts the seconds it asks for (at most
:data:`MAX_WATCH`) unless renewed: an observer that died is forgotten when its watch runs
out, and a node pushes to at most :data:`MAX_WATCHERS` observers at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ringleader.transport import FrameRejected, Session

from ._identity import ClusterNotice
from ._log import log
from ._queries import (
    OPERATOR,
    WATCHER,
    LeadershipNotice,
    MemberAnswer,
    MemberQuery,
    StatusAnswer,
    StatusQuery,
    TransferAnswer,
    TransferQuery,
    WatchQuery,
)
from ._reply_links import ReplyLinks
from ._status import NodeStatus

__all__ = ["MAX_WATCH", "MAX_WATCHERS", "OperatorDesk"]

#: Observers a node pushes to at once; a new one beyond replaces the one whose watch
#: runs out first.
MAX_WATCHERS = 8
#: The longest a watch lasts without being renewed (s).
MAX_WATCH = 60.0

#: The answers to hand-overs and changes of members a node remembers, by the operator's
#: reply address: an operator asks again until answered, and must be acted on once.
ANSWERS_KEPT = 16

Answer = StatusAnswer | TransferAnswer | LeadershipNotice | MemberAnswer


class OperatorDesk:
    """Node ``node``'s answers, sealed by ``session`` and sent on ``replies``:
    ``status()`` for a :class:`StatusQuery`, ``transfer(to)`` for a
    :class:`TransferQuery`, ``leadership()`` for a :class:`WatchQuery` and for each
    change (:meth:`changed`); ``epoch()`` is the epoch the answer carries."""

    def __init__(
        self,
        node: int,
        session: Session,
        replies: ReplyLinks,
        *,
        status: Callable[[], NodeStatus],
        transfer: Callable[[int], TransferAnswer],
        change: Callable[[MemberQuery], MemberAnswer],
        epoch: Callable[[], int],
        leadership: Callable[[], LeadershipNotice],
    ) -> None:
        self.node = node
        self.session = session
        self.replies = replies
        self._status = status
        self._transfer = transfer
        self._change = change
        #: The answer to each operator's hand-over or membership question, by its
        #: reply address.
        self._acted: dict[str, TransferAnswer | MemberAnswer] = {}
        self._epoch = epoch
        self._leadership = leadership
        #: Each observer's reply address → (when its watch runs out, its incarnation,
        #: its sender id: the operator's, or the watcher's with only the watch key).
        self._watchers: dict[str, tuple[float, int, int]] = {}
        #: The last change pushed: (leader, epoch, leading).
        self._pushed: tuple[int | None, int, bool] | None = None
        #: Where the lease last told of ends, on this node's clock (a leader's word
        #: ``leading`` counts no longer than that with an observer).
        self._told_end = 0.0

    def __str__(self) -> str:
        return f"node {self.node}"

    @property
    def watchers(self) -> int:
        """How many observers watch this node now."""
        self._forget(time.monotonic())
        return len(self._watchers)

    def answer(self, sender: int, incarnation: int, message: object) -> FrameRejected | None:
        """Answer ``message`` from ``sender`` (its life ``incarnation``); what to refuse
        it as, if it is not a question this node answers."""
        if sender != OPERATOR and type(message) is ClusterNotice:
            return None  # of this very cluster: a peer that has not heard from this node yet
        answer: Answer
        asker = sender in (OPERATOR, WATCHER)  # a watcher may watch and ask status only
        if asker and type(message) is StatusQuery:
            answer, reply_to = StatusAnswer(self._status()), message.reply_to
        elif sender == OPERATOR and type(message) is TransferQuery:
            to = message.to
            answer, reply_to = (
                self._once(message.reply_to, lambda: self._transfer(to)),
                message.reply_to,
            )
        elif sender == OPERATOR and type(message) is MemberQuery:
            query = message
            answer, reply_to = (
                self._once(query.reply_to, lambda: self._change(query)),
                query.reply_to,
            )
        elif asker and type(message) is WatchQuery:
            self._watch(message, incarnation, sender)
            answer, reply_to = self._leadership(), message.reply_to
        else:
            what = f"{type(message).__name__} from node {sender}"
            return FrameRejected("unknown_sender", what, authentic=True)
        self._send(sender, reply_to, incarnation, answer)
        return None

    def _once(
        self, reply_to: str, act: Callable[[], TransferAnswer | MemberAnswer]
    ) -> TransferAnswer | MemberAnswer:
        """The answer to a question that changes something (a hand-over, a change of
        members), acted on once whatever the times it is asked: the operator asks again
        on its line until it hears, and gets the first answer."""
        kept = self._acted.get(reply_to)
        if kept is None:
            kept = act()
            if len(self._acted) >= ANSWERS_KEPT:
                del self._acted[next(iter(self._acted))]
            self._acted[reply_to] = kept
        return kept

    def changed(self) -> None:
        """The node published its leadership: tell every observer, if the leader, the
        epoch or whether this node leads changed — or, leading, once its lease runs half
        a lease past the end last told of: an observer counts a leader's word no longer
        than the lease it told of, so it hears of the next before that one runs out."""
        notice = self._leadership()
        now = time.monotonic()
        news = (notice.leader, notice.epoch, notice.leading)
        left = notice.lease_left
        if news == self._pushed and not (
            notice.leading and left is not None and now + left - self._told_end >= left / 2
        ):
            return
        self._pushed = news
        self._told_end = now + (left or 0.0)
        self._forget(now)
        for address, (_, incarnation, watcher) in self._watchers.items():
            self._send(watcher, address, incarnation, notice)

    def farewell(self, epoch: int) -> None:
        """The node stops: it names no leader from now on; every observer is told."""
        notice = LeadershipNotice(None, epoch, leading=False, lease_left=0.0)
        self._forget(time.monotonic())
        for address, (_, incarnation, watcher) in self._watchers.items():
            self._send(watcher, address, incarnation, notice)
        self._watchers.clear()

    def _watch(self, query: WatchQuery, incarnation: int, watcher: int) -> None:
        now = time.monotonic()
        self._forget(now)
        until = now + max(0.0, min(query.seconds, MAX_WATCH))
        self._watchers.pop(query.reply_to, None)
        while len(self._watchers) >= MAX_WATCHERS:
            first = min(self._watchers, key=lambda address: self._watchers[address][0])
            del self._watchers[first]
        self._watchers[query.reply_to] = (until, incarnation, watcher)

    def _forget(self, now: float) -> None:
        """Forget the observers whose watch ran out."""
        for address in [a for a, (until, _, _) in self._watchers.items() if until <= now]:
            del self._watchers[address]

    def _send(self, to: int, reply_to: str, incarnation: int, answer: Answer) -> None:
        frame = self.session.seal(
            to, answer.kind, self._epoch(), answer, to_incarnation=incarnation
        )
        links = self.replies.get(to, reply_to)
        # Never wait: a link still connecting drops the answer, and the operator, who
        # asks again until answered, gets the next one over the same, connected link.
        if links is not None and not links.send(to, frame, wait=False):
            log.debug("%s: answer to %s not sent yet", self, reply_to)
