"""Where a node answers an operator (``ringleader status``, ``ringleader transfer``).

Only the operator may ask, and it may only ask; neither the question nor the answer
counts as election traffic.  The answer goes on a link of its own, to the reply address
the question gives.
"""

from __future__ import annotations

from collections.abc import Callable

from ringleader.transport import FrameRejected, Session

from ._identity import ClusterNotice
from ._log import log
from ._queries import OPERATOR, StatusAnswer, StatusQuery, TransferAnswer, TransferQuery
from ._reply_links import ReplyLinks
from ._status import NodeStatus

__all__ = ["OperatorDesk"]


class OperatorDesk:
    """Node ``node``'s answers, sealed by ``session`` and sent on ``replies``:
    ``status()`` for a :class:`StatusQuery`, ``transfer(to)`` for a
    :class:`TransferQuery`; ``epoch()`` is the epoch the answer carries."""

    def __init__(
        self,
        node: int,
        session: Session,
        replies: ReplyLinks,
        *,
        status: Callable[[], NodeStatus],
        transfer: Callable[[int], TransferAnswer],
        epoch: Callable[[], int],
    ) -> None:
        self.node = node
        self.session = session
        self.replies = replies
        self._status = status
        self._transfer = transfer
        self._epoch = epoch

    def __str__(self) -> str:
        return f"node {self.node}"

    def answer(self, sender: int, incarnation: int, message: object) -> FrameRejected | None:
        """Answer ``message`` from ``sender`` (its life ``incarnation``); what to refuse
        it as, if it is not a question this node answers."""
        if sender != OPERATOR and type(message) is ClusterNotice:
            return None  # of this very cluster: a peer that has not heard from this node yet
        answer: StatusAnswer | TransferAnswer
        if sender == OPERATOR and type(message) is StatusQuery:
            answer = StatusAnswer(self._status())
            reply_to = message.reply_to
        elif sender == OPERATOR and type(message) is TransferQuery:
            answer = self._transfer(message.to)
            reply_to = message.reply_to
        else:
            what = f"{type(message).__name__} from node {sender}"
            return FrameRejected("unknown_sender", what, authentic=True)
        frame = self.session.seal(
            OPERATOR, answer.kind, self._epoch(), answer, to_incarnation=incarnation
        )
        links = self.replies.get(OPERATOR, reply_to)
        # Never wait: a link still connecting drops the answer, and the operator, who
        # asks again until answered, gets the next one over the same, connected link.
        if links is not None and not links.send(OPERATOR, frame, wait=False):
            log.debug("%s: answer to %s not sent yet", self, reply_to)
        return None
