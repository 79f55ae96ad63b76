"""Side by side with etcd's election on this machine: failover, and a membership change.

    apt-get install -y etcd-server etcd-client   # Debian's etcd 3.4, etcd and etcdctl
    python benchmarks/etcd_side.py               # 5 cells, 5 runs a side, alternated
    python benchmarks/etcd_side.py --quick       # one run a side, a smoke run
    python benchmarks/etcd_side.py --only kill pause --runs 9

Both sides are 3 members on loopback, started afresh for every run in a temporary
directory with free ports, and run in turn (ringleader, etcd, ringleader, …: a machine
that gets busier slows both), ``--runs`` rounds; each cell prints its runs, the median
and min–max of each side, the ratio etcd/ringleader of each round, and the load before
and after (``benchmarks/_compare.py``).

**ringleader**: three ``ringleader node CONFIG --id N --json`` processes (Bully on a
full mesh over tcp, ``heartbeat = 0.05``, ``suspect_after = 0.3``: the settings of
``examples/service/cluster.toml``).  The leader is the node that prints ``lease``; a
failover ends at the first ``lease`` line of another node (its ``mono``: this machine's
monotonic clock, comparable with the benchmark's).

**etcd**: three ``etcd`` members (``--heartbeat-interval 10 --election-timeout 100``,
ms: ten times faster than etcd's defaults) and one campaigner per member
(``benchmarks/_etcd_campaigner.py``: etcd's election API, ``Campaign`` with a session
lease, as etcd's Go client does it).  The leader is the campaigner holding the election
key (the oldest key under the election's prefix); a failover ends when another
campaigner's ``Campaign`` returns.  The session lease's TTL is 1 s, the least etcd
grants (whole seconds; at least 1.5 election timeouts): a campaigner killed or paused
keeps the key until its lease expires, 1 s after its last renewal (renewed every third
of a second), and etcd's leader looks for expired leases every 500 ms: etcd's failover
is about 0.7 to 1.5 s plus the time to hand the key on, whatever its raft settings.
``etcdctl elect`` has no TTL flag (its session lasts 60 s), hence the campaigner.  In
cells 1 and 2 it is the campaigner that is killed or paused, not its member: the members
are the election's service, the campaigners its clients, and a client's crash is what
etcd's election has to survive.  Cell 5 loses the leader's whole machine: its campaigner
and its member, the raft leader, together.

The cells:

1. ``kill``: SIGKILL of the leader → another leads (holds a lease; holds the key).
2. ``pause``: SIGSTOP of the leader → another leads; then SIGCONT, and the paused one
   must see that it no longer leads (ringleader: its next ``leader`` line names the new
   leader; etcd: its keep-alive finds its lease gone).
3. ``add``: a fourth member until it votes.  etcd: ``etcdctl member add --learner``, the
   member started (``--initial-cluster-state existing``), ``etcdctl member promote``
   again until it succeeds (a learner is promoted once it has caught up).  ringleader:
   node 4 (``spare = true`` in CONFIG) started, then ``ringleader member add CONFIG --id
   4 --json`` until it returns (node 4 is a voter in a committed configuration).  Both
   from the first step to the last, starting the new process included.
4. ``remove``: the leader removed (the raft leader for etcd, with the election's key
   held by the campaigner on it) → another leads (lease; key); the same runs give the
   time until the removal is committed (the command returned) and, for etcd, until the
   two remaining members name a new raft leader.
5. ``machine``: the leader's machine lost → another leads.  etcd: SIGKILL of the leading
   campaigner and of its member, the raft leader, at once (a new raft leader renews every
   lease for a whole TTL when it takes over, so the key moves a TTL after the new raft
   leader); ringleader: SIGKILL of the leading node, as in cell 1 (a node is its own
   member).

The ringleader side of cells 3 and 4 needs ``ringleader member`` (issue 32); without it
they measure etcd alone, saying so.  If etcd is not installed, the benchmark says how to
install it and exits 2; a run that does not reach what it waits for within 30 s is a
PROBLEM line and exit 1; Ctrl-C exits 130.  Every process it starts is in a process
group of its own, killed at the end of its run and again on the way out (an error,
Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _compare import Comparison, Side, compare, load, machine, series

HERE = Path(__file__).resolve().parent
CAMPAIGNER = HERE / "_etcd_campaigner.py"
#: How to get etcd when it is missing.
INSTALL = (
    "etcd_side: etcd is not installed (no etcd or etcdctl on PATH): "
    "apt-get install -y etcd-server etcd-client"
)
#: etcd's raft settings, ms (its defaults: 100 and 1000).
HEARTBEAT_MS = 10
ELECTION_MS = 100
#: The campaigners' session lease, s: the least etcd grants.
TTL = 1
#: ringleader's detector, s (examples/service/cluster.toml).
RL_HEARTBEAT = 0.05
RL_SUSPECT_AFTER = 0.3
#: The longest any step may take before the run counts as failed, s.
PATIENCE = 30.0
CELLS = ("kill", "pause", "add", "remove", "machine")
ELECTION = "etcd-side"

Event = dict[str, Any]


class Failed(Exception):
    """A run did not reach the state it waits for in time."""


# --- processes ------------------------------------------------------------------------


class Process:
    """A child in a process group of its own; its JSON lines on stdout, as they come."""

    live: ClassVar[list[Process]] = []
    _seen = threading.Condition()

    def __init__(self, name: str, argv: Sequence[str], *, log: Path | None = None) -> None:
        self.name = name
        self.events: list[Event] = []
        self._log = log.open("wb") if log is not None else None
        self.process = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._log if self._log is not None else subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        Process.live.append(self)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                with Process._seen:
                    self.events.append(event)
                    Process._seen.notify_all()
        with Process._seen:
            Process._seen.notify_all()

    def signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)

    def stop(self) -> None:
        """Kill its process group (waking it first if it was stopped) and reap it."""
        if self.process.poll() is None:
            self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self._reader.join(timeout=10)  # to the end of its output: the group is gone
        if self.process.stdout is not None:
            self.process.stdout.close()
        if self._log is not None:
            self._log.close()
        if self in Process.live:
            Process.live.remove(self)

    @classmethod
    def stop_all(cls) -> None:
        for process in list(cls.live):
            process.stop()


def wait_for(
    processes: Sequence[Process],
    match: Callable[[Event], bool],
    what: str,
    timeout: float = PATIENCE,
) -> tuple[Process, Event]:
    """The first event of one of ``processes`` that ``match``es (in the order they
    came, per process); raise :class:`Failed` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    with Process._seen:
        while True:
            for process in processes:
                for event in process.events:
                    if match(event):
                        return process, event
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failed(f"no {what} within {timeout:g} s")
            Process._seen.wait(left)


