"""The wire format and one node's session: nothing unauthentic is ever unpickled."""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path

import cloudpickle
import pytest

from ringleader.actors import Candidate, ElectionMessage, Message
from ringleader.errors import FrameRejected
from ringleader.transport import Codec, Header, Session
from ringleader.transport._frame import _HEAD, MAC_SIZE

SECRET = b"s" * 32
KINDS = {"election": ElectionMessage}


def codec(secret: bytes = SECRET, cluster: int = 7, **kw: int) -> Codec:
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


MESSAGE = ElectionMessage(Candidate(5, 5))


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


def test_a_sealed_frame_opens_to_the_same_message() -> None:
    c = codec()
    h = header(epoch=3, seq=9)
    got, payload = c.open(c.seal(h, MESSAGE))
    assert got == h
    assert c.load(got, payload) == MESSAGE


def test_the_payload_is_pickle_where_it_names_everything_else_cloudpickle() -> None:
    c = codec()
    for value in [MESSAGE, [1, {"a": (2.5, None)}], Candidate(1, 2), _Probe(1, "x")]:
        assert c.dumps(value) == pickle.dumps(value, protocol=5)
        assert pickle.loads(c.dumps(value)) == value
    # What the standard pickler cannot name, or would name in __main__, goes by value.
    main = type("InMain", (), {"__module__": "__main__"})
    for value in [lambda x: x + 1, main]:
        assert c.dumps(value) == cloudpickle.dumps(value, protocol=5)
        assert c.dumps(value) == cloudpickle.dumps(value, protocol=5)  # twice: memo cleared


def test_a_module_registered_by_value_goes_to_cloudpickle() -> None:
    import tests.nodes as module

    c = codec()
    cloudpickle.register_pickle_by_value(module)
    try:
        assert c.dumps(MESSAGE) == cloudpickle.dumps(MESSAGE, protocol=5)
    finally:
        cloudpickle.unregister_pickle_by_value(module)
    assert c.dumps(MESSAGE) == pickle.dumps(MESSAGE, protocol=5)


def test_a_frame_of_the_previous_format_is_refused_as_such() -> None:
    c = codec()
    frame = bytearray(c.seal(header(), MESSAGE))
    frame[2] = 2  # format 2: HMAC-SHA256
    with pytest.raises(FrameRejected) as info:
        c.open(bytes(frame))
    assert info.value.reason == "bad_version"
    assert "format 2, expected 3" in str(info.value)


def test_a_secret_longer_than_a_blake2b_key_is_folded() -> None:
    long = codec(b"k" * 100)
    assert long.open(long.seal(header(), MESSAGE))[0] == header()
    assert reason(codec(b"k" * 64).open, long.seal(header(), MESSAGE)) == "bad_signature"


def test_a_message_pickles_as_its_class_and_fields() -> None:
    assert MESSAGE.__reduce__() == (ElectionMessage, (Candidate(5, 5),))
    assert pickle.loads(pickle.dumps(MESSAGE)) == MESSAGE


def test_every_flipped_bit_is_caught_before_unpickling(tmp_path: Path) -> None:
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
            lambda c, p: c.seal(header(), None)[: _HEAD.size] + p + b"\0" * MAC_SIZE, id="unsigned"
        ),
        pytest.param(lambda c, p: codec(b"w" * 32).seal(header(), None)[:-MAC_SIZE], id="no-tag"),
        pytest.param(lambda c, p: _sealed_with(codec(b"w" * 32), p), id="wrong-key"),
        pytest.param(lambda c, p: p + b"\0" * 200, id="padded"),
    ],
)
def test_a_forged_frame_never_reaches_pickle(tmp_path: Path, forge) -> None:  # type: ignore[no-untyped-def]
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


def _sealed_with(c: Codec, payload: bytes) -> bytes:
    frame = c.seal(header(), None)
    body = frame[: -MAC_SIZE - len(c.dumps(None))] + payload
    return body + c._sign(body)


def test_size_limits() -> None:
    c = codec(max_frame_size=300)
    assert reason(c.open, b"") == "truncated"
    assert reason(c.open, b"RL\x01") == "truncated"
    big = c.seal(header(), ElectionMessage(Candidate(1, 1)))
    assert reason(c.open, big + b"x" * 300) == "oversize"


def test_checks_after_the_signature_are_marked_authentic() -> None:
    c = codec()
    other = Codec(SECRET, 8, KINDS)
    with pytest.raises(FrameRejected) as info:
        c.open(other.seal(header(cluster=8), MESSAGE))
    assert (info.value.reason, info.value.authentic) == ("wrong_cluster", True)

    wide = Codec(SECRET, 7, {**KINDS, "elected": ElectionMessage})
    assert reason(c.open, wide.seal(header(kind="elected"), MESSAGE)) == "unknown_kind"

    h, body = c.open(c.seal(header(), Candidate(1, 1)))
    assert reason(c.load, h, body) == "wrong_type"

    frame = c.seal(header(), MESSAGE)
    kind_end = _HEAD.size + len("election")
    body = frame[:kind_end] + b"\x80\x05not a pickle"
    broken = body + c._sign(body)
    h, payload = c.open(broken)
    assert reason(c.load, h, payload) == "undecodable"


def test_a_peer_with_other_software_versions_is_refused_before_its_payload() -> None:
    c = codec()
    elsewhere = codec()
    elsewhere.versions = bytes((0, 1, 3, 12, 3, 1))  # the same ringleader on Python 3.12
    with pytest.raises(FrameRejected) as info:
        c.open(elsewhere.seal(header(), MESSAGE))
    assert (info.value.reason, info.value.authentic) == ("incompatible", True)
    assert "node 1 runs ringleader 0.1, Python 3.12, cloudpickle 3.1" in str(info.value)
    assert "this node runs ringleader" in str(info.value)


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


@dataclass(frozen=True, slots=True)
class _Probe(Message):
    kind = "probe"
    a: int
    b: str


def test_user_messages_round_trip() -> None:
    c = Codec(SECRET, 7, {"probe": _Probe})
    h = header(kind="probe")
    got, body = c.open(c.seal(h, _Probe(3, "x")))
    assert c.load(got, body) == _Probe(3, "x")
