"""Raft failover with PySyncObj: SIGKILL the leader of a cluster, time the next leader.

    pip install -e '.[bench]'
    python -m benchmarks._raft --trials 20 --min-timeout 0.3

Each node is a PySyncObj ``SyncObj`` in an OS process of its own, on 127.0.0.1.  A child
polls its node's last known leader every millisecond and writes every change to its stdout
pipe, stamped with ``time.monotonic()`` taken in the child: CLOCK_MONOTONIC is one clock for
the whole machine on Linux, so the stamps compare with the parent's time of the kill.

A trial SIGKILLs the leader's process and measures ``total_s``, from just before the kill to
the first instant at which a majority of the cluster (``nodes // 2 + 1``, all of them
survivors) names one and the same new leader, and ``beyond_s = total_s - min_timeout``, the
part beyond the minimum election timeout, which no Raft failover can go below.  The killed
node is then started again at the same address, and the next trial waits until the whole
cluster is stable again (see ``_wait_stable``).

The settings (``_conf_options``) are the fastest that stay stable on loopback:

- ``raftMaxTimeout = 2 * raftMinTimeout`` by default (``max_ratio``): the Raft paper's
  150-300 ms.  The followers draw their timeouts from a window as wide as the minimum, so
  two of them rarely time out within one vote's latency (about a millisecond here) of each
  other and split the vote.  A narrower window is faster but splits more: at 0.1 s, a
  ratio of 1.2 split 2 votes in 20, where 1.5 and 2 split none in 60.
- ``appendEntriesPeriod = raftMinTimeout / 10``: the usual order of magnitude below the
  election timeout, so a late heartbeat never sets off an election (PySyncObj requires
  less than a third; down to 10 ms timeouts, 20 s of a steady cluster saw no election,
  even with three busy loops competing for the two cores).  A follower's timer starts at
  the last heartbeat, up to this period before the kill, so ``beyond_s`` can come out a
  little below zero, and a longer period would lower it by half the period on average.
- ``autoTickPeriod = 1 ms``: PySyncObj checks the election deadline only once per tick,
  and a follower whose leader is dead receives nothing that would wake it earlier; the
  default of 50 ms would add up to 50 ms to every failover.
- ``connectionTimeout = 1 hour``: PySyncObj drops a connection on which nothing was read
  for that long, checked only when the connection is next used.  Followers never talk to
  one another between elections, so with the default of 3.5 s the first vote request
  after a steady spell kills its own connection, and the vote is lost: the election takes
  a second timeout.  A dead peer is still seen at once, by the kernel closing its sockets
  (and by TCP keepalive, which PySyncObj turns on, when a peer goes silent).
- ``connectionRetryTime = raftMinTimeout / 2``: after a restart only the node with the
  larger address reconnects, at most once per this period (default 5 s).  A restarted
  node that has not heard from the leader times out and raises its term each timeout
  (PySyncObj has no pre-vote), so a slow reconnect lets its term pass the cluster's and
  depose a healthy leader; half a timeout keeps the rejoin quick.
"""

from __future__ import annotations

import argparse
import bisect
import ctypes
import importlib.util
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, NamedTuple, NoReturn

MISSING = "PySyncObj is not installed: pip install -e '.[bench]'"

HEARTBEATS_PER_TIMEOUT = 10  # raftMinTimeout / appendEntriesPeriod
TICK_S = 0.001  # PySyncObj's autoTickPeriod: how often a node checks its election deadline
POLL_S = 0.001  # how often a child reads its node's leader
DRAIN_S = 0.02  # after the parent sees a new leader, it reads this long for reports in flight
NO_LEADER = "-"

_PR_SET_PDEATHSIG = 1


class _Report(NamedTuple):
    """What a child wrote: its node's view at monotonic time ``at``."""

    at: float
    leader: str
    term: int
    connected: int


@dataclass
class _Node:
    """One child process and the reports it has written."""

    address: str
    process: subprocess.Popen[bytes]
    reports: list[_Report] = field(default_factory=list)
    pending: bytes = b""

    def latest(self) -> _Report | None:
        return self.reports[-1] if self.reports else None

    def at(self, moment: float) -> _Report | None:
        """The last report stamped no later than ``moment``."""
        index = bisect.bisect_right([r.at for r in self.reports], moment)
        return self.reports[index - 1] if index else None


def _conf_options(min_timeout: float, max_ratio: float) -> dict[str, float]:
    """The ``SyncObjConf`` settings for an election timeout window; the module says why."""
    return {
        "raftMinTimeout": min_timeout,
        "raftMaxTimeout": max_ratio * min_timeout,
        "appendEntriesPeriod": min_timeout / HEARTBEATS_PER_TIMEOUT,
        "autoTickPeriod": TICK_S,
        "connectionTimeout": 3600.0,
        "connectionRetryTime": min_timeout / 2,
    }


