"""The runs an exploration found, as trace files that ``replay`` and ``diagram`` read."""

from __future__ import annotations

from pathlib import Path

from ringleader.actors import write_trace
from ringleader.actors.exploration import Exploration, records
from ringleader.errors import UsageError

__all__ = ["write_runs"]


def write_runs(exploration: Exploration, directory: str | Path) -> dict[str, Path]:
    """Write each run of ``exploration.paths`` (``min``, ``max``, one per violation
    found) to ``directory/<name>.jsonl``; return the files by name."""
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot make {folder}: {exc.strerror or exc}") from None
    written = {}
    for name, path in exploration.paths.items():
        file = folder / f"{name}.jsonl"
        try:
            with file.open("w", encoding="utf-8") as out:
                write_trace(records(exploration.model, path.events), out, nodes=exploration.model.n)
        except OSError as exc:
            raise UsageError(f"--out: cannot write {file}: {exc.strerror or exc}") from None
        written[name] = file
    return written
