"""Links to addresses outside a cluster's directory, kept for the next time.

A node answers an operator (``ringleader status``, ``ringleader transfer``) at the reply
address its question gives, and tells a node of another cluster how the two differ at
the address that node gives.  Each such link is made once and kept, the most recent
last; past :data:`REPLY_LINKS` the oldest is closed.
"""

from __future__ import annotations

from collections.abc import Callable

from ringleader.transport import Links, Network, TransportError

from ._log import log

__all__ = ["REPLY_LINKS", "ReplyLinks"]


#: Links to reply addresses a node keeps open: operators' (``ringleader status``), nodes'
#: of other clusters (their notices) and observers' (``ringleader watch``: at most
#: ``MAX_WATCHERS`` of them, ``_operator_desk.py``).
REPLY_LINKS = 12


class ReplyLinks:
    """Node ``node``'s links to reply addresses on ``network``."""

    def __init__(self, node: int, network: Network, *, view: Callable[[], str] = str) -> None:
        self.node = node
        #: What the node believes, to end a log line with (``[leader node 3, epoch 2]``).
        self.view = view
        self.network = network
        self._links: dict[str, Links] = {}  # reply address → link, latest last

    def __str__(self) -> str:
        return f"node {self.node}"

    def get(self, peer: int, address: str) -> Links | None:
        """A link to ``peer`` at ``address`` (``None`` if it cannot be made)."""
        links = self._links.pop(address, None)
        if links is None:
            try:
                links = self.network.connect({peer: address}, node=self.node)
            except TransportError as exc:
                log.info("%s cannot answer %s: %s %s", self, address, exc, self.view())
                return None
        self._links[address] = links
        while len(self._links) > REPLY_LINKS:
            self._links.pop(next(iter(self._links))).close(abrupt=True)
        return links

    def close(self) -> None:
        for links in self._links.values():
            links.close(abrupt=True)
        self._links.clear()
