"""Transport conformance: every transport passes the same suite.

Like trio's ``check_one_way_stream``: a network, its mailboxes and links are exercised
through the :class:`ringleader.transport.Network` protocol only, so the suite holds any transport to
the same promises — frames arrive intact, in order per link, only where they were sent,
and a dead peer costs its sender at most the send timeout.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import zmq

from ringleader.actors.host import Inbox, TimerFired
from ringleader.errors import TransportError
from ringleader.transport import (
    Mailbox,
    MemoryNetwork,
    Network,
    SocketOptions,
    ZmqNetwork,
    ensure_open_files,
    estimate,
)

SEND_TIMEOUT = 0.2


@pytest.fixture
def network(transport: str) -> Iterator[Network]:
    net: Network
    if transport == "memory":
        net = MemoryNetwork()
    else:
        net = ZmqNetwork(transport, options=SocketOptions(send_timeout=SEND_TIMEOUT))
    yield net
    net.close()


def receive(mailbox: Mailbox, count: int, timeout: float = 5.0) -> list[bytes]:
    """Up to ``count`` frames, waiting on the mailbox as a node's inbox does."""
    frames: list[bytes] = []
    poller = zmq.Poller()
    poller.register(mailbox.waitable, zmq.POLLIN)
    deadline = time.monotonic() + timeout
    while len(frames) < count:
        frame = mailbox.receive()
        if frame is not None:
            frames.append(frame)
            continue
        left = deadline - time.monotonic()
        if left <= 0:
            break
        poller.poll(max(1, int(left * 1000)))
    return frames


