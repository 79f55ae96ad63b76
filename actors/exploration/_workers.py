"""The lean search on several workers: a breadth-first level at a time, the states shared
out by their fingerprint.

Each worker holds a :class:`~._parts.Part` — its share of the seen-set and of each
level, its frontier and its records — and the successors go from part to part as the
packed integers a frontier stores, one batch per part and level (``_parts.py``).  The
driver, here, holds no state and no fingerprint: for each level it hands the batches on,
gathers the states set aside (a few) and the places of the new states (one integer
each), and says where ``max_states`` cuts the level.  The levels are kept — a barrier
per level — so every counterexample is a shortest one, and the parts number, check and
record the states as one search does: the result — states, end states, depth, every
check's verdict, the fewest and most messages, every path shown — is the one
:func:`~._search.explore` gives on one worker (lean), state for state.  Where the lean
search cannot carry the counts (:class:`~._lean.Uneven`), this search stops and one
worker searches again, as :func:`~._search.explore` does.

The workers are processes (:class:`Processes`, forked on Linux and spawned elsewhere
(:data:`START`): each builds its model again from ``build``) or anything that answers
:class:`Pool`'s calls; the search by slices (``_slices.py``) runs on the same
processes, led by its own driver, through :func:`shared`.  A worker ignores Ctrl-C and
stops when its end of the pipe to the driver closes; the driver stops them all when the
search ends, fails or is interrupted: no process is left behind.

**Not as fast as two cores.**  Sharing out costs work one search does not do.  Counted
in instructions (``valgrind --tool=cachegrind``, which a busy machine does not blur), on
Chang–Roberts n = 8 (142,081 states) the whole command executes 16.5 G instructions on
one worker and 20.2 G on two (1.22 times; 23.8 G, 1.44 times, when workers were spawned,
owners always hashed and new states numbered by a binary search each).  What is left:

- the parts' loop keeps, for each successor, the least place of the steps to it (one
  search's choice among equals): a part walks its states in no order of number — its
  own successors are queued before those other parts sent, and the states set aside
  after the rest — so every step to a known successor compares places, where one
  search, walking in number order, keeps the first (the level's records are a list
  while it is built, so that reading a place makes no new integer object: searched
  in one process, on Chang–Roberts n = 7, the parts' instructions fell 7 %, from 1.28
  to 1.19 times the lean search's on two parts, 1.12 times on one; the lean search
  would save 4 % by the same change, and keeps its array, the less memory);
- the successors of another part (half the steps that change a node's state: one in
  ten on Chang–Roberts) packed into its batch and met again by their owner;
  each part's new states numbered against the other parts' places; the states set
  aside expanded by every part;
- the command's start (importing the package, 2.1 G instructions) and its end (writing
  the runs) are one process's either way: about 14 % of one worker's instructions on
  that model, so even two workers that did no more than one in all could be at most
  about 1.75 times as fast;
- and the parts are not even: the nodes' states that own them do not split the steps
  in halves (on n = 9, 53 % of them fall to one part), and each level waits for the
  slower part.

Owning states by their nodes' states keeps about 90 % of Chang–Roberts' steps in the
part that took them (half, by a hash of the whole state).  ``benchmarks/explore.py
--workers-only`` gives the day's wall clock and CPU seconds; on this 2-core machine
two workers were 1.3 to 1.5 times as fast as one (medians of three runs a side, on
three days, while ``--workers`` ran this search: it runs the slices' since), short of
issue 31's 1.7.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable, Collection, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol, TypedDict, Unpack

from ringleader.actors.core import Bound

from ._checks import Finding, Tally, count_finding
from ._lean import _UNEVEN, Uneven
from ._model import Model, NewLink
from ._parts import SHIFT, Part, merged_places
from ._runs import Ends, Extreme, Path
from ._search import Exploration, Progress, _conclude, explore
from ._share import (
    EVENT,
    FEWEST,
    HIGH_EVENT,
    HIGH_PLACE,
    LOW_EVENT,
    LOW_PLACE,
    MOST,
    PLACE,
    SENT,
    Inputs,
)

__all__ = ["Limits", "Pool", "PoolMaker", "Processes", "WorkerFailed", "explore_parts", "shared"]


class WorkerFailed(RuntimeError):
    """A worker stopped or failed: what it said, or how it ended."""


class Pool(Protocol):
    """Workers that each hold a :class:`~ringleader.actors.exploration.Part` (or a
    :class:`~ringleader.actors.exploration.Slice`), by index."""

    parts: int

    def call(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        """Call ``method`` of every part, part ``p`` with ``args[p]``; their answers."""
        ...

    def close(self) -> None:
        """Stop every worker (and wait for them to be gone)."""
        ...


#: Makes the pool of workers for ``(build, parts, links)``.
PoolMaker = Callable[[Callable[[], Inputs], int, Collection[tuple[int, int]]], Pool]


class Limits(TypedDict, total=False):
    """Where a shared search stops and what it says as it goes, as for
    :func:`~ringleader.actors.exploration.explore`: the notes' ``bound`` on the
    messages, ``max_states`` (1,000,000 unless given), ``max_depth`` and ``progress``."""

    bound: Bound | None
    max_states: int
    max_depth: int | None
    progress: Progress | None


def explore_parts(
    build: Callable[[], Inputs], pool: PoolMaker, parts: int, **limits: Unpack[Limits]
) -> Exploration:
    """The lean :func:`~ringleader.actors.exploration.explore` on ``parts`` workers of
    ``pool`` (:class:`~ringleader.actors.exploration.Processes`, or anything that
    answers :class:`~ringleader.actors.exploration.Pool`'s calls), each owning the
    states of its hash: the model that ``build()``'s inputs make, explored, with the
    result one worker gives."""
    return shared(build, pool, parts, _Driver, **limits)


def shared(
    build: Callable[[], Inputs],
    pool: PoolMaker,
    parts: int,
    driver: type[_Driver],
    *,
    bound: Bound | None = None,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    progress: Progress | None = None,
) -> Exploration:
    """The lean search on ``parts`` workers of ``pool``, led by ``driver``: again with
    each link an election sent outside its wiring (``NewLink``), and on one worker where
    the counts cannot be carried (``Uneven``)."""
    links: list[tuple[int, int]] = []
    while True:
        algorithm, views, initiators, options = build()
        model = Model(algorithm, views, initiators, options, links=links)
        workers = pool(build, parts, list(links))
        try:
            found = _conclude(driver(model, workers, max_states, max_depth, progress), bound)
            found.workers = parts
            return found
        except NewLink as new:  # an election sent outside its wiring: again, with that link
            links.append(new.link)
        except Uneven:
            break
        finally:
            workers.close()
    # As one worker: its lean search meets the same step back, and searches again exact.
    return explore(
        algorithm,
        views,
        initiators,
        options,
        bound=bound,
        max_states=max_states,
        max_depth=max_depth,
        progress=progress,
        exact=False,
    )


class _Driver:
    """The driver of a lean search shared by parts: one level at a time (what
    :func:`~._search._conclude` asks of a search)."""

    exact = False
    #: A record names the state before a step by its place (``number << SHIFT | rank``).
    shift = SHIFT

    def __init__(
        self,
        model: Model,
        pool: Pool,
        max_states: int,
        max_depth: int | None,
        progress: Progress | None,
    ) -> None:
        self.model = model
        self.pool = pool
        self.max_states = max(1, max_states)
        self.max_depth = max_depth
        self.progress = progress
        self.findings: dict[str, Finding] = {}
        self.tally = Tally()
        self.spilled = 0
        self._ends = Ends()
        self._kept: dict[int, tuple[int, ...]] = {}
        self._counts = (1, 0, 0)
        self._memory = 0

    def _all(self, method: str, *args: Any) -> list[Any]:
        return self.pool.call(method, [args] * self.pool.parts)

    def search(self) -> tuple[str | None, int]:
        """Level after level (:meth:`_level`), to ``max_depth``, or to the level that
        ``max_states`` cuts; then every part's findings gathered."""
        max_depth, progress = self.max_depth, self.progress
        low, high, depth, explored = 0, 1, 0, 0  # the level: states low … high − 1
        stopped: str | None = None
        while low < high:
            if low > 0:
                depth += 1
                if max_depth is not None and depth > max_depth:
                    stopped = "max_depth"
                    break
            count, last = self._level(high)
            explored = high if last < 0 else last + 1
            low, high = high, high + count
            if progress is not None:
                progress(high, explored, depth)
            if last >= 0:
                stopped = "max_states"
                break
        if stopped is None and explored < high:
            stopped = "max_depth"
        self._gather(high, explored)
        return stopped, depth

    def _level(self, high: int) -> tuple[int, int]:
        """Expand the level that ends before state ``high``, and number, check and
        record the next one's states: how many it keeps, and the last state expanded
        where ``max_states`` cuts it (-1: none)."""
        model, pool, parts, max_states = self.model, self.pool, self.pool.parts, self.max_states
        inbound: list[list[Any]] = [[] for _ in range(parts)]

        def hand_on(batches: list[Any]) -> None:
            for out in batches:
                for q, batch in enumerate(out):
                    if batch is not None:
                        inbound[q].append(batch)

        expanded = self._all("expand")
        hand_on([batches for _, batches in expanded])
        aside = sorted(state for found, _ in expanded for state in found)
        if aside:
            for _, state in aside:  # this model's tables as the parts' (and NewLink)
                model.expand(state)
            hand_on(self._all("finish", aside))
        merged = pool.call("merge", [(inbound[q],) for q in range(parts)])
        new = sum(len(places) // 8 for places, _ in merged)
        room = max_states - high
        last = -1  # the last state expanded, where max_states cuts the level
        if new > room:
            last = merged_places([places for places, _ in merged])[room] >> SHIFT
        back = [place for _, place in merged if place >= 0]
        if back and (last < 0 or min(back) >> SHIFT <= last):
            raise Uneven(_UNEVEN)
        pool.call(
            "commit",
            [
                ([merged[p][0] for p in range(parts) if p != q], high, max_states, last)
                for q in range(parts)
            ],
        )
        return min(new, room), last

    def _gather(self, states: int, explored: int) -> None:
        """Every part's findings, tally and extremes, merged as one search has them."""
        summaries = self._all("summary")
        tally = self.tally
        firsts: dict[tuple[str, str], int] = {}
        chosen: dict[str, list[Any]] = {}
        for summary in summaries:
            ends, checked, missed, out, numbers = summary["tally"]
            tally.ends += ends
            for kind, count in checked.items():
                tally.checked[kind] += count
            for name, table, into in (("missed", missed, tally.missed), ("out", out, tally.out)):
                for kind, (count, why) in table.items():
                    number = numbers[name, kind]
                    before = into.get(kind)
                    if before is None or number < firsts[name, kind]:
                        firsts[name, kind] = number
                        into[kind] = (count + (0 if before is None else before[0]), why)
                    else:
                        into[kind] = (before[0] + count, before[1])
            for kind, (number, detail, count, order) in summary["findings"].items():
                had = chosen.get(kind)
                if had is None:
                    chosen[kind] = [number, detail, count, order]
                elif number < had[0]:
                    chosen[kind] = [number, detail, count + had[2], order]
                else:
                    had[2] += count
            _meet(self._ends.every, summary["ends"].every)
            _meet(self._ends.clean, summary["ends"].clean)
            self._kept.update(summary["kept"])
            self._memory += summary["memory"]
            self.spilled += summary["spilled"]
        for kind, (number, detail, count, _) in sorted(chosen.items(), key=lambda c: c[1][3]):
            self.findings[kind] = Finding(kind, detail, number, count)
        ended = sum(summary["end_count"] for summary in summaries)
        self._counts = (states, explored, ended)

    # -- what _conclude asks -----------------------------------------------------------

    def found(self, kind: str, detail: str, state: int) -> None:
        count_finding(self.findings, kind, detail, state)

    def counts(self) -> tuple[int, int, int]:
        return self._counts

    def memory(self) -> int:
        """Bytes the parts held (each: its fingerprints, and its frontier and level at
        their largest)."""
        return self._memory

    def ends(self) -> Ends:
        return self._ends

    def graph(self) -> None:
        return None

    def kept(self) -> dict[int, tuple[int, ...]]:
        """The states the paths and findings end in."""
        wanted = {finding.state for finding in self.findings.values()}
        for extreme in (self._ends.every, self._ends.clean):
            wanted |= {extreme.low, extreme.high}
        return {n: s for n, s in self._kept.items() if n in wanted}

    def path(self, state: int, via: str | None = None) -> Path:
        """The run to ``state``, read back from the parts' records, as the lean search
        reads its own (``_lean.py``)."""
        place, event = {
            None: (PLACE, EVENT),
            "min": (LOW_PLACE, LOW_EVENT),
            "max": (HIGH_PLACE, HIGH_EVENT),
        }[via]
        events: list[int] = []
        messages = 0
        first: list[int] | None = None
        at = state
        while at > 0:
            record = next(r for r in self._all("record", at) if r is not None)
            first = first or record
            events.append(record[event])
            if via is None:
                messages += record[SENT]
            at = record[place] >> self.shift
        if via is not None and first is not None:
            messages = first[FEWEST if via == "min" else MOST]
        events.reverse()
        return Path(events, messages, state)


def _meet(into: Extreme, part: Extreme) -> None:
    """``into``: the first of the fewest and the first of the most messages, of its own
    and ``part``'s (first: the least state number, as one search meets them)."""
    if part.low >= 0 and (into.low < 0 or (part.fewest, part.low) < (into.fewest, into.low)):
        into.low, into.fewest = part.low, part.fewest
    if part.high >= 0 and (into.high < 0 or (-part.most, part.high) < (-into.most, into.high)):
        into.high, into.most = part.high, part.most


#: How worker processes start: forked on Linux — a copy of the driver, its modules
#: imported, in a few milliseconds where ``spawn`` starts a new interpreter that imports
#: the package again (a fifth of a second of CPU, a worker) — and spawned elsewhere
#: (macOS's system libraries are not safe to fork).
START = "fork" if sys.platform == "linux" else "spawn"


class Processes:
    """``parts`` worker processes, each holding a part (a ``kind``); the driver talks to
    each over a pipe.  Started as ``START`` says (forked on Linux); a worker builds its
    model from ``build``."""

    #: What each worker holds, made as ``kind(build, index, parts, links)``.
    kind: Callable[..., Any] = Part

    def __init__(
        self, build: Callable[[], Inputs], parts: int, links: Collection[tuple[int, int]]
    ) -> None:
        context = (
            multiprocessing.get_context("fork")
            if START == "fork"
            else multiprocessing.get_context("spawn")
        )
        self.parts = parts
        self.conns: list[Connection] = []
        self.processes: list[Any] = []
        try:
            for index in range(parts):
                ours, theirs = context.Pipe()
                # Forked, a worker holds copies of the driver's ends of the pipes so far,
                # its own too: it closes them, so that it sees its pipe close.
                drivers = [*self.conns, ours] if START == "fork" else []
                process = context.Process(
                    target=_serve,
                    args=(theirs, build, index, parts, list(links)),
                    kwargs={"drivers": drivers, "kind": type(self).kind},
                    name=f"ringleader-explore-{index}",
                    daemon=True,
                )
                process.start()
                theirs.close()
                self.conns.append(ours)
                self.processes.append(process)
            for index in range(parts):
                self._answer(index)
        except BaseException:
            self.close()
            raise

    def call(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        for index, arguments in enumerate(args):
            try:
                self.conns[index].send_bytes(
                    pickle.dumps((method, arguments), protocol=pickle.HIGHEST_PROTOCOL)
                )
            except OSError:
                self._answer(index)  # gone: says how
                raise
        return [self._answer(index) for index in range(self.parts)]

    def _answer(self, index: int) -> Any:
        conn, process = self.conns[index], self.processes[index]
        ready = wait([conn, process.sentinel])
        status: str = "gone"
        value: Any = None
        if conn in ready:
            with contextlib.suppress(EOFError, OSError):
                status, value = pickle.loads(conn.recv_bytes())
        if status == "ok":
            return value
        if status == "new_link":
            raise NewLink(value)
        if status == "gone":
            process.join(1)
            raise WorkerFailed(f"explore worker {index} stopped (exit code {process.exitcode})")
        raise WorkerFailed(f"explore worker {index} failed: {value}")

    def close(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.close()  # the worker sees its pipe end, and stops
        for process in self.processes:
            process.join(2)
            if process.is_alive():
                process.kill()
                process.join()
        self.conns.clear()
        self.processes.clear()


def _serve(
    conn: Connection,
    build: Callable[[], Inputs],
    index: int,
    parts: int,
    links: list[tuple[int, int]],
    *,
    drivers: Sequence[Connection] = (),
    kind: Callable[..., Any] = Part,
) -> None:
    """A worker process: its part (a ``kind``), and the driver's calls, until the pipe
    closes (``drivers``: the driver's ends of the pipes, to close here, if forked)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    for end in drivers:
        end.close()
    gc.disable()  # millions of small objects, in no cycle: as the search on one worker

    def answer(status: str, value: Any) -> None:
        try:
            conn.send_bytes(pickle.dumps((status, value), protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:  # the driver is gone (Ctrl-C, an error): so is the search
            os._exit(0)

    try:
        part = kind(build, index, parts, links)
    except Exception as exc:  # noqa: BLE001 — told to the driver, which raises it
        answer("error", _told(exc))
        os._exit(0)
    answer("ok", None)
    while True:
        try:
            method, arguments = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            break
        try:
            value = getattr(part, method)(*arguments)
        except NewLink as new:
            answer("new_link", new.link)
        except Exception as exc:  # noqa: BLE001
            answer("error", _told(exc))
        else:
            answer("ok", value)
    os._exit(0)  # nothing of the driver's to flush or join; the temporary files go with it


def _told(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:]
    where = f" ({last[0].filename}:{last[0].lineno})" if last else ""
    said = f": {exc}" if str(exc) else ""  # a MemoryError says nothing more
    return f"{type(exc).__name__}{said}{where}"
