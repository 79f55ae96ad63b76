"""Tools for the rogue-peer tests (``tests/system/test_rogue.py``), written from
``docs/wire-format.md`` rather than from the codec: a :class:`Forger` that signs frames
with the secret, :func:`unsigned_reason` and a fuzzer (:func:`fuzz_frames`) that know
why each frame must be refused, a 3-node mesh of ``ringleader node`` processes
(:func:`mesh`) with a client of one of them (:func:`probe`), and the rogue peers, one
attack per case (:data:`CASES`).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import pickle
import random
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

import ringleader
from ringleader.actors.host import (
    OPERATOR,
    WATCHER,
    NodeStatus,
    StatusAnswer,
    StatusQuery,
    wire_kinds,
)
from ringleader.errors import FrameRejected
from ringleader.service import REJECTIONS_PER_SECOND
from ringleader.topologies import SECRET_ENV
from ringleader.transport import FORMAT_VERSION, Codec, Session
from ringleader.transport._frame import _HEAD, HEAD_SIZE, MAC_SIZE, describe_versions
from tests.nodes import Event, NodeProcess, running, wait_agreement, write_config

#: 32 random bytes in hex, as `ringleader keys` writes them (the nodes sign with the text).
SECRET = "5e0c1f4a9b3d7e2f8a6c4b1d0e9f7a3c2b5d8e1f4a7c0b3d6e9f2a5c8b1d4e7f"
WRONG_SECRET = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
MESH = 'topology = "full_mesh"\n'
IDS = [1, 2, 3]
TARGET = 2  # the node under attack: it survives the leader's death and leads next
LEADER = 3
MIN_FRAME = HEAD_SIZE + MAC_SIZE  # a header and a tag: a message without fields
RL_NOW = b"RL" + bytes([FORMAT_VERSION])  # the magic and the format spoken now
MAX_FRAME = 1 << 16  # the codec's max_frame_size, and the mailbox's ZMQ_MAXMSGSIZE
FUZZ_SEED = 20261123
FUZZ_FRAMES = 3000

#: Operator incarnations, increasing: each query (or forged operator frame) is newer
#: than the last, so the node never takes a later one for a stale life.
INCARNATIONS = itertools.count(time.time_ns())


# -- frames, forged independently of the codec --------------------------------------------


def sign(secret: bytes, body: bytes) -> bytes:
    """Keyed BLAKE2b (a secret over 64 bytes is first hashed to 64)."""
    if len(secret) > 64:
        secret = hashlib.blake2b(secret, digest_size=64).digest()
    return hashlib.blake2b(body, key=secret, digest_size=MAC_SIZE).digest()


@dataclass(frozen=True)
class Forger:
    """Writes frames byte by byte as ``docs/wire-format.md`` lays them out."""

    secret: bytes
    cluster: int
    versions: bytes
    kinds: Mapping[str, type[Any]]

    def head(
        self,
        *,
        sender: int,
        receiver: int,
        incarnation: int,
        receiver_incarnation: int = 0,
        epoch: int = 1,
        seq: int = 1,
        kind: str | int = "ping",
        cluster: int | None = None,
        versions: bytes | None = None,
        magic: bytes = b"RL",
        version: int = FORMAT_VERSION,
    ) -> bytes:
        return _HEAD.pack(
            magic,
            version,
            self.index(kind),
            self.cluster if cluster is None else cluster,
            sender,
            receiver,
            incarnation,
            receiver_incarnation,
            epoch,
            seq,
            self.versions if versions is None else versions,
        )

    def frame(self, payload: bytes, *, secret: bytes | None = None, **fields: Any) -> bytes:
        body = self.head(**fields) + payload
        return body + sign(self.secret if secret is None else secret, body)

    def index(self, kind: str | int) -> int:
        """A kind's byte: its index in the cluster's table (an int is taken as it is)."""
        return kind if isinstance(kind, int) else list(self.kinds).index(kind)

    def message(self, kind: str, *args: Any) -> bytes:
        """The payload of a ``ping`` or ``pong`` (a 64-bit ``seq``, 0 unless given; the
        founding configuration's key, 0 and 0, and no configuration) or a
        ``status_query`` (its reply address: a 32-bit length, then UTF-8)."""
        if kind in ("ping", "pong"):
            return struct.pack("!qqq?", *(args or (0,)), 0, 0, False)
        if kind == "status_query":
            text = str(args[0]).encode()
            return struct.pack("!I", len(text)) + text
        raise ValueError(f"the forger does not write {kind!r} payloads")


def unsigned_reason(frame: bytes, secret: bytes) -> str | None:
    """What a node must call ``frame`` before trusting any field of it (size, magic,
    version, then the tag, in that order); ``None``: the tag is right."""
    if len(frame) < MIN_FRAME:
        return "truncated"
    if len(frame) > MAX_FRAME:
        return "oversize"
    if frame[:2] != b"RL":
        return "bad_magic"
    if frame[2] != FORMAT_VERSION:
        return "bad_version"
    if not hmac.compare_digest(sign(secret, frame[:-MAC_SIZE]), frame[-MAC_SIZE:]):
        return "bad_signature"
    return None


class Canary:
    """Unpickling this creates a file: if the file appears, a pickle was loaded."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (self.path,))


# -- a fuzzer: mutations of authentic frames, random bytes, misaddressed authentic frames --

#: (offset, size) of each header field (magic, version, kind length, cluster, sender,
#: receiver, incarnation, receiver incarnation, epoch, sequence number, versions).
FIELDS = [(0, 2), (2, 1), (3, 1), *((4 + 8 * i, 8) for i in range(7)), (60, 6)]


@dataclass
class FuzzTarget:
    forger: Forger
    node: int
    incarnation: int
    members: tuple[int, ...]
    #: member → the incarnation the target has already admitted frames from (seq ≥ 1)
    heard: Mapping[int, int] = field(default_factory=dict)
    #: frames above the codec's limit reach the node (the memory transport), rather than
    #: making ZeroMQ hang up
    oversize: bool = False


def _mutate(rng: random.Random, frame: bytes) -> bytes:
    data = bytearray(frame)
    how = rng.randrange(5)
    if how == 0:  # flip a few bits
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == 1:  # cut short
        del data[rng.randrange(len(data)) :]
    elif how == 2:  # extend
        data += rng.randbytes(rng.randint(1, 64))
    elif how == 3:  # change one header field, keeping the tag
        start, size = rng.choice(FIELDS)
        data[start : start + size] = rng.randbytes(size)
    else:  # splice random bytes in anywhere
        start = rng.randrange(len(data))
        data[start : start + rng.randint(0, 16)] = rng.randbytes(rng.randint(0, 16))
    return bytes(data)


def _authentic_misfit(  # noqa: PLR0911, PLR0912 -- one case per check
    rng: random.Random, t: FuzzTarget, canary: bytes
) -> tuple[bytes, str]:
    """An authentic frame wrong in exactly one way that is checked before decoding, so
    it may carry the canary."""
    f = t.forger
    payload = canary if rng.random() < 0.5 else f.message("ping")
    fields: dict[str, Any] = {
        "sender": rng.choice(t.members),
        "receiver": t.node,
        "incarnation": rng.randrange(1, 2**64),
        "receiver_incarnation": rng.choice((0, t.incarnation)),
        "epoch": rng.randrange(2**64),
        "seq": rng.randrange(2**64),
    }
    checks = [
        "wrong_cluster",
        "incompatible",
        "unknown_kind",
        "wrong_receiver",
        "stale_receiver",
        "unknown_sender",
    ]
    if t.heard:
        checks += ["stale_incarnation", "replayed"]
    check = rng.choice(checks)
    if check == "wrong_cluster":
        cluster = rng.randrange(2**64)
        if cluster == f.cluster:
            cluster ^= 1
        return f.frame(payload, cluster=cluster, **fields), "wrong_cluster"
    if check == "incompatible":  # another ringleader (Python's, cloudpickle's: the same)
        versions = rng.randbytes(2)
        if versions == f.versions[:2]:
            versions = bytes(2)
        return f.frame(payload, versions=versions + f.versions[2:], **fields), "incompatible"
    if check == "unknown_kind":
        kind = rng.randrange(len(f.kinds), 256)
        return f.frame(payload, kind=kind, **fields), "unknown_kind"
    if check == "wrong_receiver":
        receiver = rng.randrange(-(2**63), 2**63)
        if receiver == t.node:
            receiver += 1
        return f.frame(payload, **{**fields, "receiver": receiver}), "wrong_receiver"
    if check == "stale_receiver":
        life = rng.randrange(1, 2**64)
        if life == t.incarnation:
            life -= 1
        return f.frame(payload, **{**fields, "receiver_incarnation": life}), "stale_receiver"
    if check == "unknown_sender":
        sender = rng.randrange(-(2**63), 2**63)
        if sender in t.members or sender in (OPERATOR, WATCHER):
            sender = max(t.members) + 1
        return f.frame(payload, **{**fields, "sender": sender}), "unknown_sender"
    member, life = rng.choice(sorted(t.heard.items()))
    if check == "stale_incarnation":
        old: dict[str, Any] = {
            "sender": member,
            "incarnation": life - 1 - rng.randrange(2**32) % life,
        }
        return f.frame(payload, **{**fields, **old}), "stale_incarnation"
    # "replayed": the member's first (or a zeroth) frame, long since admitted
    again: dict[str, Any] = {"sender": member, "incarnation": life, "seq": rng.randint(0, 1)}
    return f.frame(payload, **{**fields, **again}), "replayed"


@dataclass
class _Operator:
    """Authentic frames as the operator, addressed right: decoded, then refused (the
    operator may only ask for status); or not its kind's layout, and refused as such."""

    incarnation: int = field(default_factory=lambda: next(INCARNATIONS))
    seq: int = 0
    admitted: list[bytes] = field(default_factory=list)

    def next(self, rng: random.Random, t: FuzzTarget, canary: bytes) -> tuple[bytes, str]:
        f = t.forger
        to: dict[str, Any] = {"sender": OPERATOR, "receiver": t.node, "epoch": rng.randrange(2**64)}
        roll = rng.random()
        if self.admitted and roll < 0.2:
            return rng.choice(self.admitted), "replayed"
        if self.admitted and roll < 0.35:
            # Another, older life of the operator's tools (a watcher while a status runs):
            # a replay window of its own, so it is read, and the canary refused.
            old = self.incarnation - rng.randint(1, 10**9)
            return f.frame(canary, incarnation=old, seq=rng.randrange(2**64), **to), ("undecodable")
        self.seq += 1
        to |= {"incarnation": self.incarnation, "seq": self.seq}
        kind = rng.choice(["ping", "pong"])
        roll = rng.random()
        if roll < 0.4:  # signed, but not a ping's or pong's layout: 25 bytes
            broken = rng.choice(
                [
                    canary,
                    pickle.dumps(rng.random(), protocol=5),
                    rng.randbytes(rng.choice([0, 1, 7, 9, 16, 100])),
                ]
            )
            return f.frame(broken, kind=kind, **to), "undecodable"  # never admitted
        # a well-formed message, but the operator may only ask for status
        frame = f.frame(f.message(kind, rng.randrange(2**63)), kind=kind, **to)
        self.admitted.append(frame)
        return frame, "unknown_sender"


def fuzz_frames(
    rng: random.Random, t: FuzzTarget, count: int, canary: bytes
) -> list[tuple[bytes, str]]:
    """``count`` frames for ``t``, each with the reason it must be rejected for, in the
    order they must be sent (operator frames depend on the ones before them)."""
    f = t.forger
    # A pickle loads up to its STOP and ignores the rest: padded to a fixed size, the
    # canary makes the same seed give the same frames whatever the temporary path.
    canary = canary.ljust(512, b"\0")
    valid = [
        f.frame(
            payload,
            sender=rng.choice(t.members),
            receiver=t.node,
            incarnation=rng.randrange(1, 2**64),
            seq=rng.randrange(1, 2**64),
            kind=kind,
        )
        for kind, payload in [
            ("ping", f.message("ping")),
            ("pong", f.message("pong")),
            ("ping", canary),
        ]
    ]
    frames: list[tuple[bytes, str]] = [
        (RL_NOW + rng.randbytes(MAX_FRAME - 3), "bad_signature"),  # as big as it may be
        (rng.randbytes(MAX_FRAME), "bad_magic"),
        (canary, "bad_magic"),
    ]
    if t.oversize:
        frames += [
            (RL_NOW + rng.randbytes(MAX_FRAME), "oversize"),
            (bytes(2 * MAX_FRAME), "oversize"),
        ]
    operator = _Operator()
    while len(frames) < count:
        roll = rng.random()
        if roll < 0.45:
            frame = _mutate(rng, rng.choice(valid))
            reason = unsigned_reason(frame, f.secret)
            if reason is None:  # the mutation undid itself
                continue
        elif roll < 0.6:
            prefix = rng.choice([b"", b"RL", RL_NOW, b"RL" + rng.randbytes(1)])
            frame = prefix + rng.randbytes(rng.randint(0, 300))
            reason = unsigned_reason(frame, f.secret) or "admitted?"
        elif roll < 0.9:
            frame, reason = _authentic_misfit(rng, t, canary)
        else:
            frame, reason = operator.next(rng, t, canary)
        frames.append((frame, reason))
    return frames


# -- a cluster of node processes and a client of one of them --------------------------------


@dataclass
class Mesh:
    config: ringleader.Config
    nodes: dict[int, NodeProcess]
    incarnation: dict[int, int]  # each node's, from its "listening" event
    epoch: int  # of the first agreement

    @property
    def secret(self) -> bytes:
        secret = self.config.secret()
        assert secret is not None
        return secret

    @property
    def codec(self) -> Codec:
        return Codec(self.secret, self.config.cluster_id, wire_kinds(self.config.algorithm_class))

    @property
    def forger(self) -> Forger:
        codec = self.codec
        return Forger(self.secret, codec.cluster, codec.versions, codec.kinds)

    def endpoint(self, node: int) -> tuple[str, int]:
        host, _, port = self.config.addresses[node][len("tcp://") :].rpartition(":")
        return host, int(port)


@contextmanager
def mesh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Mesh]:
    """Nodes 1, 2, 3 in a full mesh, as processes, agreed on node 3."""
    monkeypatch.setenv(SECRET_ENV, SECRET)
    path = write_config(tmp_path / "mesh.toml", MESH, IDS)
    config = ringleader.load_config(path)
    with running(path, IDS, env={SECRET_ENV: SECRET}) as nodes:
        epoch = wait_agreement(nodes, IDS, LEADER)
        lives = {i: nodes[i].wait_for(lambda e: e["event"] == "listening") for i in IDS}
        yield Mesh(config, nodes, {i: e["incarnation"] for i, e in lives.items()}, epoch)


