"""Make room for many sockets in one process, or say clearly why there is none.

Two limits bite at about 500 nodes in one process: a ZeroMQ context's ``MAX_SOCKETS``
(1023 by default) and the process's open-file soft limit (often 1024).  Both are raised
before the first socket is made, within what the system allows.
"""

from __future__ import annotations

import logging
import resource
from dataclasses import dataclass
from pathlib import Path

from ._errors import TransportError
from ._schemes import BETWEEN_PROCESSES

__all__ = ["Demand", "ensure_open_files", "estimate"]

log = logging.getLogger(__name__)

# File descriptors a context needs whatever its size: the reaper's and the I/O thread's
# mailboxes and pollers, and some slack.
_BASE_FILES = 32


@dataclass(frozen=True)
class Demand:
    """What a network of ``nodes`` mailboxes and ``links`` one-way links will need."""

    sockets: int
    files: int


def estimate(scheme: str, nodes: int, links: int) -> Demand:
    """Sockets and file descriptors for ``nodes`` PULL and ``links`` PUSH sockets.

    Every ZeroMQ socket owns an eventfd, and so does every node's inbox; each mailbox
    has a second socket, over inproc, that wakes its reader.  Over tcp and
    ipc each mailbox also has a listening socket and each link a connection, whose two
    ends are both in this process when all nodes are local.
    """
    sockets = 2 * nodes + links  # a mailbox's PULL and the PUSH that wakes its reader
    files = sockets + nodes + _BASE_FILES
    if scheme in BETWEEN_PROCESSES:
        files += nodes + 2 * links
    return Demand(sockets=sockets, files=files)


def _open_files() -> int:
    try:
        return sum(1 for _ in Path("/proc/self/fd").iterdir())
    except OSError:
        return 64  # no /proc: assume a modest number already open


def ensure_open_files(needed: int, *, what: str, inproc: int | None = None) -> None:
    """Raise the soft ``RLIMIT_NOFILE`` so ``needed`` more files fit, or fail clearly.

    ``inproc``: the files the same network would need over inproc, which has no
    connections; the error suggests it only if those fit, else the simulator, which
    opens none."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    already = _open_files()
    total = already + needed
    if soft == resource.RLIM_INFINITY or total <= soft:
        return
    if hard != resource.RLIM_INFINITY and total > hard:
        if inproc is not None and already + inproc <= hard:
            instead = f'use transport "inproc" (about {already + inproc}: no connections)'
        else:
            instead = "simulate it (ringleader run --simulate), which opens none"
        raise TransportError(
            f"{what} needs about {total} open files but this process may open at most "
            f"{hard} (hard limit): raise it (ulimit -Hn, /etc/security/limits.conf), run "
            f"fewer nodes, or {instead}"
        )
    target = total + 256
    if hard != resource.RLIM_INFINITY:
        target = min(target, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    log.info("raised the open-file soft limit from %s to %s for %s", soft, target, what)
