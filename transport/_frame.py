"""The wire format: a versioned header, a compact payload, a keyed BLAKE2b tag.

::

    offset  size  field
    0       2     magic  b"RL"
    2       1     format version (6)
    3       1     kind                        (index into the cluster's table of kinds)
    4       8     cluster id                  (u64: frames of another cluster are dropped)
    12      8     sender node id              (i64)
    20      8     receiver node id            (i64)
    28      8     sender incarnation          (u64: which life of the sender wrote it)
    36      8     receiver incarnation        (u64: the receiver's life it is meant for; 0 = any)
    44      8     epoch                       (u64: the election round it belongs to)
    52      8     sequence number             (u64: per sender incarnation and receiver, from 1)
    60      6     software versions           (ringleader, Python, cloudpickle: major, minor each)
    66      …     payload                     (the message's fields, as its layout says)
    end-32  32    BLAKE2b-256 over everything before it, keyed with the cluster secret
                  (the watch key, for a frame from or to the reserved sender WATCHER)

The table of kinds is the cluster's declared message classes, in order (the framework's
first, then the algorithm's: ``wire_kinds`` in ``ringleader.actors.host``); a kind byte
is an index into it.  A payload is the compact layout of its kind's class
(``_layout.py``): numbers, strings and the declared classes, nothing that names code.
Only a cluster that opted in (``pickle_messages``) pickles the classes that have no
layout (``_pickled.py``).

The tag is checked with :func:`hmac.compare_digest` before any other field is trusted
and long before the payload is read: only a holder of the secret can make a frame that
gets as far as decoding, and even such a frame decodes only into its kind's declared
class, or is refused as ``undecodable``.  A frame written by another ringleader (or, for
a cluster that pickles, another Python or cloudpickle) is refused as ``incompatible``
before its payload is touched, with both sides' versions in the reason.

A cluster may also give a read-only watch key (``watch_secret_file``): a frame whose
sender or receiver is the reserved :data:`WATCHER` is tagged with it instead of the
cluster secret, and such a frame may only be of the watch kinds the codec is given
(a watch, a status question, and their answers); any other kind is refused before its
payload is read.  A holder of the watch key can ask, never speak as a member: a frame it
makes for another sender fails the cluster secret's tag.
"""

from __future__ import annotations

import hashlib
import struct
import sys
from collections.abc import Callable, Collection, Mapping
from hmac import compare_digest
from typing import Any, NamedTuple

import cloudpickle

from ._errors import FrameRejected, Unencodable
from ._layout import layout
from ._pickled import Pickled
from ._version import __version__

__all__ = [
    "FORMAT_VERSION",
    "HEAD_SIZE",
    "MAC_SIZE",
    "MAX_KINDS",
    "OPERATOR",
    "WATCHER",
    "Codec",
    "Header",
    "describe_versions",
    "sender_of",
]

MAGIC = b"RL"
#: The sender id of an operator's tool (``ringleader status``), which signs with the
#: cluster secret but is no member: no node may have this id.
OPERATOR = -(2**63)
#: The sender id of a watcher holding only the cluster's read-only watch key
#: (``ringleader watch --key``): no member may have this id either.
WATCHER = OPERATOR + 1
#: 5: the watcher's two kinds (``watch_query``, ``leadership_notice``) joined the
#: framework's, so every algorithm's kind byte moved: a node of format 4 would misread
#: them, and is refused as ``bad_version`` instead.  6: ``ping`` and ``pong`` carry the
#: sender's configuration key (and the configuration itself when the other's is older):
#: a node of format 5 would read neither, and is refused the same way.  7: the
#: membership question and answer (kind bytes 13, 14).  8: ``prevote`` and
#: ``prevote_reply`` carry a configuration (a member that missed a change learns it).
FORMAT_VERSION = 8
MAC_SIZE = 32
#: A kind is one byte.
MAX_KINDS = 256
_BEFORE_SENDER = "!2sBBQ"  # magic, format version, kind, cluster id
_HEAD = struct.Struct(_BEFORE_SENDER + "qqQQQQ6s")
HEAD_SIZE = _HEAD.size
#: The header after the kind: cluster id … sequence number, then the versions.
_FIELDS = struct.Struct("!QqqQQQQ6s")
_SENDER = struct.Struct("!q")
_SENDER_RECEIVER = struct.Struct("!qq")
_SENDER_AT = struct.calcsize(_BEFORE_SENDER)
_MIN_FRAME = HEAD_SIZE + MAC_SIZE  # a message with no fields has an empty payload
_PREFIX = MAGIC + bytes((FORMAT_VERSION,))
_MAX_KEY = 64
#: How many bytes of the software versions must match: ringleader's major and minor; all
#: six (Python's and cloudpickle's too) for a cluster that pickles.
_RINGLEADER_VERSION = 2


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


