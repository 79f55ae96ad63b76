"""A chaos harness: ``ringleader node`` processes under seeded random faults.

:func:`run_chaos` starts one ``ringleader node --json`` process per node (tcp, fixed free
ports, so that a restarted node binds its address again), then, until its time is up,
draws one fault after another from a seeded :class:`random.Random`:

- ``kill``: SIGKILL of a random node (the leader half of the time), restarted 0.2–1 s
  later;
- ``pause``: SIGSTOP of the leader for 0.2–3 s, then SIGCONT;
- ``kill in election``: SIGKILL of the leader and, 5–40 ms later (while the survivors
  elect), of the highest live node, both restarted 0.2–1 s later;
- ``full restart``: every node stopped at once (SIGTERM, or SIGKILL half of the time),
  then started again: the first lease after it must be in an epoch above every epoch
  any node reported before (each node keeps its highest epoch in its state file);
- ``wrong member list``: a follower restarted with a config that lists one node more
  (a cluster of its own), for 1–2 s, then with the right one again: the others go on
  agreeing without it, and it never holds a lease;
- ``flap`` (with ``hosts``: each node on a host of its own, Linux network namespaces,
  root only): a random follower's link down 0.4 s of every second, for 2–4 s;

and after each fault is undone, a quiet spell: every running node must agree on one
running leader in one epoch within :attr:`ChaosSettings.agree_within` s (2 s).  At the
end, SIGCONT/SIGTERM to every node right after a pause: each must exit within a second.

What it checks, from the nodes' ``--json`` lines (``mono`` is the machine's monotonic
clock, comparable across its processes, and the harness's own ``time.monotonic()``):

- no epoch with two leaders (``leader`` lines with state ``leader`` from two nodes; a
  process with the wrong member list, a cluster of its own, is left out);
- the fencing token only grows: every ``lease`` line's epoch is above the epoch of every
  ``lease`` line before it (in ``mono`` order, all processes together; the same leader
  may hold its round's lease again, with no other lease between), and the first
  lease after a full restart is above every epoch reported before it;
- a process with the wrong member list never holds a lease;
- no instant with two processes that report ``is_leader`` (with ``lease=True``, a
  process leads from a ``lease`` line until its next ``lost`` line, or its SIGKILL or
  exit; without, from a ``leader`` line with state ``leader`` until the next change):
  measured always (:attr:`ChaosResult.overlaps`), asserted only with ``lease=True``
  (without a lease a paused leader still believes it leads while the others have
  elected another);
- agreement within 2 s of every quiet spell; every node exiting on SIGTERM within 1 s;
  no traceback on any node's stderr.

It also counts the leader changes each fault cost (leases granted to a node other than
the leader before it, from the fault to the agreement after it): a steady leader changes
once per fault on the leader and never for a fault elsewhere.

Everything has a deadline, and every process is killed in ``finally``.
"""

from __future__ import annotations

import itertools
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import eventually, let_pass
from tests.namespaces import PORT, Lab, unavailable
from tests.nodes import (
    NodeProcess,
    free_ports,
    leading_intervals,
    overlaps,
    reported_epoch,
    write_config,
)

Event = dict[str, Any]

#: (topology, algorithm) per name the test and the benchmark use.
CLUSTERS = {
    "bully": ("full_mesh", "bully"),
    "ring": ("unidirectional_ring", "chang_roberts"),
    "two-way ring": ("bidirectional_ring", "hirschberg_sinclair"),
}


