"""Proof of death: telling a crashed peer's refused connection from mere silence.

When a peer's process dies (SIGKILL, a crash) while its host stays up, the kernel closes
its sockets: the link's TCP (or ipc) connection is reset, and a new connection to its
mailbox's address is *refused* — nobody listens there any more.  A paused (SIGSTOPped),
slow or cut-off peer never causes a refusal: its listening socket stays open (the kernel
accepts connections to it even while the process is stopped), and a lost packet or a
broken route makes a connect time out, not fail at once.  So a refused connection is
proof that the peer's process, as the link knew it, is gone.

ZeroMQ's socket monitor says when a link's connection drops (``EVENT_DISCONNECTED``) and
when a reconnect fails (``EVENT_CLOSED``), but not why (refused, unreachable …), so on
each of these the monitor probes the address itself with a plain connect and reports
only an ``ECONNREFUSED`` (or, over ipc, a socket file that is gone).  A link reports at
most once per connection: only a peer that was connected, and only until it connects
again (a restarted peer binds again, and the link reconnects by itself).  A link that
never connected (a peer not started yet) reports nothing, unless its peer was expected
to be up (a link made later, to a running cluster's node: a ring repaired round a crash
skipping to a node that is dead too).

One :class:`LinkMonitor` thread per network watches the monitor sockets of every link
that asked for it; it calls the link's callback from its own thread (the node's actor
turns it into a message to itself).  It sleeps until an event comes, or a link is added,
or it is stopped (a pipe wakes it): an idle node's monitor costs nothing, however many
links it watches.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import zmq

__all__ = ["LinkMonitor", "LinkWatch", "refused"]

log = logging.getLogger(__name__)


def _monitor_event(monitor: zmq.Socket[bytes]) -> int:
    """The next event's id on a monitor socket, without waiting (:class:`zmq.Again` if
    none).  Its first frame is a 16-bit event id and a 32-bit value, in native order, as
    ``zmq.utils.monitor`` reads it (which would import asyncio to do so)."""
    first = monitor.recv_multipart(zmq.NOBLOCK)[0]
    return int(struct.unpack("=hi", first)[0])


# A link counts as connected once its handshake succeeded (that event comes even when the
# monitor started a moment after the TCP connection did).
_CONNECTED = zmq.EVENT_CONNECTED | zmq.EVENT_HANDSHAKE_SUCCEEDED
_EVENTS = _CONNECTED | zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED | zmq.EVENT_MONITOR_STOPPED
# A dying process's connections may be reset a moment before its listening socket is
# closed: after a disconnect that is not (yet) refused, probe again every millisecond
# for a while rather than wait for ZeroMQ's next reconnect.
_RETRY_MS = 1
_RETRY_FOR = 0.02  # s
_PROBE_TIMEOUT = 0.05  # s: a refusal is immediate; anything slower is not proof


def refused(address: str) -> bool:
    """Whether a connection to ``address`` (``tcp://host:port`` or ``ipc://path``) is
    refused right now: nobody listens there.  A timeout, an unreachable host or a
    successful connect are not refusals."""
    if address.startswith("ipc://"):
        family, target = socket.AF_UNIX, address[len("ipc://") :]
        gone: tuple[int, ...] = (errno.ECONNREFUSED, errno.ENOENT)
    elif address.startswith("tcp://"):
        host, _, port = address[len("tcp://") :].rpartition(":")
        host = host.strip("[]")
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            target = (host, int(port))  # type: ignore[assignment]
        except ValueError:
            return False
        gone = (errno.ECONNREFUSED,)
    else:
        return False
    probe = socket.socket(family, socket.SOCK_STREAM)
    try:
        probe.settimeout(_PROBE_TIMEOUT)
        code = probe.connect_ex(target)
    except OSError:
        return False  # a name that does not resolve, a path too long …: not proof
    finally:
        probe.close()
    return code in gone


@dataclass
class LinkWatch:
    """What the monitor knows of one link (written by its thread only)."""

    peer: int
    address: str
    on_refused: Callable[[int], None]
    connected: bool = False
    reported: bool = field(default=False)
    #: The connection is down (since a disconnect, until it connects again): read by the
    #: link's owner so as not to wait on a send that cannot be queued (a bool: one write,
    #: one read, no lock needed).
    lost: bool = False
    probe_until: float = 0.0  # probing again until then (monotonic), after a disconnect

    def proven(self) -> bool:
        """Probe now; report (once) and ``True`` if refused."""
        if self.reported or not self.connected or not refused(self.address):
            return False
        self.reported, self.probe_until = True, 0.0
        try:
            self.on_refused(self.peer)
        except Exception:
            log.exception("the callback for node %s's refused link failed", self.peer)
        return True


class LinkMonitor:
    """One thread watching the monitor sockets of many links (see the module's text)."""

    def __init__(self, ctx: zmq.Context[zmq.Socket[bytes]], name: str) -> None:
        self._ctx = ctx
        self._lock = threading.Lock()
        self._pending: list[tuple[zmq.Socket[bytes], LinkWatch]] = []
        self._watches: dict[zmq.Socket[bytes], LinkWatch] = {}
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._started = False
        self._wake_r = self._wake_w = -1  # a pipe, once started: a byte for new links, or stop

    def _wake(self) -> None:
        if self._wake_w >= 0:
            with contextlib.suppress(OSError):  # full (BlockingIOError): it wakes anyway
                os.write(self._wake_w, b"!")

    def watch(
        self,
        sock: zmq.Socket[bytes],
        peer: int,
        address: str,
        on_refused: Callable[[int], None],
        *,
        connected: bool = False,
        expected: bool = False,
    ) -> LinkWatch:
        """Watch ``sock`` (a PUSH linked to ``peer`` at ``address``, from its owner
        thread): ``on_refused(peer)`` once its connection is lost and refused.  Called
        before ``sock`` connects, or with ``connected`` if it may have (then it counts as
        connected if it is now: with ``IMMEDIATE``, ``POLLOUT`` means connected).
        ``expected``: the peer is expected to be up already (a link made to a running
        cluster's node, e.g. a ring repaired round a crash), so a refusal of its very
        first connection is proof too.  :meth:`unwatch` before closing ``sock``.
        Returns what the monitor knows of the link (``lost``: its connection is down)."""
        monitor = sock.get_monitor_socket(_EVENTS)
        connected = expected or (connected and bool(sock.poll(0, zmq.POLLOUT)))
        entry = LinkWatch(peer, address, on_refused, connected)
        with self._lock:
            if self._stopping.is_set():
                monitor.close(linger=0)
                sock.disable_monitor()
                return entry
            self._pending.append((monitor, entry))
            if not self._started:
                self._started = True
                self._wake_r, self._wake_w = os.pipe()
                os.set_blocking(self._wake_w, False)
                self._thread.start()
        self._wake()
        return entry

    @staticmethod
    def unwatch(sock: zmq.Socket[bytes]) -> None:
        """Stop watching ``sock`` (from its owner thread, before closing it); the
        monitor thread closes its end when it reads that the monitor stopped."""
        if sock.closed:
            return
        with contextlib.suppress(zmq.ZMQError):
            sock.disable_monitor()

    def stop(self) -> None:
        """End the thread and close every monitor socket (before the context ends)."""
        with self._lock:
            self._stopping.set()
            started = self._started
        self._wake()
        if started:
            self._thread.join(5.0)
            if not self._thread.is_alive() and self._wake_r >= 0:  # (else: left open)
                os.close(self._wake_r)
                os.close(self._wake_w)
                self._wake_r = self._wake_w = -1

    def _run(self) -> None:
        poller = zmq.Poller()
        poller.register(self._wake_r, zmq.POLLIN)
        watches = self._watches
        try:
            while not self._stopping.is_set():
                with self._lock:
                    pending, self._pending = self._pending, []
                for monitor, entry in pending:
                    watches[monitor] = entry
                    poller.register(monitor, zmq.POLLIN)
                probing = [w for w in watches.values() if w.probe_until]
                for monitor, _ in poller.poll(_RETRY_MS if probing else None):
                    if monitor == self._wake_r:
                        with contextlib.suppress(BlockingIOError, OSError):
                            os.read(self._wake_r, 4096)
                        continue
                    if not self._read(monitor, watches[monitor]):
                        poller.unregister(monitor)
                        del watches[monitor]
                        monitor.close(linger=0)
                now = time.monotonic()
                for entry in probing:
                    if now > entry.probe_until:
                        entry.probe_until = 0.0  # not proof: ZeroMQ's reconnects go on
                    elif entry.probe_until:
                        entry.proven()
        finally:
            with self._lock:
                leftover = [m for m, _ in self._pending]
                self._pending = []
            for monitor in [*watches, *leftover]:
                monitor.close(linger=0)
            watches.clear()

    def _read(self, monitor: zmq.Socket[bytes], entry: LinkWatch) -> bool:
        """Handle one event; ``False`` once the link's monitor has stopped."""
        try:
            event = _monitor_event(monitor)
        except zmq.Again:
            return True
        except zmq.ZMQError:
            return False
        if event == zmq.EVENT_MONITOR_STOPPED:
            return False
        if event & _CONNECTED:
            entry.connected, entry.reported, entry.probe_until = True, False, 0.0
            entry.lost = False
            return True
        if event == zmq.EVENT_DISCONNECTED:
            entry.lost = True
        # EVENT_DISCONNECTED, or a reconnect that failed (EVENT_CLOSED): refused?
        if not entry.proven() and event == zmq.EVENT_DISCONNECTED and entry.connected:
            entry.probe_until = time.monotonic() + _RETRY_FOR
        return True