def until(check: Callable[[], Any], what: str, timeout: float = PATIENCE) -> Any:
    """Call ``check`` until it returns something true (every 10 ms); raise
    :class:`Failed` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failed(f"no {what} within {timeout:g} s")
        time.sleep(0.01)


def free_ports(count: int) -> list[int]:
    """``count`` loopback ports free now (held together, so all differ)."""
    sockets = []
    try:
        for _ in range(count):
            probe = socket.socket()
            probe.bind(("127.0.0.1", 0))
            sockets.append(probe)
        return [probe.getsockname()[1] for probe in sockets]
    finally:
        for probe in sockets:
            probe.close()


# --- ringleader -----------------------------------------------------------------------


def ringleader_command() -> list[str]:
    """The ``ringleader`` beside this interpreter, as a user would type it."""
    beside = Path(sys.executable).parent / "ringleader"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("ringleader")
    return [found] if found else [sys.executable, "-m", "ringleader"]


def member_available(command: Sequence[str]) -> bool:
    """Whether this ringleader has ``ringleader member`` (issue 32)."""
    done = subprocess.run(
        [*command, "member", "add", "--help"], capture_output=True, check=False, timeout=60
    )
    return done.returncode == 0


@dataclass
class Ringleader:
    """Three ``ringleader node`` processes (and a spare node 4 in CONFIG, for ``add``)."""

    command: Sequence[str]
    directory: Path
    spare: bool = False
    config: Path = field(init=False)
    nodes: dict[int, Process] = field(default_factory=dict)
    ports: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ids = [1, 2, 3, 4] if self.spare else [1, 2, 3]
        self.ports = dict(zip(ids, free_ports(len(ids)), strict=True))
        tables = "".join(
            f'\n[[nodes]]\nid = {i}\naddress = "tcp://127.0.0.1:{port}"\n'
            + ("spare = true\n" if i == 4 else "")
            for i, port in self.ports.items()
        )
        self.config = self.directory / "cluster.toml"
        self.config.write_text(
            f'cluster = "etcd-side-{self.directory.name}"\ntopology = "full_mesh"\n'
            f'algorithm = "bully"\ntransport = "tcp"\nheartbeat = {RL_HEARTBEAT}\n'
            f'suspect_after = {RL_SUSPECT_AFTER}\nstate_dir = "state"\n{tables}',
            encoding="utf-8",
        )

    def start(self, node: int) -> Process:
        argv = [*self.command, "node", str(self.config), "--id", str(node), "--json"]
        process = Process(f"node {node}", argv, log=self.directory / f"node-{node}.log")
        self.nodes[node] = process
        return process

    def up(self) -> int:
        """Start nodes 1-3; once one holds a lease and the others follow it, its id."""
        for node in (1, 2, 3):
            self.start(node)
        _, lease = wait_for(list(self.nodes.values()), lambda e: e["event"] == "lease", "lease")
        leader = int(lease["node"])
        for node, process in self.nodes.items():
            if node != leader:
                wait_for(
                    [process],
                    lambda e: e["event"] == "leader" and e.get("leader") == leader,
                    f"node {node} following node {leader}",
                )
        return leader

    def others(self, leader: int) -> list[Process]:
        return [p for n, p in self.nodes.items() if n != leader]

    def new_lease(self, leader: int, since: float) -> tuple[int, float]:
        """The first node other than ``leader`` to hold a lease after ``since``, and
        when (monotonic)."""
        _, event = wait_for(
            self.others(leader),
            lambda e: e["event"] == "lease" and e["mono"] >= since,
            "lease on another node",
        )
        return int(event["node"]), float(event["mono"])

    def member(self, *change: str) -> tuple[float, dict[str, Any]]:
        """``ringleader member CHANGE… --json``, the whole command: when it returned
        (monotonic) and its object."""
        done = subprocess.run(
            [*self.command, "member", *change[:1], str(self.config), *change[1:], "--json"],
            capture_output=True,
            text=True,
            check=False,
            timeout=PATIENCE,
        )
        returned = time.monotonic()
        if done.returncode != 0:
            raise Failed(
                f"ringleader member {' '.join(change)}: exit {done.returncode}: "
                f"{done.stderr.strip()[-500:]}"
            )
        return returned, json.loads(done.stdout)


@contextlib.contextmanager
def ringleader_cluster(command: Sequence[str], *, spare: bool = False) -> Iterator[Ringleader]:
    with tempfile.TemporaryDirectory(prefix="etcd-side-rl-") as tmp:
        cluster = Ringleader(command, Path(tmp), spare=spare)
        try:
            yield cluster
        finally:
            for process in cluster.nodes.values():
                process.stop()


# --- etcd -----------------------------------------------------------------------------


def post(url: str, body: dict[str, Any], timeout: float = 1.0) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        result: dict[str, Any] = json.loads(answer.read())
    return result


@dataclass
class Member:
    name: str
    peer: int
    client: int
    process: Process | None = None
    id: int = 0

    @property
    def peer_url(self) -> str:
        return f"http://127.0.0.1:{self.peer}"

    @property
    def client_url(self) -> str:
        return f"http://127.0.0.1:{self.client}"

    def status(self) -> dict[str, Any] | None:
        """``/v3/maintenance/status`` (its member id and the raft leader it knows), or
        ``None`` if it does not answer."""
        try:
            return post(f"{self.client_url}/v3/maintenance/status", {}, timeout=0.5)
        except (OSError, ValueError):
            return None

    def leader(self) -> int:
        """The raft leader this member knows (0: none, or no answer)."""
        status = self.status()
        return int(status.get("leader", 0)) if status else 0


@dataclass
class Etcd:
    """Three etcd members (a fourth for ``add``) and their campaigners."""

    directory: Path
    members: list[Member] = field(default_factory=list)
    campaigners: dict[str, Process] = field(default_factory=dict)

    def initial_cluster(self) -> str:
        return ",".join(f"{m.name}={m.peer_url}" for m in self.members)

    def start(self, member: Member, state: str) -> None:
        argv = [
            "etcd",
            "--name", member.name,
            "--data-dir", str(self.directory / member.name),
            "--listen-peer-urls", member.peer_url,
            "--initial-advertise-peer-urls", member.peer_url,
            "--listen-client-urls", member.client_url,
            "--advertise-client-urls", member.client_url,
            "--initial-cluster", self.initial_cluster(),
            "--initial-cluster-state", state,
            "--initial-cluster-token", f"etcd-side-{self.directory.name}",
            "--heartbeat-interval", str(HEARTBEAT_MS),
            "--election-timeout", str(ELECTION_MS),
            "--log-level", "error",
        ]  # fmt: skip
        member.process = Process(member.name, argv, log=self.directory / f"{member.name}.log")

    def new_member(self) -> Member:
        peer, client = free_ports(2)
        member = Member(f"m{len(self.members) + 1}", peer, client)
        self.members.append(member)
        return member

    def up(self) -> None:
        """Start three members; return once each answers and all name one raft leader."""
        for _ in range(3):
            self.new_member()
        for member in self.members:
            self.start(member, "new")

        def agreed() -> bool:
            statuses = [m.status() for m in self.members]
            if any(s is None for s in statuses):
                return False
            leaders = {int(s["leader"]) for s in statuses if s is not None}
            if len(leaders) != 1 or 0 in leaders:
                return False
            for member, status in zip(self.members, statuses, strict=True):
                assert status is not None
                member.id = int(status["header"]["member_id"])
            return True

        until(agreed, "etcd cluster with a raft leader")

    def raft_leader(self) -> Member:
        leader = until(self.members[0].leader, "raft leader")
        return next(m for m in self.members if m.id == leader)

    def campaign(self, member: Member) -> Process:
        """A campaigner on ``member``; returns once it has campaigned (its key is there)."""
        argv = [sys.executable, str(CAMPAIGNER), member.client_url, ELECTION, member.name, str(TTL)]
        process = Process(
            f"campaigner on {member.name}", argv, log=self.directory / f"c-{member.name}.log"
        )
        self.campaigners[member.name] = process
        wait_for([process], lambda e: e["event"] == "campaigning", f"{member.name} campaigning")
        return process

    def keys(self) -> int:
        """How many campaigners' keys are under the election's prefix."""
        prefix = f"{ELECTION}/".encode()
        end = prefix[:-1] + bytes([prefix[-1] + 1])
        answer = post(
            f"{self.members[0].client_url}/v3/kv/range",
            {
                "key": base64.b64encode(prefix).decode(),
                "range_end": base64.b64encode(end).decode(),
                "count_only": True,
            },
        )
        return int(answer.get("count", 0))

    def campaigners_up(self, first: Member | None = None) -> Member:
        """A campaigner per member, ``first``'s (or any) elected before the others
        campaign; every key there.  The member whose campaigner leads."""
        order = list(self.members)
        if first is not None:
            order.remove(first)
            order.insert(0, first)
        leading = self.campaign(order[0])
        wait_for([leading], lambda e: e["event"] == "elected", "the first campaigner elected")
        for member in order[1:]:
            self.campaign(member)
        until(lambda: self.keys() == len(order), "every campaigner's key")
        return order[0]

    def elected(self, apart_from: str, since: float) -> tuple[str, float]:
        """The first campaigner but ``apart_from``'s elected after ``since``, and when."""
        others = [p for name, p in self.campaigners.items() if name != apart_from]
        process, event = wait_for(
            others,
            lambda e: e["event"] == "elected" and e["mono"] >= since,
            "another campaigner elected",
        )
        return process.name, float(event["mono"])

    def etcdctl(
        self, *argv: str, members: Sequence[Member] | None = None
    ) -> subprocess.CompletedProcess[str]:
        endpoints = ",".join(m.client_url for m in (members or self.members))
        return subprocess.run(
            ["etcdctl", "--endpoints", endpoints, *argv],
            capture_output=True,
            text=True,
            check=False,
            timeout=PATIENCE,
            env={**os.environ, "ETCDCTL_API": "3"},
        )

    def reconfigure(self, *argv: str, members: Sequence[Member]) -> tuple[float, float, str]:
        """``etcdctl member …`` once etcd accepts it: with its strict reconfiguration
        check (on by default) a leader refuses a change ("unhealthy cluster") until
        every member has been connected for 5 s, so a refused call is made again.  When
        the accepted call began and returned (monotonic), and its output."""
        deadline = time.monotonic() + PATIENCE
        while True:
            began = time.monotonic()
            done = self.etcdctl(*argv, members=members)
            returned = time.monotonic()
            if done.returncode == 0:
                return began, returned, done.stdout
            if "unhealthy cluster" not in done.stderr or returned > deadline:
                raise Failed(f"etcdctl {' '.join(argv)}: {done.stderr.strip()[-500:]}")
            time.sleep(0.05)


