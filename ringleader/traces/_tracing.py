"""Tracing a run: where each node's events are recorded, and the file they end up in.

:class:`RunTrace` gives each life of each node of a run in this process its
:class:`~ringleader.actors.NodeTrace` (on the monotonic clock, ``t`` counted from the run's start),
records crashes and restarts, and writes the whole run as one trace when it is over.
:class:`PartWriter` is what ``ringleader node --trace`` uses: one node's events, written
to its file as they come (a crash loses at most the last fraction of a second).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import IO, Any

from ringleader.actors import (
    NodeTrace,
    TraceClock,
    TraceWriter,
    Violation,
    merge_runs,
    trace_events,
    write_trace,
)
from ringleader.actors.host import leave_signals_to_main
from ringleader.errors import UsageError

__all__ = ["PartWriter", "RunTrace", "open_trace"]

log = logging.getLogger(__name__)


def open_trace(path: Path) -> IO[str]:
    """``path`` opened for a trace, or a :class:`UsageError` saying why it cannot be."""
    try:
        return path.open("w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--trace: cannot write {path}: {exc.strerror or exc}") from None


class RunTrace:
    """The trace of a run in this process, written to ``path`` by :meth:`write`."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        nodes: int,
        heartbeats: bool = False,
        header: dict[str, Any] | None = None,
    ):
        self.path = Path(path)
        self.header = header
        open_trace(self.path).close()  # before the run, not after it: say so at once
        self.nodes = nodes
        self.heartbeats = heartbeats
        self.clock = TraceClock(time.monotonic)
        self.began = time.monotonic()
        self._lives: list[NodeTrace] = []
        # The network's own events, and the checks a state broke.
        self._network: list[tuple[Any, ...]] = []
        self._lock = threading.Lock()

    def node(self, node: int) -> NodeTrace:
        """A new life of ``node``: the trace its actor records into."""
        trace = NodeTrace(node, self.clock)
        with self._lock:
            self._lives.append(trace)
        return trace

    def network(self, at: float, node: int, event: str, *details: object) -> None:
        """What the network does at ``at`` (on the monotonic clock, maybe later than
        now): it splits or heals (``event``, with the groups).  Written if the run
        lasted that long."""
        with self._lock:
            self._network.append((at, next(self.clock.order), node, event, *details))

    def violation(self, began: float, violation: Violation) -> None:
        """A check broken by the state a node came to (``violation.at`` counted from
        ``began``, on the monotonic clock): written where it happened."""
        if violation.at is None:
            return  # the end state's: the report says it
        node = violation.node if violation.node is not None else violation.nodes[0]
        with self._lock:
            self._network.append(
                (began + violation.at, next(self.clock.order), node, "violation", violation)
            )

    def write(self) -> int:
        """Write every life's events, in the order they happened; return how many."""
        with self._lock:
            lives = [trace.events for trace in self._lives]
            if self._network:
                end = max((life[-1][0] for life in lives if life), default=self.began)
                lives.append(sorted(r for r in self._network if r[0] <= end))
        with open_trace(self.path) as out:
            return write_trace(
                merge_runs(lives),
                out,
                began=self.began,
                nodes=self.nodes,
                heartbeats=self.heartbeats,
                header=self.header,
            )


class PartWriter:
    """One node's part of a trace (see :mod:`ringleader.actors.tracing`), written to ``path`` as it
    goes: every ``every`` seconds, on :meth:`flush`, and on :meth:`close`."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        node: int,
        *,
        nodes: int,
        heartbeats: bool = False,
        every: float = 0.1,
        header: dict[str, Any] | None = None,
    ) -> None:
        self.trace = NodeTrace(node, TraceClock(time.time))  # wall clock: parts merge
        self.path = Path(path)
        self._out = open_trace(self.path)
        self._writer = TraceWriter(self._out, nodes=nodes, part=True, header=header)
        self._heartbeats = heartbeats
        self._taken = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._every = every
        self._thread = threading.Thread(target=self._run, name="ringleader-trace", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        leave_signals_to_main()
        while not self._stop.wait(self._every):
            try:
                self.flush()
            except OSError as exc:
                log.warning("cannot write the trace to %s: %s", self.path, exc)
                return

    def flush(self) -> None:
        """Write the events recorded so far."""
        with self._lock:
            end = len(self.trace)  # the node's thread only appends: this much is complete
            taken, self._taken = self.trace.records(self._taken, end), end
            if taken:
                self._writer.write(trace_events(taken, heartbeats=self._heartbeats))
                self._out.flush()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5.0)
        try:
            self.flush()
            with self._lock:
                self._writer.close()
        finally:
            self._out.close()
