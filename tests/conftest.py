"""Shared fixtures: every transport, every algorithm, and no leaks after any test."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator

import pykka
import pytest

from ringleader.actors import ALGORITHMS
from ringleader.transport import TRANSPORTS

# A suite started in the background by a shell without job control (``pytest &``, as a
# second run beside another may be started) has SIGINT ignored, and so would every
# process its tests start: a program keeps an ignored SIGINT ignored, as shells mean it
# to, and each Ctrl-C test would fail for a reason that is not its own.  Python's own
# handler, as in a terminal, so the processes the tests start get the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """Each transport: tcp, ipc, inproc and the in-memory one."""
    return str(request.param)


@pytest.fixture(params=sorted(ALGORITHMS))
def algorithm(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _ours(thread: threading.Thread) -> bool:
    return thread.name.startswith(("NodeActor", "ringleader", "TokenRing"))


@pytest.fixture(autouse=True)
def private_runtime_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nodes without a configured secret keep one per cluster under $XDG_RUNTIME_DIR:
    in tests, a fresh directory, so that nothing is left in the user's."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("runtime")))


@pytest.fixture(autouse=True)
def private_state_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nodes of a service keep their state under $XDG_STATE_HOME/ringleader: in tests, a
    fresh directory per test, so that no test sees another's epochs (or the user's)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """After each test: stop any actor still alive (a failure), then wait for our threads.

    A test that leaves actors or threads behind fails here, naming them.
    """
    before = set(threading.enumerate())
    yield
    leftover = pykka.ActorRegistry.get_all()
    pykka.ActorRegistry.stop_all(timeout=10)
    deadline = time.monotonic() + 10
    while True:
        threads = [
            t for t in threading.enumerate() if t not in before and t.is_alive() and _ours(t)
        ]
        if not threads or time.monotonic() > deadline:
            break
        threads[0].join(0.05)
    assert not leftover, f"actors left running: {leftover}"
    assert not threads, f"threads left running: {[t.name for t in threads]}"


def let_pass(seconds: float) -> None:
    """Let ``seconds`` of a scenario pass: a fault's own length (a pause, a partition,
    the gap between two kills) or a window in which something must *not* happen.

    Never a wait for something to happen: for that, wait on its event with a deadline,
    or use :func:`eventually`.
    """
    if seconds > 0:
        threading.Event().wait(seconds)


def eventually(probe, timeout: float = 10.0):  # type: ignore[no-untyped-def]
    """Call ``probe()`` until it returns something truthy or ``timeout`` passes.

    For state another thread updates and nothing announces (a node's counters): polls
    with a growing pause and a hard deadline; returns the last value either way so the
    caller's assert shows it.
    """
    pause = threading.Event()
    deadline = time.monotonic() + timeout
    interval = 0.001
    while not (value := probe()) and time.monotonic() < deadline:
        pause.wait(interval)
        interval = min(interval * 2, 0.05)
    return value