@contextlib.contextmanager
def etcd_cluster() -> Iterator[Etcd]:
    with tempfile.TemporaryDirectory(prefix="etcd-side-etcd-") as tmp:
        cluster = Etcd(Path(tmp))
        try:
            yield cluster
        finally:
            for process in cluster.campaigners.values():
                process.stop()
            for member in cluster.members:
                if member.process is not None:
                    member.process.stop()


# --- the cells ------------------------------------------------------------------------


@dataclass
class Extra:
    """Figures the same runs give beside a cell's own, per side: name → values."""

    values: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, value: float) -> None:
        self.values.setdefault(name, []).append(value)


def ringleader_kill(command: Sequence[str]) -> float:
    with ringleader_cluster(command) as cluster:
        leader = cluster.up()
        killed = time.monotonic()
        cluster.nodes[leader].signal(signal.SIGKILL)
        _, leads = cluster.new_lease(leader, killed)
        return leads - killed


def etcd_kill() -> float:
    with etcd_cluster() as cluster:
        cluster.up()
        leader = cluster.campaigners_up()
        killed = time.monotonic()
        cluster.campaigners[leader.name].signal(signal.SIGKILL)
        _, leads = cluster.elected(leader.name, killed)
        return leads - killed


def etcd_machine(extra: Extra) -> float:
    with etcd_cluster() as cluster:
        cluster.up()
        raft = cluster.raft_leader()
        cluster.campaigners_up(first=raft)
        remaining = [m for m in cluster.members if m is not raft]
        assert raft.process is not None
        killed = time.monotonic()
        cluster.campaigners[raft.name].signal(signal.SIGKILL)
        raft.process.signal(signal.SIGKILL)
        until(lambda: new_raft_leader(remaining, raft), "new raft leader")
        extra.add(
            "etcd: until both remaining members name a new raft leader", time.monotonic() - killed
        )
        _, leads = cluster.elected(raft.name, killed)
        return leads - killed


