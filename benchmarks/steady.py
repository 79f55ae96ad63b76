"""How steady is the leader?  The scenarios of issue 20, as a service sees them.

    sudo python benchmarks/steady.py                       # every scenario, quorum on
    sudo python benchmarks/steady.py --quorum off          # the same without a majority
    sudo python benchmarks/steady.py --only followers_cut,resign --trials 10

Five hosts made of Linux network namespaces (``tests/namespaces.py``'s ``Lab``: root
only), one ``ringleader.Node`` process per host (``benchmarks/_steady_node.py``: Bully on
a full mesh, the default detector settings) whose callbacks and ``is_leader`` are
timestamped on the machine's monotonic clock.  A link is cut by pulling the host's cable
at the switch.  For each scenario it prints the leadership losses (``on_lost`` calls),
the elections won (``on_elected`` calls), and how long no process had ``is_leader``:

- ``followers_cut``: nodes 1, 2 cut off 1 s, then 3 s; node 3 cut off 3 s (the leader
  keeps its majority throughout);
- ``flapping``: node 3's link down 0.4 s of every second for 10 s;
- ``restart_top``: the top node killed, the others agree, then it restarts;
- ``partition_heal``: the leader cut off 2 s, the others elect, then it comes back;
- ``rolling_restart``: every node stopped (SIGTERM) and restarted, one after another;
- ``leader_cut``: the leader cut off: when its ``is_leader`` turns false, when its
  ``on_lost`` runs and when the next leader's ``on_elected`` runs (ms after the cut);
- ``resign``: ``Node.resign()`` on the leader → the next ``on_elected`` (ms);
- ``transfer``: ``Node.resign(to=1)`` → node 1's ``on_elected`` (ms; newer code only);
- ``kill``: SIGKILL of the leader → the survivors name the next (``on_leader_change``)
  and its ``is_leader`` turns true (ms), and what ``ringleader_failover_seconds``
  recorded for it.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.namespaces import IP, ORPHAN_GUARD, PORT, Lab, unavailable

DRIVER = Path(__file__).resolve().parent / "_steady_node.py"
IDS = [1, 2, 3, 4, 5]
Event = dict[str, Any]


class Service:
    """One ``_steady_node.py`` process on a lab host: its lines, its stdin."""

    def __init__(self, lab: Lab, config: Path, node: int) -> None:
        assert IP is not None
        self.node = node
        command = [IP, "netns", "exec", lab.hosts[node], *ORPHAN_GUARD]
        command += [sys.executable, str(DRIVER), str(config), str(node)]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.events: list[Event] = []
        self._queue: queue.SimpleQueue[Event | None] = queue.SimpleQueue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with suppress(ValueError):
                self._queue.put(json.loads(line))
        self._queue.put(None)

    def drain(self) -> list[Event]:
        while True:
            try:
                event = self._queue.get_nowait()
            except queue.Empty:
                return self.events
            if event is None:
                self._queue.put(None)
                return self.events
            self.events.append(event)

    def wait_for(self, match: Callable[[Event], bool], timeout: float = 15.0) -> Event | None:
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            events = self.drain()
            for event in events[seen:]:
                if match(event):
                    return event
            seen = len(events)
            time.sleep(0.005)
        return None

    def command(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def view(self) -> tuple[int | None, int] | None:
        views = [e for e in self.drain() if e.get("cb") == "leader"]
        return (views[-1]["leader"], views[-1]["epoch"]) if views else None

    def leading(self) -> bool:
        flips = [e for e in self.drain() if e.get("cb") == "is_leader"]
        return bool(flips and flips[-1]["value"])

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def terminate(self) -> None:
        if self.process.poll() is None:
            try:
                self.command("stop")
                self.process.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()


class Cluster:
    def __init__(self, lab: Lab, config: Path) -> None:
        self.lab = lab
        self.config = config
        self.current: dict[int, Service] = {}
        self.history: list[Service] = []
        self.ended: dict[int, float] = {}  # id(service) → when it was killed

    def start(self, node: int) -> Service:
        service = Service(self.lab, self.config, node)
        self.current[node] = service
        self.history.append(service)
        return service

    def events(self, since: float, until: float = float("inf")) -> list[Event]:
        found = [e for s in self.history for e in s.drain() if since <= e["mono"] <= until]
        return sorted(found, key=lambda e: e["mono"])

    def count(self, cb: str, since: float, until: float = float("inf")) -> int:
        return sum(1 for e in self.events(since, until) if e.get("cb") == cb)

    def losses(self, since: float, until: float = float("inf")) -> list[str]:
        """Each ``on_lost`` in the window: ``node:reason``."""
        return [
            f"{e['node']}:{e['reason']}" for e in self.events(since, until) if e.get("cb") == "lost"
        ]

    def leaderless(self, since: float, until: float) -> float:
        """Seconds within [since, until] when no process reported ``is_leader``."""
        flips = sorted(
            (e["mono"], id(s), bool(e.get("value")))
            for s in self.history
            for e in s.drain()
            if e.get("cb") in ("is_leader", "stopped")
        )
        flips += [(at, who, False) for who, at in self.ended.items()]
        flips.sort()
        leading: set[int] = set()
        gap, last = 0.0, since
        for at, who, value in flips:
            if at > until:
                break
            if at >= since and not leading:
                gap += at - last
            last = max(at, since)
            if value:
                leading.add(who)
            else:
                leading.discard(who)
        if not leading:
            gap += until - last
        return gap

    def stable(self, timeout: float = 20.0) -> int | None:
        """Wait until every running node names one leader in one epoch and that leader's
        ``is_leader`` is true; its id."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            views = {s.view() for s in self.current.values()}
            if len(views) == 1:
                view = views.pop()
                if view is not None and view[0] in self.current and self.current[view[0]].leading():
                    return view[0]
            time.sleep(0.01)
        return None

    def kill(self, node: int) -> None:
        service = self.current.pop(node)
        self.ended[id(service)] = time.monotonic()
        service.kill()

    def stop_all(self) -> None:
        for service in self.current.values():
            service.kill()