@dataclass(frozen=True)
class ChaosSettings:
    cluster: str = "bully"
    seed: int = 1
    duration: float = 20.0  # s of faults (the run takes a little longer)
    nodes: int = 5
    lease: bool = False  # assert no two processes report is_leader at one instant
    agree_within: float = 2.0
    exit_within: float = 1.0
    heartbeat: float = 0.05
    suspect_after: float = 0.3
    fast_failover: bool = True
    # A round that stalls (its messages died with a node killed during it) starts again
    # after this: under the quiet spell's 2 s, so that a stalled round cannot outlast it.
    reelect_after: float = 0.8
    #: The faults drawn from (each as likely); ``flap`` needs ``hosts``.
    faults: tuple[str, ...] = (
        "kill",
        "pause",
        "kill in election",
        "full restart",
        "wrong member list",
    )
    #: Each node on a host of its own (network namespaces: root only), for ``flap``.
    hosts: bool = False
    #: Go on past ``duration`` (up to three times it) until each kind of fault was drawn
    #: once: a loaded machine fits fewer faults in the time.
    each_kind: bool = False
    quorum: bool = True  # (the service modes' default)


@dataclass
class ChaosResult:
    settings: ChaosSettings
    faults: list[str] = field(default_factory=list)
    failovers: list[float] = field(default_factory=list)  # s: leader killed → agreement
    takeovers: list[float] = field(default_factory=list)  # s: leader paused → agreement
    agreements: list[float] = field(default_factory=list)  # s: fault undone → agreement
    problems: list[str] = field(default_factory=list)  # what failed (always asserted)
    two_leader_epochs: dict[int, set[int]] = field(default_factory=dict)
    overlaps: list[tuple[int, int, float]] = field(default_factory=list)  # a, b, seconds
    exits: list[float] = field(default_factory=list)  # s from SIGTERM to exit
    restarts: list[tuple[int, int]] = field(default_factory=list)  # (epoch before, after)
    handed_back: list[str] = field(default_factory=list)  # leases not above the last one
    drawn: set[str] = field(default_factory=set)  # the kinds of fault drawn
    #: Each fault's kind → the leader changes each such fault cost.
    changes: dict[str, list[int]] = field(default_factory=dict)

    def failures(self) -> list[str]:
        """Everything the run must not show (overlaps only with the lease on)."""
        found = list(self.problems)
        if self.two_leader_epochs:
            found.append(f"epochs with two leaders: {self.two_leader_epochs}")
        if self.settings.lease and self.overlaps:
            found.append(f"two processes leading at once: {self.overlaps}")
        found += self.handed_back
        return found


class _Cluster:
    """The running processes (one per node id) and every process that ever ran; with a
    ``lab``, each node runs on its host there."""

    def __init__(self, config: Path, ids: list[int], wrong: Path, lab: Any = None) -> None:
        self.config = config
        self.wrong = wrong  # the config with one node too many
        self.ids = ids
        self.lab = lab
        self.current: dict[int, NodeProcess] = {}
        self.history: list[NodeProcess] = []
        self.ended: dict[int, float] = {}  # id(process) → when it was killed or exited
        self.paused: set[int] = set()
        self.misfits: set[int] = set()  # nodes running the wrong config now
        self.misfit_processes: set[int] = set()  # id() of every process that ran it

    def start(self, node: int, *, wrong: bool = False) -> None:
        path = self.wrong if wrong else self.config
        process = self.lab.start(path, node) if self.lab is not None else NodeProcess(path, node)
        self.current[node] = process
        self.history.append(process)
        if wrong:
            self.misfits.add(node)
            self.misfit_processes.add(id(process))
        else:
            self.misfits.discard(node)

    def leases(self, since: float) -> list[tuple[float, int]]:
        """Every lease granted after ``since``: (when, node), in order."""
        found = [
            (e["mono"], p.node)
            for p in self.history
            for e in p.drain()
            if e["event"] == "lease" and e["mono"] >= since
        ]
        return sorted(found)

    def kill(self, node: int) -> None:
        process = self.current.pop(node)
        self.ended[id(process)] = time.monotonic()
        process.kill()

    def signal(self, node: int, sig: signal.Signals) -> None:
        process = self.current[node].process
        if process.poll() is None:
            process.send_signal(sig)

    def running(self) -> list[int]:
        """The running members of the cluster (not paused, not misconfigured)."""
        return sorted(n for n in self.current if n not in self.paused | self.misfits)

    def reported(self) -> int:
        """The highest epoch any process of the cluster ever reported."""
        return reported_epoch(p for p in self.history if id(p) not in self.misfit_processes)

    def view(self, node: int) -> tuple[int | None, int] | None:
        return self.current[node].leader()

    def agreed(self, among: list[int], without: set[int] = frozenset()) -> int | None:  # type: ignore[assignment]
        """The leader all of ``among`` name in one epoch, if it is one of them."""
        views = {self.view(n) for n in among}
        if len(views) != 1:
            return None
        view = views.pop()
        if view is None or view[0] is None or view[0] not in among or view[0] in without:
            return None
        return view[0]

    def wait_agreement(self, timeout: float, without: set[int] = frozenset()) -> float | None:  # type: ignore[assignment]
        """Seconds until the running nodes agree (``None``: not within ``timeout``)."""
        start = time.monotonic()
        if eventually(lambda: self.agreed(self.running(), without) is not None, timeout):
            return time.monotonic() - start
        return None

    def wait_ready(self, node: int, timeout: float = 15.0) -> None:
        self.current[node].wait_for(lambda e: e["event"] == "ready", timeout)

    def leader(self) -> int | None:
        return self.agreed(self.running())