def new_raft_leader(remaining: Sequence[Member], old: Member) -> bool:
    """Whether every remaining member names one raft leader, not ``old``."""
    leaders = {m.leader() for m in remaining}
    return len(leaders) == 1 and not leaders & {0, old.id}


def ringleader_pause(command: Sequence[str]) -> float:
    with ringleader_cluster(command) as cluster:
        leader = cluster.up()
        paused = cluster.nodes[leader]
        stopped = time.monotonic()
        paused.signal(signal.SIGSTOP)
        successor, leads = cluster.new_lease(leader, stopped)
        paused.signal(signal.SIGCONT)
        wait_for(
            [paused],
            lambda e: (
                e["event"] == "leader" and e.get("leader") == successor and e["mono"] >= leads
            ),
            f"node {leader}, woken, following node {successor}",
        )
        return leads - stopped


def etcd_pause() -> float:
    with etcd_cluster() as cluster:
        cluster.up()
        leader = cluster.campaigners_up()
        paused = cluster.campaigners[leader.name]
        stopped = time.monotonic()
        paused.signal(signal.SIGSTOP)
        _, leads = cluster.elected(leader.name, stopped)
        paused.signal(signal.SIGCONT)
        wait_for(
            [paused], lambda e: e["event"] == "lost", f"{leader.name}'s campaigner, woken, lost"
        )
        return leads - stopped