def config_text(lab: Lab, quorum: bool, secret: Path) -> str:
    text = 'topology = "full_mesh"\nalgorithm = "bully"\n'
    text += f'quorum = {str(quorum).lower()}\nsecret_file = "{secret}"\n'
    for node in IDS:
        text += f'\n[[nodes]]\nid = {node}\naddress = "tcp://{lab.address(node)}:{PORT}"\n'
    return text


@contextmanager
def cluster(quorum: bool, workdir: Path) -> Iterator[Cluster]:
    lab = Lab(len(IDS))
    lab.build()
    running: Cluster | None = None
    try:
        keys = workdir / "keys"
        subprocess.run(
            [sys.executable, "-m", "ringleader", "keys", str(keys)], check=True, capture_output=True
        )
        config = workdir / "steady.toml"
        config.write_text(config_text(lab, quorum, keys / "secret"), encoding="utf-8")
        running = Cluster(lab, config)
        for node in IDS:
            running.start(node)
        if running.stable(30.0) is None:
            raise RuntimeError("no first leader within 30 s")
        yield running
    finally:
        if running is not None:
            running.stop_all()
        lab.destroy()


def quiet(seconds: float) -> None:
    time.sleep(seconds)


# -- the scenarios ----------------------------------------------------------------------


def _cut(c: Cluster, hosts: list[int], seconds: float) -> dict[str, Any]:
    before = c.stable()
    epoch0 = c.current[1].view()
    t0 = time.monotonic()
    for host in hosts:
        c.lab.cable(host, up=False)
    quiet(seconds)
    for host in hosts:
        c.lab.cable(host, up=True)
    healed = time.monotonic()
    # TCP's retransmission timer backed off during the cut: what waited gets through up to
    # a few seconds later (before that, a cut node still misses its leader).
    quiet(6.0)
    after = c.stable()
    t1 = time.monotonic()
    return {
        "cut": hosts,
        "seconds": seconds,
        "losses": c.count("lost", t0, t1),
        "elected": c.count("elected", t0, t1),
        "losses_after_heal": c.count("lost", healed, t1),
        "why": c.losses(t0, t1),
        "leaderless_ms": round(c.leaderless(t0, t1) * 1000),
        "leader": (before, after),
        "epoch": (epoch0 and epoch0[1], (c.current[1].view() or (0, 0))[1]),
    }


