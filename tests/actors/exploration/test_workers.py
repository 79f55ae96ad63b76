"""The lean search shared out to several workers (issue 31, item 3) gives what one worker
gives, state for state — by the states' hash (``Part``, Ray's engine) and by slices of each
level (``Slice``, local processes' engine); and no worker process outlives it (an error, a
worker that dies, Ctrl-C)."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ringleader.actors.exploration import (
    Exploration,
    Model,
    Options,
    Part,
    Processes,
    Slice,
    SliceProcesses,
    WorkerFailed,
    _slices,
    explore_parts,
    explore_slices,
)
from ringleader.actors.exploration._parts import owner
from ringleader.cli import main
from ringleader.cluster import explore_config, explore_options
from ringleader.cluster._explored import explore_inputs
from ringleader.topologies import Config, Overrides, load_config
from tests.conftest import eventually

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


def ring(tmp_path: Path, n: int) -> Config:
    """Chang–Roberts on a ring of ``n``, ids descending (the notes' worst case)."""
    nodes = "".join(f"[[nodes]]\nid = {i}\n" for i in range(n, 0, -1))
    path = tmp_path / f"ring{n}.toml"
    path.write_text(f'topology = "unidirectional_ring"\nalgorithm = "chang_roberts"\n{nodes}')
    return load_config(path)


def everything(exploration: Exploration, like: Exploration | None = None) -> dict[str, Any]:
    """All an exploration says but its memory and timing: down to each path's steps, the
    state each ends in, and the events' words (those ``like`` met: a search that
    ``max_states`` stopped in the middle of a level met a few more on workers, which
    expanded the whole level)."""
    known = len((like or exploration).model.events)
    wanted = {p.state for p in exploration.paths.values()}
    found = exploration.found
    return {
        "states": exploration.states,
        "explored": exploration.explored,
        "end_states": exploration.end_states,
        "complete": exploration.complete,
        "stopped": exploration.stopped,
        "depth": exploration.depth,
        "messages": exploration.messages,
        "faultless": exploration.faultless,
        "bound_held": exploration.bound_held,
        "cyclic": exploration.cyclic,
        "exact": exploration.exact,
        "exact_why": exploration.exact_why,
        "findings": exploration.findings,
        "checks": exploration.checks,
        "paths": [(k, p.events, p.messages, p.state) for k, p in exploration.paths.items()],
        "ends in": {n: found[n] for n in sorted(wanted) if n in found},
        "events": [exploration.model.describe(e) for e in range(known)],
    }


#: Each engine: what a worker holds, the search that drives them, and its processes.
ENGINES: dict[str, tuple[Any, Any, type[Processes]]] = {
    "parts": (Part, explore_parts, Processes),
    "slices": (Slice, explore_slices, SliceProcesses),
}


class InProcess:
    """Parts in this process, called one after the other: the protocol, without pipes."""

    kind: Any = Part

    def __init__(self, build: Any, parts: int, links: Any) -> None:
        self.parts = parts
        self.held = [self.kind(build, index, parts, links) for index in range(parts)]

    def call(self, method: str, args: Any) -> list[Any]:
        return [getattr(part, method)(*a) for part, a in zip(self.held, args, strict=True)]

    def close(self) -> None:
        for part in self.held:
            part.close()
        self.held.clear()


class InProcessSlices(InProcess):
    kind = Slice


def shared(
    config: Config, options: Options, parts: int, engine: str = "parts", **limits: Any
) -> Exploration:
    build = partial(explore_inputs, config, options, None)
    bound = config.algorithm_class.bound(config.wiring, config.initiators)
    pool = InProcess if engine == "parts" else InProcessSlices
    return ENGINES[engine][1](build, pool, parts, bound=bound, **limits)


CASES = {
    "chang_roberts n=6": (lambda p: ring(p, 6), {}),
    "echo on graph.toml": (lambda p: load_config(EXAMPLES / "graph.toml"), {}),
    "chang_roberts n=4 unordered": (lambda p: ring(p, 4), {"unordered": True}),
    "bully n=4": (
        lambda p: load_config(EXAMPLES / "mesh.toml", Overrides(algorithm="bully", nodes=4)),
        {},
    ),
}


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("case", list(CASES))
def test_parts_find_what_one_worker_finds(tmp_path: Path, case: str, engine: str) -> None:
    make, what = CASES[case]
    config = make(tmp_path)
    options = explore_options(config, **what)
    one = explore_config(config, options, exact=False)
    assert one.states > 1000
    assert everything(shared(config, options, 2, engine)) == everything(one)


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize(
    ("example", "what", "depth"),
    [("mesh.toml", {"timers": "any"}, 3), ("explore/bully_pause.toml", {}, 9)],
    ids=["bully n=3, timers at any moment", "bully with a pause"],
)
def test_violations_are_the_first_and_counted_as_by_one_worker(
    example: str, what: dict[str, Any], depth: int, parts: int, engine: str
) -> None:
    """Two leaders, met when a state is first found (and only the first told in words):
    the same first state, the same words, the same count, the same shortest run — where
    the lean search holds (within ``depth`` steps)."""
    config = load_config(EXAMPLES / example, Overrides(algorithm="bully", nodes=3))
    options = explore_options(config, **what)
    one = explore_config(config, options, exact=False, max_depth=depth)
    assert not one.exact and [f.kind for f in one.findings] == ["two_leaders"]
    assert one.findings[0].count > 1 and one.findings[0].detail
    assert everything(shared(config, options, parts, engine, max_depth=depth)) == everything(one)


@pytest.mark.parametrize(
    "limits",
    [{"max_states": 700}, {"max_states": 1}, {"max_states": 1352}, {"max_depth": 5}],
    ids=str,
)
@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_stopped_search_stops_where_one_worker_stops(
    tmp_path: Path, limits: dict[str, int], parts: int, engine: str
) -> None:
    config = ring(tmp_path, 5)
    options = explore_options(config)
    one = explore_config(config, options, exact=False, **limits)
    assert one.complete == (limits == {"max_states": 1352})  # 1,352 states in all
    assert everything(shared(config, options, parts, engine, **limits), one) == everything(one)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_where_runs_of_different_lengths_meet_one_worker_searches_again(
    tmp_path: Path, engine: str
) -> None:
    """A crash loses what is sent to the crashed node whenever it was sent: the lean
    search cannot carry the counts, and says so — on parts as on one worker."""
    config = ring(tmp_path, 4)
    options = Options(crashes=1, crashable=frozenset({4}))
    one = explore_config(config, options, exact=False)
    assert one.exact and one.exact_why is not None
    assert everything(shared(config, options, 2, engine)) == everything(one)


class Watched(Slice):
    """A worker of a search by slices that notes what the design is for: the states it
    handed on to a worker before it and after it, and the levels where states set aside
    met some new states first (so that those moved to where one search meets them)."""

    handed: dict[str, int]
    moved = 0

    def commit(self, *args: Any) -> Any:
        if self.runs is not None and any(raw < self.fast for raw in self.late):
            Watched.moved += 1
        pieces = super().commit(*args)
        for worker, piece in enumerate(pieces):
            if piece is not None:
                side = "before" if worker < self.index else "after"
                Watched.handed[side] += len(piece[0]) // (4 * self.width)
        return pieces


class InProcessWatched(InProcess):
    kind = Watched


@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize("case", ["chang_roberts n=6", "echo on graph.toml", "bully n=4"])
def test_slices_hand_on_the_imbalance_both_ways_and_place_what_late_states_met_first(
    tmp_path: Path, case: str, parts: int
) -> None:
    """Each level is cut in even slices (by the workers' pace); a worker that found more
    than its slice hands states on to a worker before it or after it — on every model
    here, both ways; states set aside (a new table entry) are walked after the others,
    and the new states they meet first move to where one search numbers them.  The
    result is still one worker's, state for state."""
    make, what = CASES[case]
    config = make(tmp_path)
    options = explore_options(config, **what)
    one = explore_config(config, options, exact=False)
    Watched.handed, Watched.moved = {"before": 0, "after": 0}, 0
    build = partial(explore_inputs, config, options, None)
    found = explore_slices(build, InProcessWatched, parts, bound=config.bound)
    assert everything(found) == everything(one)
    assert Watched.handed["before"] > 0 and Watched.handed["after"] > 0
    assert Watched.moved > 0


class SpillingSlices(InProcess):
    """Workers by slices whose frontiers keep 64 bytes in memory: the rest on disk."""

    kind = partial(Slice, bound=64)


@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize("case", ["chang_roberts n=6", "echo on graph.toml"])
def test_slices_cut_by_pace_and_spilled_to_disk_find_what_one_worker_finds(
    tmp_path: Path, case: str, parts: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The levels cut by the workers' pace (here from a level of 7 states a worker on,
    not 1,000) and each worker's frontier on disk (a piece handed on is taken from the
    file's end): one worker's result still, state for state, counterexamples and
    extremes too."""
    monkeypatch.setattr("ringleader.actors.exploration._slices._MEASURED", 7)
    moved: list[bool] = []
    even = _slices._Slices._shares

    def shares(*args: Any) -> list[float]:
        got = even(*args)
        moved.append(got != args[0])
        return got

    monkeypatch.setattr(_slices._Slices, "_shares", staticmethod(shares))
    make, what = CASES[case]
    config = make(tmp_path)
    options = explore_options(config, **what)
    one = explore_config(config, options, exact=False)
    build = partial(explore_inputs, config, options, None)
    found = explore_slices(build, SpillingSlices, parts, bound=config.bound)
    assert everything(found) == everything(one)
    assert found.spilled > 0 and any(moved)


class Counted(InProcess):
    """In-process parts that count the states their batches carry to other parts."""

    sent = 0

    def call(self, method: str, args: Any) -> list[Any]:
        if method == "merge":
            size = self.held[0].entry.size
            Counted.sent += sum(len(b) // size for a in args for b in a[0] if b is not None)
        return super().call(method, args)


def test_most_steps_of_a_ring_election_stay_with_the_part_that_took_them(tmp_path: Path) -> None:
    """States are owned by a hash of their nodes' states, and a step changes one node or
    two: on Chang–Roberts n = 7, 12 % of the 89,757 steps cross to another part, and the
    batches carry 8,388 states, under a third of the 28,970 (a hash of the whole state
    sends half the steps across, about 0.9 states a state in the batches)."""
    config = ring(tmp_path, 7)
    options = explore_options(config)
    build = partial(explore_inputs, config, options, None)
    Counted.sent = 0
    two = explore_parts(build, Counted, 2, bound=config.bound)
    assert two.states == 28_970
    assert 0 < Counted.sent < two.states // 3
    assert {owner(s, 7, 2) for s in [(1,) * 7, (2,) * 7, (3,) * 7, (4,) * 7]} == {0, 1}
    assert owner((1, 2, 3, 4, 5, 6, 7, 0, 0), 7, 2) == owner((1, 2, 3, 4, 5, 6, 7, 5, 9), 7, 2)


def test_a_step_changes_no_node_but_the_one_its_event_moves() -> None:
    """A part keeps a successor for its own, unhashed, when the one node its step may
    change (``Model.mover``) kept its state: so no other node's state may change, with
    every kind of step — faults too."""
    config = load_config(EXAMPLES / "mesh.toml", Overrides(algorithm="bully", nodes=4))
    options = Options(
        crashes=1,
        restarts=True,
        losses=1,
        duplicates=1,
        partitions=((frozenset({1, 2}),),),
        pauses=(3,),
    )
    model = Model(*explore_inputs(config, options, None))
    n, level, seen = model.n, [model.initial()], set()
    while level and len(seen) < 20_000:
        following = []
        for state in level:
            for event, successor, _, _ in model.expand(state)[0]:
                mover = model.mover(event)
                changed = {i for i in range(n) if successor[i] != state[i]}
                assert changed <= {mover} - {-1}, model.describe(event)
                if successor not in seen:
                    seen.add(successor)
                    following.append(successor)
        level = following
    kinds = {event[0] for event in model.events}
    assert kinds == {
        *("start", "deliver", "timer", "crash", "restart", "lose", "duplicate"),
        *("partition", "heal", "pause", "resume"),
    }


@pytest.mark.parametrize("engine", list(ENGINES))
def test_two_worker_processes_find_what_one_finds(tmp_path: Path, engine: str) -> None:
    config = ring(tmp_path, 7)
    options = explore_options(config)
    one = explore_config(config, options, exact=False)
    build = partial(explore_inputs, config, options, None)
    _, search, processes = ENGINES[engine]
    two = search(build, processes, 2, bound=config.bound)
    assert everything(two) == everything(one)
    assert two.states == one.states == 28_970 and not two.exact


# -- no worker left behind -----------------------------------------------------------------


def _gone(pids: set[int], timeout: float = 30) -> bool:
    """Whether every process of ``pids`` is gone within ``timeout`` seconds."""
    return bool(eventually(lambda: not any(Path(f"/proc/{pid}").exists() for pid in pids), timeout))


def _pools(engine: str = "parts") -> tuple[list[Processes], Any]:
    made: list[Processes] = []

    def pool(*args: Any) -> Processes:
        made.append(ENGINES[engine][2](*args))
        return made[-1]

    return made, pool


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_worker_that_dies_stops_the_search_and_the_others(engine: str) -> None:
    config = load_config(EXAMPLES / "graph.toml", Overrides(initiators=[1, 6]))
    build = partial(explore_inputs, config, explore_options(config), None)
    made, pool = _pools(engine)
    pids: set[int] = set()

    def kill(*_: Any) -> None:  # after the first level: worker 1 dies
        pids.update(p.pid for p in made[0].processes)
        os.kill(made[0].processes[1].pid, signal.SIGKILL)

    with pytest.raises(WorkerFailed, match=r"explore worker 1 stopped \(exit code -9\)"):
        ENGINES[engine][1](build, pool, 2, progress=kill)
    assert not made[0].processes  # closed: none left behind
    assert _gone(pids), "a worker outlived the search"


@pytest.mark.parametrize("engine", list(ENGINES))
def test_an_error_in_the_driver_stops_every_worker(engine: str) -> None:
    config = load_config(EXAMPLES / "graph.toml", Overrides(initiators=[1, 6]))
    build = partial(explore_inputs, config, explore_options(config), None)
    made, pool = _pools(engine)
    pids: set[int] = set()

    def fail(*_: Any) -> None:
        pids.update(p.pid for p in made[0].processes)
        raise RuntimeError("the driver fails")

    with pytest.raises(RuntimeError, match="the driver fails"):
        ENGINES[engine][1](build, pool, 2, progress=fail)
    assert len(pids) == 2
    assert _gone(pids), "a worker outlived the search"


@pytest.mark.parametrize("engine", list(ENGINES))
def test_an_error_in_a_worker_is_told_and_stops_the_others(engine: str) -> None:
    before = _workers_of(os.getpid())
    made, pool = _pools(engine)
    with pytest.raises(WorkerFailed, match="explore worker 0 failed: ValueError: no model here"):
        ENGINES[engine][1](_fails_in_a_worker, pool, 2)
    assert not made  # the pool stopped its workers as it failed to start
    assert _gone(_workers_of(os.getpid()) - before)


def _fails_in_a_worker() -> Any:
    """The inputs of examples/graph.toml's model in this process; an error in a worker."""
    if multiprocessing.parent_process() is not None:
        raise ValueError("no model here")
    config = load_config(EXAMPLES / "graph.toml")
    return explore_inputs(config, explore_options(config), None)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_a_worker_out_of_memory_is_told_in_one_line(engine: str) -> None:
    """A ``MemoryError`` says nothing of itself: the worker's words are its name and
    where, without an empty ``: `` after it."""
    made, pool = _pools(engine)
    with pytest.raises(WorkerFailed) as raised:
        ENGINES[engine][1](_out_of_memory_in_a_worker, pool, 2)
    assert str(raised.value).startswith("explore worker 0 failed: MemoryError (")
    assert not made


def _out_of_memory_in_a_worker() -> Any:
    if multiprocessing.parent_process() is not None:
        raise MemoryError
    config = load_config(EXAMPLES / "graph.toml")
    return explore_inputs(config, explore_options(config), None)


def test_a_search_out_of_memory_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the search itself runs out of memory (one worker, or the whole-states search
    the workers give way to), the command says so in one line, as it says a search that
    cannot fit this machine (exit 2), not in a traceback with a violation's exit 1."""

    def out_of_memory(*_: Any, **__: Any) -> Exploration:
        raise MemoryError

    monkeypatch.setattr("ringleader.cluster.explore_config", out_of_memory)
    table = str(EXAMPLES / "chang_roberts_table.toml")
    assert main(["explore", table, "--workers", "2", "--out", str(tmp_path)]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert said == [
        "ringleader explore: error: the search ran out of memory: lower --max-states or --max-depth"
    ]


_INTERRUPTED = """
import sys
from functools import partial
from ringleader.actors.exploration import Processes, SliceProcesses, explore_parts, explore_slices
from ringleader.cluster import explore_options
from ringleader.cluster._explored import explore_inputs
from ringleader.topologies import load_config

if __name__ == "__main__":
    def said(*_):
        print("level", flush=True)
    config = load_config(sys.argv[1])
    build = partial(explore_inputs, config, explore_options(config), None)
    if sys.argv[2] == "parts":
        explore_parts(build, Processes, 2, progress=said, max_states=50_000_000)
    else:
        explore_slices(build, SliceProcesses, 2, progress=said, max_states=50_000_000)
"""


@pytest.mark.parametrize("engine", list(ENGINES))
def test_ctrl_c_leaves_no_worker_behind(tmp_path: Path, engine: str) -> None:
    nodes = "".join(f"[[nodes]]\nid = {i}\n" for i in range(12, 0, -1))
    config = tmp_path / "ring.toml"
    config.write_text(f'topology = "unidirectional_ring"\nalgorithm = "chang_roberts"\n{nodes}')
    script = tmp_path / "interrupted.py"
    script.write_text(textwrap.dedent(_INTERRUPTED))
    process = subprocess.Popen(
        [sys.executable, str(script), str(config), engine],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        for _ in range(3):  # a few levels searched: both workers at work
            assert process.stdout.readline() == b"level\n"
        workers = _workers_of(process.pid)
        assert len(workers) == 2
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert process.returncode != 0 and b"KeyboardInterrupt" in err
    assert _gone(workers), "a worker outlived the search"


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _workers_of(pid: int) -> set[int]:
    """The worker processes ``pid`` started: forked (its command line) or spawned."""
    found = set()
    try:
        own = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return found
    for child in _children(pid):
        try:
            line = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if line == own or b"spawn_main" in line:
            found.add(child)
    return found


# -- the command ---------------------------------------------------------------------------


def _command(tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any], str]:
    """``ringleader explore ... --json`` in a process of its own (workers are spawned)."""
    done = subprocess.run(
        [sys.executable, "-m", "ringleader", "explore", *argv, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    return done.returncode, (json.loads(lines[-1]) if lines else {}), done.stderr


def test_the_command_on_two_workers_says_what_it_says_on_one(tmp_path: Path) -> None:
    common = [str(EXAMPLES / "graph.toml"), "--out"]
    code_one, one, _ = _command(tmp_path, *common, str(tmp_path / "one"))
    code_two, two, err = _command(tmp_path, *common, str(tmp_path / "two"), "--workers", "2")
    assert code_one == code_two == 0, err
    assert (one["workers"], two["workers"]) == (1, 2) and one["states"] == 5_262
    ignore = {"elapsed_s", "states_per_s", "memory_per_state", "spilled_bytes", "workers"}
    ignore |= {"traces"}
    assert {k: v for k, v in two.items() if k not in ignore} == {
        k: v for k, v in one.items() if k not in ignore
    }
    assert one["traces"] and sorted(two["traces"]) == sorted(one["traces"])
    for name in one["traces"]:  # the same runs, written alike
        assert Path(two["traces"][name]).read_text() == Path(one["traces"][name]).read_text()


def test_a_search_that_needs_whole_states_says_one_process_searched(tmp_path: Path) -> None:
    """A crash makes runs of different lengths meet: the lean search gives way to whole
    states, which one process keeps — and the command says so, on stderr."""
    argv = [str(EXAMPLES / "ring.toml"), "--nodes", "4", "--crashes", "1", "--workers", "2"]
    code, got, err = _command(tmp_path, *argv, "--out", str(tmp_path))
    assert code == 1  # the ring without a failure detector: a crash breaks it (the notes)
    assert got["workers"] == 1 and got["states_kept"] == "exact"
    assert err.startswith("ringleader explore: searched by this process alone: --workers ")


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--exact"], "--workers shares out the search by fingerprints: leave out --exact"),
        (["--service"], "--workers shares out an election's search, not --service's"),
    ],
)
def test_workers_with_what_they_cannot_share_is_one_line(
    tmp_path: Path, extra: list[str], words: str
) -> None:
    config = str(EXAMPLES / ("service/cluster.toml" if "--service" in extra else "ring.toml"))
    code, _, err = _command(tmp_path, config, "--workers", "2", "--out", str(tmp_path), *extra)
    assert code == 2
    assert err.strip().splitlines() == [f"ringleader explore: error: {words}"] or words in err