def fail_over(m: Mesh) -> None:
    """Kill the leader: the others (the attacked node among them) agree on the next."""
    m.nodes[LEADER].kill()
    epoch = wait_agreement(m.nodes, [1, 2], 2)
    assert epoch > m.epoch
    assert m.nodes[TARGET].process.poll() is None


class Probe:
    """A PUSH to one node's mailbox (for rogue frames) and a PULL for its answers."""

    def __init__(
        self,
        push: zmq.Socket[bytes],
        pull: zmq.Socket[bytes],
        codec: Codec,
        node: int,
        address: str,
    ) -> None:
        self.push, self.pull = push, pull
        self.codec = codec
        self.node = node
        for sock in (push, pull):
            sock.setsockopt(zmq.LINGER, 0)
        push.setsockopt(zmq.SNDTIMEO, 10_000)  # a blocked send fails, never hangs
        push.connect(address)
        pull.bind("tcp://127.0.0.1:*")
        self.reply_to = pull.getsockopt_string(zmq.LAST_ENDPOINT)
        self.strays: list[bytes] = []  # answers to other questions

    def send(self, *frames: bytes) -> None:
        for frame in frames:
            self.push.send(frame)

    def answer(self, session: Session, timeout: float) -> NodeStatus | None:
        """The node's next answer to ``session``'s questions, if one comes in ``timeout``."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0 and self.pull.poll(round(left * 1000) + 1):
            frame = self.pull.recv()
            try:
                _, answer = session.open(frame)
            except FrameRejected:
                self.strays.append(frame)
                continue
            assert type(answer) is StatusAnswer
            assert isinstance(answer.status, NodeStatus)
            return answer.status
        return None

    def status(
        self, send: Callable[[bytes], object] | None = None, timeout: float = 20.0
    ) -> NodeStatus:
        """Ask the node for its status as the operator, on the probe's PUSH (or with
        ``send``), after whatever was sent there before; asked again every second, as
        the node drops an answer it cannot deliver within a heartbeat."""
        session = Session(self.codec, OPERATOR, next(INCARNATIONS))
        query = StatusQuery(self.reply_to)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            (send or self.push.send)(session.seal(self.node, query.kind, 0, query))
            status = self.answer(session, min(left, 1.0))
            if status is not None:
                return status
        raise AssertionError(f"node {self.node} did not answer within {timeout} s")


@contextmanager
def probe(m: Mesh, node: int = TARGET) -> Iterator[Probe]:
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    sockets: list[zmq.Socket[bytes]] = []
    try:
        push = ctx.socket(zmq.PUSH)
        sockets.append(push)
        pull = ctx.socket(zmq.PULL)
        sockets.append(pull)
        yield Probe(push, pull, m.codec, node, m.config.addresses[node])
    finally:
        for sock in sockets:
            sock.close(linger=0)
        ctx.term()


def rejected_since(before: NodeStatus, after: NodeStatus) -> Counter[str]:
    """Frames rejected between two statuses, by reason.  ``stale_epoch`` is left out: it
    counts election messages the algorithm drops, not frames the wire refused."""
    delta = Counter(after.rejected)
    delta.subtract(before.rejected)
    return Counter({r: n for r, n in delta.items() if n and r != "stale_epoch"})


def reports_due(reason: str, count: int) -> int:
    """How many ``rejected_frame`` events ``count`` frames rejected for ``reason`` from
    one address (the probe's) make a node print at least: one for frames failing the
    signature (once per address, then a count every ``BAD_SIGNATURE_EVERY`` s), else up
    to the rate limit per reason and second."""
    return min(count, 1 if reason == "bad_signature" else REJECTIONS_PER_SECOND)


def reported(node: NodeProcess, expected: Counter[str], old: set[int]) -> Counter[str]:
    """Wait until ``node`` has reported the rejections it must have (:func:`reports_due`
    per reason); return every ``rejected_frame`` event it reported since ``old``."""
    due = {r: reports_due(r, n) for r, n in expected.items()}
    seen: Counter[str] = Counter()

    def tally(event: Event) -> bool:
        if event["event"] == "rejected_frame" and id(event) not in old:
            seen[event["reason"]] += 1
        return all(seen[r] >= n for r, n in due.items())

    if due:
        node.wait_for(tally)
    return Counter(
        e["reason"] for e in node.drain() if e["event"] == "rejected_frame" and id(e) not in old
    )


def zmtp1(body: bytes) -> bytes:
    """One ZMTP/1.0 message (length including the flags byte, flags, body)."""
    size = len(body) + 1
    head = bytes([size]) if size < 255 else b"\xff" + size.to_bytes(8, "big")
    return head + b"\x00" + body


#: A ZMTP 3.0 greeting: signature, version 3.0, mechanism NULL, not as-server, filler.
GREETING = b"\xff" + bytes(8) + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + bytes(32)
READY_PUSH = b"\x04\x1a\x05READY\x0bSocket-Type\x00\x00\x00\x04PUSH"


def zmtp3(body: bytes) -> bytes:
    if len(body) < 256:
        return b"\x00" + bytes([len(body)]) + body
    return b"\x02" + len(body).to_bytes(8, "big") + body


def read_greeting(raw: socket.socket) -> bytes:
    got = b""
    while len(got) < len(GREETING):
        chunk = raw.recv(len(GREETING) - len(got))
        assert chunk, "the node hung up during the handshake"
        got += chunk
    return got


def wait_hung_up(raw: socket.socket, timeout: float = 10.0) -> None:
    """Read until the node closes the connection (within ``timeout``)."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        raw.settimeout(left)
        try:
            if not raw.recv(65536):
                return
        except ConnectionResetError:
            return
        except TimeoutError:
            break
    raise AssertionError(f"the node kept the connection open for {timeout} s")


# -- rogue peers, one case each --------------------------------------------------------------


@dataclass
class Attack:
    mesh: Mesh
    probe: Probe
    forger: Forger
    canary: bytes  # a pickle that creates a file when loaded

    def unsigned(self, frames: list[bytes]) -> Counter[str]:
        reasons = Counter(unsigned_reason(f, self.forger.secret) for f in frames)
        assert None not in reasons
        return Counter({str(r): n for r, n in reasons.items()})

    def first(self, sender: int = 1, **fields: Any) -> bytes:
        """What ``sender`` sent the target first (seq 1 of its life), the canary inside.

        Long since admitted only from the leader: the target follows it, so it has
        admitted its frames.  Under the steady rules two followers need not exchange a
        frame at all (node 1's first pings may go before its link to node 2 is up, and
        then it only answers its leader): a frame of node 1's life is not refused as
        ``replayed`` or ``stale_incarnation`` until node 2 has heard from node 1."""
        life = self.mesh.incarnation[sender]
        base: dict[str, Any] = {"sender": sender, "receiver": TARGET, "incarnation": life, "seq": 1}
        return self.forger.frame(self.canary, **{**base, **fields})


def random_bytes(a: Attack) -> Counter[str]:
    rng = random.Random(1)
    sizes = [0, 1, 2, 3, 65, 66, 98, 99, 100, 257, 4096, 65536]
    frames = [rng.randbytes(n) for n in sizes]
    frames += [prefix + rng.randbytes(200) for prefix in (b"RL", b"RL\x01", RL_NOW, b"RL\xff")]
    a.probe.send(*frames)
    expected = a.unsigned(frames)
    assert set(expected) == {"truncated", "bad_magic", "bad_version", "bad_signature"}
    return expected


def zmtp1_raw_tcp(a: Attack) -> Counter[str]:
    """A plain TCP client speaking unversioned ZMTP/1.0 by hand: libzmq still accepts
    such peers, so its well-formed messages reach the node as frames; malformed ones and
    an over-long one make the node hang up."""
    endpoint = a.mesh.endpoint(TARGET)
    frames = [b"hello", b"X" * 150, RL_NOW + bytes(150), b"RL\x09" + bytes(150), a.canary]
    with socket.create_connection(endpoint, timeout=10) as raw:
        raw.sendall(b"\x01\x00" + b"".join(zmtp1(f) for f in frames))  # empty identity first
        # The count is asked on the same connection: answered after all of them.
        a.probe.status(send=lambda query: raw.sendall(zmtp1(query)))
    for junk in (
        b"\x01\x00" + bytes(range(256)) * 4,  # a zero length: no ZMTP/1.0 frame at all
        b"\x01\x00\xff" + (2**40).to_bytes(8, "big") + b"\x00" + b"x" * 1000,  # > MAXMSGSIZE
    ):
        with socket.create_connection(endpoint, timeout=10) as raw:
            raw.sendall(junk)
            wait_hung_up(raw)
    return a.unsigned(frames)


def zmtp3_raw_tcp(a: Attack) -> Counter[str]:
    """ZMTP 3.0 by hand: a greeting then garbage, or an unknown mechanism, makes the node
    hang up; a correct NULL handshake delivers frames, each counted; a message above
    MAXMSGSIZE makes it hang up again."""
    endpoint = a.mesh.endpoint(TARGET)
    for junk in (
        GREETING + b"garbage!" * 64,
        GREETING[:12] + b"EVIL".ljust(20, b"\0") + bytes(32),
        b"\xff" + bytes(8) + b"\x7f" + b"\x01\x08" + b"junkjunk" * 10,  # ZMTP 2.0, no frames
    ):
        with socket.create_connection(endpoint, timeout=10) as raw:
            raw.sendall(junk)
            wait_hung_up(raw)
    frames = [b"", b"RL", RL_NOW + bytes(400), a.canary, bytes(MIN_FRAME)]
    with socket.create_connection(endpoint, timeout=10) as raw:
        raw.sendall(GREETING)
        assert read_greeting(raw)[:1] == b"\xff"
        raw.sendall(READY_PUSH + b"".join(zmtp3(f) for f in frames))
        a.probe.status(send=lambda query: raw.sendall(zmtp3(query)))
        raw.sendall(b"\x02" + (2**40).to_bytes(8, "big") + b"x" * 100)
        wait_hung_up(raw)
    return a.unsigned(frames)


def unsigned_pickle(a: Attack) -> Counter[str]:
    """Pickles that would create the canary file, in every unsigned disguise."""
    c, f = a.canary, a.forger
    head = f.head(sender=1, receiver=TARGET, incarnation=a.mesh.incarnation[1], seq=2**62)
    frames = [
        c,  # bare
        head + c + bytes(MAC_SIZE),  # a zero tag
        head + c,  # no tag: the pickle's tail taken for one
        f.frame(c, secret=WRONG_SECRET.encode(), sender=1, receiver=TARGET, incarnation=1),
        head[:2] + b"\x01" + head[3:] + c + sign(f.secret, head + c),  # format 1
        b"\x80\x05" + head + c + bytes(MAC_SIZE),  # pickle first
    ]
    a.probe.send(*frames)
    a.probe.push.send_multipart([head, c])  # two parts: two frames
    return a.unsigned([*frames, head, c])


def truncated(a: Attack) -> Counter[str]:
    full = a.first(seq=2**62)  # addressed and fresh: it would be decoded, if it arrived whole
    cuts = [0, 1, 2, 3, 4, 12, 65, 66, 67, 97, 98, 99, len(full) - MAC_SIZE, len(full) - 1]
    frames = [full[:n] for n in cuts]
    a.probe.send(*frames)
    expected = a.unsigned(frames)
    assert expected == {"truncated": 10, "bad_signature": 4}
    # Authentic and addressed, but a ping's payload cut short, or none at all: not its
    # layout (and the node's replay window for node 1 stays where it was).
    body = full[:-MAC_SIZE]
    cut = [body[: HEAD_SIZE + 4], body[:HEAD_SIZE]]
    a.probe.send(*(part + sign(a.forger.secret, part) for part in cut))
    return expected + Counter(undecodable=2)


def oversize(a: Attack) -> Counter[str]:
    """Exactly the limit is read (and refused by its tag); one byte more never reaches
    Python: ZeroMQ hangs up on the sender, uncounted, and the node carries on."""
    target = a.mesh.nodes[TARGET]
    push = a.probe.push
    push.send(RL_NOW + bytes(MAX_FRAME - 3))
    target.wait_for(lambda e: e.get("reason") == "bad_signature")  # handled before what follows
    monitor = push.get_monitor_socket(zmq.EVENT_DISCONNECTED)
    try:
        for size in (MAX_FRAME + 1, 4 * MAX_FRAME):
            push.send(RL_NOW + bytes(size - 3))
            assert monitor.poll(10_000), f"a {size}-byte frame did not make the node hang up"
            assert recv_monitor_message(monitor)["event"] == zmq.EVENT_DISCONNECTED
    finally:
        push.disable_monitor()
        monitor.close(linger=0)
    # The PUSH connects again by itself; the node hears it as before.
    push.send(b"after")
    return Counter(bad_signature=1, truncated=1)


def authentic_misfits(a: Attack) -> Counter[str]:
    """Signed with the cluster secret, carrying the canary, wrong in one field each: all
    refused before their payload is read."""
    f, c, life = a.forger, a.canary, a.mesh.incarnation[TARGET]
    to: dict[str, Any] = {
        "sender": 1,
        "receiver": TARGET,
        "incarnation": a.mesh.incarnation[1],
        "seq": 2**62,
    }
    frames = {
        "unknown_kind": [f.frame(c, **to, kind=len(f.kinds)), f.frame(c, **to, kind=255)],
        "unknown_sender": [
            f.frame(c, **{**to, "sender": 99}),
            f.frame(c, **{**to, "sender": 4}),
        ],
        "wrong_cluster": [f.frame(c, **to, cluster=f.cluster ^ 1)],
        "wrong_receiver": [
            f.frame(c, **{**to, "receiver": 1}),
            f.frame(c, **{**to, "receiver": 3}),
        ],
        "stale_receiver": [f.frame(c, **to, receiver_incarnation=life - 1)],
        # (From the leader: the target knows its life; see Attack.first.)
        "stale_incarnation": [
            f.frame(c, **{**to, "sender": LEADER, "incarnation": a.mesh.incarnation[LEADER] - 1})
        ],
    }
    for batch in frames.values():
        a.probe.send(*batch)
    expected = Counter({reason: len(batch) for reason, batch in frames.items()})
    # From the operator's id, addressed right: a ping is decoded, then refused (the
    # operator may only ask); signed payloads that are not a ping's layout, the canary
    # among them, are refused as undecodable, and nothing is built from them.
    op: dict[str, Any] = {
        "sender": OPERATOR,
        "receiver": TARGET,
        "incarnation": next(INCARNATIONS),
    }
    a.probe.send(
        f.frame(f.message("ping"), **op, seq=1),
        f.frame(b"\x80\x05\xff not a pickle", **op, seq=2),
        f.frame(pickle.dumps(42), **op, seq=3),
        f.frame(c, **op, seq=4),
        f.frame(c, **op, seq=5, kind="status_query"),
    )
    return expected + Counter(unknown_sender=1, undecodable=4)


def signed_gadget(a: Attack) -> Counter[str]:
    """Issue 19: a member's frame, signed with the cluster secret, addressed right and
    fresh, whose payload is a pickle ``__reduce__`` gadget, as every kind the cluster
    declares, from a newer life of the member too.  None creates the canary, each is
    counted as undecodable, and none moves the node's replay window: node 1's and node
    3's real frames are still admitted afterwards (no ``stale_incarnation``, no
    ``replayed`` in the exact count the test takes)."""
    f = a.forger
    frames = [
        a.first(sender, seq=2**62, kind=kind, incarnation=a.mesh.incarnation[sender] + later)
        for sender in (1, 3)
        for kind in f.kinds
        for later in (0, 10**6)
    ]
    a.probe.send(*frames)
    return Counter(undecodable=len(frames))


def replayed(a: Attack) -> Counter[str]:
    """The same authentic frame twice: the second is refused, and never answered."""
    session = Session(a.mesh.codec, OPERATOR, next(INCARNATIONS))
    query = StatusQuery(a.probe.reply_to)
    asked = 0
    while asked < 10:  # an answer the node cannot deliver in time is dropped: ask again
        frame = session.seal(TARGET, query.kind, 0, query)
        a.probe.send(frame)
        asked += 1
        if a.probe.answer(session, 1.0) is not None:
            break
    else:
        raise AssertionError("the status query was never answered")
    a.probe.send(frame)  # the very same frame again
    # What the leader sent node 2 first, signed and all, with the canary inside (and a
    # zeroth frame of its life).
    a.probe.send(a.first(LEADER), a.first(LEADER, seq=0))
    a.probe.status()  # after all of them
    late = 0
    for stray in a.probe.strays:
        try:
            _, message = session.open(stray)
        except FrameRejected:
            continue
        late += type(message) is StatusAnswer
    assert 1 + late <= asked, "a replayed status query was answered"
    return Counter(replayed=3)


def incompatible(a: Attack) -> Counter[str]:
    """Authentic frames from other software versions (the canary inside).  Another
    ringleader is refused before anything else; another Python or cloudpickle is not
    (the compact wire is the same everywhere): those frames get as far as decoding, and
    the canary is not a ping."""
    mine = a.forger.versions
    others = [
        bytes((9, 9)) + mine[2:],  # another ringleader
        bytes(6),
    ]
    frames = [a.first(seq=2**62, versions=v) for v in others]
    frames.append(a.first(seq=2**62, versions=others[0], cluster=1))  # versions come first
    same_ringleader = [
        mine[:2] + bytes((3, 12)) + mine[4:],  # another Python
        mine[:4] + bytes((2, 0)),  # another cloudpickle
    ]
    a.probe.send(*frames, *(a.first(seq=2**62, versions=v) for v in same_ringleader))
    target = a.mesh.nodes[TARGET]
    event = target.wait_for(lambda e: "ringleader 9.9" in e.get("detail", ""))
    assert event["reason"] == "incompatible"
    assert f"this node runs {describe_versions(mine)}" in event["detail"]
    return Counter(incompatible=len(frames), undecodable=len(same_ringleader))


CASES: dict[str, Callable[[Attack], Counter[str]]] = {
    "random-bytes": random_bytes,
    "zmtp1-raw-tcp": zmtp1_raw_tcp,
    "zmtp3-raw-tcp": zmtp3_raw_tcp,
    "unsigned-pickle": unsigned_pickle,
    "truncated": truncated,
    "oversize": oversize,
    "authentic-misfits": authentic_misfits,
    "signed-gadget": signed_gadget,
    "replayed": replayed,
    "incompatible": incompatible,
}