def _check(cluster: _Cluster, result: ChaosResult, now: float) -> None:
    by_epoch: dict[int, set[int]] = {}
    spans: list[tuple[int, float, float]] = []
    leases: list[tuple[float, int, int]] = []
    for process in cluster.history:
        events = process.drain()
        misfit = id(process) in cluster.misfit_processes
        for event in events:
            if event["event"] == "leader" and event.get("state") == "leader" and not misfit:
                by_epoch.setdefault(event["epoch"], set()).add(process.node)
            if event["event"] == "lease":
                leases.append((event["mono"], process.node, event["epoch"]))
                if misfit:
                    result.problems.append(
                        f"node {process.node}, with the wrong member list, held a lease "
                        f"in epoch {event['epoch']}"
                    )
            if event["event"] == "unparsable":
                result.problems.append(f"node {process.node} printed {event['line']!r}")
        end = cluster.ended.get(id(process), now)
        intervals = leading_intervals(process, end, lease=result.settings.lease)
        spans += [(process.node, a, b) for a, b in intervals]
        if "Traceback" in process.stderr:
            result.problems.append(f"node {process.node}: {process.stderr[-1500:]}")
    result.two_leader_epochs = {e: n for e, n in by_epoch.items() if len(n) > 1}
    result.overlaps = overlaps(spans)
    leases.sort()
    for (_, a, before), (_, b, epoch) in itertools.pairwise(leases):
        # The same leader may hold its round's lease again (the steady rules: its lease ran
        # out, a majority answered again); any other lease must be in a newer epoch.
        if epoch < before or (epoch == before and a != b):
            result.handed_back.append(
                f"node {b}'s lease in epoch {epoch} came after node {a}'s in epoch {before}"
            )


def hosts_unavailable() -> str | None:
    """Why nodes cannot run on hosts of their own here (``None``: they can)."""
    return unavailable()


