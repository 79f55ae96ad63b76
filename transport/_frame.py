"""The wire format: a versioned header, a pickled payload, a keyed BLAKE2b tag.

::

    offset  size  field
    0       2     magic  b"RL"
    2       1     format version (3)
    3       1     length k of the kind name
    4       8     cluster id                  (u64: frames of another cluster are dropped)
    12      8     sender node id              (i64)
    20      8     receiver node id            (i64)
    28      8     sender incarnation          (u64: which life of the sender wrote it)
    36      8     receiver incarnation        (u64: the receiver's life it is meant for; 0 = any)
    44      8     epoch                       (u64: the election round it belongs to)
    52      8     sequence number             (u64: per sender incarnation and receiver, from 1)
    60      6     software versions           (ringleader, Python, cloudpickle: major, minor each)
    66      k     kind name                   (ASCII, e.g. b"election")
    66+k    …     payload                     (pickle protocol 5 of the message object)
    end-32  32    BLAKE2b-256 over everything before it, keyed with the cluster secret

The tag is BLAKE2b in its keyed mode (RFC 7693: a MAC by design, one C call, where HMAC
hashes twice through two Python-level objects); format 2 used HMAC-SHA256, and its
frames are refused as ``bad_version``.  The payload is the standard library's pickle of
the message when that pickles every class and function it holds by reference to an
importable module (the framework's own messages, and any message class in a module both
sides import), else cloudpickle's; either way :func:`pickle.loads` reads it.

The tag is checked with :func:`hmac.compare_digest` before any other field is trusted and
long before the payload is unpickled: only a holder of the secret can make a frame that
gets as far as :func:`pickle.loads`.  A frame written by different software versions (a
pickle from another Python, message classes of another ringleader) is refused as
``incompatible`` before its payload is touched, with both sides' versions in the reason.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import pickle
import struct
import sys
import threading
from collections.abc import Mapping
from typing import Any, NamedTuple

import cloudpickle

from ._errors import FrameRejected
from ._version import __version__

__all__ = [
    "FORMAT_VERSION",
    "MAC_SIZE",
    "OPERATOR",
    "Codec",
    "Header",
    "describe_versions",
    "sender_of",
]

MAGIC = b"RL"
#: The sender id of an operator's tool (``ringleader status``), which signs with the
#: cluster secret but is no member: no node may have this id.
OPERATOR = -(2**63)
FORMAT_VERSION = 3
MAC_SIZE = 32
_BEFORE_SENDER = "!2sBBQ"  # magic, format version, kind length, cluster id
_HEAD = struct.Struct(_BEFORE_SENDER + "qqQQQQ6s")
_SENDER = struct.Struct("!q")
_SENDER_AT = struct.calcsize(_BEFORE_SENDER)


def sender_of(frame: bytes) -> int | None:
    """The sender id ``frame`` claims, read before anything is checked (``None``: too
    short to claim one).  Only for a transport that knows who really sent it."""
    if len(frame) < _SENDER_AT + _SENDER.size:
        return None
    (sender,) = _SENDER.unpack_from(frame, _SENDER_AT)
    return int(sender)


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = [*(int("".join(filter(str.isdigit, p)) or 0) for p in version.split(".")), 0, 0][
        :2
    ]
    return major % 256, minor % 256


def _versions() -> bytes:
    return bytes(
        (
            *_major_minor(__version__),
            *sys.version_info[:2],
            *_major_minor(cloudpickle.__version__),
        )
    )


def describe_versions(versions: bytes) -> str:
    """``b"\\x00\\x01\\x03\\x0b\\x03\\x01"`` → ``ringleader 0.1, Python 3.11, cloudpickle 3.1``."""
    r1, r2, p1, p2, c1, c2 = versions
    return f"ringleader {r1}.{r2}, Python {p1}.{p2}, cloudpickle {c1}.{c2}"


_MIN_FRAME = _HEAD.size + 1 + MAC_SIZE
_PICKLE_PROTOCOL = 5
_MAX_KEY = 64


#: The modules the user asked cloudpickle to pickle by value (its own set, changed in
#: place by ``register_pickle_by_value``; a set that stays empty if it ever moves).
_BY_VALUE: set[str] = getattr(cloudpickle.cloudpickle, "_PICKLE_BY_VALUE_MODULES", set())


class _Pickler(cloudpickle.Pickler):  # type: ignore[misc]
    """A ``CloudPickler`` that remembers which classes it pickled by reference.

    For a class, cloudpickle decides on every dump whether it can be pickled by
    reference (importable under its module and name) or must go by value, and that
    look-up costs more than pickling a small message.  The answer does not change for a
    class once it is imported, so it is kept; classes pickled by value are asked anew.
    """

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=_PICKLE_PROTOCOL)
        self._by_reference: set[type] = set()

    def reducer_override(self, obj: Any) -> Any:
        if not isinstance(obj, type):
            return super().reducer_override(obj)
        if obj in self._by_reference:
            return NotImplemented
        reduced = super().reducer_override(obj)
        if reduced is NotImplemented:
            self._by_reference.add(obj)
        return reduced


class Header(NamedTuple):
    """The authenticated metadata of one frame (a tuple: made once per frame, cheaply)."""

    cluster: int
    sender: int
    receiver: int
    incarnation: int
    receiver_incarnation: int
    epoch: int
    seq: int
    kind: str


class Codec:
    """Seals message objects into frames and opens frames back into them.

    One codec serves a whole cluster: it holds the secret, the cluster id and the
    message kinds the cluster speaks (``kinds`` maps a kind name to its class).  It keeps
    no per-peer state; replay and incarnation checks live in :class:`Session`.
    """

    def __init__(
        self,
        secret: bytes,
        cluster: int,
        kinds: Mapping[str, type[Any]],
        *,
        max_frame_size: int = 1 << 16,
    ) -> None:
        if len(secret) < 16:
            raise ValueError("the cluster secret must be at least 16 bytes")
        if len(secret) > _MAX_KEY:  # BLAKE2b takes a key of at most 64 bytes: fold it
            secret = hashlib.blake2b(secret, digest_size=_MAX_KEY).digest()
        self._mac = hashlib.blake2b(key=secret, digest_size=MAC_SIZE)
        self.cluster = cluster
        self.kinds = dict(kinds)
        self.max_frame_size = max_frame_size
        self._kind_bytes = {name: name.encode("ascii") for name in self.kinds}
        self._kind_names = {name: kind for kind, name in self._kind_bytes.items()}
        self._local = threading.local()
        #: What this side runs, sent in every frame; a peer must run the same.
        self.versions = _versions()

    def dumps(self, message: object) -> bytes:
        """``pickle.dumps(message)`` where that is what cloudpickle would write too, else
        ``cloudpickle.dumps(message)``.

        The standard pickler (C, a few µs) writes every class and function by reference,
        as cloudpickle does for those importable from a module other than ``__main__``.
        It fails on what it cannot name (a lambda, a local class), and a reference into
        ``__main__`` would name the wrong thing in the receiving process: those, and any
        module the user registered with ``cloudpickle.register_pickle_by_value``, go to
        cloudpickle, which pickles them by value.
        """
        if not _BY_VALUE:
            try:
                data = pickle.dumps(message, _PICKLE_PROTOCOL)
            except Exception:  # noqa: BLE001 -- whatever it cannot pickle, cloudpickle may
                data = b"__main__"
            if b"__main__" not in data:
                return data
        return self._cloudpickle(message)

    def _cloudpickle(self, message: object) -> bytes:
        """``cloudpickle.dumps(message)``, with one reused pickler per thread.

        Building a ``CloudPickler`` costs more than pickling a small message with it;
        clearing its memo between messages gives the same bytes as a fresh one (a test
        holds it to that).
        """
        local = self._local
        try:
            buffer, pickler = local.buffer, local.pickler
        except AttributeError:
            buffer = local.buffer = io.BytesIO()
            pickler = local.pickler = _Pickler(buffer)
        buffer.seek(0)
        buffer.truncate()
        pickler.clear_memo()
        pickler.dump(message)
        return bytes(buffer.getvalue())

    def seal(self, header: Header, message: object) -> bytes:
        """Return the signed frame carrying ``message`` under ``header``."""
        return self.seal_fields(*header, message)

    def seal_fields(  # noqa: PLR0917 -- the hot path: no Header in between
        self,
        cluster: int,
        sender: int,
        receiver: int,
        incarnation: int,
        receiver_incarnation: int,
        epoch: int,
        seq: int,
        kind: str,
        message: object,
    ) -> bytes:
        """:meth:`seal` given the header's fields one by one (no :class:`Header` made)."""
        name = self._kind_bytes[kind]
        body = b"".join(
            (
                _HEAD.pack(
                    MAGIC,
                    FORMAT_VERSION,
                    len(name),
                    cluster,
                    sender,
                    receiver,
                    incarnation,
                    receiver_incarnation,
                    epoch,
                    seq,
                    self.versions,
                ),
                name,
                self.dumps(message),
            )
        )
        mac = self._mac.copy()  # the key already absorbed: one C call per frame
        mac.update(body)
        return body + mac.digest()

    def _sign(self, body: bytes | memoryview) -> bytes:
        mac = self._mac.copy()
        mac.update(body)
        return mac.digest()

    def open(self, frame: bytes) -> tuple[Header, memoryview]:
        """Authenticate ``frame`` and parse its header; the payload stays bytes.

        Raises :class:`FrameRejected` with a stable reason for anything amiss.  Nothing
        here unpickles: call :meth:`load` once the caller's own checks have passed too.
        """
        size = len(frame)
        if size < _MIN_FRAME:
            raise FrameRejected("truncated", f"{size} bytes")
        if size > self.max_frame_size:
            raise FrameRejected("oversize", f"{size} bytes")
        view = memoryview(frame)
        magic, version, kind_len = frame[0:2], frame[2], frame[3]
        if magic != MAGIC:
            raise FrameRejected("bad_magic")
        if version != FORMAT_VERSION:
            raise FrameRejected("bad_version", f"format {version}, expected {FORMAT_VERSION}")
        body = view[:-MAC_SIZE]
        expected = self._sign(body)
        if not hmac.compare_digest(expected, view[-MAC_SIZE:]):
            raise FrameRejected("bad_signature")
        # From here on the bytes were written by a holder of the secret.
        fields = _HEAD.unpack_from(frame)
        kind_end = _HEAD.size + kind_len
        if kind_end >= size - MAC_SIZE:
            raise FrameRejected("truncated", "no payload", authentic=True)
        name = bytes(view[_HEAD.size : kind_end])
        kind = self._kind_names.get(name)
        if kind is None:
            try:
                kind = name.decode("ascii")
            except UnicodeDecodeError:
                raise FrameRejected("unknown_kind", "kind is not ASCII", authentic=True) from None
        _, _, _, cluster, sender, receiver, incarnation, to_incarnation, epoch, seq, versions = (
            fields
        )
        if versions != self.versions:
            raise FrameRejected(
                "incompatible",
                f"node {sender} runs {describe_versions(versions)}; "
                f"this node runs {describe_versions(self.versions)}",
                authentic=True,
            )
        header = Header(cluster, sender, receiver, incarnation, to_incarnation, epoch, seq, kind)
        if header.cluster != self.cluster:
            raise FrameRejected("wrong_cluster", f"{header.cluster:#x}", authentic=True)
        if kind not in self.kinds:
            raise FrameRejected("unknown_kind", kind, authentic=True)
        return header, body[kind_end:]

    def load(self, header: Header, payload: memoryview) -> object:
        """Unpickle an authenticated payload and check it is of its declared kind."""
        try:
            message = pickle.loads(payload)
        except Exception as exc:  # noqa: BLE001 -- a signed but broken pickle: any error at all
            raise FrameRejected("undecodable", type(exc).__name__, authentic=True) from None
        expected = self.kinds[header.kind]
        if type(message) is not expected:
            raise FrameRejected(
                "wrong_type",
                f"kind {header.kind} carried {type(message).__qualname__}",
                authentic=True,
            )
        return message
