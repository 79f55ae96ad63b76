"""examples/service: workers elect a leader, only it works, and a fenced store refuses the
late write of a leader that was paused while another took over."""

from __future__ import annotations

import importlib.util
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import eventually
from tests.nodes import free_ports
from tests.paths import ROOT

SERVICE = ROOT / "examples" / "service"

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SIGSTOP/SIGCONT")


def _config(tmp_path: Path) -> Path:
    """The example's config, at free ports."""
    text = (SERVICE / "cluster.toml").read_text(encoding="utf-8")
    ports = iter(free_ports(3))
    text = re.sub(r"tcp://127\.0\.0\.1:\d+", lambda m: f"tcp://127.0.0.1:{next(ports)}", text)
    path = tmp_path / "cluster.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _start(*args: str, log: Path | None = None) -> subprocess.Popen[str]:
    """A process; its output in a pipe (the store's first line) or in ``log``."""
    out = subprocess.PIPE if log is None else log.open("w", encoding="utf-8")
    try:
        return subprocess.Popen(
            [sys.executable, *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    finally:
        if log is not None:
            out.close()  # type: ignore[union-attr]


def _store_client() -> Any:
    """The example's own store client (``examples/service/store.py``)."""
    spec = importlib.util.spec_from_file_location("service_store", SERVICE / "store.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.request


def _open_store(
    processes: list[subprocess.Popen[str]],
) -> tuple[tuple[str, int], Callable[[], dict[str, Any]]]:
    """The example's store started on a free port (kept in ``processes``, to stop): its
    address, and a call that asks it for everything it holds."""
    request = _store_client()
    store = _start(str(SERVICE / "store.py"), "--listen", "127.0.0.1:0")
    processes.append(store)
    address = _store_address(store)

    def dump() -> dict[str, Any]:
        return request(address, {"op": "dump"})

    return address, dump


def _store_address(store: subprocess.Popen[str]) -> tuple[str, int]:
    assert store.stdout is not None
    line = store.stdout.readline()  # the store's first line, at once
    match = re.fullmatch(r"listening (\S+):(\d+)\n", line)
    assert match, line
    return match[1], int(match[2])


def test_a_paused_leader_is_fenced_off_and_the_work_goes_on(tmp_path: Path) -> None:
    config = _config(tmp_path)
    processes: list[subprocess.Popen[str]] = []
    try:
        address, dump = _open_store(processes)

        workers = {}
        for i in (1, 2, 3):
            workers[i] = _start(
                str(SERVICE / "worker.py"),
                str(config),
                "--id",
                str(i),
                "--store",
                f"{address[0]}:{address[1]}",
                log=tmp_path / f"worker-{i}.log",
            )
            processes.append(workers[i])

        # The leader writes; pause it just after a write, that is in its next job.
        assert eventually(lambda: len(dump()["accepted"]) >= 3, 30), dump()
        first = dump()["accepted"][-1]
        old, old_epoch = first["node"], first["epoch"]
        seen = len(dump()["accepted"])
        assert eventually(lambda: len(dump()["accepted"]) > seen, 10)
        workers[old].send_signal(signal.SIGSTOP)
        paused_at = len(dump()["accepted"])

        # Another takes over and writes in a newer epoch.
        def taken_over() -> bool:
            return any(e["node"] != old for e in dump()["accepted"][paused_at:])

        assert eventually(taken_over, 30), dump()
        new_epoch = dump()["epoch"]
        assert new_epoch > old_epoch

        # The old leader resumes and finishes its job: the store refuses its write.
        workers[old].send_signal(signal.SIGCONT)

        def refused() -> list[dict[str, Any]]:
            return [r for r in dump()["refused"] if r["node"] == old]

        late = eventually(refused, 20)
        assert late, dump()
        assert late[0]["epoch"] == old_epoch < new_epoch

        # The work goes on, never in an epoch older than one already accepted.
        count = len(dump()["accepted"])
        assert eventually(lambda: len(dump()["accepted"]) >= count + 3, 20), dump()
        final = dump()
        epochs = [e["epoch"] for e in final["accepted"]]
        assert epochs == sorted(epochs), epochs
        assert all(r["epoch"] < final["epoch"] for r in final["refused"])
        assert max(epochs) >= new_epoch > old_epoch

        # Workers stop cleanly on SIGTERM.
        for process in workers.values():
            process.send_signal(signal.SIGTERM)
        for i, process in workers.items():
            log = (tmp_path / f"worker-{i}.log").read_text(encoding="utf-8")
            assert process.wait(20) == 0, f"worker {i}: {log}"
        old_log = (tmp_path / f"worker-{old}.log").read_text(encoding="utf-8")
        assert "the store refused my write" in old_log, old_log
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
            process.wait(10)
            if process.stdout is not None:
                process.stdout.close()


def test_after_a_full_restart_the_new_leaders_first_write_is_accepted(tmp_path: Path) -> None:
    """Issue 19: the store at epoch 14 after three leaders were killed, every worker
    restarted, "I lead now (epoch 5)", and the store refused every write until elections
    pushed the epoch past 14.  Each worker now keeps its highest epoch."""
    config = _config(tmp_path)
    processes: list[subprocess.Popen[str]] = []
    try:
        address, dump = _open_store(processes)

        def worker(i: int) -> subprocess.Popen[str]:
            log = tmp_path / f"worker-{i}-{len(processes)}.log"
            args = [str(SERVICE / "worker.py"), str(config), "--id", str(i)]
            process = _start(*args, "--store", f"{address[0]}:{address[1]}", log=log)
            processes.append(process)
            return process

        workers = {i: worker(i) for i in (1, 2, 3)}
        assert eventually(lambda: dump()["accepted"], 30), dump()
        for _ in range(3):  # kill the leader, three times
            leader = dump()["accepted"][-1]["node"]
            workers[leader].kill()
            workers[leader].wait(10)

            def taken_over(gone: int = leader) -> bool:
                return any(e["node"] != gone for e in dump()["accepted"][-1:])

            assert eventually(taken_over, 30), dump()
            workers[leader] = worker(leader)
        before = dump()
        for process in workers.values():  # every worker stopped
            process.kill()
            process.wait(10)
        workers = {i: worker(i) for i in (1, 2, 3)}  # and started again

        def written() -> bool:
            now = dump()
            return len(now["accepted"]) + len(now["refused"]) > len(before["accepted"]) + len(
                before["refused"]
            )

        assert eventually(written, 30), dump()
        after = dump()
        assert after["refused"] == before["refused"], after["refused"]  # nothing refused
        first = after["accepted"][len(before["accepted"])]
        assert first["epoch"] > before["epoch"], (first, before["epoch"])
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait(10)
            if process.stdout is not None:
                process.stdout.close()


def test_workers_killed_and_restarted_then_stopped_together_each_exit_at_once(
    tmp_path: Path,
) -> None:
    """Issue 30: three workers killed, restarted, then sent SIGTERM at once; one did not
    exit within 10 s (1 run in 5, under load).  Each must exit cleanly, at once: its
    main thread runs the handler within a slice, the leader hands over on its way out,
    and nothing waits for a peer that is stopping too."""
    config = _config(tmp_path)
    processes: list[subprocess.Popen[str]] = []
    try:
        address, dump = _open_store(processes)

        logs: dict[int, Path] = {}

        def worker(i: int) -> subprocess.Popen[str]:
            logs[i] = tmp_path / f"worker-{i}-{len(processes)}.log"
            args = [str(SERVICE / "worker.py"), str(config), "--id", str(i)]
            process = _start(*args, "--store", f"{address[0]}:{address[1]}", log=logs[i])
            processes.append(process)
            return process

        workers = {i: worker(i) for i in (1, 2, 3)}
        assert eventually(lambda: dump()["accepted"], 30), dump()
        for process in workers.values():
            process.kill()
            process.wait(10)
        written = len(dump()["accepted"])
        workers = {i: worker(i) for i in (1, 2, 3)}
        # Restarted and working again (every handler installed long since).
        assert eventually(lambda: len(dump()["accepted"]) > written, 30), dump()
        for process in workers.values():
            process.send_signal(signal.SIGTERM)
        for i, process in workers.items():
            try:
                code = process.wait(10)
            except subprocess.TimeoutExpired:
                code = None
            log = logs[i].read_text(encoding="utf-8")
            assert code == 0, f"worker {i} ({code}): {log}"
            assert "did not stop" not in log and "still runs" not in log, log
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait(10)
            if process.stdout is not None:
                process.stdout.close()
