"""Size before work: the machine's limits, and the one decision ``check``, ``run`` and
``explore`` make with them before building anything.

The estimate itself is arithmetic on the config
(:func:`ringleader.topologies.estimate_size`); this module reads what it is compared
with: the memory available now, the open files this process may still open, and
ZeroMQ's sockets per context.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

from ringleader.errors import UsageError
from ringleader.topologies import Config, Limits, Size, estimate_size, size_refusal

__all__ = ["LARGE", "machine_limits", "size_up"]

#: Nodes plus links from which setting a run up takes seconds: say what is being done.
LARGE = 20_000


def _available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _open_now() -> int:
    try:
        return sum(1 for _ in Path("/proc/self/fd").iterdir())
    except OSError:
        return 64  # no /proc: assume a modest number already open


def _socket_limit() -> int | None:
    import zmq  # noqa: PLC0415 -- only a run over ZeroMQ needs it

    ctx = zmq.Context()
    try:
        return int(ctx.get(zmq.SOCKET_LIMIT))
    finally:
        ctx.term()


def machine_limits(size: Size) -> Limits:
    """What ``size`` is compared with, read from this machine and process now."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    files = None if hard == resource.RLIM_INFINITY else hard - _open_now()
    return Limits(
        memory=_available_memory(),
        files=files,
        sockets=_socket_limit() if size.sockets else None,
    )


def size_up(config: Config, *, simulate: bool = False, force: bool = False) -> Size:
    """Estimate ``config``'s run and refuse it (:class:`UsageError`, one line) if it
    cannot fit this machine, unless ``force`` (then a warning on stderr); a large size
    that goes on says so on a terminal's stderr, as setting it up may take a while."""
    size = estimate_size(config, simulate=simulate)
    why = size_refusal(size, machine_limits(size))
    if why is not None and not force:
        raise UsageError(why)
    if why is not None:
        sys.stderr.write(f"warning: {why.replace(' (--force to try anyway)', '')}; going on\n")
    elif size.nodes + size.links >= LARGE and sys.stderr.isatty():  # as run's progress bar
        sys.stderr.write(f"{size.summary()}: setting it up…\n")
    sys.stderr.flush()
    return size
