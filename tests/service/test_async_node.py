"""``ringleader.AsyncNode``: a node for asyncio whose start, waits and stop never hold
up the event loop (issue 32, item 4), measured by a ticker coroutine."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import ringleader
from ringleader import AsyncNode  # imported before any loop runs, as a program would
from ringleader.service import LeaderChange
from tests.conftest import eventually
from tests.nodes import write_config
from tests.paths import ROOT

QUORUM = 'topology = "full_mesh"\nquorum = true\nheartbeat = 0.05\nsuspect_after = 0.3\n'
#: The most the loop may be held up (s): the ticker asks for 1 ms and must get it back
#: within this, whatever the nodes do meanwhile (on this machine: 7–28 ms, median 9; the
#: blocking Node called from the loop, as before AsyncNode: 39–99 ms, median 55).
LAG_BOUND = 0.050
#: Runs of the cluster, at most, until one stays under the bound: a blocking call holds
#: the loop up on every run; a machine shared with other work delays one now and then.
RUNS = 3


class Ticker:
    """A coroutine that sleeps 1 ms at a time and keeps the worst lateness, and counts
    its ticks."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.ticks = 0
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while not self._stop.is_set():
            asked = time.monotonic()
            await asyncio.sleep(0.001)
            self.worst = max(self.worst, time.monotonic() - asked - 0.001)
            self.ticks += 1

    def __enter__(self) -> Ticker:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    async def done(self) -> float:
        assert self._task is not None
        self._stop.set()
        await self._task
        return self.worst


@pytest.mark.timeout(180)
def test_a_cluster_starts_elects_and_stops_without_holding_up_the_loop(tmp_path: Path) -> None:
    worsts = []
    for run_ in range(RUNS):
        config = write_config(tmp_path / f"c{run_}.toml", QUORUM, [1, 2, 3])
        worst, seen, view = asyncio.run(_start_elect_stop(config))
        worsts.append(round(worst * 1000, 1))
        assert (view.leader, view.is_leader) == (3, True) and view.lease_left > 0
        kinds = [(c.kind, c.reason) for c in seen]
        assert kinds.index(("elected", "")) < kinds.index(("lost", "stopped")), kinds
        if worst < LAG_BOUND:
            break
    print(f"the loop was held up at most (ms, each run): {worsts}")
    assert min(worsts) < LAG_BOUND * 1000, f"the loop was held up (ms, each run): {worsts}"


async def _start_elect_stop(
    config: Path,
) -> tuple[float, list[LeaderChange], ringleader.LeadershipView]:
    """Three nodes started, a leader elected, all stopped, with a ticker running: the
    ticker's worst lateness (s), the leader's changes and its leadership once elected."""
    seen: list[LeaderChange] = []
    ticker = Ticker()
    with ticker:
        await asyncio.sleep(0.01)  # the ticker runs
        async with contextlib.AsyncExitStack() as stack:
            nodes = {}
            for i in (3, 2, 1):  # the highest first: it leads
                before = ticker.ticks
                nodes[i] = await stack.enter_async_context(AsyncNode(config, i))
                assert ticker.ticks > before, "the loop stood still while a node started"

            async def follow() -> None:
                async for change in nodes[3].changes():
                    seen.append(change)

            following = asyncio.create_task(follow())
            assert await nodes[1].wait_for_leader(20) == 3
            assert await nodes[3].wait_for_leader(20) == 3  # its lease granted
            view = nodes[3].leadership()
            assert nodes[3].is_leader and nodes[3].epoch == view.epoch
            for node in nodes.values():
                before = ticker.ticks
                await node.stop()
                assert ticker.ticks > before, "the loop stood still while a node stopped"
        # Stopped: the changes end, and so does the iteration.
        await asyncio.wait_for(following, 10)
        assert not any(node.running for node in nodes.values())
    return await ticker.done(), seen, view