class Opened:
    """Mailboxes and links made in a test, closed at its end."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self.mailboxes: list[Mailbox] = []
        self.links: list = []  # type: ignore[type-arg]

    def mailbox(self, node: int, address: str | None = None) -> Mailbox:
        box = self.network.listen(node, address)
        self.mailboxes.append(box)
        return box

    def links_to(self, peers: dict[int, str], timeout: float = 5.0):  # type: ignore[no-untyped-def]
        links = self.network.connect(peers)
        self.links.append(links)
        assert links.wait_ready(timeout) == []
        return links

    def close(self) -> None:
        for links in self.links:
            links.close(abrupt=True)
        for box in self.mailboxes:
            box.close()


@pytest.fixture
def opened(network: Network) -> Iterator[Opened]:
    o = Opened(network)
    yield o
    o.close()


def test_frames_survive_the_round_trip(opened: Opened) -> None:
    box = opened.mailbox(2)
    links = opened.links_to({2: box.address})
    frames = [b"", b"\x00" * 3, os.urandom(200), os.urandom(60_000)]  # all ≤ 64 KiB
    for frame in frames:
        assert links.send(2, frame)
    assert receive(box, len(frames)) == frames


def test_a_mailbox_says_where_its_last_frame_came_from(opened: Opened, transport: str) -> None:
    """ZeroMQ's Peer-Address: an IP address over tcp, the sending process over ipc; no
    address inside one process."""
    box = opened.mailbox(2)
    assert box.sender() is None  # nothing received yet
    links = opened.links_to({2: box.address})
    assert links.send(2, b"frame")
    assert receive(box, 1) == [b"frame"]
    expected = {
        "tcp": "127.0.0.1",
        "ipc": f"process {os.getpid()} (uid {os.getuid()})",
    }.get(transport)
    assert box.sender() == expected


def test_an_empty_mailbox_returns_none_at_once(opened: Opened) -> None:
    box = opened.mailbox(1)
    began = time.monotonic()
    assert box.receive() is None
    assert time.monotonic() - began < 0.5


def test_each_link_is_fifo(opened: Opened) -> None:
    box = opened.mailbox(3)
    first = opened.links_to({3: box.address})
    second = opened.links_to({3: box.address})
    count = 2000
    for i in range(count):
        assert first.send(3, b"a%d" % i)
        assert second.send(3, b"b%d" % i)
    frames = receive(box, 2 * count)
    assert len(frames) == 2 * count
    assert [f for f in frames if f[:1] == b"a"] == [b"a%d" % i for i in range(count)]
    assert [f for f in frames if f[:1] == b"b"] == [b"b%d" % i for i in range(count)]


def test_a_frame_goes_only_to_the_peer_it_is_sent_to(opened: Opened) -> None:
    """One PUSH per peer: a PUSH connected to two peers would round-robin between them."""
    left, right = opened.mailbox(1), opened.mailbox(2)
    links = opened.links_to({1: left.address, 2: right.address})
    for i in range(50):
        assert links.send(2, b"r%d" % i)
    assert links.send(1, b"the one for the left")
    assert receive(left, 1) == [b"the one for the left"]
    assert receive(right, 50) == [b"r%d" % i for i in range(50)]
    assert left.receive() is None


def _unreachable(transport: str, network: Network) -> str:
    if transport == "tcp":
        with socket.socket() as s:  # a port that was free a moment ago: nobody listens
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        return f"tcp://127.0.0.1:{port}"
    if transport == "ipc":
        return f"ipc:///tmp/ringleader-nobody-{os.getpid()}-{time.monotonic_ns()}.sock"
    if transport == "inproc":
        return f"inproc://nobody-{time.monotonic_ns()}"
    return "memory://nobody"


def test_a_dead_peer_costs_the_sender_at_most_the_send_timeout(
    opened: Opened, transport: str
) -> None:
    links = opened.network.connect({9: _unreachable(transport, opened.network)})
    opened.links.append(links)
    began = time.monotonic()
    if transport == "inproc":
        # ZeroMQ's inproc lets a connect precede the bind: the link is "ready" and
        # queues (up to SNDHWM) for a peer that may bind later.
        assert links.wait_ready(0.1) == []
        assert all(links.send(9, b"hello?") for _ in range(3))
    else:
        assert links.wait_ready(0.1) == [9]
        assert [links.send(9, b"hello?") for _ in range(3)] == [False] * 3
    assert time.monotonic() - began < 0.1 + 3 * SEND_TIMEOUT + 1.0


def test_a_peer_that_goes_away_does_not_block_its_sender(opened: Opened, transport: str) -> None:
    box = opened.network.listen(5, None)
    links = opened.links_to({5: box.address})
    assert links.send(5, b"before")
    assert receive(box, 1) == [b"before"]
    box.close()
    began = time.monotonic()
    for _ in range(5):
        links.send(5, b"after")  # queued or dropped, but never stuck
    assert time.monotonic() - began < 5 * SEND_TIMEOUT + 1.0


def test_a_taken_address_is_refused_clearly(opened: Opened, transport: str) -> None:
    box = opened.mailbox(1)
    with pytest.raises(TransportError, match="node 2"):
        opened.mailbox(2, box.address)


def test_an_address_of_another_scheme_is_refused(opened: Opened, transport: str) -> None:
    other = "inproc://x" if transport != "inproc" else "tcp://127.0.0.1:1"
    with pytest.raises(TransportError, match="is not a"):
        opened.mailbox(1, other)


def test_a_closed_network_refuses_new_mailboxes(network: Network) -> None:
    network.close()
    network.close()  # idempotent
    with pytest.raises(TransportError, match="closed"):
        network.listen(1, None)
    with pytest.raises(TransportError, match="closed"):
        network.connect({})
    # ...and leaves nothing behind (an ipc network made its sockets' folder first)
    assert getattr(network, "_tmpdir", None) is None


@pytest.mark.parametrize("scheme", ["tcp", "ipc"])
def test_zeromq_drops_an_oversize_frame_before_python_sees_it(scheme: str) -> None:
    """MAXMSGSIZE applies where bytes are decoded off a connection (not inproc, which
    never leaves the process; the codec's own size check covers every transport)."""
    network = ZmqNetwork(
        scheme, options=SocketOptions(max_frame_size=1000, send_timeout=SEND_TIMEOUT)
    )
    o = Opened(network)
    try:
        box = o.mailbox(1)
        links = o.links_to({1: box.address})
        links.send(1, b"x" * 5000)
        assert receive(box, 1, timeout=0.5) == []
    finally:
        o.close()
        network.close()


def test_the_context_is_sized_for_the_cluster() -> None:
    network = ZmqNetwork("inproc", nodes=700, links=700)
    try:
        assert network._ctx.get(zmq.MAX_SOCKETS) >= 1400
    finally:
        network.close()


def test_a_cluster_too_big_for_one_context_fails_with_a_reason() -> None:
    with pytest.raises(TransportError, match="ZeroMQ sockets"):
        ZmqNetwork("inproc", nodes=40_000, links=40_000)


def test_the_open_file_limit_is_raised_or_the_failure_explained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import resource

    from ringleader.transport import _limits

    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, 4096))
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: calls.append(limits))
    monkeypatch.setattr(_limits, "_open_files", lambda: 100)
    ensure_open_files(estimate("tcp", 500, 500).files, what="a test cluster")
    assert calls and 1024 < calls[0][0] <= 4096 and calls[0][1] == 4096
    with pytest.raises(TransportError, match=r"hard limit.*inproc"):
        ensure_open_files(
            estimate("tcp", 900, 900).files,
            what="a test cluster",
            inproc=estimate("inproc", 900, 900).files,
        )


