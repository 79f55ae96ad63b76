"""Issue 19's faults, tried as a new user would: ``ringleader node`` processes (each a
``ringleader.Node``) on loopback, and ``examples/service``.

    python benchmarks/fencing.py                    # every scenario, about three minutes
    python benchmarks/fencing.py --only restart,clock
    PYTHONPATH=/path/to/an/older/checkout python benchmarks/fencing.py   # before
    python benchmarks/fencing.py --failover /path/to/an/older/checkout   # what it costs

- ``restart``: 15 kills and restarts of single nodes, then three full-cluster stops and
  starts, then a restart with five nodes: the epoch each new leader is handed, against
  the highest any node reported before.
- ``service``: the store and three workers; the leader killed three times, then every
  worker restarted: is the new leader's first write accepted?
- ``split``: one node with another secret; one node whose config lists four nodes; a
  fourth node added to a running cluster of three (also with ``cluster = "svc"`` in
  both configs): how many processes report ``is_leader``?
- ``clock``: a node restarted with its wall clock an hour behind (in Python, and with
  ``faketime`` where installed): its incarnation, and how many leaders.

Each line says what happened; nothing is asserted (``tests/actors/test_fencing.py``,
``tests/service/test_node_state.py`` and ``tests/service/test_service.py`` do that).

``--failover OLD`` measures what keeping the state and a majority cost a service: the
leader of three ``ringleader node`` processes killed five times, the median time from
its SIGKILL to the next leader's ``lease`` line (when its ``is_leader`` turns true), for
the checkout at OLD and this one, alternated (``benchmarks/_compare.py``).  Run it from
outside both checkouts, so that each side's processes import their own.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conftest import eventually, let_pass
from tests.nodes import (
    NodeProcess,
    free_ports,
    holds_lease,
    leading_intervals,
    overlaps,
    reported_epoch,
    write_config,
)

ROOT = Path(__file__).resolve().parent.parent
BODY = 'topology = "full_mesh"\nalgorithm = "bully"\ntransport = "tcp"\n'
SERVICE = ROOT / "examples" / "service"
CLOCK_BEHIND = [sys.executable, str(Path(__file__).with_name("_clock_behind.py")), "3600"]


class Procs:
    """The node processes of a scenario: the current one per id, and every one."""

    def __init__(self) -> None:
        self.current: dict[int, NodeProcess] = {}
        self.history: list[NodeProcess] = []

    def start(self, config: Path, node: int, **kw: Any) -> NodeProcess:
        process = NodeProcess(config, node, **kw)
        self.current[node] = process
        self.history.append(process)
        return process

    def kill(self, node: int) -> None:
        self.current.pop(node).kill()

    def stop_all(self) -> None:
        for process in self.current.values():
            if process.process.poll() is None:
                process.process.send_signal(signal.SIGTERM)
        for process in self.current.values():
            try:
                process.process.wait(10)
            finally:
                process.kill()
        self.current.clear()

    def close(self) -> None:
        for process in self.current.values():
            process.kill()
        self.current.clear()

    def agreed(self, among: list[int]) -> tuple[int, int] | None:
        views = {self.current[n].leader() for n in among}
        view = views.pop() if len(views) == 1 else None
        if view is None or view[0] is None or view[0] not in among:
            return None
        return view  # type: ignore[return-value]

    def wait_agreement(self, among: list[int], timeout: float = 20.0) -> tuple[int, int] | None:
        return eventually(lambda: self.agreed(among), timeout)  # type: ignore[no-any-return]

    def first_lease(self, since: float, timeout: float = 20.0) -> tuple[int, int] | None:
        """(node, epoch) of the first ``lease`` line after ``since`` (monotonic)."""

        def found() -> tuple[int, int] | None:
            leases = [
                (e["mono"], p.node, e["epoch"])
                for p in self.current.values()
                for e in p.drain()
                if e["event"] == "lease" and e["mono"] >= since
            ]
            return min(leases)[1:] if leases else None

        return eventually(found, timeout)  # type: ignore[no-any-return]

    def leading(self) -> list[int]:
        return sorted(n for n, p in self.current.items() if holds_lease(p))

    def overlaps(self) -> int:
        now = time.monotonic()
        spans = [(p.node, a, b) for p in self.history for a, b in leading_intervals(p, now)]
        return len(overlaps(spans))


def restart(workdir: Path, say: Callable[[str], None], kills: int) -> None:
    rng = random.Random(19)
    procs = Procs()
    try:
        config = write_config(workdir / "c.toml", BODY, [1, 2, 3])
        for node in (1, 2, 3):
            procs.start(config, node)
        view = procs.wait_agreement([1, 2, 3])
        if view is None:
            say("restart: no first leader within 20 s")
            return
        views = [view]
        for k in range(kills):
            victim = view[0] if k % 2 == 0 else rng.choice([1, 2, 3])
            procs.kill(victim)
            procs.start(config, victim)
            view = procs.wait_agreement([1, 2, 3])
            if view is None:
                say(f"restart: no agreement after killing node {victim}")
                return
            views.append(view)
        # The epoch never goes back, and a new leader's is above the one before (a
        # follower killed and restarted changes nothing: the steady rules keep the leader).
        growing = all(
            b[1] > a[1] if b[0] != a[0] else b[1] >= a[1] for a, b in itertools.pairwise(views)
        )
        changes = sum(1 for a, b in itertools.pairwise(views) if a != b)
        say(
            f"restart: {kills} single kills/restarts ({changes} leader changes): agreed epochs "
            f"{views[0][1]} → {views[-1][1]} "
            f"({'never back, higher at each new leader' if growing else 'WENT BACK'})"
        )
        for r in range(3):
            before = reported_epoch(procs.history)
            procs.stop_all()
            since = time.monotonic()
            for node in (1, 2, 3):
                procs.start(config, node)
            _say_handed(say, f"full restart {r + 1}", procs.first_lease(since), before)
            procs.wait_agreement([1, 2, 3])
        before = reported_epoch(procs.history)
        procs.stop_all()
        five = write_config(workdir / "c.toml", BODY, [1, 2, 3, 4, 5])
        since = time.monotonic()
        for node in (1, 2, 3, 4, 5):
            procs.start(five, node)
        _say_handed(say, "restart with 5 nodes", procs.first_lease(since), before)
    finally:
        procs.close()


def _say_handed(
    say: Callable[[str], None], what: str, lease: tuple[int, int] | None, before: int
) -> None:
    if lease is None:
        say(f"restart: {what}: no lease within 20 s")
        return
    node, epoch = lease
    verdict = "grows" if epoch > before else "GOES BACK"
    say(f"restart: {what}: node {node} leads at epoch {epoch}; highest before {before}: {verdict}")


class _Service:
    """``examples/service``: the store and three workers, as processes."""

    def __init__(self, workdir: Path) -> None:
        sys.path.insert(0, str(SERVICE))
        from store import request  # the example's own client

        self.request = request
        self.workdir = workdir
        text = (SERVICE / "cluster.toml").read_text(encoding="utf-8")
        ports = iter(free_ports(3))
        text = re.sub(r"tcp://127\.0\.0\.1:\d+", lambda m: f"tcp://127.0.0.1:{next(ports)}", text)
        self.config = workdir / "service.toml"
        self.config.write_text(text, encoding="utf-8")
        self.processes: list[subprocess.Popen[str]] = []
        store = self.spawn(str(SERVICE / "store.py"), "--listen", "127.0.0.1:0")
        assert store.stdout is not None
        self.host, port = store.stdout.readline().split()[1].rsplit(":", 1)
        self.address = (self.host, int(port))
        self.workers = {node: self.worker(node) for node in (1, 2, 3)}

    def spawn(self, *args: str, log: Path | None = None) -> subprocess.Popen[str]:
        out = subprocess.PIPE if log is None else log.open("a", encoding="utf-8")
        process = subprocess.Popen(
            [sys.executable, *args], stdout=out, stderr=subprocess.STDOUT, text=True
        )
        if log is not None:
            out.close()  # type: ignore[union-attr]
        self.processes.append(process)
        return process

    def worker(self, node: int) -> subprocess.Popen[str]:
        args = [str(SERVICE / "worker.py"), str(self.config), "--id", str(node)]
        store = f"{self.host}:{self.address[1]}"
        return self.spawn(*args, "--store", store, log=self.workdir / f"worker-{node}.log")

    def dump(self) -> dict[str, Any]:
        return self.request(self.address, {"op": "dump"})  # type: ignore[no-any-return]

    def kill(self, node: int) -> None:
        self.workers[node].kill()
        self.workers[node].wait()

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait()
            if process.stdout is not None:
                process.stdout.close()


def service(workdir: Path, say: Callable[[str], None]) -> None:
    run = _Service(workdir)
    try:
        if not eventually(lambda: run.dump()["accepted"], 30):
            say("service: no write within 30 s")
            return
        for _ in range(3):
            leader = run.dump()["accepted"][-1]["node"]
            run.kill(leader)
            count = len(run.dump()["accepted"])
            eventually(lambda count=count: len(run.dump()["accepted"]) > count, 20)
            run.workers[leader] = run.worker(leader)
        epoch = run.dump()["epoch"]
        for node in (1, 2, 3):
            run.kill(node)
        done = run.dump()
        seen = len(done["accepted"]) + len(done["refused"])
        started = time.monotonic()
        run.workers = {node: run.worker(node) for node in (1, 2, 3)}

        def first() -> dict[str, Any] | None:
            now = run.dump()
            return now if len(now["accepted"]) + len(now["refused"]) > seen else None

        after = eventually(first, 30)
        if not after:
            say("service: no write within 30 s of the restart")
            return
        refused = after["refused"][len(done["refused"]) :]
        took = time.monotonic() - started
        head = f"service: store at epoch {epoch}, every worker restarted: the new leader's"
        if refused:
            say(f"{head} first write was REFUSED (epoch {refused[0]['epoch']} < {epoch})")
            ok = eventually(lambda: run.dump()["accepted"][len(done["accepted"]) :], 30)
            say(f"service: first accepted write {time.monotonic() - started:.1f} s after: {ok}")
        else:
            accepted = after["accepted"][len(done["accepted"]) :]
            first_epoch = accepted[0]["epoch"]
            say(f"{head} first write was accepted (epoch {first_epoch}), {took:.1f} s after")
    finally:
        run.close()


def split(workdir: Path, say: Callable[[str], None], window: float) -> None:
    config = write_config(workdir / "split.toml", BODY, [1, 2, 3])
    text = config.read_text(encoding="utf-8")
    four = f'\n[[nodes]]\nid = 4\naddress = "tcp://127.0.0.1:{free_ports(1)[0]}"\n'
    wrong = workdir / "four.toml"
    wrong.write_text(text + four, encoding="utf-8")
    named = workdir / "named.toml"
    named.write_text('cluster = "svc"\n' + text, encoding="utf-8")
    named_four = workdir / "named-four.toml"
    named_four.write_text('cluster = "svc"\n' + text + four, encoding="utf-8")
    secret = {"RINGLEADER_SECRET": "a" * 64}
    other = {"RINGLEADER_SECRET": "b" * 64}
    cases = {
        "node 1 has another secret": [(1, config, other), (2, config, secret), (3, config, secret)],
        "node 1's config lists 4 nodes": [(1, wrong, None), (2, config, None), (3, config, None)],
        "a 4th node added to a running 3": [
            *((n, config, None) for n in (1, 2, 3)),
            (4, wrong, None),
        ],
        'the same, cluster = "svc" in both': [
            *((n, named, None) for n in (1, 2, 3)),
            (4, named_four, None),
        ],
    }
    for case, members in cases.items():
        _one_split(workdir, say, case, members, window)


def _one_split(
    workdir: Path,
    say: Callable[[str], None],
    case: str,
    members: list[tuple[int, Path, dict[str, str] | None]],
    window: float,
) -> None:
    procs = Procs()
    state = workdir / re.sub(r"\W+", "-", case)
    try:
        for node, path, env in members:
            if node == 4:  # added later, to a running cluster
                procs.wait_agreement([1, 2, 3], 20)
            procs.start(path, node, env={**(env or {}), "XDG_STATE_HOME": str(state)})
        procs.wait_agreement([2, 3], 20)
        let_pass(window)  # the scenario's own length: time for a second leader to show
        leading = procs.leading()
        say(
            f"split: {case}: processes reporting is_leader: {leading or 'none'}; "
            f"leaderships that overlapped: {procs.overlaps()}"
        )
    finally:
        procs.close()


def clock(workdir: Path, say: Callable[[str], None], window: float) -> None:
    prefixes = {"in Python": CLOCK_BEHIND}
    faketime = shutil.which("faketime")
    if faketime is not None:
        prefixes["faketime"] = [faketime, "-f", "-1h"]
    else:
        say("clock: faketime is not installed: only the Python clock shift")
    for how, prefix in prefixes.items():
        procs = Procs()
        try:
            config = write_config(workdir / "clock.toml", BODY, [1, 2, 3])
            env = {"XDG_STATE_HOME": str(workdir / f"clock-{how.replace(' ', '-')}")}
            for node in (1, 2, 3):
                procs.start(config, node, env=env)
            if procs.wait_agreement([1, 2, 3]) is None:
                say(f"clock ({how}): no first leader")
                continue
            old = procs.current[1].events[0]["incarnation"]
            procs.kill(1)
            env = {**env, "DONT_FAKE_MONOTONIC": "1"}
            restarted = procs.start(config, 1, prefix=prefix, env=env)
            try:
                line = restarted.wait_for(lambda e: e["event"] == "listening", 20)
            except AssertionError as exc:
                say(f"clock ({how}): node 1 did not start: {str(exc)[-300:]!r}")
                continue
            let_pass(window)  # the scenario's own length
            stale = sum(
                1
                for p in procs.current.values()
                for e in p.drain()
                if e["event"] == "rejected_frame" and e["reason"] == "stale_incarnation"
            )
            views = {n: p.leader() for n, p in procs.current.items()}
            say(
                f"clock ({how}): node 1 restarted an hour behind: incarnation {old} → "
                f"{line['incarnation']} ({'newer' if line['incarnation'] > old else 'OLDER'}); "
                f"processes reporting is_leader: {procs.leading() or 'none'}; frames dropped "
                f"as stale_incarnation: {stale}; views (leader, epoch): {views}"
            )
        finally:
            procs.close()


def failover_median(env: dict[str, str], kills: int = 5) -> float:
    """Seconds from SIGKILL of the leader of three nodes to the next ``lease`` line,
    the median of ``kills``, with ``env`` (a ``PYTHONPATH``) for every process."""
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        env = {**env, "XDG_STATE_HOME": str(workdir / "state")}
        config = write_config(workdir / "f.toml", BODY, [1, 2, 3])
        procs = Procs()
        took: list[float] = []
        try:
            for node in (1, 2, 3):
                procs.start(config, node, env=env)
            view = procs.wait_agreement([1, 2, 3])
            for _ in range(kills):
                if view is None:
                    raise RuntimeError("no agreement within 20 s")
                leader = view[0]
                killed = time.monotonic()
                procs.kill(leader)
                lease = procs.first_lease(killed)
                if lease is None:
                    raise RuntimeError("no new lease within 20 s")
                mono = min(
                    e["mono"]
                    for p in procs.current.values()
                    for e in p.events
                    if e["event"] == "lease" and e["mono"] >= killed
                )
                took.append(mono - killed)
                procs.start(config, leader, env=env)
                view = procs.wait_agreement([1, 2, 3])
        finally:
            procs.close()
        return statistics.median(took)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="restart,service,split,clock", help="scenarios")
    parser.add_argument("--kills", type=int, default=15, help="single kills before a restart")
    parser.add_argument("--window", type=float, default=3.0, help="s to watch for a 2nd leader")
    parser.add_argument("--failover", metavar="OLD", help="compare failover with checkout OLD")
    parser.add_argument("--runs", type=int, default=3, help="--failover: rounds per side")
    args = parser.parse_args()
    if args.failover is not None:
        from _compare import Side, compare

        old = {"PYTHONPATH": str(Path(args.failover).resolve())}
        new = {"PYTHONPATH": str(ROOT)}
        sides = [
            Side("before", lambda: failover_median(old)),
            Side("now", lambda: failover_median(new)),
        ]
        compare("failover: SIGKILL of the leader → the next lease", sides, runs=args.runs)
        return 0
    found = subprocess.run(
        [sys.executable, "-c", "import ringleader; print(ringleader.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    print(f"ringleader from {found.stdout.strip()}", flush=True)

    def say(line: str) -> None:
        print(line, flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        os.environ["XDG_STATE_HOME"] = str(workdir / "state")
        os.environ.setdefault("XDG_RUNTIME_DIR", str(workdir / "runtime"))
        for scenario in args.only.split(","):
            if scenario == "restart":
                restart(workdir, say, args.kills)
            elif scenario == "service":
                service(workdir, say)
            elif scenario == "split":
                split(workdir, say, args.window)
            elif scenario == "clock":
                clock(workdir, say, args.window)
            else:
                parser.error(f"no scenario {scenario!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
