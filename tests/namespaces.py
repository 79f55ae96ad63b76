"""Hosts of their own for node processes: Linux network namespaces on one switch.

Used by ``tests/system/test_multihost.py`` and by the chaos test's ``hosts`` runs
(``tests/chaos.py``); that module's docstring says how a "host" is built and cut off.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import shutil
import subprocess
from collections.abc import Collection
from pathlib import Path

from tests.nodes import NodeProcess

IP = shutil.which("ip") or next(
    (p for p in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip") if Path(p).exists()), None
)
PID = os.getpid()
#: This run's private subnet: the only addresses, with loopback, that these tests use.
SUBNET = f"10.213.{PID % 250 + 1}"
PORT = 7400
#: A node process dies with the test run that started it, even one killed outright
#: (``setpriv`` execs the node with a parent-death signal), where setpriv is installed.
SETPRIV = shutil.which("setpriv")
ORPHAN_GUARD = [SETPRIV, "--pdeathsig", "KILL"] if SETPRIV else []
_labs = itertools.count(1)


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    assert IP is not None
    result = subprocess.run([IP, *args], capture_output=True, text=True, timeout=10, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"ip {' '.join(args)}: {result.stderr.strip()}")
    return result


def _namespaces() -> set[str]:
    return {line.split()[0] for line in _ip("netns", "list").stdout.splitlines() if line.strip()}


def _sweep() -> None:
    """Delete the namespaces a crashed run of these tests left behind (its pid is gone)."""
    for name in _namespaces():
        found = re.fullmatch(r"rl-(\d+)-(probe|\d+-(sw|h\d+))", name)
        if found and int(found[1]) != PID and not Path(f"/proc/{found[1]}").exists():
            _ip("netns", "del", name, check=False)


@functools.cache
def unavailable() -> str | None:
    """Why this machine cannot run these tests (None: it can).  Probed once."""
    if os.geteuid() != 0:
        return "needs root to make network namespaces (ip netns add)"
    if IP is None:
        return "needs iproute2's 'ip' command"
    probe = f"rl-{PID}-probe"
    _ip("netns", "del", probe, check=False)
    if _ip("netns", "list", check=False).returncode == 0:
        _sweep()
    steps = [
        ("netns", "add", probe),
        ("-n", probe, "link", "add", "br0", "type", "bridge"),
        ("-n", probe, "link", "add", "v1", "type", "veth", "peer", "name", "v2"),
    ]
    try:
        for step in steps:
            result = _ip(*step, check=False)
            if result.returncode != 0:
                return (
                    f"cannot build a test network: 'ip {' '.join(step)}' failed "
                    f"({result.stderr.strip() or result.returncode}); needs CAP_SYS_ADMIN "
                    "and CAP_NET_ADMIN"
                )
    finally:
        _ip("netns", "del", probe, check=False)
    return None


class Lab:
    """A switch namespace (bridges ``br0`` and ``br1``) and hosts 1..n, host k linked to
    ``br0`` by the veth ``vk`` (switch side) / ``eth0`` (host side), at ``SUBNET.k``."""

    def __init__(self, hosts: int) -> None:
        prefix = f"rl-{PID}-{next(_labs)}"
        self.switch = f"{prefix}-sw"
        self.hosts = {k: f"{prefix}-h{k}" for k in range(1, hosts + 1)}
        self.processes: list[NodeProcess] = []

    @property
    def names(self) -> list[str]:
        return [*self.hosts.values(), self.switch]

    def build(self) -> None:
        for name in self.names:  # leftovers of a crashed run that had the same pid
            _ip("netns", "del", name, check=False)
        sw = self.switch
        _ip("netns", "add", sw)
        _ip("-n", sw, "link", "set", "lo", "up")
        for bridge in ("br0", "br1"):
            _ip("-n", sw, "link", "add", bridge, "type", "bridge")
            _ip("-n", sw, "link", "set", bridge, "up")
        for k, host in self.hosts.items():
            _ip("netns", "add", host)
            veth = ["link", "add", f"v{k}", "type", "veth", "peer", "name", "eth0"]
            _ip("-n", sw, *veth, "netns", host)
            _ip("-n", sw, "link", "set", f"v{k}", "master", "br0")
            _ip("-n", sw, "link", "set", f"v{k}", "up")
            _ip("-n", host, "link", "set", "lo", "up")
            _ip("-n", host, "addr", "add", f"{self.address(k)}/24", "dev", "eth0")
            _ip("-n", host, "link", "set", "eth0", "up")

    def address(self, host: int) -> str:
        return f"{SUBNET}.{host}"

    def start(self, config: Path, node: int) -> NodeProcess:
        """``ringleader node CONFIG --id node`` on host ``node``."""
        assert IP is not None
        prefix = [IP, "netns", "exec", self.hosts[node], *ORPHAN_GUARD]
        process = NodeProcess(config, node, prefix=prefix)
        self.processes.append(process)
        return process

    def cable(self, host: int, *, up: bool) -> None:
        """Plug in or pull out host ``host``'s cable at the switch."""
        _ip("-n", self.switch, "link", "set", f"v{host}", "up" if up else "down")

    def split(self, hosts: Collection[int], *, apart: bool) -> None:
        """Move the ports of ``hosts`` to their own bridge (``apart``) or back."""
        for host in hosts:
            _ip("-n", self.switch, "link", "set", f"v{host}", "master", "br1" if apart else "br0")

    def block(self, a: int, b: int, *, blocked: bool = True) -> None:
        """Drop (or again pass) every packet between hosts ``a`` and ``b``, and no other:
        a blackhole route to the other's address in each of the two hosts.

        Blocking also flushes each host's neighbour entry for the other, and with it the
        packets queued there waiting for ARP: routed before the blackhole existed, they
        would go out once ARP is answered.  (A host whose cable is pulled loses its
        neighbour entries; its next TCP retransmission waits there, and without the
        flush it crossed a block made meanwhile as soon as the cable was back.)"""
        verb = "add" if blocked else "del"
        for here, there in ((a, b), (b, a)):
            _ip("-n", self.hosts[here], "route", verb, "blackhole", f"{self.address(there)}/32")
            if blocked:
                _ip("-n", self.hosts[here], "neigh", "flush", "to", self.address(there))

    def destroy(self) -> None:
        """Kill every node process, then delete every namespace (with it, every veth)."""
        for process in self.processes:
            try:
                process.kill()
            except Exception as exc:  # noqa: BLE001 -- keep tearing down
                print(f"could not kill node {process.node}: {exc}")
        for name in self.names:
            _ip("netns", "del", name, check=False)
        left = _namespaces() & set(self.names)
        assert not left, f"namespaces left behind: {left}"
