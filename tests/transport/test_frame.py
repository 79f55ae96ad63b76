"""The wire format and one node's session: nothing unauthentic is ever decoded, and
nothing is decoded into anything but the cluster's declared message classes."""

from __future__ import annotations

import dataclasses
import enum
import pickle
import struct
import sys
import typing
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ringleader
from ringleader.actors import (
    ALGORITHMS,
    Bound,
    Candidate,
    ChangRoberts,
    Elected,
    ElectionMessage,
    Graph,
    Message,
    RingElection,
)
from ringleader.actors.core import ClusterDefinition, DefinedNode
from ringleader.actors.crashes import Configuration, Ping, Pong
from ringleader.actors.host import (
    ClusterNotice,
    LeadershipNotice,
    NodeStatus,
    StatusAnswer,
    StatusQuery,
    TransferQuery,
    WatchQuery,
    wire_kinds,
)
from ringleader.errors import ConfigError, FrameRejected
from ringleader.transport import (
    FORMAT_VERSION,
    OPERATOR,
    WATCHER,
    Codec,
    Header,
    Session,
    Unencodable,
)
from ringleader.transport._frame import _HEAD, HEAD_SIZE, MAC_SIZE
from ringleader.transport._session import OPERATOR_LIVES

SECRET = b"s" * 32
KINDS = {"election": ElectionMessage}


def codec(secret: bytes = SECRET, cluster: int = 7, **kw: Any) -> Codec:
    return Codec(secret, cluster, KINDS, **kw)


def header(**fields: object) -> Header:
    base: dict[str, object] = dict(
        cluster=7,
        sender=1,
        receiver=2,
        incarnation=1,
        receiver_incarnation=0,
        epoch=1,
        seq=1,
        kind="election",
    )
    base.update(fields)
    return Header(**base)  # type: ignore[arg-type]


MESSAGE = ElectionMessage(Candidate(5.0, 5))