def ringleader_add(command: Sequence[str], extra: Extra) -> float:
    with ringleader_cluster(command, spare=True) as cluster:
        cluster.up()
        began = time.monotonic()
        fourth = cluster.start(4)
        wait_for([fourth], lambda e: e["event"] == "ready", "node 4 ready")
        asked = time.monotonic()
        extra.add("ringleader node 4, until its ready line", asked - began)
        returned, done = cluster.member("add", "--id", "4")
        extra.add("ringleader member add, the command", returned - asked)
        extra.add("ringleader member add, its took_s", float(done["took_s"]))
        return returned - began


def etcd_add(extra: Extra) -> float:
    with etcd_cluster() as cluster:
        cluster.up()
        voters = list(cluster.members)
        fourth = cluster.new_member()
        began, _, added = cluster.reconfigure(
            "member", "add", fourth.name, f"--peer-urls={fourth.peer_url}", "--learner",
            "-w", "json", members=voters,
        )  # fmt: skip
        fourth.id = int(json.loads(added)["member"]["ID"])
        cluster.start(fourth, "existing")
        tries = 0

        def promoted() -> bool:
            nonlocal tries
            tries += 1
            done = cluster.etcdctl("member", "promote", f"{fourth.id:x}", members=voters)
            return done.returncode == 0

        until(promoted, "promotion of the learner")
        extra.add("etcdctl member promote, calls until it succeeded", tries)
        return time.monotonic() - began