def followers_cut(c: Cluster, trials: int) -> list[dict[str, Any]]:
    leader = c.stable()
    followers = [n for n in IDS if n != leader]
    return [
        _cut(c, followers[:2], 1.0),
        _cut(c, followers[:2], 3.0),
        _cut(c, [followers[2]], 3.0),
    ]


def flapping(c: Cluster, trials: int) -> list[dict[str, Any]]:
    leader = c.stable()
    node = [n for n in IDS if n != leader][2]
    t0 = time.monotonic()
    for _ in range(10):
        c.lab.cable(node, up=False)
        quiet(0.4)
        c.lab.cable(node, up=True)
        quiet(0.6)
    quiet(2.0)
    t1 = time.monotonic()
    return [
        {
            "flapping": node,
            "losses": c.count("lost", t0, t1),
            "why": c.losses(t0, t1),
            "elected": c.count("elected", t0, t1),
            "leaderless_ms": round(c.leaderless(t0, t1) * 1000),
        }
    ]


def restart_top(c: Cluster, trials: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(trials):
        top = max(IDS)
        c.kill(top)
        c.stable()
        quiet(1.0)
        t0 = time.monotonic()
        c.start(top)
        c.current[top].wait_for(lambda e: e.get("cb") == "ready")
        quiet(3.0)
        c.stable()
        t1 = time.monotonic()
        rows.append(
            {
                "losses_after_restart": c.count("lost", t0, t1),
                "elected": c.count("elected", t0, t1),
                "leaderless_ms": round(c.leaderless(t0, t1) * 1000),
                "leader": c.stable(),
            }
        )
    return rows


def partition_heal(c: Cluster, trials: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(trials):
        leader = c.stable()
        assert leader is not None
        c.lab.cable(leader, up=False)
        quiet(2.0)
        t0 = time.monotonic()
        c.lab.cable(leader, up=True)
        quiet(3.0)
        c.stable()
        t1 = time.monotonic()
        rows.append(
            {
                "isolated": leader,
                "losses_after_heal": c.count("lost", t0, t1),
                "elected_after_heal": c.count("elected", t0, t1),
                "leaderless_after_heal_ms": round(c.leaderless(t0, t1) * 1000),
                "leader": c.stable(),
            }
        )
    return rows


def rolling_restart(c: Cluster, trials: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(trials):
        c.stable()
        t0 = time.monotonic()
        for node in IDS:
            c.current[node].terminate()
            del c.current[node]
            c.stable()
            c.start(node).wait_for(lambda e: e.get("cb") == "ready")
            quiet(1.0)
            c.stable()
        quiet(1.0)
        t1 = time.monotonic()
        rows.append(
            {
                "losses": c.count("lost", t0, t1),
                "elected": c.count("elected", t0, t1),
                "leaderless_ms": round(c.leaderless(t0, t1) * 1000),
                "why": c.losses(t0, t1),
            }
        )
    return rows


def leader_cut(c: Cluster, trials: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(trials):
        leader = c.stable()
        assert leader is not None
        t0 = time.monotonic()
        c.lab.cable(leader, up=False)
        quiet(2.0)
        events = c.events(t0)
        mine = [e for e in events if e["node"] == leader]
        others = [e for e in events if e["node"] != leader]
        false_at = next((e["mono"] for e in mine if e.get("cb") == "is_leader"), None)
        lost_at = next((e["mono"] for e in mine if e.get("cb") == "lost"), None)
        elected = next((e for e in others if e.get("cb") == "elected"), None)

        def ms(at: float | None, t0: float = t0) -> int | None:
            return None if at is None else round((at - t0) * 1000)

        rows.append(
            {
                "leader": leader,
                "is_leader_false_ms": ms(false_at),
                "on_lost_ms": ms(lost_at),
                "next_on_elected_ms": ms(elected and elected["mono"]),
                "next": elected and elected["node"],
                "lost_before_elected": None
                if lost_at is None or elected is None
                else lost_at < elected["mono"],
            }
        )
        c.lab.cable(leader, up=True)
        quiet(2.0)
        c.stable()
    return rows


def resign(c: Cluster, trials: int, to: int | None = None) -> list[dict[str, Any]]:
    rows = []
    for _ in range(trials):
        leader = c.stable()
        assert leader is not None
        target = to if to != leader else 2
        t0 = time.monotonic()
        c.current[leader].command("resign" if to is None else f"resign {target}")
        quiet(2.0)
        events = c.events(t0)
        refused = [e for e in events if e.get("cb") == "refused"]
        elected = next((e for e in events if e.get("cb") == "elected"), None)
        rows.append(
            {
                "from": leader,
                "to": elected and elected["node"],
                "next_on_elected_ms": elected and round((elected["mono"] - t0) * 1000),
                "refused": refused[0]["reason"] if refused else None,
            }
        )
        c.stable()
        quiet(1.0)
    return rows


def transfer(c: Cluster, trials: int) -> list[dict[str, Any]]:
    return resign(c, trials, to=1)


def kill(c: Cluster, trials: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(trials):
        leader = c.stable()
        assert leader is not None
        for service in c.current.values():
            service.command("metrics")
        quiet(0.3)
        before = {
            n: [e for e in s.drain() if e.get("cb") == "metrics"][-1] for n, s in c.current.items()
        }
        t0 = time.monotonic()
        c.kill(leader)
        new = c.stable()
        quiet(0.5)
        events = c.events(t0)
        named = [
            e["mono"] - t0
            for e in events
            if e.get("cb") == "leader" and e["leader"] == new and e["node"] != new
        ]
        leads = next(
            (e["mono"] - t0 for e in events if e.get("cb") == "is_leader" and e["value"]), None
        )
        for service in c.current.values():
            service.command("metrics")
        quiet(0.3)
        recorded = []
        for n, s in c.current.items():
            after = [e for e in s.drain() if e.get("cb") == "metrics"][-1]
            count = after["count"] - before[n]["count"]
            if count:
                recorded.append((after["sum"] - before[n]["sum"]) / count)
        rows.append(
            {
                "killed": leader,
                "new": new,
                "survivors_name_it_ms": [round(x * 1000, 1) for x in sorted(named)],
                "is_leader_ms": leads and round(leads * 1000, 1),
                "histogram_ms": [round(x * 1000, 1) for x in recorded],
            }
        )
        c.start(leader).wait_for(lambda e: e.get("cb") == "ready")
        quiet(1.5)
        c.stable()
    return rows


SCENARIOS: dict[str, Callable[[Cluster, int], list[dict[str, Any]]]] = {
    "followers_cut": followers_cut,
    "flapping": flapping,
    "restart_top": restart_top,
    "partition_heal": partition_heal,
    "rolling_restart": rolling_restart,
    "leader_cut": leader_cut,
    "resign": resign,
    "transfer": transfer,
    "kill": kill,
}


def _summary(name: str, rows: list[dict[str, Any]]) -> str:
    def med(key: str) -> str:
        values = [r[key] for r in rows if isinstance(r.get(key), int | float)]
        if not values:
            return "-"
        return f"{statistics.median(values):g} ({min(values):g}–{max(values):g})"

    keys = sorted({k for r in rows for k, v in r.items() if isinstance(v, int | float)})
    return f"{name}: " + ", ".join(f"{k} {med(k)}" for k in keys if not isinstance(k, bool))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quorum", choices=["on", "off"], default="on")
    parser.add_argument("--only", default=",".join(SCENARIOS), help="scenarios, comma-separated")
    parser.add_argument("--trials", type=int, default=4, help="trials where a scenario repeats")
    args = parser.parse_args()
    reason = unavailable()
    if reason is not None:
        print(f"cannot run: {reason}")
        return 2
    print(f"load before: {os.getloadavg()[0]:.1f}; quorum {args.quorum}", flush=True)
    for name in args.only.split(","):
        with tempfile.TemporaryDirectory() as tmp, cluster(args.quorum == "on", Path(tmp)) as c:
            try:
                rows = SCENARIOS[name](c, args.trials)
            except Exception as exc:  # noqa: BLE001 -- one scenario's failure is reported
                print(f"{name}: failed: {exc!r}", flush=True)
                continue
        for row in rows:
            print(f"  {name}: {json.dumps(row)}", flush=True)
        print(_summary(name, rows), flush=True)
    print(f"load after: {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
