"""The operator's line to a cluster: what ``ringleader status``, ``transfer`` and
``member`` open to ask nodes questions over the authenticated wire (a command that asks
more than once keeps its line open until it is done).

The tool signs with the cluster secret as the reserved sender
:data:`~ringleader.transport.OPERATOR`, binds a mailbox of its own for the answers (on the
address this machine would use to reach the nodes) and connects to the nodes it asks.
:func:`operator_line` opens all three and closes them in the reverse order, whatever
happens in between.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, TypeVar

import zmq

from ringleader.actors.host import OPERATOR, WATCH_KINDS, WATCHER, wire_kinds
from ringleader.errors import FrameRejected
from ringleader.topologies import Config, cluster_codec, node_secret
from ringleader.transport import Deadline, Links, Mailbox, Session, SocketOptions, ZmqNetwork

__all__ = [
    "ASK_AGAIN",
    "OperatorLine",
    "ask_again_after",
    "ask_until_answered",
    "operator_line",
]

AnswerT = TypeVar("AnswerT")

#: The longest between questions to a node that has not answered (s).  A node's first
#: answer is lost if its link back here is still connecting (on loopback, a millisecond
#: or two); it answers a repeat the same way.  So the repeats come soon at first, then
#: further apart: :func:`ask_again_after`.
ASK_AGAIN = 0.2
#: The first repeat (s).
FIRST_REPEAT = 0.01


def ask_again_after(asked: int) -> float:
    """How long after the last question to ask again, having asked ``asked`` times:
    10 ms, 20, 40 … up to :data:`ASK_AGAIN`."""
    return min(ASK_AGAIN, FIRST_REPEAT * float(2 ** max(0, asked - 1)))


#: The longest the line waits for a frame at a time (s), so a caller's deadline and its
#: repeats are kept to within this.
_POLL = 0.02


class OperatorLine:
    """An open line: :meth:`ask` a node, read :meth:`answers`."""

    def __init__(self, session: Session, mailbox: Mailbox, links: Links) -> None:
        self._session = session
        self._mailbox = mailbox
        self._links = links
        self._poller = zmq.Poller()
        self._poller.register(mailbox.waitable, zmq.POLLIN)

    @property
    def address(self) -> str:
        """Where the nodes send their answers (a question carries it)."""
        return self._mailbox.address

    def ask(self, node: int, question: Any) -> bool:
        """Send ``question`` to ``node`` without waiting; whether it went (a PUSH drops
        a frame for a peer it is not connected to yet)."""
        frame = self._session.seal(node, question.kind, 0, question)
        return self._links.send(node, frame, wait=False)

    def answers(self, deadline: Deadline) -> Iterator[tuple[int, Any]]:
        """Wait a moment (at most until ``deadline``) and yield every authenticated
        ``(sender, message)`` that came; a frame that fails its checks is skipped."""
        self._poller.poll(round(min(deadline.left(), _POLL) * 1000))
        while (frame := self._mailbox.receive()) is not None:
            try:
                header, message = self._session.open(frame)
            except FrameRejected:
                continue
            yield header.sender, message


def ask_until_answered(
    line: OperatorLine,
    node: int,
    question: Any,
    answer: type[AnswerT],
    deadline: Deadline,
) -> AnswerT | None:
    """Ask ``node`` ``question`` (whose reply address is ``line.address``) on ``line``,
    again (:func:`ask_again_after`) until it answers with an ``answer``; that answer, or
    ``None`` when ``deadline`` passes first.  A node answers a line's repeats of a
    question that changes something (a hand-over, a change of members) with its first
    answer: it acts once, so ask one such question of a node per line."""
    asked, times = -ASK_AGAIN, 0
    while deadline.left() > 0:
        now = time.monotonic()
        if now - asked >= ask_again_after(times) and line.ask(node, question):
            asked, times = now, times + 1
        for sender, message in line.answers(deadline):
            if type(message) is answer and sender == node:
                return message
    return None


@contextmanager
def operator_line(
    config: Config, nodes: Iterable[int], *, timeout: float, watch_key: bytes | None = None
) -> Iterator[OperatorLine]:
    """A line from this process to ``nodes`` of ``config``'s cluster, each send waiting at
    most ``timeout`` s; closed (links, mailbox, sockets) when the block ends.  With
    ``watch_key`` (the cluster's read-only watch key), it signs as the reserved
    :data:`~ringleader.transport.WATCHER` with that key alone: it may watch and ask
    status, nothing else, and needs no cluster secret."""
    kinds = wire_kinds(config.algorithm_class)
    if watch_key is None:
        codec = cluster_codec(config, node_secret(config), config.cluster_id, kinds)
        session = Session(codec, OPERATOR, time.time_ns())
    else:
        codec = cluster_codec(
            config,
            watch_key,
            config.cluster_id,
            kinds,
            watch_secret=watch_key,
            watch_kinds=WATCH_KINDS,
        )
        session = Session(codec, WATCHER, time.time_ns())
    asked = {node: config.addresses[node] for node in nodes}
    network = ZmqNetwork(
        config.transport,
        nodes=1,
        links=len(asked),
        options=SocketOptions(send_timeout=timeout),
        curve=config.curve_keys([OPERATOR]),
    )
    with ExitStack() as closing:
        closing.callback(network.close)
        mailbox = network.listen(session.node, _reply_address(config))
        closing.callback(mailbox.close)
        links = network.connect(asked, node=session.node)
        closing.callback(links.close, abrupt=True)
        yield OperatorLine(session, mailbox, links)


def _reply_address(config: Config) -> str | None:
    """An address of this machine the nodes can reach (``None``: a free ipc one)."""
    if config.transport != "tcp":
        return None
    first = next(iter(config.addresses.values()))
    host = first[len("tcp://") :].rpartition(":")[0].strip("[]")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((host, 9))  # UDP: no packet is sent, the kernel picks a route
            local = probe.getsockname()[0]
    except OSError:
        local = "127.0.0.1"
    return f"tcp://{local}:*"
