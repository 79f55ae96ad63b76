"""The root of ringleader's errors, and the transport's own.

Defined here, at the bottom of the layers, so that every package can derive its errors
from :class:`RingleaderError` without importing a package above it; ``ringleader.errors``
re-exports the whole family.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FrameRejected", "RingleaderError", "TransportError", "Unencodable"]


class RingleaderError(Exception):
    """Root of every error ringleader raises on purpose."""


class TransportError(RingleaderError):
    """The transport could not be set up or used (a limit, an address, a closed network)."""


class FrameRejected(RingleaderError):
    """A received frame failed a check and was dropped.

    ``reason`` is a short stable token (``bad_signature``, ``truncated``, ``replayed`` …)
    used as the key of the rejected-frame counters in reports and events.  ``authentic``
    says whether the frame had passed the signature check, i.e. was written by a member
    of the cluster (a stale or misdirected frame) rather than by a stranger.
    """

    def __init__(
        self,
        reason: str,
        detail: str = "",
        *,
        authentic: bool = False,
        header: Any = None,
        payload: Any = None,
    ) -> None:
        self.reason = reason
        self.detail = detail
        self.authentic = authentic
        #: For an authentic frame of another cluster (``wrong_cluster``): its header and
        #: its payload, still undecoded (see :meth:`Codec.load_foreign`).
        self.header = header
        self.payload = payload
        super().__init__(f"{reason}: {detail}" if detail else reason)


class Unencodable(RingleaderError, TypeError):
    """A message class has no compact layout (a field of a type the wire cannot carry),
    and its cluster did not opt in to pickle.  Raised when the cluster's codec is made."""