def ringleader_remove(command: Sequence[str], extra: Extra) -> float:
    with ringleader_cluster(command) as cluster:
        leader = cluster.up()
        began = time.monotonic()
        returned, done = cluster.member("remove", "--id", str(leader))
        _, leads = cluster.new_lease(leader, began)
        extra.add("ringleader member remove, until it returned", returned - began)
        extra.add("ringleader member remove, its took_s", float(done["took_s"]))
        return leads - began


def etcd_remove(extra: Extra) -> float:
    with etcd_cluster() as cluster:
        cluster.up()
        raft = cluster.raft_leader()
        cluster.campaigners_up(first=raft)
        remaining = [m for m in cluster.members if m is not raft]
        began, returned, _ = cluster.reconfigure(
            "member", "remove", f"{raft.id:x}", members=remaining
        )
        until(lambda: new_raft_leader(remaining, raft), "new raft leader")
        raft_elected = time.monotonic()
        _, leads = cluster.elected(raft.name, began)
        extra.add("etcdctl member remove, until it returned", returned - began)
        extra.add("etcd: until both remaining members name a new raft leader", raft_elected - began)
        return leads - began


# --- the benchmark --------------------------------------------------------------------


@dataclass
class Cell:
    name: str
    label: str
    ours: Callable[[], float] | None
    theirs: Callable[[], float]
    extra: Extra = field(default_factory=Extra)


def cells(command: Sequence[str], member: bool) -> dict[str, Cell]:
    add_extra, remove_extra, machine_extra = Extra(), Extra(), Extra()
    return {
        "kill": Cell(
            "kill",
            "1. SIGKILL of the leader → another leads (ringleader: holds a lease; etcd: "
            "holds the key)",
            lambda: ringleader_kill(command),
            etcd_kill,
        ),
        "pause": Cell(
            "pause",
            "2. SIGSTOP of the leader → another leads (then SIGCONT, and it knows)",
            lambda: ringleader_pause(command),
            etcd_pause,
        ),
        "add": Cell(
            "add",
            "3. a fourth member, from the first step until it votes",
            (lambda: ringleader_add(command, add_extra)) if member else None,
            lambda: etcd_add(add_extra),
            add_extra,
        ),
        "remove": Cell(
            "remove",
            "4. the leader removed → another leads (lease; key)",
            (lambda: ringleader_remove(command, remove_extra)) if member else None,
            lambda: etcd_remove(remove_extra),
            remove_extra,
        ),
        "machine": Cell(
            "machine",
            "5. the leader's machine lost → another leads (etcd: its campaigner and its "
            "member, the raft leader, killed)",
            lambda: ringleader_kill(command),
            lambda: etcd_machine(machine_extra),
            machine_extra,
        ),
    }


@dataclass
class Row:
    cell: str
    side: str
    values: list[float]


def rows_of(cell: Cell, result: Comparison | None, alone: list[float] | None) -> list[Row]:
    rows = []
    if result is not None:
        for side in result.sides:
            rows.append(Row(cell.name, side.name, result.values[side.name]))
    elif alone is not None:
        rows.append(Row(cell.name, "etcd", alone))
    for name, values in cell.extra.values.items():
        rows.append(Row(cell.name, name, values))
    return rows