@pytest.mark.parametrize(
    ("scheme", "nodes", "advice"),
    [
        ("tcp", 500, r'use transport "inproc" \(about 2132: no connections\)'),
        ("tcp", 5000, r"simulate it \(ringleader run --simulate\), which opens none"),
        ("inproc", 5000, r"simulate it \(ringleader run --simulate\), which opens none"),
    ],
)
def test_the_open_file_advice_is_a_way_that_fits(
    monkeypatch: pytest.MonkeyPatch, scheme: str, nodes: int, advice: str
) -> None:
    """Too many files over tcp suggests inproc only if inproc's fit: else the simulator
    (a ring of 5,000 needs 20,032 files over inproc too)."""
    import resource

    from ringleader.transport import _limits

    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, 2500))
    monkeypatch.setattr(_limits, "_open_files", lambda: 100)
    with pytest.raises(TransportError, match=advice):
        ZmqNetwork(scheme, nodes=nodes, links=nodes)


class TestInboxTimers:
    """The actor's timers live in its inbox: no thread, the wait ends at the deadline."""

    def test_timers_fire_in_deadline_order_and_cancelled_ones_never(self) -> None:
        inbox = Inbox()
        inbox.schedule("late", 0.05)
        inbox.schedule("early", 0.01)
        inbox.schedule("gone", 0.02)
        inbox.cancel("gone")
        inbox.schedule("moved", 0.001)
        inbox.schedule("moved", 0.03)  # replaces the first deadline
        assert inbox.timers == 3
        began = time.monotonic()
        fired = [inbox.get().message for _ in range(3)]
        assert fired == [TimerFired("early"), TimerFired("moved"), TimerFired("late")]
        assert time.monotonic() - began >= 0.05
        assert inbox.timers == 0

    def test_a_timer_set_again_and_again_moves_without_piling_up(self) -> None:
        """The failure detector sets a peer's suspicion timer again on every message
        from it: the last deadline counts, and the heap does not grow with each."""
        inbox = Inbox()
        inbox.schedule("suspect", 0.001)
        for _ in range(1000):
            inbox.schedule("suspect", 0.03)
        inbox.schedule("other", 0.01)
        assert inbox.timers == 2 and len(inbox._timers) <= 3
        began = time.monotonic()
        assert inbox.get().message == TimerFired("other")
        assert inbox.get().message == TimerFired("suspect")
        assert time.monotonic() - began >= 0.03
        inbox.schedule("suspect", 5.0)
        inbox.schedule("suspect", 0.001)  # earlier again: it fires then
        assert inbox.get().message == TimerFired("suspect")
        assert inbox.timers == 0
        inbox.schedule("suspect", 0.01)  # after firing, and with old entries about
        inbox.cancel("suspect")
        inbox.schedule("late", 0.02)
        assert inbox.get().message == TimerFired("late")
        assert inbox.timers == 0

    def test_a_control_message_is_served_before_a_pending_timer(self) -> None:
        inbox = Inbox()
        inbox.schedule("t", 5.0)
        inbox.put("hello")
        assert inbox.get() == "hello"
        inbox.cancel("t")
        assert inbox.timers == 0

    def test_a_timer_fires_while_frames_keep_arriving(self, opened: Opened) -> None:
        inbox = Inbox()
        box = opened.mailbox(1)
        inbox.attach(box)
        links = opened.links_to({1: box.address})
        inbox.schedule("t", 0.25)
        links.send(1, b"frame")
        messages = [inbox.get().message for _ in range(2)]
        assert messages == [b"frame", TimerFired("t")]
        inbox.detach()

    @pytest.mark.parametrize("delay", [float("inf"), float("nan"), -1.0, 1e17])
    def test_a_delay_that_is_not_finite_is_refused_when_set(self, delay: float) -> None:
        inbox = Inbox()
        with pytest.raises(ValueError, match="is not a delay"):
            inbox.schedule("t", delay)
        assert inbox.timers == 0


class TestInboxWaitsInRecv:
    """On a ZeroMQ mailbox the actor blocks in one recv; a control message wakes it."""

    def test_a_control_message_wakes_an_actor_blocked_in_recv(self, opened: Opened) -> None:
        inbox = Inbox()
        box = opened.mailbox(1)
        inbox.attach(box)
        got: list[object] = []
        reader = threading.Thread(target=lambda: got.append(inbox.get()), daemon=True)
        reader.start()  # most often blocked in recv by the time of the put
        inbox.put("hello")
        reader.join(5.0)
        assert got == ["hello"]
        inbox.detach()

    def test_a_wake_up_is_never_taken_for_a_frame(self, opened: Opened) -> None:
        inbox = Inbox()
        box = opened.mailbox(1)
        inbox.attach(box)
        links = opened.links_to({1: box.address})
        for _ in range(3):
            inbox.put("control")
        assert links.send(1, b"")  # even an empty frame is delivered as a frame
        assert links.send(1, b"frame")
        messages = [inbox.get() for _ in range(3)]
        assert messages == ["control"] * 3
        frames = [inbox.get().message for _ in range(2)]
        assert frames == [b"", b"frame"]
        assert receive(box, 1, timeout=0.1) == []  # the wake-ups were skipped
        inbox.detach()
