"""One node's end of the authenticated wire: sequence numbers out, replay checks in."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ._errors import FrameRejected
from ._frame import OPERATOR, WATCHER, Codec, Header

__all__ = ["OPERATOR_LIVES", "Session"]

#: The operator's tools (``ringleader status``, ``ringleader watch``) a node tells apart
#: at once: each run is a life of the reserved sender of its own, with its own replay
#: window, so that a status asked while a watcher runs does not make the watcher's
#: frames look stale.  Past this many, the oldest life is forgotten, and a frame of a
#: life older than every one remembered is refused as stale.  (A watcher holding only
#: the watch key, ``WATCHER``, is kept the same way.)
OPERATOR_LIVES = 64


class Session:
    """Seals outgoing messages and admits incoming frames for one node incarnation.

    Outgoing frames get a sequence number per receiver, starting at 1.  An incoming frame
    is admitted only if it is authentic (see :class:`Codec`), addressed to this node and,
    when the sender knew it, to this incarnation; comes from a known peer; and is newer
    than anything already admitted from that peer — a frame from an older incarnation of
    the sender, or a sequence number already seen, is dropped — and decodes into its
    kind's declared class.  Not thread-safe: a session
    belongs to the thread of the actor that hosts the node.
    """

    def __init__(
        self,
        codec: Codec,
        node: int,
        incarnation: int,
        *,
        peers: Collection[int] | None = None,
    ) -> None:
        if incarnation <= 0:
            raise ValueError("incarnations start at 1")
        self.codec = codec
        self.node = node
        self.incarnation = incarnation
        self._peers = None if peers is None else frozenset(peers)
        self._next_seq: dict[int, int] = {}
        self._seen: dict[int, tuple[int, int]] = {}
        #: The operator's (and watchers') lives, (sender, incarnation), each with the last
        #: sequence number admitted from it.
        self._operators: dict[tuple[int, int], int] = {}

    def seal(
        self, to: int, kind: str, epoch: int, message: object, *, to_incarnation: int = 0
    ) -> bytes:
        seq = self._next_seq.get(to, 0) + 1
        self._next_seq[to] = seq
        codec = self.codec
        node, incarnation = self.node, self.incarnation
        return codec.seal_fields(
            codec.cluster, node, to, incarnation, to_incarnation, epoch, seq, kind, message
        )

    def last_seq(self, peer: int) -> int:
        """The sequence number of the last frame sealed for ``peer`` (0 if none yet)."""
        return self._next_seq.get(peer, 0)

    def known(self, peer: int) -> int:
        """The incarnation of ``peer`` last admitted (0 if none yet)."""
        seen = self._seen.get(peer)
        return 0 if seen is None else seen[0]

    def open(self, frame: bytes) -> tuple[Header, Any]:
        """Return ``(header, message)`` of an admitted frame or raise :class:`FrameRejected`."""
        codec = self.codec
        header, payload = codec.open(frame)
        _, sender, receiver, incarnation, to_incarnation, _, seq, _ = header
        if receiver != self.node:
            raise FrameRejected("wrong_receiver", f"for node {receiver}", authentic=True)
        if to_incarnation and to_incarnation != self.incarnation:
            raise FrameRejected(
                "stale_receiver", f"for incarnation {to_incarnation}", authentic=True
            )
        if self._peers is not None and sender not in self._peers:
            raise FrameRejected("unknown_sender", f"node {sender}", authentic=True)
        if sender in (OPERATOR, WATCHER):
            return header, self._operator(header, payload)
        last = self._seen.get(sender)
        if last is not None:
            life, last_seq = last
            if incarnation < life:
                raise FrameRejected("stale_incarnation", f"node {sender}", authentic=True)
            if incarnation == life and seq <= last_seq:
                raise FrameRejected("replayed", f"node {sender} seq {seq}", authentic=True)
        message = codec.load(header, payload)
        # Only a frame that decoded moves the replay window: a signed frame that is not
        # its kind's layout (however far ahead its sequence number) leaves it as it was.
        self._seen[sender] = (incarnation, seq)
        return header, message

    def _operator(self, header: Header, payload: bytes) -> Any:
        """Admit a frame of the operator's tools: each of its lives has a replay window
        of its own (see :data:`OPERATOR_LIVES`)."""
        lives, life, seq = self._operators, (header.sender, header.incarnation), header.seq
        last_seq = lives.get(life)
        if (
            last_seq is None
            and len(lives) >= OPERATOR_LIVES
            and life < min((known for known in lives if known[0] == header.sender), default=life)
        ):
            # Older than every life of this sender remembered: forgotten.
            raise FrameRejected("stale_incarnation", f"node {header.sender}", authentic=True)
        if last_seq is not None and seq <= last_seq:
            raise FrameRejected("replayed", f"node {header.sender} seq {seq}", authentic=True)
        message = self.codec.load(header, payload)
        lives.pop(life, None)
        lives[life] = seq  # the most recently heard last
        while len(lives) > OPERATOR_LIVES:
            del lives[next(iter(lives))]
        self._seen[header.sender] = (header.incarnation, seq)
        return message