class _Kind(NamedTuple):
    """One entry of a cluster's table: its index (the kind byte), name and class, and
    how its payloads are written and read."""

    byte: int
    name: str
    cls: type[Any]
    pack: Callable[[Any], bytes]
    unpack: Callable[[Any], object]
    shape: str  # the layout in words; "pickle" for a class that opted in


class Codec:
    """Seals message objects into frames and opens frames back into them.

    One codec serves a whole cluster: it holds the secret, the cluster id and the table
    of message kinds the cluster speaks (``kinds`` maps each kind's name to its class,
    in the table's order).  Every class must have a compact layout, unless ``pickle``
    (the config's ``pickle_messages``) lets those without one go by pickle; otherwise
    :class:`~ringleader.transport.Unencodable` says, when the codec is made, which class
    and field cannot go on the wire.  It keeps no per-peer state; replay and
    incarnation checks live in :class:`Session`.
    """

    def __init__(
        self,
        secret: bytes,
        cluster: int,
        kinds: Mapping[str, type[Any]],
        *,
        max_frame_size: int = 1 << 16,
        pickle: bool = False,
        watch_secret: bytes | None = None,
        watch_kinds: Collection[str] = (),
    ) -> None:
        if len(kinds) > MAX_KINDS:
            raise ValueError(f"a cluster speaks at most {MAX_KINDS} kinds, not {len(kinds)}")
        self._mac = _keyed(secret, "the cluster secret")
        #: The watch key's, for frames from or to :data:`WATCHER` (``None``: no watcher).
        self._watch_mac = None if watch_secret is None else _keyed(watch_secret, "the watch key")
        self._watch_kinds = frozenset(watch_kinds)
        self.cluster = cluster
        self.kinds = dict(kinds)
        self.max_frame_size = max_frame_size
        self._table = [_entry(i, name, cls, pickle) for i, (name, cls) in enumerate(kinds.items())]
        self._by_name = {kind.name: kind for kind in self._table}
        # The hot paths' look-ups, as plain tuples: kind → (byte, class, pack), and
        # kind → (unpack, class).
        self._sealers = {k.name: (k.byte, k.cls, k.pack) for k in self._table}
        self._loaders = {k.name: (k.unpack, k.cls) for k in self._table}
        #: Which kinds go by pickle (an opted-in cluster's classes without a layout).
        self.pickled = frozenset(k.name for k in self._table if k.shape == "pickle")
        #: What this side runs, sent in every frame; a peer must run the same.
        self.versions = _versions()

    def layouts(self) -> dict[str, str]:
        """Each kind's payload layout in words (``"pickle"`` for one that opted in)."""
        return {kind.name: kind.shape for kind in self._table}

    def dumps(self, message: object) -> bytes:
        """The payload that carries ``message`` (of one of the cluster's kinds)."""
        kind: str = message.kind  # type: ignore[attr-defined]
        return self._by_name[kind].pack(message)

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
        byte, cls, pack = self._sealers[kind]
        if type(message) is not cls:
            raise TypeError(
                f"a {type(message).__qualname__} cannot go as kind {kind!r} "
                f"(declared: {cls.__qualname__})"
            )
        body = _HEAD.pack(
            MAGIC,
            FORMAT_VERSION,
            byte,
            cluster,
            sender,
            receiver,
            incarnation,
            receiver_incarnation,
            epoch,
            seq,
            self._versions,
        ) + pack(message)
        keyed = self._mac
        if self._watch_mac is not None and WATCHER in (sender, receiver):
            keyed = self._watch_mac
        mac = keyed.copy()  # the key already absorbed: one C call per frame
        mac.update(body)
        return body + mac.digest()

    def _sign(self, body: bytes | memoryview) -> bytes:
        mac = self._mac.copy()
        mac.update(body)
        return mac.digest()

    @property
    def versions(self) -> bytes:
        """What this side runs, sent in every frame: ringleader's, Python's and
        cloudpickle's major and minor versions.  A peer must run the same ringleader (and,
        in a cluster that pickles, the same Python and cloudpickle)."""
        return self._versions

    @versions.setter
    def versions(self, versions: bytes) -> None:
        self._versions = versions
        self._same = versions[: len(versions) if self.pickled else _RINGLEADER_VERSION]

    def open(self, frame: bytes) -> tuple[Header, bytes]:
        """Authenticate ``frame`` and parse its header; the payload stays bytes.

        Raises :class:`FrameRejected` with a stable reason for anything amiss.  Nothing
        here decodes the payload: call :meth:`load` once the caller's own checks have
        passed too.
        """
        size = len(frame)
        if size < _MIN_FRAME or size > self.max_frame_size or frame[:3] != _PREFIX:
            raise _malformed(frame, self.max_frame_size)
        keyed, watched = self._mac, False
        if self._watch_mac is not None and WATCHER in _SENDER_RECEIVER.unpack_from(
            frame, _SENDER_AT
        ):
            keyed, watched = self._watch_mac, True
        mac = keyed.copy()  # the key already absorbed: one C call per frame
        mac.update(frame[:-MAC_SIZE])
        if not compare_digest(mac.digest(), frame[-MAC_SIZE:]):
            raise FrameRejected("bad_signature")
        # From here on the bytes were written by a holder of the secret.
        fields = _FIELDS.unpack_from(frame, 4)
        if not fields[7].startswith(self._same):
            raise FrameRejected(
                "incompatible",
                f"node {fields[1]} runs {describe_versions(fields[7])}; "
                f"this node runs {describe_versions(self._versions)}",
                authentic=True,
            )
        index, table = frame[3], self._table
        kind = table[index].name if index < len(table) else f"#{index}"
        header = _header(Header, (*fields[:7], kind))
        if fields[0] != self.cluster:
            raise FrameRejected(
                "wrong_cluster",
                f"{fields[0]:#x}",
                authentic=True,
                header=header,
                payload=frame[HEAD_SIZE:-MAC_SIZE],
            )
        if index >= len(table):
            raise FrameRejected("unknown_kind", f"kind {index} of {len(table)}", authentic=True)
        if watched and kind not in self._watch_kinds:
            raise FrameRejected("unknown_sender", f"{kind} from the watcher", authentic=True)
        return header, frame[HEAD_SIZE:-MAC_SIZE]

    def load(self, header: Header, payload: bytes) -> object:
        """Decode an authenticated payload into its kind's declared class."""
        unpack, cls = self._loaders[header.kind]
        try:
            message = unpack(payload)
        except Exception as exc:  # noqa: BLE001 -- signed but not its kind's layout: any error
            detail = f"kind {header.kind}: {type(exc).__name__}"
            raise FrameRejected("undecodable", detail, authentic=True) from None
        if type(message) is not cls:  # only an opted-in pickle can be another class
            raise FrameRejected(
                "wrong_type",
                f"kind {header.kind} carried {type(message).__qualname__}",
                authentic=True,
            )
        return message

    def load_foreign(self, header: Header, payload: bytes, kind: str) -> object | None:
        """Decode the payload of an authentic frame of another cluster if its kind is
        ``kind`` (one of the framework's, which every cluster's table holds at the same
        index); ``None`` otherwise, or if it does not decode."""
        if header.kind != kind or kind in self.pickled:
            return None
        try:
            return self._by_name[kind].unpack(payload)
        except Exception:  # noqa: BLE001 -- not one: nothing to say about it
            return None