def _hosts_config(lab: Any, body: str, ids: Sequence[int], workdir: Path) -> Path:
    """``body`` with every node at its host's address, and a cluster secret."""
    keys = workdir / "keys"
    subprocess.run(
        [sys.executable, "-m", "ringleader", "keys", str(keys)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    text = body + f'secret_file = "{keys / "secret"}"\n'
    for node in ids:
        text += f'\n[[nodes]]\nid = {node}\naddress = "tcp://{lab.address(node)}:{PORT}"\n'
    config = workdir / "chaos-hosts.toml"
    config.write_text(text, encoding="utf-8")
    return config


def run_chaos(settings: ChaosSettings, workdir: Path) -> ChaosResult:
    """Run the chaos of ``settings`` in ``workdir``; every process is gone afterwards."""
    topology, algorithm = CLUSTERS[settings.cluster]
    ids = list(range(1, settings.nodes + 1))
    body = (
        f'topology = "{topology}"\nalgorithm = "{algorithm}"\ntransport = "tcp"\n'
        f"heartbeat = {settings.heartbeat}\nsuspect_after = {settings.suspect_after}\n"
        f"reelect_after = {settings.reelect_after}\n"
        f"fast_failover = {str(settings.fast_failover).lower()}\n"
        f'state_dir = "{workdir / "state"}"\n'  # each node's highest epoch, for this run only
        f"quorum = {str(settings.quorum).lower()}\n"
    )
    if not settings.hosts:
        config = write_config(workdir / f"chaos-{settings.seed}.toml", body, ids)
        return _run(settings, _Cluster(config, ids, _wrong(config, workdir, settings)))
    lab = Lab(len(ids))
    try:
        lab.build()
        config = _hosts_config(lab, body, ids, workdir)
        return _run(settings, _Cluster(config, ids, _wrong(config, workdir, settings), lab))
    finally:
        lab.destroy()


def _wrong(config: Path, workdir: Path, settings: ChaosSettings) -> Path:
    """``config`` with one node too many (for ``wrong member list``)."""
    wrong = workdir / f"chaos-{settings.seed}-wrong.toml"
    extra = (
        f'\n[[nodes]]\nid = {settings.nodes + 1}\naddress = "tcp://127.0.0.1:{free_ports(1)[0]}"\n'
    )
    wrong.write_text(config.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return wrong


def _run(settings: ChaosSettings, cluster: _Cluster) -> ChaosResult:
    rng = random.Random(settings.seed)
    ids = cluster.ids
    result = ChaosResult(settings)
    try:
        for node in sorted(ids, reverse=True):  # the top first: it leads the first round
            cluster.start(node)
        for node in ids:
            cluster.wait_ready(node)
        if cluster.wait_agreement(15.0) is None:
            result.problems.append("no first agreement within 15 s")
            return result
        began = time.monotonic()
        stop_at, last = began + settings.duration, began + 3 * settings.duration

        def more() -> bool:
            now = time.monotonic()
            missing = settings.each_kind and not set(settings.faults) <= result.drawn
            return now < stop_at or (missing and now < last)

        while more() and not result.problems:
            _one_fault(cluster, rng, result)
        _terminate(cluster, rng, result)
        _check(cluster, result, time.monotonic())
        return result
    finally:
        for process in cluster.current.values():
            if process.process.poll() is None:
                process.process.send_signal(signal.SIGCONT)
            process.kill()


def _one_fault(cluster: _Cluster, rng: random.Random, result: ChaosResult) -> None:
    leader = cluster.leader()
    faults = result.settings.faults
    kind = rng.choice([f for f in faults if f != "flap" or cluster.lab is not None])
    result.drawn.add(kind)
    began = time.monotonic()
    if kind == "full restart":
        _full_restart(cluster, rng, result)
    elif leader is None or kind == "kill":
        _kill(cluster, rng, result, leader)
    elif kind == "pause":
        _pause(cluster, rng, result, leader)
    elif kind == "wrong member list":
        _wrong_member_list(cluster, rng, result, leader)
    elif kind == "flap":
        _flap(cluster, rng, result, leader)
    else:
        _kill_in_election(cluster, rng, result, leader)
    settings = result.settings
    took = cluster.wait_agreement(settings.agree_within)
    if took is None:
        views = {n: cluster.view(n) for n in cluster.running()}
        result.problems.append(
            f"no agreement within {settings.agree_within} s after {result.faults[-1]}: {views}"
        )
    else:
        result.agreements.append(took)
    # The changes it cost: leases granted to another node than the one before.
    holders = [leader] + [node for _, node in cluster.leases(began)]
    changes = sum(1 for a, b in itertools.pairwise(holders) if a != b)
    fault = result.faults[-1]
    if fault.startswith("kill") and "election" not in fault:
        kind = "kill leader" if fault == f"kill {leader}" else "kill follower"
    elif fault.startswith("pause"):
        kind = "pause leader"
    elif kind == "flap":
        kind = "flap follower"
    result.changes.setdefault(kind, []).append(changes)


def _failover(cluster: _Cluster, result: ChaosResult, at: float, dead: list[int]) -> None:
    """Wait for the others to agree on a leader not in ``dead`` (killed at ``at``)."""
    within = result.settings.agree_within
    if cluster.wait_agreement(within, set(dead)) is None:
        result.problems.append(f"no failover within {within} s of killing {dead}")
    else:
        result.failovers.append(time.monotonic() - at)


def _kill(cluster: _Cluster, rng: random.Random, result: ChaosResult, leader: int | None) -> None:
    node = leader if leader is not None and rng.random() < 0.5 else rng.choice(cluster.ids)
    at = time.monotonic()
    cluster.kill(node)
    result.faults.append(f"kill {node}")
    if node == leader:
        _failover(cluster, result, at, [node])
    let_pass(rng.uniform(0.2, 1.0))  # the fault's own length, drawn
    cluster.start(node)
    cluster.wait_ready(node)


def _pause(cluster: _Cluster, rng: random.Random, result: ChaosResult, leader: int) -> None:
    pause = rng.uniform(0.2, 3.0)
    at = time.monotonic()
    cluster.signal(leader, signal.SIGSTOP)
    cluster.paused.add(leader)
    result.faults.append(f"pause {leader} {pause:.2f} s")
    # Only silence can tell: a failover if the pause outlasts suspect_after.
    if cluster.wait_agreement(min(pause, result.settings.agree_within), {leader}) is not None:
        result.takeovers.append(time.monotonic() - at)
    let_pass(at + pause - time.monotonic())
    cluster.signal(leader, signal.SIGCONT)
    cluster.paused.discard(leader)


def _flap(cluster: _Cluster, rng: random.Random, result: ChaosResult, leader: int) -> None:
    """A follower's link down 0.4 s of every second, for 2–4 s."""
    node = rng.choice([n for n in cluster.running() if n != leader])
    seconds = rng.randint(2, 4)
    result.faults.append(f"flap {node} {seconds} s")
    for _ in range(seconds):
        cluster.lab.cable(node, up=False)
        let_pass(0.4)  # the link's own down time
        cluster.lab.cable(node, up=True)
        let_pass(0.6)


def _kill_in_election(
    cluster: _Cluster, rng: random.Random, result: ChaosResult, leader: int
) -> None:
    at = time.monotonic()
    cluster.kill(leader)
    let_pass(rng.uniform(0.005, 0.04))  # the second kill comes while the survivors elect
    second = max(cluster.current)  # the likely winner
    cluster.kill(second)
    hit = [leader, second]
    result.faults.append(f"kill {leader}, then {second} in the election")
    _failover(cluster, result, at, hit)
    let_pass(rng.uniform(0.2, 1.0))  # the faults' own length, drawn
    for node in hit:
        cluster.start(node)
    for node in hit:
        cluster.wait_ready(node)


def _full_restart(cluster: _Cluster, rng: random.Random, result: ChaosResult) -> None:
    """Stop every node at once (SIGTERM, or SIGKILL), start them all again, and check the
    epoch of the first lease after it against every epoch reported before."""
    crash = rng.random() < 0.5
    before = cluster.reported()
    nodes = sorted(cluster.current)
    result.faults.append(f"full restart ({'SIGKILL' if crash else 'SIGTERM'})")
    for node in nodes:
        cluster.signal(node, signal.SIGKILL if crash else signal.SIGTERM)
    for node in nodes:
        process = cluster.current.pop(node)
        try:
            process.process.wait(10)
        except Exception:  # noqa: BLE001 -- a timeout: reported; killed just below
            result.problems.append(f"node {node} did not stop within 10 s")
        cluster.ended[id(process)] = time.monotonic()
        process.kill()
    since = time.monotonic()
    for node in nodes:
        cluster.start(node)
    for node in nodes:
        cluster.wait_ready(node)

    def first_lease() -> int | None:
        leases = [
            (e["mono"], e["epoch"])
            for p in cluster.current.values()
            for e in p.drain()
            if e["event"] == "lease" and e["mono"] >= since
        ]
        return min(leases)[1] if leases else None

    epoch = eventually(first_lease, 10.0)
    if epoch is None:
        result.problems.append("no lease within 10 s of a full restart")
        return
    result.restarts.append((before, epoch))
    if epoch <= before:
        result.problems.append(
            f"after a full restart the first lease is in epoch {epoch}, not above {before}"
        )


def _wrong_member_list(
    cluster: _Cluster, rng: random.Random, result: ChaosResult, leader: int
) -> None:
    """Restart a follower with a config that lists one node more for a while: a cluster
    of its own, which must never lead beside the others."""
    node = rng.choice([n for n in cluster.ids if n != leader])
    cluster.kill(node)
    cluster.start(node, wrong=True)
    result.faults.append(f"restart {node} with a member list of {len(cluster.ids) + 1}")
    cluster.wait_ready(node)
    let_pass(rng.uniform(1.0, 2.0))  # the fault's own length: time to lead, if it could
    if cluster.agreed(cluster.running()) is None:
        views = {n: cluster.view(n) for n in cluster.running()}
        result.problems.append(f"no agreement beside node {node}'s wrong member list: {views}")
    cluster.kill(node)
    cluster.start(node)
    cluster.wait_ready(node)


def _terminate(cluster: _Cluster, rng: random.Random, result: ChaosResult) -> None:
    """Pause a random node, then SIGCONT it and SIGTERM every node at once."""
    node = rng.choice(sorted(cluster.current))
    cluster.signal(node, signal.SIGSTOP)
    let_pass(rng.uniform(0.2, 0.5))  # the pause's own length
    cluster.signal(node, signal.SIGCONT)
    sent = time.monotonic()
    for n in sorted(cluster.current):
        cluster.signal(n, signal.SIGTERM)
    for n, process in sorted(cluster.current.items()):
        try:
            code = process.process.wait(max(0.0, sent + 10.0 - time.monotonic()))
        except Exception:  # noqa: BLE001 -- a timeout: reported, killed in finally
            result.problems.append(f"node {n} did not exit within 10 s of SIGTERM")
            continue
        took = time.monotonic() - sent
        result.exits.append(took)
        cluster.ended[id(process)] = time.monotonic()
        process.kill()  # reaps and closes its pipes
        if code != 0:
            result.problems.append(f"node {n} exited with {code} on SIGTERM")
        if took > result.settings.exit_within:
            result.problems.append(f"node {n} took {took:.2f} s to exit on SIGTERM")
    cluster.current.clear()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(result: ChaosResult) -> str:
    ms = [x * 1000 for x in result.failovers]
    paused = [x * 1000 for x in result.takeovers]
    overlap = sum(o[2] for o in result.overlaps)
    changes = ", ".join(
        f"{kind} {sum(counts) / len(counts):.1f} ({len(counts)})"
        for kind, counts in sorted(result.changes.items())
    )
    return (
        f"{result.settings.cluster}: {len(result.faults)} faults, "
        f"failover after a kill p50 {percentile(ms, 0.5):.0f} ms "
        f"p95 {percentile(ms, 0.95):.0f} ms ({len(ms)}), "
        f"after a pause p50 {percentile(paused, 0.5):.0f} ms ({len(paused)}), "
        f"epochs with two leaders {len(result.two_leader_epochs)}, "
        f"is_leader overlaps {len(result.overlaps)} ({overlap * 1000:.0f} ms in all), "
        f"full restarts (epoch before → first lease) {result.restarts}, "
        f"leases not above the last {len(result.handed_back)}, "
        f"slowest exit {max(result.exits, default=0.0):.2f} s; "
        f"leader changes per fault: {changes or 'none'}"
    )
