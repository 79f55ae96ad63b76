"""The exception hierarchy: one root, a few meaningful branches.

Every error ringleader raises on purpose derives from :class:`RingleaderError`, so an
application can catch the whole family in one place.  Each layer owns its errors — the
root and the wire's at the bottom (:mod:`ringleader.transport`), the configuration's in
:mod:`ringleader.topologies`, the command line's here — and this module gathers them all.  The
command line turns a :class:`ConfigError` (a :class:`StateError` too: a node's state file
that cannot be used) or :class:`UsageError` into one line on stderr and exit status 2.
"""

from __future__ import annotations

from ringleader.topologies import ConfigError, StateError, WiringError
from ringleader.transport import FrameRejected, RingleaderError, TransportError

__all__ = [
    "ConfigError",
    "FrameRejected",
    "MembershipRefused",
    "RingleaderError",
    "SetupError",
    "StateError",
    "TransferRefused",
    "TransportError",
    "UsageError",
    "WiringError",
]


class UsageError(RingleaderError):
    """The command line was used wrongly (an unknown option value, a bad override)."""


class SetupError(TransportError):
    """A cluster could not be set up: ``node`` (when one node is to blame, else ``None``)
    and ``reason``, what went wrong, as its node said it when it could."""

    def __init__(self, node: int | None, reason: str) -> None:
        self.node = node
        self.reason = reason
        super().__init__(reason if node is None else f"node {node}: {reason}")


class TransferRefused(RingleaderError):
    """A leader would not hand over to the node asked for (``Node.resign(to=...)``,
    ``ringleader transfer``): the message says why — it does not lead, or that node is
    not a live member of the cluster."""


class MembershipRefused(RingleaderError):
    """The cluster made no membership change (``ringleader member add|remove``,
    :func:`ringleader.service.add_member`): the message says why in one line — no node
    leads, the node is not listed, a change is still pending, a removal would leave no
    live majority — or the change was made but not committed in the time given."""