def table(rows: list[Row], ratios: dict[str, list[float]]) -> list[str]:
    out = [f"{'cell':<8} {'side':<58} {'median':>9}  {'min–max':<19} runs"]
    for row in rows:
        values = row.values
        if "calls" in row.side:
            median, spread = (
                f"{statistics.median(values):>7g}  ",
                f"{min(values):g}–{max(values):g}",
            )
        else:
            median = f"{statistics.median(values):>7.3f} s"
            spread = f"{min(values):.3f}–{max(values):.3f} s"
        out.append(f"{row.cell:<8} {row.side:<58} {median} {spread:<19} {len(values)}")
    for name, values in ratios.items():
        median = f"{statistics.median(values):>7.2f}×"
        spread = f"{min(values):.2f}–{max(values):.2f}×"
        side = "ratio etcd/ringleader, per round"
        out.append(f"{name:<8} {side:<58} {median} {spread:<19} {len(values)}")
    return out


def times(ratio: float) -> str:
    """A ratio as the summary line gives it: 114×, 3.9×, 0.1×."""
    return f"{ratio:.0f}×" if ratio >= 10 else f"{ratio:.2g}×"


def etcd_installed() -> bool:
    return shutil.which("etcd") is not None and shutil.which("etcdctl") is not None


def loads() -> str:
    return " ".join(f"{x:.2f}" for x in load())


def header(command: Sequence[str], runs: int, member: bool) -> None:
    """What is compared, how, and where."""
    version = subprocess.run(["etcd", "--version"], capture_output=True, text=True, check=False)
    print("Side by side with etcd's election: 3 members on loopback, each side in turn")
    print(f"machine: {machine()}")
    print(
        f"etcd: {version.stdout.splitlines()[0] if version.stdout else '?'}, "
        f"--heartbeat-interval {HEARTBEAT_MS} --election-timeout {ELECTION_MS} (ms), "
        f"campaigners' session lease TTL {TTL} s (the least etcd grants)"
    )
    print(
        f"ringleader: {' '.join(command)} node CONFIG --id N --json; Bully, full mesh, tcp, "
        f"heartbeat {RL_HEARTBEAT} s, suspect_after {RL_SUSPECT_AFTER} s"
    )
    if not member:
        print(
            "ringleader member: not available (this ringleader has no `ringleader member`): "
            "cells 3 and 4 measure etcd alone"
        )
    print(f"runs: {runs} of each side per cell, alternated; load {loads()}")


def on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def run_cells(
    chosen: Sequence[str], command: Sequence[str], member: bool, runs: int
) -> tuple[list[Row], dict[str, list[float]], list[str]]:
    """Every chosen cell, each side in turn: the table's rows, the ratios, the problems."""
    rows: list[Row] = []
    ratios: dict[str, list[float]] = {}
    problems: list[str] = []
    try:
        for name, cell in cells(command, member).items():
            if name not in chosen:
                continue
            print(f"\n{cell.label}")
            try:
                if cell.ours is not None:
                    result = compare(
                        cell.label,
                        [Side("ringleader", cell.ours), Side("etcd", cell.theirs)],
                        runs=runs,
                    )
                    rows += rows_of(cell, result, None)
                    ratios[name] = result.ratios
                else:
                    alone = series(f"{cell.label} (etcd alone)", cell.theirs, runs=runs)
                    rows += rows_of(cell, None, alone.values)
            except Failed as failed:
                problems.append(f"{name}: {failed}")
                print(f"PROBLEM: {name}: {failed}")
            Process.stop_all()
    finally:
        Process.stop_all()
    return rows, ratios, problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each side per cell (≥ 3)")
    parser.add_argument("--quick", action="store_true", help="one run of each side, a smoke run")
    parser.add_argument(
        "--only", nargs="+", choices=CELLS, metavar="CELL", help=f"some cells: {', '.join(CELLS)}"
    )
    parser.add_argument(
        "--command",
        nargs="+",
        metavar="ARG",
        help="the ringleader command (default: beside python)",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not etcd_installed():
        print(INSTALL, file=sys.stderr)
        return 2
    runs = 1 if args.quick else args.runs
    command = args.command or ringleader_command()
    member = member_available(command)
    header(command, runs, member)
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        rows, ratios, problems = run_cells(args.only or list(CELLS), command, member, runs)
    except KeyboardInterrupt:
        print("etcd_side: interrupted (every process it started is stopped)", file=sys.stderr)
        return 130
    print(f"\nSummary ({runs} runs a side; load now {loads()})")
    if rows:
        for line in table(rows, ratios):
            print(line)
    if ratios:
        said = ", ".join(f"{name} {times(statistics.median(v))}" for name, v in ratios.items())
        print(f"etcd's time over ringleader's, median per cell (> 1: ringleader faster): {said}")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
