"""ZeroMQ transports: a PULL mailbox per node, a PUSH socket per out-neighbour.

One PUSH per out-neighbour, never one PUSH connected to several peers: a PUSH socket
round-robins between its peers, it does not broadcast.  The same code serves ``tcp://``,
``ipc://`` and ``inproc://``; only the default addresses differ.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import zmq

from ._curve import CurveKeys
from ._deadline import Deadline
from ._errors import FrameRejected, TransportError
from ._frame import sender_of
from ._limits import ensure_open_files, estimate
from ._monitor import LinkMonitor, LinkWatch

if TYPE_CHECKING:
    from ._zap import ClusterAuthenticator
from ._schemes import SCHEMES

__all__ = ["SocketOptions", "ZmqLinks", "ZmqMailbox", "ZmqNetwork"]

log = logging.getLogger(__name__)

_networks = itertools.count(1)
_wakers = itertools.count(1)
_RELINK_EVERY = 0.02  # s
_EVENTS, _POLLIN, _NOBLOCK = int(zmq.EVENTS), int(zmq.POLLIN), int(zmq.NOBLOCK)
_RCVTIMEO = int(zmq.RCVTIMEO)


@dataclass(frozen=True)
class SocketOptions:
    """The socket options, each chosen on purpose.

    ``immediate``: a PUSH queues only to a peer whose connection is complete, so a dead
    or absent peer never silently collects a backlog (and a restarted peer never receives
    frames queued for its previous life); with it, ``POLLOUT`` on a PUSH means
    "connected", which :meth:`ZmqLinks.wait_ready` uses.
    ``send_timeout``: the longest one send may block on a full or unconnected peer before
    the frame is dropped and counted; without it, a dead peer blocks its sender forever.
    ``send_hwm`` / ``receive_hwm``: frames queued per link at the sending and receiving
    end (ZeroMQ adds the two up).  A node reads its mailbox as fast as it handles
    frames, so a queue only builds when a receiver falls behind; the large sending side
    holds the cluster's own bursts (a 1000-node worst-case election), the small receiving
    side is all a stranger's connection can fill: at most 1,000 frames of at most
    ``max_frame_size``, 64 KiB, however fast it sends.
    ``linger``: how long a cleanly closed link may still flush; a crash closes with 0.
    ``max_frame_size``: larger inbound frames make ZeroMQ drop the connection before any
    byte reaches Python (our frames are a few hundred bytes, a status answer a few KiB).
    ``reconnect_ivl`` / ``reconnect_ivl_max``: retry a lost connection after 20 ms,
    backing off to 100 ms, so that a restarted peer is linked to again within 0.1 s.
    """

    immediate: bool = True
    send_timeout: float = 1.0
    send_hwm: int = 10_000
    receive_hwm: int = 1_000
    linger: float = 0.2
    max_frame_size: int = 1 << 16
    reconnect_ivl: float = 0.02
    reconnect_ivl_max: float = 0.1


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _refuse_live_ipc(node: int, path: str) -> None:
    """ZeroMQ binds an ipc path by unlinking whatever is there, even a live mailbox.

    A socket file nobody accepts on (a crashed node's) may be replaced; one that
    accepts a connection belongs to a running node, so the bind is refused.
    """
    if path == "*" or not Path(path).exists():
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(path)
    except OSError:
        return  # stale: nobody is listening there
    finally:
        probe.close()
    raise TransportError(f"node {node}: cannot bind ipc://{path}: another mailbox is using it")


class ZmqMailbox:
    """A node's PULL socket, read by the node's own actor thread.

    With CURVE (``authenticated``), each frame's claimed sender id is compared with the
    node id of the key its connection authenticated with; a frame from the wrong key is
    dropped and reported to :attr:`on_reject` (the node counts it as ``wrong_key``).
    """

    def __init__(
        self,
        sock: zmq.Socket[bytes],
        address: str,
        *,
        authenticated: bool = False,
        waker: zmq.Socket[bytes] | None = None,
    ) -> None:
        self.address = address
        self._sock = sock
        self._authenticated = authenticated
        # Over tcp and ipc, keep the last frame (received without a copy) so that
        # sender() can ask ZeroMQ where it came from; inproc has no peer address.
        self._frames = authenticated or not address.startswith("inproc://")
        self._last: zmq.Frame | None = None
        self.on_reject: Callable[[FrameRejected], None] | None = None
        # A PUSH into this very socket (over inproc): wake() sends it a token no one else
        # knows, so that every other frame, even an empty one, is delivered as before.
        self._waker = waker
        self._token = os.urandom(16)
        self._waker_lock = threading.Lock()
        self._timeout = -1  # the socket's RCVTIMEO now

    @property
    def wakeable(self) -> bool:
        """Whether :meth:`wait` and :meth:`wake` may be used (not under CURVE)."""
        return self._waker is not None

    def wake(self) -> None:
        """Any thread: end a :meth:`wait` in progress (or the next one) at once."""
        with self._waker_lock:  # the PUSH is used by one thread at a time, and not closed
            if self._waker is not None:
                with contextlib.suppress(zmq.Again):  # a thousand queued: one is enough
                    self._waker.send(self._token, _NOBLOCK)

    def wait(self, timeout_ms: int) -> bytes | None:
        """Block in ``recv`` for the next frame, up to ``timeout_ms`` (-1: for ever).

        ``None``: the time is up, or :meth:`wake` was called.  One blocking ``recv`` costs
        less than ``zmq_poll`` on the socket and an eventfd, then a ``recv``: this is the
        node's hot path (see ``actors/host/_inbox.py``).
        """
        sock = self._sock
        if timeout_ms != self._timeout:
            sock.setsockopt(_RCVTIMEO, timeout_ms)
            self._timeout = timeout_ms
        try:
            if not self._frames:
                data = sock.recv()
                return None if data == self._token else data
            frame = sock.recv(copy=False)
        except zmq.Again:
            return None
        data = frame.bytes
        if data == self._token:
            return None
        if self._authenticated and not self._from_its_key(str(frame.get("User-Id")), data):
            return None
        self._last = frame
        return data

    @property
    def waitable(self) -> zmq.Socket[bytes]:
        return self._sock

    def receive(self) -> bytes | None:
        # EVENTS is read with the GIL held; recv releases it.  Asking first saves a GIL
        # hand-off (and an exception) every time the mailbox is empty.
        # (Plain ints, not pyzmq's enums: an enum operation costs a Python call.)
        if not self._sock.getsockopt(_EVENTS) & _POLLIN:  # type: ignore[operator]
            return None
        try:
            if not self._frames:
                while True:
                    data = self._sock.recv(_NOBLOCK)
                    if data != self._token:  # a wake-up is skipped
                        return data
            while True:
                frame = self._sock.recv(_NOBLOCK, copy=False)
                data = frame.bytes
                if data == self._token:
                    continue
                if not self._authenticated or self._from_its_key(str(frame.get("User-Id")), data):
                    self._last = frame
                    return data
        except zmq.Again:
            return None

    def sender(self) -> str | None:
        """ZeroMQ's ``Peer-Address`` of the last frame: the IP address over tcp; over ipc
        (``localhost:UID:GID:PID``), the sending process."""
        if self._last is None:
            return None
        try:
            peer = str(self._last.get("Peer-Address"))
        except zmq.ZMQError:
            return None
        parts = peer.split(":")
        if len(parts) == 4 and parts[0] == "localhost":  # ipc: the peer's credentials
            return f"process {parts[3]} (uid {parts[1]})"
        return peer

    def _from_its_key(self, user: str, data: bytes) -> bool:
        sender = sender_of(data)
        if sender is None:
            return True  # too short to claim anyone: rejected as truncated later
        if str(sender) == user:
            return True
        if self.on_reject is not None:
            self.on_reject(
                FrameRejected("wrong_key", f"node {user}'s key sent a frame as node {sender}")
            )
        return False

    def close(self) -> None:
        with self._waker_lock:
            if self._waker is not None:
                self._waker.close(linger=0)
                self._waker = None
        self._sock.close(linger=0)


class ZmqLinks:
    """One node's PUSH sockets, owned by the thread that made them."""

    def __init__(
        self,
        ctx: zmq.Context[zmq.Socket[bytes]],
        peers: Mapping[int, str],
        options: SocketOptions,
        *,
        curve: tuple[bytes, bytes, Mapping[int, bytes]] | None = None,
        monitor: LinkMonitor | None = None,
    ) -> None:
        self._ctx = ctx
        self._monitor = monitor  # watches links for a refused connection, once asked
        self._on_refused: Callable[[int], None] | None = None
        self._watched: dict[int, LinkWatch] = {}  # peer → what the monitor knows of its link
        self._options = options
        self._curve = curve  # (own public key, own secret key, every peer's public key)
        self._sockets: dict[int, zmq.Socket[bytes]] = {}
        self._addresses: dict[int, str] = {}
        self._down: set[int] = set()  # peers whose last send timed out
        self._relinked: dict[int, float] = {}  # inproc peers: when last linked again
        try:
            for peer, address in peers.items():
                self.add(peer, address)
        except BaseException:
            self.close(abrupt=True)
            raise

    def add(self, peer: int, address: str) -> None:
        """Link to one more peer (e.g. to repair a ring around a crashed node)."""
        options = self._options
        sock = self._ctx.socket(zmq.PUSH)
        try:
            sock.setsockopt(zmq.IMMEDIATE, int(options.immediate))
            sock.setsockopt(zmq.SNDTIMEO, _ms(options.send_timeout))
            sock.setsockopt(zmq.SNDHWM, options.send_hwm)
            sock.setsockopt(zmq.LINGER, _ms(options.linger))
            sock.setsockopt(zmq.RECONNECT_IVL, _ms(options.reconnect_ivl))
            sock.setsockopt(zmq.RECONNECT_IVL_MAX, _ms(options.reconnect_ivl_max))
            if self._curve is not None:
                public, secret, servers = self._curve
                if peer not in servers:
                    raise TransportError(f"node {peer} has no CURVE public key")
                sock.curve_publickey = public
                sock.curve_secretkey = secret
                sock.curve_serverkey = servers[peer]
            if self._on_refused is not None and self._monitor is not None:
                # A link made after the links were set up: to a node of a running cluster.
                watched = self._monitor.watch(sock, peer, address, self._on_refused, expected=True)
                self._watched[peer] = watched
            sock.connect(address)
        except zmq.ZMQError as exc:
            sock.close(linger=0)
            raise TransportError(f"cannot connect to {address}: {exc}") from exc
        except BaseException:
            sock.close(linger=0)
            raise
        old = self._sockets.pop(peer, None)
        if old is not None:
            LinkMonitor.unwatch(old)
            old.close(linger=0)
        self._sockets[peer] = sock
        self._addresses[peer] = address

    def __contains__(self, peer: object) -> bool:
        return peer in self._sockets

    def on_refused(self, callback: Callable[[int], None]) -> bool:
        """Call ``callback(peer)`` (from the network's monitor thread) when a connected
        link's connection is lost and refused: proof that the peer's process is gone (see
        ``_monitor.py``).  For this and every later link; ``False`` where no proof can be
        had (inproc)."""
        if self._monitor is None:
            return False
        self._on_refused = callback
        for peer, sock in self._sockets.items():
            address = self._addresses[peer]
            self._watched[peer] = self._monitor.watch(sock, peer, address, callback, connected=True)
        return True

    def send(self, peer: int, frame: bytes, *, wait: bool = True) -> bool:
        """Queue ``frame`` for ``peer``, waiting up to the send timeout for room unless
        ``wait`` is false or the last send to ``peer`` timed out (a crashed peer blocks
        its sender once, then never again until it answers)."""
        down = peer in self._down
        if down and self._addresses[peer].startswith("inproc://"):
            # inproc never reconnects by itself: link again now and then, in case the
            # peer is back (the new link may take a moment to attach).
            now = time.monotonic()
            stuck = not self._sockets[peer].poll(0, zmq.POLLOUT)
            if stuck and now - self._relinked.get(peer, 0.0) >= _RELINK_EVERY:
                self._relinked[peer] = now
                self.add(peer, self._addresses[peer])
        if wait and self._watched:
            watched = self._watched.get(peer)
            wait = watched is None or not watched.lost  # its connection is down: no room
        try:
            if wait and not down:
                self._sockets[peer].send(frame)
            else:
                self._sockets[peer].send(frame, zmq.NOBLOCK)
        except zmq.Again:
            self._down.add(peer)
            log.debug("send to node %s timed out; frame dropped", peer)
            return False
        if down:
            self._down.discard(peer)
        return True

    def wait_ready(self, timeout: float) -> list[int]:
        deadline = Deadline(timeout)
        return [
            peer
            for peer, sock in self._sockets.items()
            if not sock.poll(deadline.left_ms(), zmq.POLLOUT)
        ]

    def close(self, *, abrupt: bool = False) -> None:
        for sock in self._sockets.values():
            if self._on_refused is not None:
                LinkMonitor.unwatch(sock)
            sock.close(linger=0 if abrupt else _ms(self._options.linger))
        self._sockets.clear()


class ZmqNetwork:
    """Mailboxes and links over one ZeroMQ context.

    ``nodes`` and ``links`` size the context (``MAX_SOCKETS``) and the open-file limit
    up front; a network that cannot fit fails here with a message saying why.  Each node
    reads its own mailbox from its actor thread (see
    :class:`~ringleader.actors.host.Inbox`): there is no receiver thread, only ZeroMQ's
    one I/O thread.
    """

    def __init__(
        self,
        scheme: str = "tcp",
        *,
        nodes: int = 16,
        links: int = 16,
        options: SocketOptions | None = None,
        curve: CurveKeys | None = None,
    ) -> None:
        if scheme not in SCHEMES:
            raise TransportError(f"unknown transport {scheme!r} (valid: {', '.join(SCHEMES)})")
        self.scheme = scheme
        self.options = options or SocketOptions()
        demand = estimate(scheme, nodes, links)
        what = f"a {nodes}-node {scheme} network with {links} links"
        self._ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context(io_threads=1)
        try:
            limit = self._ctx.get(zmq.SOCKET_LIMIT)
            wanted = max(1023, demand.sockets + 64)
            if wanted > limit:
                raise TransportError(
                    f"{what} needs {demand.sockets} ZeroMQ sockets but one context allows "
                    f"at most {limit}: run fewer nodes in one process"
                )
            self._ctx.set(zmq.MAX_SOCKETS, wanted)
            inproc = estimate("inproc", nodes, links).files if scheme != "inproc" else None
            ensure_open_files(demand.files, what=what, inproc=inproc)
        except BaseException:
            self._ctx.term()
            raise
        self._id = next(_networks)
        self.curve = curve
        self._auth: ClusterAuthenticator | None = None
        if curve is not None:
            from ._zap import ClusterAuthenticator  # noqa: PLC0415 -- brings asyncio: CURVE only

            self._auth = ClusterAuthenticator(self._ctx, curve.public)
            self._auth.start()
        self._tmpdir: Path | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._monitor: LinkMonitor | None = None
        if scheme in ("tcp", "ipc"):  # inproc: a peer's death refuses nothing
            self._monitor = LinkMonitor(self._ctx, f"ringleader-monitor-{self._id}")

    def listen(self, node: int, address: str | None) -> ZmqMailbox:
        if self._closed:  # (before an ipc address's folder is made: close removed it)
            raise TransportError("the network is closed")
        address = address or self._default_address(node)
        if not address.startswith(f"{self.scheme}://"):
            raise TransportError(f"node {node}: {address!r} is not a {self.scheme}:// address")
        if address.startswith("ipc://"):
            _refuse_live_ipc(node, address[len("ipc://") :])
        keys = self.curve.pair(node) if self.curve is not None else None
        sock = self._ctx.socket(zmq.PULL)
        try:
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.RCVHWM, self.options.receive_hwm)
            sock.setsockopt(zmq.MAXMSGSIZE, self.options.max_frame_size)
            if keys is not None:
                sock.curve_server = True
                sock.curve_publickey, sock.curve_secretkey = keys
            sock.bind(address)
            bound = sock.getsockopt_string(zmq.LAST_ENDPOINT)
        except zmq.ZMQError as exc:
            sock.close(linger=0)
            raise TransportError(f"node {node}: cannot bind {address}: {exc}") from exc
        waker = None if keys is not None else self._waker(sock)
        return ZmqMailbox(sock, bound, authenticated=keys is not None, waker=waker)

    def _waker(self, sock: zmq.Socket[bytes]) -> zmq.Socket[bytes]:
        """A PUSH connected to ``sock`` over inproc: it wakes the node's actor thread from
        a blocking ``recv`` when a control message comes (see :meth:`ZmqMailbox.wake`).

        Not under CURVE: a CURVE server socket would want a handshake on this link too.
        """
        endpoint = f"inproc://ringleader-wake-{self._id}-{next(_wakers)}"
        sock.bind(endpoint)
        waker = self._ctx.socket(zmq.PUSH)
        waker.setsockopt(zmq.LINGER, 0)
        waker.connect(endpoint)
        return waker

    def connect(self, peers: Mapping[int, str], *, node: int | None = None) -> ZmqLinks:
        if self._closed:
            raise TransportError("the network is closed")
        curve = None
        if self.curve is not None:
            if node is None:
                raise TransportError("with CURVE, links need the node they belong to")
            curve = (*self.curve.pair(node), self.curve.public)
        return ZmqLinks(self._ctx, peers, self.options, curve=curve, monitor=self._monitor)

    def close(self) -> None:
        """End the context once every mailbox and link is closed.

        Every socket must have been closed by its thread first; if some were not, the
        context is destroyed after a short wait instead of hanging forever.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self._monitor is not None:
            self._monitor.stop()
        if self._auth is not None:
            self._auth.stop()
        closer = threading.Thread(target=self._ctx.term, name="ringleader-ctx-term", daemon=True)
        closer.start()
        closer.join(2.0)
        if closer.is_alive():
            # Never call term() a second time while the closer is inside it: close the
            # sockets it waits for, and let the closer finish.
            log.warning("sockets were left open; closing them with linger 0")
            for sock in list(self._ctx._sockets):  # pyzmq's weak set of this context's sockets
                sock.close(linger=0)
            closer.join(5.0)
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)

    def _default_address(self, node: int) -> str:
        if self.scheme == "tcp":
            return "tcp://127.0.0.1:*"
        if self.scheme == "inproc":
            return f"inproc://ringleader-{self._id}-{node}"
        with self._lock:
            if self._tmpdir is None:
                self._tmpdir = Path(tempfile.mkdtemp(prefix="ringleader-"))
        return f"ipc://{self._tmpdir}/{node}.sock"