def _free_ports(count: int) -> list[int]:
    """Ports the OS calls free on 127.0.0.1, all held at once so that they differ."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


class _Cluster:
    """The child processes, by address, and the reading of their reports."""

    def __init__(self, addresses: Sequence[str], options: dict[str, float]) -> None:
        self.addresses = list(addresses)
        self.options = json.dumps(options)
        self.nodes: dict[str, _Node] = {}
        self.selector = selectors.DefaultSelector()

    def start(self, address: str) -> None:
        """Start the node at ``address`` in a new process (its own process group, so a
        Ctrl-C at the terminal reaches only the parent, which kills it)."""
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            address,
            ",".join(self.addresses),
            self.options,
            str(os.getpid()),
        ]
        # No KeyboardInterrupt between the fork and the bookkeeping that ``close`` relies on.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, process_group=0
            )
            self.nodes[address] = _Node(address, process)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        assert process.stdout is not None
        os.set_blocking(process.stdout.fileno(), False)
        self.selector.register(process.stdout, selectors.EVENT_READ, address)

    def kill(self, address: str) -> float:
        """SIGKILL the node's process and reap it; the monotonic time just before the kill."""
        node = self.nodes[address]
        moment = time.monotonic()
        node.process.kill()
        node.process.wait()
        del self.nodes[address]  # only now: ``close`` must see every child not yet reaped
        assert node.process.stdout is not None
        self.selector.unregister(node.process.stdout)
        node.process.stdout.close()
        return moment

    def close(self) -> None:
        """Kill every child still running and reap it."""
        for address in list(self.nodes):
            self.kill(address)
        self.selector.close()

    def pump(self, wait: float) -> bool:
        """Read the reports that arrive within ``wait`` s; whether there were any."""
        got = False
        for key, _ in self.selector.select(max(wait, 0.0)):
            node = self.nodes[key.data]
            stream: IO[bytes] = key.fileobj  # type: ignore[assignment]
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                code = node.process.wait()
                raise ChildProcessError(f"the Raft node at {node.address} exited with {code}")
            lines = (node.pending + chunk).split(b"\n")
            node.pending = lines.pop()
            for line in lines:
                at, leader, term, connected = line.decode().split()
                node.reports.append(_Report(float(at), leader, int(term), int(connected)))
                got = True
        return got

    def agreed_leader(self) -> str | None:
        """The leader every node names, if all name the same one and see all their peers."""
        latest = [node.latest() for node in self.nodes.values()]
        if len(latest) < len(self.addresses) or any(
            r is None or r.connected < len(self.addresses) - 1 for r in latest
        ):
            return None
        leaders = {r.leader for r in latest if r is not None}
        leader = leaders.pop()
        return None if leaders or leader == NO_LEADER else leader


def _wait_stable(cluster: _Cluster, settle: float, timeout: float) -> str:
    """Wait until every node names the same leader, sees all its peers, and nothing has
    changed for ``settle`` s (one maximum election timeout: long enough for any node that
    was about to start an election to have started it); the leader."""
    end = quiet_since = time.monotonic()
    end += timeout
    while time.monotonic() < end:
        if cluster.pump(POLL_S):
            quiet_since = time.monotonic()
        leader = cluster.agreed_leader()
        if leader is not None and time.monotonic() - quiet_since >= settle:
            return leader
    raise TimeoutError(f"the cluster was not stable within {timeout} s")


def _first_majority(
    cluster: _Cluster, killed: str, moment: float, quorum: int
) -> tuple[float, int] | None:
    """Replay the survivors' reports since ``moment`` in time order: the first time at which
    ``quorum`` of them name the same leader other than ``killed``, and that leader's term."""
    views = {address: node.at(moment) for address, node in cluster.nodes.items()}
    later = sorted(
        (report, address)
        for address, node in cluster.nodes.items()
        for report in node.reports
        if report.at > moment
    )
    for report, address in later:
        views[address] = report
        if report.leader in (NO_LEADER, killed):
            continue
        if sum(v is not None and v.leader == report.leader for v in views.values()) >= quorum:
            return report.at, report.term
    return None


def _failover(cluster: _Cluster, killed: str, moment: float, timeout: float) -> tuple[float, int]:
    """Wait until a majority of the survivors name a new leader: its time and term."""
    quorum = len(cluster.addresses) // 2 + 1
    end = moment + timeout
    while time.monotonic() < end:
        if cluster.pump(POLL_S) and _first_majority(cluster, killed, moment, quorum):
            drained = time.monotonic() + DRAIN_S
            while (left := drained - time.monotonic()) > 0:
                cluster.pump(left)
            found = _first_majority(cluster, killed, moment, quorum)
            assert found is not None  # more reports cannot undo a majority already seen
            return found
    raise TimeoutError(f"no new leader within {timeout} s of killing {killed}")