@pytest.mark.timeout(60)
def test_wait_for_leader_is_awaited_and_gives_up_on_time(tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.toml", QUORUM, [1, 2, 3])

    async def run() -> float:
        ticker = Ticker()
        with ticker:
            async with AsyncNode(config, 3) as alone:  # no majority: no lease
                started = time.monotonic()
                with pytest.raises(TimeoutError, match=r"node 3: no leader within 0\.5 s"):
                    await alone.wait_for_leader(0.5)
                assert 0.5 <= time.monotonic() - started < 2.0
                # A wait that is cancelled leaves nothing behind.
                waiting = asyncio.create_task(alone.wait_for_leader())
                await asyncio.sleep(0.05)
                waiting.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await waiting
                assert alone.node._watchers == []
            assert not alone.running
            with pytest.raises(ringleader.TransportError, match="not running"):
                await alone.wait_for_leader(1)
        return await ticker.done()

    assert asyncio.run(run()) < 0.25  # never the half-second wait itself


#: A program as the tutorial's: ``import ringleader`` at the top, the first
#: ``ringleader.AsyncNode`` named inside the coroutine; it prints the ticker's worst
#: lateness (ms), and whether the node's stack was imported on the loop's thread.
FIRST_USE = """
import asyncio, sys, threading, time
import ringleader

async def main(config):
    worst, stop = 0.0, asyncio.Event()

    async def tick():
        nonlocal worst
        while not stop.is_set():
            asked = time.monotonic()
            await asyncio.sleep(0.001)
            worst = max(worst, time.monotonic() - asked - 0.001)

    ticking = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    node = ringleader.AsyncNode(config, 1)
    on_loop = "ringleader.service._node" in sys.modules
    async with node:
        await node.wait_for_leader(20)
    stop.set()
    await ticking
    print(round(worst * 1000, 1), on_loop)

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.timeout(120)
def test_the_first_asyncnode_of_a_program_does_not_hold_up_the_loop(tmp_path: Path) -> None:
    """Named first inside the loop, ``ringleader.AsyncNode`` imported the node's stack
    there: the loop stood still 280-415 ms. Now it is imported in the start's thread."""
    worsts = []
    for run_ in range(RUNS):
        body = f'{QUORUM}state_dir = "{tmp_path}"\n'
        config = write_config(tmp_path / f"c{run_}.toml", body, [1])
        shown = subprocess.check_output(
            [sys.executable, "-c", FIRST_USE, str(config)], text=True, timeout=60, cwd=ROOT
        )
        worst, on_loop = shown.split()
        assert on_loop == "False", "AsyncNode(...) imported the node's stack on the loop"
        worsts.append(float(worst))
        if worsts[-1] < LAG_BOUND * 1000:
            break
    assert min(worsts) < LAG_BOUND * 1000, f"the loop was held up (ms, each run): {worsts}"


@pytest.mark.timeout(60)
def test_a_config_that_cannot_be_loaded_raises_in_async_with(tmp_path: Path) -> None:
    node = AsyncNode(tmp_path / "missing.toml", 1)  # built in start's thread: nothing yet

    async def run() -> None:
        with pytest.raises(ringleader.ConfigError, match=r"missing\.toml"):
            async with node:
                pass

    asyncio.run(run())
    assert not node.running


@pytest.mark.timeout(60)
def test_stopped_before_it_started_it_says_what_to_do(tmp_path: Path) -> None:
    node = AsyncNode(write_config(tmp_path / "c.toml", QUORUM, [1, 2, 3]), 3)

    async def run() -> None:
        await node.stop()
        with pytest.raises(ringleader.TransportError, match="was stopped: make a new Node"):
            await node.start()

    asyncio.run(run())
    assert not node.running


def test_asyncnode_is_at_the_front_door() -> None:
    assert "AsyncNode" in dir(ringleader) and "LeadershipView" in dir(ringleader)
    assert ringleader.AsyncNode.__module__ == "ringleader.service._async_node"


@pytest.mark.timeout(60)
def test_a_start_cancelled_leaves_no_node_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_config(tmp_path / "c.toml", QUORUM, [1, 2, 3])
    go, started = threading.Event(), threading.Event()
    start = ringleader.Node.start

    def held_start(node: ringleader.Node) -> ringleader.Node:
        """The real start, once the test has cancelled the task awaiting it."""
        assert go.wait(20)
        try:
            return start(node)
        finally:
            started.set()

    monkeypatch.setattr(ringleader.Node, "start", held_start)

    async def run() -> bool:
        node = AsyncNode(config, 3)
        starting = asyncio.create_task(node.start())  # as asyncio.timeout() would cancel it
        await asyncio.sleep(0)  # (its thread is under way, held)
        starting.cancel()
        go.set()
        with pytest.raises(asyncio.CancelledError):
            await starting
        assert await asyncio.to_thread(started.wait, 20)  # the thread went on
        # ...and the node it started is stopped: not left bound, linking and voting
        return bool(await asyncio.to_thread(eventually, lambda: not node.running, 10))

    assert asyncio.run(run()), "a cancelled start left its node running"
