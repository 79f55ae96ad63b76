"""The transports by name, and which of them reach another process."""

from __future__ import annotations

__all__ = ["BETWEEN_PROCESSES", "SCHEMES", "TRANSPORTS"]

#: ZeroMQ's: :class:`~ringleader.transport.ZmqNetwork` serves each.
SCHEMES = ("tcp", "ipc", "inproc")
#: Those whose mailboxes other processes can reach (through a listening socket each).
BETWEEN_PROCESSES = ("tcp", "ipc")
#: Every transport :func:`~ringleader.transport.open_network` opens; ``memory`` is for tests.
TRANSPORTS = (*SCHEMES, "memory")
