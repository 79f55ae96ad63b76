"""A network that misbehaves on purpose, on one node's own sends (``[[faults]]``).

The node asks it about each message it sends (:mod:`ringleader.actors.faults` decides):
the ones the network loses are dropped, the late ones held on the node's own timers
(``network:held:<n>``) and sent then, the ones it duplicates sent twice; and the node
stands still for its own pauses (``network:pause:<n>``).  Without a ``[[faults]]``
network none of this runs: the node's actor only makes one when it is given one.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable

from ringleader.actors.core import Send
from ringleader.actors.faults import Misbehaving
from ringleader.actors.tracing import NodeTrace

from ._log import log
from ._sender import Sender

__all__ = ["NETWORK_TIMERS", "MisbehavingSends"]


#: The prefix of this part's timers (a name space of the host's own).
NETWORK_TIMERS = "network:"
_HELD, _PAUSE = "network:held:", "network:pause:"


class MisbehavingSends:
    """Node ``node``'s sends through ``network``, carried out by ``sender``;
    ``schedule(name, delay)`` sets one of the node's timers."""

    def __init__(
        self,
        node: int,
        network: Misbehaving,
        sender: Sender,
        schedule: Callable[[str, float], None],
        trace: NodeTrace | None = None,
    ) -> None:
        self.node = node
        self.network = network
        self.sender = sender
        self.trace = trace
        self._schedule = schedule
        self._origin = time.monotonic()  # until the node boots
        self._held: dict[str, tuple[Send, bool]] = {}
        self._held_for: Counter[int] = Counter()  # peer → messages held for it
        self._names = itertools.count(1)

    def __str__(self) -> str:
        return f"node {self.node}"

    def boot(self) -> None:
        """The node is up: the network's times count from now; its pauses are set."""
        network = self.network
        now = time.monotonic()
        if network.began is None:
            network.began = now
        self._origin = network.began
        for k, pause in enumerate(network.pauses):
            if pause.node == self.node and pause.start >= now - network.began:
                self._schedule(f"{_PAUSE}{k}", pause.start - (now - network.began))

    def send(self, send: Send) -> None:
        """``send`` as the misbehaving network treats it: lost, late, or twice."""
        now = time.monotonic() - self._origin
        fate = self.network.fate(self.node, send.to, now)
        trace = self.trace
        if not fate.copies:
            log.debug("%s: the network lost %s to node %s", self, send.message.kind, send.to)
            if trace is not None:
                trace.lost(trace.now(), send.to, send.message, send.epoch, fate.lost or "lost")
            return
        for copy, delay in enumerate(fate.copies):
            if delay <= 0 and not self._held_for[send.to]:
                self._release(send, copy > 0)
            else:  # late (or behind a late one on a FIFO link): on this node's timers
                name = f"{_HELD}{next(self._names)}"
                self._held[name] = (send, copy > 0)
                self._held_for[send.to] += 1
                self._schedule(name, max(0.0, delay))

    def _release(self, send: Send, copy: bool) -> None:
        """Send ``send`` now (the trace shows it leaving now: a late message leaves
        late); ``copy``: the network's copy of a message sent already."""
        trace = self.trace
        recorded = len(trace) if trace is not None else 0
        self.sender.send(send)
        if copy and trace is not None:
            trace.mark_copy(recorded)

    def timer(self, name: str) -> float | None:
        """This part's timer ``name`` fired: a held message goes now; or the node's pause
        begins, for the seconds returned."""
        if name.startswith(_HELD):
            send, copy = self._held.pop(name)
            self._held_for[send.to] -= 1
            self._release(send, copy)
            return None
        return self.network.pauses[int(name.rsplit(":", 1)[1])].seconds
