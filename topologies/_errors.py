"""The configuration's errors: a config that cannot be used, a wiring that is not its
topology."""

from __future__ import annotations

from ringleader.transport import RingleaderError

__all__ = ["ConfigError", "StateError", "WiringError"]


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


class StateError(ConfigError):
    """A node's state file (see ``state_dir``) cannot be used: missing after the node has
    run, corrupt, unwritable, or in use by another process.  ``source`` is the file;
    ``str()`` is one line, as a :class:`ConfigError`'s (``ringleader node`` exits 2)."""

    def __init__(self, path: str, problem: str, hint: str | None = None) -> None:
        super().__init__(path, None, problem, hint)


class WiringError(ValueError):
    """The nodes or edges do not make the topology; ``key`` names the config key.

    A builder raises it without knowing the file; the config's validator turns it into a
    :class:`ConfigError` that names the file too.
    """

    def __init__(self, key: str, problem: str, hint: str | None = None) -> None:
        super().__init__(problem)
        self.key = key
        self.problem = problem
        self.hint = hint