def raft_failover(
    trials: int,
    min_timeout: float,
    *,
    nodes: int = 5,
    timeout: float = 30.0,
    max_ratio: float = 2.0,
) -> list[dict[str, float]]:
    """Kill the leader of a ``nodes``-node PySyncObj cluster ``trials`` times.

    The nodes run in processes of their own on 127.0.0.1, with ``raftMinTimeout =
    min_timeout``, ``raftMaxTimeout = max_ratio * min_timeout`` and the other settings of
    ``_conf_options``.  Per trial: wait until the cluster is stable, SIGKILL the leader's
    process, wait until a majority names a new leader, then restart the killed node at its
    address.  Returns one dict per trial:
    ``total_s`` (kill → new leader known by a majority), ``beyond_s`` (``total_s -
    min_timeout``) and ``terms`` (how many terms the election took: 1 unless a vote split).
    Every wait (the first election, each failover, each rejoin) raises TimeoutError after
    ``timeout`` s.  Every child is killed on the way out, whatever the way; a child also
    dies with its parent, by PR_SET_PDEATHSIG.
    """
    if importlib.util.find_spec("pysyncobj") is None:
        raise RuntimeError(MISSING)
    if trials < 1 or nodes < 3 or min_timeout <= 0 or max_ratio <= 1:
        raise ValueError("need trials >= 1, nodes >= 3, min_timeout > 0 and max_ratio > 1")
    addresses = [f"127.0.0.1:{port}" for port in _free_ports(nodes)]
    cluster = _Cluster(addresses, _conf_options(min_timeout, max_ratio))
    settle = max_ratio * min_timeout
    results: list[dict[str, float]] = []
    try:
        for address in addresses:
            cluster.start(address)
        for _ in range(trials):
            leader = _wait_stable(cluster, settle, timeout)
            term = cluster.nodes[leader].reports[-1].term
            moment = cluster.kill(leader)
            elected, new_term = _failover(cluster, leader, moment, timeout)
            total = elected - moment
            results.append(
                {"total_s": total, "beyond_s": total - min_timeout, "terms": float(new_term - term)}
            )
            cluster.start(leader)
    finally:
        cluster.close()
    return results


def _die_with_parent(parent_pid: int) -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux), and exit now if
    the parent is already gone."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent_pid:
        os._exit(1)


def _child(address: str, peers: list[str], options: dict[str, float], parent_pid: int) -> NoReturn:
    """Run one node and report each change of its leader, term or connected peers."""
    _die_with_parent(parent_pid)
    from pysyncobj import SyncObj, SyncObjConf  # type: ignore[import-untyped]

    conf = SyncObjConf(bindAddress=address, **options)
    node = SyncObj(address, [p for p in peers if p != address], conf)
    others = node.otherNodes
    last = None
    while True:
        leader = node._getLeader()
        view = (
            NO_LEADER if leader is None else str(leader),
            node.raftCurrentTerm,
            sum(node.isNodeConnected(other) for other in others),
        )
        at = time.monotonic()
        if view != last:
            os.write(sys.stdout.fileno(), f"{at!r} {view[0]} {view[1]} {view[2]}\n".encode())
            last = view
        time.sleep(POLL_S)


def _quantile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0 … 1) by linear interpolation, as numpy's default."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print p50/p95 of ``total_s`` and ``beyond_s``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks._raft",
        description="Raft failover with PySyncObj: SIGKILL the leader, time the new leader.",
    )
    parser.add_argument("--trials", type=int, default=20, help="leader kills (default 20)")
    parser.add_argument(
        "--min-timeout", type=float, default=0.3, help="raftMinTimeout, s (default 0.3)"
    )
    parser.add_argument("--nodes", type=int, default=5, help="cluster size (default 5)")
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="limit on each wait, s (default 30)"
    )
    parser.add_argument(
        "--max-ratio", type=float, default=2.0, help="raftMaxTimeout / raftMinTimeout (default 2)"
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        address, peers, options, parent_pid = args.child
        _child(address, peers.split(","), json.loads(options), int(parent_pid))
    try:
        results = raft_failover(
            args.trials,
            args.min_timeout,
            nodes=args.nodes,
            timeout=args.timeout,
            max_ratio=args.max_ratio,
        )
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 1
    print(
        f"Raft (PySyncObj), {args.nodes} processes, {args.trials} leader kills, "
        f"raftMinTimeout {args.min_timeout} s, raftMaxTimeout {args.max_ratio} x that:"
    )
    for key in ("total_s", "beyond_s"):
        values = [r[key] for r in results]
        print(
            f"  {key:<9} p50 {_quantile(values, 0.5) * 1000:8.1f} ms"
            f"   p95 {_quantile(values, 0.95) * 1000:8.1f} ms"
            f"   max {max(values) * 1000:8.1f} ms"
        )
    split = sum(r["terms"] > 1 for r in results)
    print(f"  elections that took more than one term (split votes): {split}/{len(results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
