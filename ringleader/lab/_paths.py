"""A path of choices, as a request names it: ``3.0.5``, each the index of the step taken
among those enabled; :class:`PathError` for one that names no state."""

from __future__ import annotations

from ringleader.errors import UsageError

__all__ = ["MAX_PATH", "PathError", "parse_path"]

#: The longest path a request may name (a run of the notes' sizes is far shorter).
MAX_PATH = 5_000


class PathError(UsageError):
    """A path that does not name a state: not numbers, or a step not enabled.

    ``valid``: how many of its first steps do name a state (0: none, or not numbers)."""

    def __init__(self, message: str, valid: int = 0) -> None:
        super().__init__(message)
        self.valid = valid


def parse_path(text: str | None) -> list[int]:
    """``"3.0.5"`` as ``[3, 0, 5]`` (empty or ``None``: the initial state)."""
    if not text:
        return []
    parts = text.split(".")
    if len(parts) > MAX_PATH:
        raise PathError(f"a path of {len(parts):,} steps: at most {MAX_PATH:,}")
    if not all(part.isascii() and part.isdigit() for part in parts):
        raise PathError(f"path {text[:80]!r}: step numbers separated by dots, e.g. 3.0.5")
    return [int(part) for part in parts]