class Canary:
    """Unpickling this creates a file: if the file appears, a pickle was loaded."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.touch, (self.path,))


def reason(call, *args) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(FrameRejected) as info:
        call(*args)
    return info.value.reason


def resigned(c: Codec, frame: bytes, payload: bytes) -> bytes:
    """``frame`` with its payload replaced by ``payload``, signed again with the secret."""
    body = frame[:HEAD_SIZE] + payload
    return body + c._sign(body)


def test_a_sealed_frame_opens_to_the_same_message() -> None:
    c = codec()
    h = header(epoch=3, seq=9)
    got, payload = c.open(c.seal(h, MESSAGE))
    assert got == h
    assert c.load(got, payload) == MESSAGE


def test_the_payload_is_the_fields_packed_and_the_kind_an_index() -> None:
    frame = codec().seal(header(), MESSAGE)
    assert frame[:4] == b"RL" + bytes((FORMAT_VERSION, 0))  # kind 0: the table's first
    assert frame[HEAD_SIZE:-MAC_SIZE] == struct.pack("!dq", 5.0, 5)
    assert len(frame) == HEAD_SIZE + 16 + MAC_SIZE


def sample(cls: type, status: NodeStatus) -> object:
    """One message of ``cls``, its fields filled from their types."""
    if cls is StatusAnswer:
        return StatusAnswer(status)
    if cls is ClusterNotice:
        return ClusterNotice(DEFINITION, "tcp://127.0.0.1:7001")
    values = {
        int: 7,
        float: 2.5,
        bool: True,
        str: "tcp://127.0.0.1:7001",
        str | None: "not a live member",
        int | None: 3,
        float | None: 0.25,
        Candidate: Candidate(3.5, 3),
        Configuration | None: Configuration(
            2, 7, frozenset({1, 2, 3}), frozenset({4}), ((1, "tcp://a:1"), (4, "tcp://b:4"))
        ),
    }
    hints = typing.get_type_hints(cls)
    return cls(*(values[hints[f.name]] for f in dataclasses.fields(cls)))


DEFINITION = ClusterDefinition(
    "svc",
    "unidirectional_ring",
    "chang_roberts",
    ("election: ElectionMessage(candidate: Candidate(capacity: float, id: int))",),
    (DefinedNode(1, "tcp://127.0.0.1:7001", 1.0), DefinedNode(2, "", 2.5, 0.3, 1)),
    ((1, 2), (2, 1)),
    0.05,
    0.3,
    0.2,
    True,
)
STATUS = NodeStatus(
    id=3,
    capacity=2.5,
    state="leader",
    elected=None,
    epoch=4,
    incarnation=9,
    address="tcp://127.0.0.1:7003",
    sent={"ping": 3, "election": 1},
    received=5,
    rejected={"bad_signature": 2},
    last_activity=12.5,
    started=True,
    sent_by_epoch={1: 2, 4: 7},
    bad_signatures={"127.0.0.1": 2},
)


@pytest.mark.parametrize("algorithm", sorted(ALGORITHMS))
def test_every_declared_message_of_every_algorithm_goes_compact_and_back(algorithm: str) -> None:
    kinds = wire_kinds(ALGORITHMS[algorithm])
    c = Codec(SECRET, 7, kinds)
    assert not c.pickled
    # The framework's kinds first, each at the index it had when it came: never moved.
    assert list(kinds)[:13] == [
        "ping",
        "pong",
        "status_query",
        "status_answer",
        "cluster_notice",
        "prevote",
        "prevote_reply",
        "handover",
        "handover_request",
        "transfer_query",
        "transfer_answer",
        "watch_query",
        "leadership_notice",
    ]
    for kind, cls in kinds.items():
        message = sample(cls, STATUS)
        got, payload = c.open(c.seal(header(kind=kind), message))
        assert got.kind == kind
        assert c.load(got, payload) == message
        assert b"\x80" not in payload[:1]  # not a pickle (protocol 2+ starts so)


WATCH_KEY = b"w" * 32
WATCH_KINDS = ("watch_query", "leadership_notice", "status_query", "status_answer")


def test_a_watcher_with_the_watch_key_may_only_watch() -> None:
    """The read-only watch key: a member's codec admits the watcher's watch and answers
    it; the watcher cannot speak as a member, nor ask anything but its kinds."""
    kinds = wire_kinds(ALGORITHMS["bully"])
    member = Codec(SECRET, 7, kinds, watch_secret=WATCH_KEY, watch_kinds=WATCH_KINDS)
    watcher = Codec(WATCH_KEY, 7, kinds, watch_secret=WATCH_KEY, watch_kinds=WATCH_KINDS)
    query = WatchQuery("tcp://127.0.0.1:7009", 1.0)
    frame = watcher.seal(header(sender=WATCHER, kind="watch_query"), query)
    got, payload = member.open(frame)
    assert (got.sender, member.load(got, payload)) == (WATCHER, query)
    answer = LeadershipNotice(3, 4, leading=True, lease_left=0.2)
    reply = member.seal(header(sender=3, receiver=WATCHER, kind="leadership_notice"), answer)
    assert watcher.load(*watcher.open(reply)) == answer
    transfer = TransferQuery(2, "tcp://127.0.0.1:7009")
    asked = watcher.seal(header(sender=WATCHER, kind="transfer_query"), transfer)
    assert reason(member.open, asked) == "unknown_sender"
    forged = watcher.seal(header(sender=1, kind="watch_query"), query)  # as a member
    assert reason(member.open, forged) == "bad_signature"
    without = Codec(SECRET, 7, kinds)  # a cluster that gave no watch key
    assert reason(without.open, frame) == "bad_signature"


def test_the_status_answer_carries_the_whole_status() -> None:
    c = Codec(SECRET, 7, wire_kinds(ALGORITHMS["bully"]))
    for status in (STATUS, NodeStatus(1, 1.0, "undecided", 2, 1, 1, None)):
        h = header(kind="status_answer")
        got = c.load(*c.open(c.seal(h, StatusAnswer(status))))
        assert got == StatusAnswer(status)
        assert type(got.status.sent_by_epoch) is dict  # type: ignore[attr-defined]


# 3: pickled payloads; 4: before the watcher's kinds; 5: before ping and pong carried
# configuration keys; 6: before the membership question and answer took kind bytes 13, 14;
# 7: before the pre-vote and its answer carried a configuration
@pytest.mark.parametrize("old", [3, 4, 5, 6, 7])
def test_a_frame_of_an_earlier_format_is_refused_as_such(old: int) -> None:
    c = codec()
    frame = bytearray(c.seal(header(), MESSAGE))
    frame[2] = old
    with pytest.raises(FrameRejected) as info:
        c.open(bytes(frame))
    assert info.value.reason == "bad_version"
    assert f"format {old}, expected 8" in str(info.value)


def test_a_node_of_format_5_has_its_heartbeat_refused_before_it_is_read() -> None:
    # A ping as a node of format 5 sealed it: its payload the seq alone.  Refused for
    # its format, never read as a ping without a configuration key.
    c = Codec(SECRET, 7, wire_kinds(ALGORITHMS["bully"]))
    frame = c.seal(header(kind="ping"), Ping(4))
    old = resigned(c, frame[:2] + bytes((5,)) + frame[3:HEAD_SIZE], struct.pack("!q", 4))
    with pytest.raises(FrameRejected) as info:
        c.open(old)
    assert (info.value.reason, str(info.value.detail)) == ("bad_version", "format 5, expected 8")


CONFIGURATION = Configuration(
    3, 7, frozenset({1, 2, 3}), frozenset({4}), ((1, "tcp://10.0.0.1:5001"), (4, "tcp://h:5004"))
)


def test_ping_and_pong_carry_the_configuration_key_and_the_configuration_when_asked() -> None:
    c = Codec(SECRET, 7, wire_kinds(ALGORITHMS["bully"]))
    shape = (
        "(seq: int, version: int, made_in: int, configuration: Configuration(version: int, "
        "epoch: int, voters: frozenset[int], learners: frozenset[int], "
        "addresses: tuple[tuple[int, str], ...]) | None)"
    )
    assert c.layouts()["ping"] == "Ping" + shape and c.layouts()["pong"] == "Pong" + shape
    for kind, message in [
        ("ping", Ping(9, 3, 7)),
        ("ping", Ping(9, 3, 7, CONFIGURATION)),
        ("pong", Pong(9, 3, 7)),
        ("pong", Pong(9, 3, 7, CONFIGURATION)),
        ("ping", Ping()),
    ]:
        got, body = c.open(c.seal(header(kind=kind), message))
        assert c.load(got, body) == message
        assert c.load(got, body).configuration_key == (message.made_in, message.version)
    # The key alone: three numbers and an absent configuration, 25 bytes.
    assert len(c.seal(header(kind="ping"), Ping(9, 3, 7))) == HEAD_SIZE + 25 + MAC_SIZE
    # A set goes in ascending order, whatever order it iterates in.
    payload = c.seal(header(kind="ping"), Ping(9, 3, 7, CONFIGURATION))[HEAD_SIZE:-MAC_SIZE]
    voters = payload.index(struct.pack("!I", 3) + struct.pack("!qqq", 1, 2, 3))
    assert voters == 25 + 16


def test_a_configuration_that_is_not_one_is_undecodable() -> None:
    # Signed frames of a holder of the secret, and still refused: a set named out of
    # order or twice, a node both voter and learner, a configuration without a voter.
    c = Codec(SECRET, 7, wire_kinds(ALGORITHMS["bully"]))
    h = header(kind="ping")
    frame = c.seal(h, Ping(9, 3, 7, CONFIGURATION))
    good = frame[HEAD_SIZE:-MAC_SIZE]
    count, one_two_three = struct.pack("!I", 3), struct.pack("!qqq", 1, 2, 3)
    at = good.index(count + one_two_three)

    def with_voters(voters: bytes) -> bytes:
        return good[:at] + voters + good[at + len(count) + len(one_two_three) :]

    for bad in (
        with_voters(count + struct.pack("!qqq", 2, 1, 3)),  # out of order
        with_voters(count + struct.pack("!qqq", 1, 1, 3)),  # twice
        with_voters(count + struct.pack("!qqq", 1, 2, 4)),  # 4 a voter and a learner
        with_voters(struct.pack("!I", 0)),  # no voter
    ):
        got, body = c.open(resigned(c, frame, bad))
        assert reason(c.load, got, body) == "undecodable"
    got, body = c.open(resigned(c, frame, good))
    assert c.load(got, body) == Ping(9, 3, 7, CONFIGURATION)


def test_a_secret_longer_than_a_blake2b_key_is_folded() -> None:
    long = codec(b"k" * 100)
    assert long.open(long.seal(header(), MESSAGE))[0] == header()
    assert reason(codec(b"k" * 64).open, long.seal(header(), MESSAGE)) == "bad_signature"


def test_every_flipped_bit_is_caught_before_decoding() -> None:
    c = codec()
    frame = bytearray(c.seal(header(), MESSAGE))
    for i in range(len(frame)):
        for bit in (0x01, 0x80):
            bad = bytearray(frame)
            bad[i] ^= bit
            with pytest.raises(FrameRejected) as info:
                c.open(bytes(bad))
            assert info.value.reason in {"bad_signature", "bad_magic", "bad_version"}
            assert not info.value.authentic


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda c, p: p, id="raw-pickle"),
        pytest.param(
            lambda c, p: c.seal(header(), MESSAGE)[:HEAD_SIZE] + p + b"\0" * MAC_SIZE,
            id="unsigned",
        ),
        pytest.param(
            lambda c, p: codec(b"w" * 32).seal(header(), MESSAGE)[:-MAC_SIZE], id="no-tag"
        ),
        pytest.param(
            lambda c, p: resigned(codec(b"w" * 32), c.seal(header(), MESSAGE), p), id="wrong-key"
        ),
        pytest.param(lambda c, p: p + b"\0" * 200, id="padded"),
    ],
)
def test_a_forged_frame_never_reaches_decoding(tmp_path: Path, forge) -> None:  # type: ignore[no-untyped-def]
    canary = tmp_path / "canary"
    payload = pickle.dumps(Canary(canary))
    c = codec()
    frame = forge(c, payload)
    with pytest.raises(FrameRejected) as info:
        header_, body = c.open(frame)
        c.load(header_, body)
    assert not info.value.authentic
    assert not canary.exists()
    # the canary is live: loading it really would create the file
    pickle.loads(payload)
    assert canary.exists()


@pytest.mark.parametrize("kind", ["election", "ping", "status_answer"])
def test_a_signed_pickle_gadget_creates_nothing_and_is_undecodable(
    tmp_path: Path, kind: str
) -> None:
    """Issue 19: a frame signed with the cluster secret, carrying a ``__reduce__``
    gadget as its payload, is refused as undecodable and the gadget never runs."""
    canary = tmp_path / "canary"
    gadget = pickle.dumps(Canary(canary), protocol=5)
    c = Codec(SECRET, 7, wire_kinds(ALGORITHMS["chang_roberts"]))
    sealed = c.seal(header(kind="ping"), c.kinds["ping"]())
    frame = resigned(c, sealed[:3] + bytes((list(c.kinds).index(kind),)) + sealed[4:], gadget)
    got, payload = c.open(frame)  # authentic and addressed: it gets as far as decoding
    assert got.kind == kind
    with pytest.raises(FrameRejected) as info:
        c.load(got, payload)
    assert (info.value.reason, info.value.authentic) == ("undecodable", True)
    assert not canary.exists()


def test_size_limits() -> None:
    c = codec(max_frame_size=300)
    assert reason(c.open, b"") == "truncated"
    assert reason(c.open, b"RL\x04") == "truncated"
    big = c.seal(header(), ElectionMessage(Candidate(1, 1)))
    assert reason(c.open, big + b"x" * 300) == "oversize"


def test_checks_after_the_signature_are_marked_authentic() -> None:
    c = codec()
    other = Codec(SECRET, 8, KINDS)
    with pytest.raises(FrameRejected) as info:
        c.open(other.seal(header(cluster=8), MESSAGE))
    assert (info.value.reason, info.value.authentic) == ("wrong_cluster", True)
    assert info.value.header == header(cluster=8)  # kept, for the cluster-identity notice

    wide = Codec(SECRET, 7, {**KINDS, "elected": ElectionMessage})
    assert reason(c.open, wide.seal(header(kind="elected"), MESSAGE)) == "unknown_kind"

    frame = c.seal(header(), MESSAGE)
    for payload in (b"", b"\x80\x05not a pickle", frame[HEAD_SIZE:-MAC_SIZE] + b"\0"):
        h, body = c.open(resigned(c, frame, payload))
        assert reason(c.load, h, body) == "undecodable"


def test_a_message_of_another_class_cannot_be_sealed_as_a_kind() -> None:
    with pytest.raises(TypeError, match="Candidate cannot go as kind 'election'"):
        codec().seal(header(), Candidate(1, 1))


def test_a_peer_with_another_ringleader_is_refused_before_its_payload() -> None:
    c = codec()
    elsewhere = codec()
    elsewhere.versions = bytes((9, 1, 3, 11, 3, 1))
    with pytest.raises(FrameRejected) as info:
        c.open(elsewhere.seal(header(), MESSAGE))
    assert (info.value.reason, info.value.authentic) == ("incompatible", True)
    assert "node 1 runs ringleader 9.1, Python 3.11, cloudpickle 3.1" in str(info.value)
    assert "this node runs ringleader" in str(info.value)


def test_another_python_only_matters_to_a_cluster_that_pickles() -> None:
    elsewhere = codec()
    elsewhere.versions = elsewhere.versions[:2] + bytes((3, 99, 9, 9))
    frame = elsewhere.seal(header(), MESSAGE)
    assert codec().open(frame)[0] == header()  # the compact wire is the same everywhere
    pickling = Codec(SECRET, 7, {**KINDS, "opaque": Opaque}, pickle=True)
    assert reason(pickling.open, frame) == "incompatible"


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="16 bytes"):
        Codec(b"short", 1, KINDS)


class TestSession:
    def sessions(self) -> tuple[Session, Session]:
        c = codec()
        return Session(c, 1, 1, peers=[2]), Session(c, 2, 1, peers=[1])

    def test_sequence_numbers_count_per_receiver(self) -> None:
        c = codec()
        s = Session(c, 1, 1)
        seqs = [c.open(s.seal(to, "election", 1, MESSAGE))[0].seq for to in (2, 3, 2, 2, 3)]
        assert seqs == [1, 1, 2, 3, 2]

    def test_a_frame_is_admitted_once(self) -> None:
        one, two = self.sessions()
        frame = one.seal(2, "election", 1, MESSAGE)
        assert two.open(frame)[1] == MESSAGE
        assert reason(two.open, frame) == "replayed"

    def test_an_older_frame_after_a_newer_one_is_a_replay(self) -> None:
        one, two = self.sessions()
        first, second = (one.seal(2, "election", 1, MESSAGE) for _ in range(2))
        two.open(second)
        assert reason(two.open, first) == "replayed"

    def test_addressing(self) -> None:
        c = codec()
        one, two = self.sessions()
        three = Session(c, 3, 1)
        assert reason(two.open, one.seal(3, "election", 1, MESSAGE)) == "wrong_receiver"
        assert reason(two.open, three.seal(2, "election", 1, MESSAGE)) == "unknown_sender"
        frame = one.seal(2, "election", 1, MESSAGE, to_incarnation=5)
        assert reason(two.open, frame) == "stale_receiver"

    def test_a_restarted_sender_is_admitted_and_its_old_life_is_not(self) -> None:
        c = codec()
        old, new = Session(c, 1, 1), Session(c, 1, 2)
        two = Session(c, 2, 1, peers=[1])
        late = old.seal(2, "election", 1, MESSAGE)
        assert two.open(new.seal(2, "election", 1, MESSAGE))[1] == MESSAGE
        assert reason(two.open, late) == "stale_incarnation"

    def test_two_operator_tools_at_once_are_each_admitted(self) -> None:
        """A watcher and a status asked meanwhile are two lives of the operator's tools:
        the later one does not make the earlier one's frames stale; each has its own
        replay window, and past OPERATOR_LIVES the oldest is forgotten and refused."""
        c = codec()
        two = Session(c, 2, 1, peers=[1, OPERATOR])
        watcher, status = Session(c, OPERATOR, 5), Session(c, OPERATOR, 9)
        assert two.open(status.seal(2, "election", 1, MESSAGE))[1] == MESSAGE
        renewal = watcher.seal(2, "election", 1, MESSAGE)
        assert two.open(renewal)[1] == MESSAGE  # the older life, after the newer one
        assert reason(two.open, renewal) == "replayed"
        assert two.open(watcher.seal(2, "election", 1, MESSAGE))[1] == MESSAGE
        for life in range(100, 100 + OPERATOR_LIVES):
            two.open(Session(c, OPERATOR, life).seal(2, "election", 1, MESSAGE))
        assert reason(two.open, watcher.seal(2, "election", 1, MESSAGE)) == "stale_incarnation"


# -- user message classes -----------------------------------------------------------------


class Colour(enum.Enum):
    RED = "red"
    BLUE = 7


@dataclass(frozen=True, slots=True)
class _Probe(Message):
    kind = "probe"
    a: int
    b: str
    colour: Colour = Colour.RED
    path: tuple[Candidate, ...] = ()
    note: str | None = None
    weights: dict[int, float] | None = None
    flag: bool = False
    blob: bytes = b""


@dataclass(frozen=True, slots=True)
class Opaque(Message):
    kind = "opaque"
    anything: Any


def test_user_messages_go_compact_wherever_their_class_is_defined() -> None:
    @dataclass(frozen=True)
    class Local(Message):  # defined in a function: no pickle could name it
        kind = "local"
        x: float

    c = Codec(SECRET, 7, {"probe": _Probe, "local": Local})
    assert c.layouts()["local"] == "Local(x: float)"
    probe = _Probe(3, "é", Colour.BLUE, (Candidate(1.5, 2),), None, {1: 0.5}, True, b"\0\1")
    for kind, message in [("probe", probe), ("probe", _Probe(-(2**63), "")), ("local", Local(1.0))]:
        got, body = c.open(c.seal(header(kind=kind), message))
        assert c.load(got, body) == message


@given(st.binary(max_size=200))
@settings(max_examples=300, deadline=None)
def test_any_payload_decodes_into_its_class_or_is_undecodable(payload: bytes) -> None:
    c = Codec(SECRET, 7, {"probe": _Probe, **wire_kinds(ALGORITHMS["hirschberg_sinclair"])})
    for kind, cls in c.kinds.items():
        try:
            message = c.load(header(kind=kind), memoryview(payload))
        except FrameRejected as rejected:
            assert rejected.reason == "undecodable"
        else:
            assert type(message) is cls


def test_a_class_without_a_layout_is_refused_when_the_codec_is_made() -> None:
    with pytest.raises(Unencodable) as info:
        Codec(SECRET, 7, {"opaque": Opaque})
    assert str(info.value) == (
        "message class Opaque (kind 'opaque') cannot go on the compact wire: "
        "Opaque.anything: Any has no layout"
    )
    assert "\n" not in str(info.value)


def test_a_cluster_that_opts_in_pickles_only_the_classes_without_a_layout(tmp_path: Path) -> None:
    c = Codec(SECRET, 7, {**KINDS, "opaque": Opaque}, pickle=True)
    assert c.pickled == {"opaque"}
    message = Opaque([1, {"a": (2.5, None)}])
    frame = c.seal(header(kind="opaque"), message)
    assert c.load(*c.open(frame)) == message
    assert c.open(c.seal(header(), MESSAGE))[1] == struct.pack("!dq", 5.0, 5)
    # Even opted in, a pickle of another class than its kind's is refused (after it was
    # loaded: the risk the opt-in takes, see docs/security.md).
    h, body = c.open(resigned(c, frame, pickle.dumps(42)))
    assert reason(c.load, h, body) == "wrong_type"


def test_the_header_is_as_documented() -> None:
    assert _HEAD.size == HEAD_SIZE == 66
    assert StatusQuery("x").kind == "status_query"


# -- the config's opt-in ------------------------------------------------------------------

RING = 'topology = "unidirectional_ring"\nnodes = 4\n'


@dataclass(frozen=True, slots=True)
class Bid(Message):
    kind = "bid"
    candidate: Any  # no layout: it can only go by pickle


class AnyRing(RingElection):
    """Chang–Roberts with a message whose field has no layout."""

    name = "any_ring"
    title = "Chang–Roberts, by pickle"
    messages = (Bid, Elected)

    def start(self) -> None:
        self.participant = True
        self.send(self.successor, Bid(self.me))

    def on_bid(self, message: Bid, sender: int) -> None:
        if message.candidate > self.me:
            self.participant = True
            self.send(self.successor, message)
        elif message.candidate < self.me and not self.participant:
            self.participant = True
            self.send(self.successor, Bid(self.me))
        elif message.candidate == self.me:
            self.decide(self.me)
            self.announce(Elected(self.me))

    def on_elected(self, message: Elected, sender: int) -> None:
        if message.leader != self.me:
            self.decide(message.leader)
            self.announce(message)

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        return ChangRoberts.bound(graph, initiators)


def test_a_message_class_without_a_layout_is_a_config_error_at_set_up(tmp_path: Path) -> None:
    path = tmp_path / "ring.toml"
    path.write_text(RING)
    config = ringleader.load_config(path)
    assert config.pickle_messages is False
    with pytest.raises(ConfigError) as info:
        ringleader.run(config, algorithm=AnyRing)
    assert str(info.value).startswith(
        f"{path}: pickle_messages: message class Bid (kind 'bid') cannot go on the compact "
        "wire: Bid.candidate: Any has no layout ("
    )
    assert "\n" not in str(info.value)
    path.write_text(RING + "pickle_messages = true\n")
    config = ringleader.load_config(path)
    assert config.pickle_messages is True
    assert ringleader.load_config(_written(tmp_path, config.to_toml())).pickle_messages is True
    report = ringleader.run(config, algorithm=AnyRing)
    assert report.ok and report.leader == 4


def _written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "again.toml"
    path.write_text(text)
    return path


def test_pickle_messages_is_true_or_false(tmp_path: Path) -> None:
    path = tmp_path / "ring.toml"
    path.write_text(RING + 'pickle_messages = "yes"\n')
    with pytest.raises(ConfigError) as info:
        ringleader.load_config(path)
    assert str(info.value) == (
        f"{path}: pickle_messages: 'yes' is not true or false (pickle_messages = true)"
    )


def test_your_own_algorithm_in_a_config_is_checked_when_the_config_is_loaded(
    tmp_path: Path,
) -> None:
    """``algorithm = "module:Class"``: its message classes are laid out when the config
    is loaded (``ringleader check`` says so too), not at the first send."""
    (tmp_path / "gossip.py").write_text(
        "from dataclasses import dataclass\n"
        "from ringleader.actors import Message\n"
        "from tests.transport.test_frame import AnyRing\n"
        "@dataclass(frozen=True, slots=True)\n"
        "class Rumour(Message):\n"
        "    kind = 'bid'\n"
        "    said: list[str]\n"
        "class Gossip(AnyRing):\n"
        "    name = 'gossip'\n"
        "    messages = (Rumour, AnyRing.messages[1])\n"
    )
    path = tmp_path / "ring.toml"
    path.write_text(RING + 'algorithm = "gossip:Gossip"\n')
    with pytest.raises(ConfigError) as info:
        ringleader.load_config(path)
    assert str(info.value).startswith(
        f"{path}: pickle_messages: message class Rumour (kind 'bid') cannot go on the "
        "compact wire: Rumour.said: list[str] has no layout ("
    )
    path.write_text(RING + 'algorithm = "gossip:Gossip"\npickle_messages = true\n')
    assert ringleader.load_config(path).algorithm_class.name == "gossip"
    sys.modules.pop("gossip", None)
