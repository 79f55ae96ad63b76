"""The exception hierarchy: one root, a few meaningful branches.

Every error ringleader raises on purpose derives from :class:`RingleaderError`, so an
application can catch the whole family in one place.  The command line turns a
:class:`ConfigError` or :class:`UsageError` into one line on stderr and exit status 2.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "FrameRejected",
    "RingleaderError",
    "TransportError",
    "UsageError",
]


class RingleaderError(Exception):
    """Root of every error ringleader raises on purpose."""


class UsageError(RingleaderError):
    """The command line was used wrongly (an unknown option value, a bad override)."""


class ConfigError(RingleaderError):
    """A configuration is invalid.

    Carries where the problem is (``source``: the file, or ``"command line"``), which key
    (``key``, dotted, e.g. ``nodes[3].id``), what is wrong and, when there is one, how to
    fix it.  ``str()`` gives the one-line message the command line prints.
    """

    def __init__(self, source: str, key: str | None, problem: str, hint: str | None = None) -> None:
        self.source = source
        self.key = key
        self.problem = problem
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.source}: {self.key}" if self.key else self.source
        text = f"{where}: {self.problem}"
        return f"{text} ({self.hint})" if self.hint else text


class TransportError(RingleaderError):
    """The transport could not be set up or used (a limit, an address, a closed network)."""


class FrameRejected(RingleaderError):
    """A received frame failed a check and was dropped.

    ``reason`` is a short stable token (``bad_signature``, ``truncated``, ``replayed`` …)
    used as the key of the rejected-frame counters in reports and events.  ``authentic``
    says whether the frame had passed the signature check, i.e. was written by a member
    of the cluster (a stale or misdirected frame) rather than by a stranger.
    """

    def __init__(self, reason: str, detail: str = "", *, authentic: bool = False) -> None:
        self.reason = reason
        self.detail = detail
        self.authentic = authentic
        super().__init__(f"{reason}: {detail}" if detail else reason)