def _keyed(secret: bytes, what: str) -> hashlib.blake2b:
    """A BLAKE2b MAC keyed with ``secret``, to copy for each frame."""
    if len(secret) < 16:
        raise ValueError(f"{what} must be at least 16 bytes")
    if len(secret) > _MAX_KEY:  # BLAKE2b takes a key of at most 64 bytes: fold it
        secret = hashlib.blake2b(secret, digest_size=_MAX_KEY).digest()
    return hashlib.blake2b(key=secret, digest_size=MAC_SIZE)


#: A header made from its fields as they come (``Header(*fields)``, without its keywords).
_header = tuple.__new__


def _malformed(frame: bytes, max_frame_size: int) -> FrameRejected:
    """Why ``frame`` is refused before its tag is read: size, magic or format."""
    size = len(frame)
    if size < _MIN_FRAME:
        return FrameRejected("truncated", f"{size} bytes")
    if size > max_frame_size:
        return FrameRejected("oversize", f"{size} bytes")
    if frame[:2] != MAGIC:
        return FrameRejected("bad_magic")
    return FrameRejected("bad_version", f"format {frame[2]}, expected {FORMAT_VERSION}")


def _entry(index: int, name: str, cls: type[Any], pickle: bool) -> _Kind:
    try:
        wire = layout(cls)
    except Unencodable as exc:
        if not pickle:
            raise Unencodable(
                f"message class {cls.__qualname__} (kind {name!r}) cannot go on the "
                f"compact wire: {exc}"
            ) from None
        pickled = Pickled(cls)
        return _Kind(index, name, cls, pickled.dumps, pickled.loads, "pickle")
    return _Kind(index, name, cls, wire.pack, wire.unpack, wire.shape)
