"""A service node's introductions: its cluster identity told to nodes of other clusters
(see ``_identity.py`` for what is said, and when).

When a frame of another cluster is refused, the node reads its sender's notice (the one
frame of another cluster it decodes) and names the difference, and answers with its own
notice; to peers it links to but has not heard from, it sends its notice now and then.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ringleader.transport import FrameRejected, Session

from ._identity import HELLO, ClusterNotice, Identity
from ._log import log
from ._reply_links import ReplyLinks
from ._reporter import Reporter
from ._sender import Sender

__all__ = ["HELLO", "Introductions"]


class Introductions:
    """Node ``node``'s introductions, by its ``identity``: sent on the ``sender``'s links
    or on ``replies``, sealed by ``session``, reported by ``reporter``; ``address()`` is
    where this node listens (``None`` while it does not), ``schedule(name, delay)`` sets
    one of its timers."""

    def __init__(
        self,
        node: int,
        identity: Identity,
        *,
        session: Session,
        sender: Sender,
        replies: ReplyLinks,
        reporter: Reporter,
        address: Callable[[], str | None],
        schedule: Callable[[str, float], None],
    ) -> None:
        self.node = node
        self.identity = identity
        self.session = session
        self.sender = sender
        self.replies = replies
        self.reporter = reporter
        self._address = address
        self._schedule = schedule

    def __str__(self) -> str:
        return f"node {self.node}"

    def boot(self) -> None:
        """The first notices once peers could have answered."""
        self._schedule(HELLO, self.identity.hello(time.monotonic())[1])

    def other_cluster(self, rejected: FrameRejected) -> None:
        """An authentic frame of another cluster: if it is that node's notice, name the
        difference (once per peer and cluster); answer it with this node's (once)."""
        identity, header = self.identity, rejected.header
        if header is None:
            return
        peer = header.sender
        notice = self.session.codec.load_foreign(header, rejected.payload, ClusterNotice.kind)
        if type(notice) is ClusterNotice:
            heard = identity.hear(peer, header.cluster, notice.definition)
            if heard is not None:
                line, found = heard
                log.warning(
                    "%s: %s (at %s); its frames are dropped: give every node the same config",
                    self,
                    line,
                    notice.reply_to,
                )
                self.reporter.report(
                    "other_cluster",
                    peer,
                    line,
                    address=notice.reply_to,
                    differences=tuple(found),
                )
            address: str | None = notice.reply_to
        else:
            address = self.sender.directory.get(peer)
        if address and identity.answer(peer, header.cluster):
            self.notify(peer, address)

    def hello(self) -> None:
        """This node's notice to each peer it links to and has not heard from since the
        last time (it may run another cluster, and not know this node); then again later,
        twice as late each time."""
        since, delay = self.identity.hello(time.monotonic())
        sender = self.sender
        links = sender.links
        if links is not None:
            for peer in sender.directory:
                if peer != self.node and peer in links and sender.heard_at.get(peer, 0) < since:
                    self.notify(peer, None)
        self._schedule(HELLO, delay)

    def notify(self, peer: int, address: str | None) -> None:
        """Send this node's notice to ``peer``: on its link (``address`` ``None``, or the
        address this node links it at: never waiting), else on a reply link to
        ``address`` (waiting for it to connect, up to the send timeout)."""
        mine = self._address()
        if mine is None:
            return
        sender = self.sender
        directory, links = sender.directory, sender.links
        reply_to = directory.get(self.node) or mine
        notice = self.identity.notice(reply_to)
        frame = self.session.seal(peer, notice.kind, self.reporter.said[2], notice)
        if links is not None and peer in links and address in (None, directory.get(peer)):
            links.send(peer, frame, wait=False)
        elif address is not None:
            reply = self.replies.get(peer, address)
            if reply is not None:
                reply.send(peer, frame)
