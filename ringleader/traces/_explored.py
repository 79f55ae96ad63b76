"""The runs an exploration found, as trace files that ``replay`` and ``diagram`` read."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ringleader.actors import write_trace
from ringleader.actors.exploration import Exploration, records
from ringleader.actors.exploration.service import (
    ServiceExploration,
    WalkResult,
    service_records,
)
from ringleader.actors.tracing import Event, Record
from ringleader.errors import UsageError

__all__ = ["write_runs", "write_service_runs"]


def write_runs(
    exploration: Exploration, directory: str | Path, *, header: Event | None = None
) -> dict[str, Path]:
    """Write each run of ``exploration.paths`` (``min``, ``max``, one per violation
    found) to ``directory/<name>.jsonl``, ``header`` (:func:`trace_header`) first in
    each; return the files by name."""
    model = exploration.model
    runs = {
        name: (lambda p=path: records(model, p.events)) for name, path in exploration.paths.items()
    }
    return _write(runs, directory, model.n, heartbeats=False, header=header)


def write_service_runs(
    result: ServiceExploration | WalkResult,
    directory: str | Path,
    *,
    header: Event | None = None,
) -> dict[str, Path]:
    """Write the run to each violation a service exploration found (heartbeats and all:
    the lease is made of them) to ``directory/<check>.jsonl``; return the files."""
    model = result.model
    runs = {
        name: (lambda events=events: service_records(model, events))
        for name, events in result.paths.items()
    }
    return _write(runs, directory, model.n, heartbeats=True, header=header)


def _write(
    runs: Mapping[str, Callable[[], Iterable[Record]]],
    directory: str | Path,
    nodes: int,
    *,
    heartbeats: bool,
    header: Event | None,
) -> dict[str, Path]:
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot make {folder}: {exc.strerror or exc}") from None
    written = {}
    for name, run in runs.items():
        file = folder / f"{name}.jsonl"
        try:
            with file.open("w", encoding="utf-8") as out:
                write_trace(run(), out, nodes=nodes, heartbeats=heartbeats, header=header)
        except OSError as exc:
            raise UsageError(f"--out: cannot write {file}: {exc.strerror or exc}") from None
        written[name] = file
    return written
