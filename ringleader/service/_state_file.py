"""A node's state file: what must survive a node of a service, across its lives.

``ringleader node`` and :class:`~ringleader.Node` keep, per cluster and node, the highest
epoch the node has seen (so that a restarted node starts its rounds above it, and the
fencing token only grows), the round it acknowledged last and that round's leader (so
that it never acknowledges an older round, nor a second leader of that one), its
incarnation counter (so that each life is newer than the last whatever the clocks say)
and the cluster's configuration as this node knows it (the member list as versioned
state, :class:`~ringleader.actors.crashes.Configuration`; see
``docs/design/membership.md``).  The file is

    STATE_DIR/CLUSTER/node-ID/state.json

``STATE_DIR`` is the config's ``state_dir``, else ``$XDG_STATE_HOME/ringleader``, else
``~/.local/state/ringleader``; ``CLUSTER`` the config's ``cluster`` name, else
``default``.  The node's directory is created with its first file in one rename, so it
exists exactly when the node has run here: a directory without its file is a missing
file (an error), no directory a first start.  Every write goes to a temporary file,
is fsynced, renamed over the file, and the directory fsynced; the node holds a lock on
its directory while it runs, so that no second process uses the same state.

Any problem — missing after the node has run, corrupt, unreadable, unwritable, in use —
is a :class:`~ringleader.errors.StateError`, one line naming the file, never a silent
reset.  ``fresh=True`` (``ringleader node --fresh-state``) starts over on purpose.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ringleader.actors.crashes import Configuration, ConfigurationError
from ringleader.errors import StateError
from ringleader.topologies import Config

__all__ = [
    "FRESH",
    "NEW",
    "RESTORED",
    "StateFile",
    "default_state_dir",
    "founding_configuration",
    "state_path",
]

#: How a node's state began this life (its ``listening`` line's ``state``).
NEW, RESTORED, FRESH = "new", "restored", "fresh"
#: The file's format, in its ``format`` field (1: without the acknowledged round, read
#: as if it acknowledged an unknown leader of its epoch; 2: without the configuration,
#: read as the config file's).
FORMAT = 3
STATE_NAME = "state.json"
#: A cluster name used as a directory name as it is; others are hashed.
_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")
#: The largest incarnation a clock may seed (the wire carries 64 bits).
_MAX_SEED = 2**62
START_OVER = "or start over with 'ringleader node ... --fresh-state' (Node(fresh_state=True))"


def default_state_dir() -> Path:
    """Where a node keeps its state without a ``state_dir``: ``$XDG_STATE_HOME/ringleader``,
    else ``~/.local/state/ringleader``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ringleader"


def state_path(config: Config, node: int) -> Path:
    """The state file of node ``node`` of ``config``'s cluster."""
    root = config.state_dir if config.state_dir is not None else default_state_dir()
    name = config.cluster or "default"
    if not _SAFE_NAME.fullmatch(name):
        name = "cluster-" + hashlib.sha256(name.encode()).hexdigest()[:16]
    return root / name / f"node-{node}" / STATE_NAME


#: The fields of each format the file may have (its ``check`` covers them).
_FIELDS = {
    1: ("format", "node", "epoch", "incarnation"),
    2: ("format", "node", "epoch", "acked", "acked_leader", "incarnation"),
    3: ("format", "node", "epoch", "acked", "acked_leader", "incarnation", "configuration"),
}


def _check(fields: dict[str, Any]) -> str:
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return f"{zlib.crc32(text.encode()):08x}"


class StateFile:
    """Node ``node``'s state in ``path``, locked for this process while it is open.

    :attr:`epoch` is the highest epoch made durable, :attr:`acknowledged` the round it
    acknowledged last and its leader (``None``: not known), :attr:`incarnation` this
    life's number, :attr:`start` how the state began this life (``NEW``: the node's first
    start here; ``RESTORED``; ``FRESH``: started over).  It is what a node actor
    keeps its epoch in (:class:`~ringleader.actors.host.Durable`); :attr:`failure` is the
    error that stopped it, if a write failed.

    :attr:`configuration` is the cluster's configuration this node keeps.  The config
    file's list of nodes is the *founding* one (version 0); a node keeps a configuration
    changed live (version 1 on) across its lives, while one still at version 0 follows
    the config file, so that a rolling restart with another list of nodes changes it as
    before.  :meth:`keep` makes a newer one durable; it never goes back.
    """

    def __init__(self, path: Path, node: int, founding: Configuration) -> None:
        self.path = path
        self.node = node
        self.epoch = 0
        self.acknowledged: tuple[int, int | None] = (0, None)
        #: The configuration this node keeps (the founding one until a change is kept).
        self.configuration = founding
        self.incarnation = 0
        self.start = NEW
        self.failure: StateError | None = None
        self._directory: int | None = None  # the node directory's fd, locked

    @classmethod
    def open(
        cls,
        config: Config,
        node: int,
        *,
        fresh: bool = False,
        seed: Callable[[], int] | None = None,
        founding: Configuration | None = None,
    ) -> StateFile:
        """Lock and read node ``node``'s state (a first start creates it), count a new
        life and make it durable; raises :class:`StateError`.

        ``fresh``: start over, whatever is there (epoch 0).  A life with no state to
        count from (a first start, or a fresh one) takes its number from ``seed`` (the
        wall clock: a node whose state was lost is then most likely still newer than the
        life its peers remember); every later one is the last plus one, whatever the
        clock says.  ``founding``: the configuration the config file's list founds
        (``founding_configuration()``, unless the caller knows the addresses better).
        """
        founding = founding or founding_configuration(config)
        state = cls(state_path(config, node), node, founding)
        try:
            state._open(fresh, seed or time.time_ns)
        except BaseException:
            state.close()
            raise
        return state

    def _open(self, fresh: bool, seed: Callable[[], int]) -> None:
        path = self.path
        home = path.parent
        created = self._create(home)
        try:
            self._directory = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
            fcntl.flock(self._directory, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise StateError(
                    str(path),
                    f"in use by another process (node {self.node} of this cluster already "
                    "runs with this state)",
                    "two clusters on one machine need a cluster name each, or their own state_dir",
                ) from None
            raise self._error("cannot open its directory", exc) from None
        acknowledged: tuple[int, int | None] = (0, None)
        kept: Configuration | None = None
        if fresh:
            self.start, epoch, incarnation = FRESH, 0, 0
            with contextlib.suppress(StateError):  # a readable count is still counted on
                incarnation = self._read()[1]
        else:
            epoch, incarnation, acknowledged, kept = self._read()
            self.start = NEW if created else RESTORED
        self.epoch, self.acknowledged = epoch, acknowledged
        if kept is not None and kept.version > 0:
            self.configuration = kept  # changed live: it outlives the config file's list
        if self.start == RESTORED:
            self.incarnation = incarnation + 1
        else:
            self.incarnation = max(incarnation + 1, min(seed(), _MAX_SEED))
        self._write(self.epoch, self.acknowledged, self.incarnation)

    def _create(self, home: Path) -> bool:
        """Create the node's directory with its first file in one rename, unless it
        exists; True if this call created it."""
        if home.is_dir():
            return False
        try:
            home.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            making = Path(f"{home}.{os.getpid()}.new")
            shutil.rmtree(making, ignore_errors=True)
            making.mkdir(mode=0o700)
            self._write_in(making, 0, (0, None), 0)
            _fsync_directory(making)
            try:
                making.rename(home)
            except OSError as exc:
                shutil.rmtree(making, ignore_errors=True)
                if exc.errno in (errno.EEXIST, errno.ENOTEMPTY) and home.is_dir():
                    return False  # another process made it first
                raise
            _fsync_directory(home.parent)
        except OSError as exc:
            raise self._error("cannot create it", exc, where=home) from None
        return True

    def _read(self) -> tuple[int, int, tuple[int, int | None], Configuration | None]:
        path = self.path
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise StateError(
                str(path),
                f"missing, but {path.parent} exists: this node has run here before, and "
                "without the highest epoch it saw it could hand out an old fencing token",
                f"restore the file, {START_OVER}",
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise self._error("cannot read it", exc) from None
        try:
            data = json.loads(text)
            version = data["format"]
            names = _FIELDS.get(version) if type(version) is int else None
            fields = None if names is None else {k: data[k] for k in names}
            check = data["check"]
        except (ValueError, TypeError, KeyError) as exc:
            raise self._corrupt(f"not a state file ({type(exc).__name__}: {exc})") from None
        if fields is None:
            raise self._corrupt(f"format {version!r}, not {FORMAT}")
        if check != _check(fields):
            raise self._corrupt("its check does not match its contents")
        if fields["node"] != self.node:
            raise self._corrupt(f"it is node {fields['node']!r}'s, not node {self.node}'s")
        epoch, incarnation = fields["epoch"], fields["incarnation"]
        if not all(type(v) is int and v >= 0 for v in (epoch, incarnation)):
            raise self._corrupt(f"epoch {epoch!r} or incarnation {incarnation!r} is not a count")
        acked, leader = fields.get("acked", epoch), fields.get("acked_leader")
        if not (type(acked) is int and 0 <= acked <= epoch) or not (
            leader is None or type(leader) is int
        ):
            raise self._corrupt(f"acked {acked!r} or acked_leader {leader!r} is not a round")
        return epoch, incarnation, (acked, leader), self._configuration(fields)

    def _configuration(self, fields: dict[str, Any]) -> Configuration | None:
        """The configuration a file of format 3 keeps (``None`` in an older one)."""
        if "configuration" not in fields:
            return None
        data = fields["configuration"]
        try:
            if not isinstance(data, dict):
                raise ConfigurationError(f"not a configuration: {data!r}")
            return Configuration.from_json(data)
        except ConfigurationError as exc:
            raise self._corrupt(f"configuration: {exc}") from None

    def keep(self, configuration: Configuration) -> bool:
        """Make ``configuration`` durable, if it is newer than the one kept (by its
        :attr:`~ringleader.actors.crashes.Configuration.key`): before the node acts on
        it.  Returns whether it was newer; an older or equal one changes nothing."""
        if configuration.key <= self.configuration.key:
            return False
        previous, self.configuration = self.configuration, configuration
        try:
            self._write(self.epoch, self.acknowledged, self.incarnation)
        except StateError:
            self.configuration = previous
            raise
        return True

    def save(self, epoch: int, acknowledged: tuple[int, int | None]) -> None:
        """Make ``epoch`` (if it is above the last) and ``acknowledged`` (if it is a newer
        round) durable: before the node acts on them."""
        epoch = max(epoch, self.epoch)
        if acknowledged[0] <= self.acknowledged[0]:
            acknowledged = self.acknowledged
        if (epoch, acknowledged) == (self.epoch, self.acknowledged):
            return
        self._write(epoch, acknowledged, self.incarnation)
        self.epoch, self.acknowledged = epoch, acknowledged

    def save_epoch(self, epoch: int) -> None:
        """Make ``epoch`` durable, if it is above the last."""
        self.save(epoch, self.acknowledged)

    def _write(self, epoch: int, acknowledged: tuple[int, int | None], incarnation: int) -> None:
        try:
            self._write_in(self.path.parent, epoch, acknowledged, incarnation)
            if self._directory is not None:
                os.fsync(self._directory)
        except OSError as exc:
            self.failure = self._error("cannot write it", exc)
            raise self.failure from None

    def _write_in(
        self,
        directory: Path,
        epoch: int,
        acknowledged: tuple[int, int | None],
        incarnation: int,
    ) -> None:
        """Write the state into ``directory``: a temporary file, fsynced, renamed."""
        fields = {
            "format": FORMAT,
            "node": self.node,
            "epoch": epoch,
            "acked": acknowledged[0],
            "acked_leader": acknowledged[1],
            "incarnation": incarnation,
            "configuration": self.configuration.to_json(),
        }
        text = json.dumps({**fields, "check": _check(fields)}) + "\n"
        temporary = directory / f"{STATE_NAME}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, text.encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        temporary.replace(directory / STATE_NAME)

    def close(self) -> None:
        """Release the lock (the state stays)."""
        directory, self._directory = self._directory, None
        if directory is not None:
            with contextlib.suppress(OSError):
                os.close(directory)

    def _error(
        self, what: str, exc: OSError | UnicodeError, where: Path | None = None
    ) -> StateError:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        place = where if where is not None else self.path.parent
        return StateError(str(self.path), f"{what}: {reason}", _advice(exc, place))

    def _corrupt(self, problem: str) -> StateError:
        return StateError(
            str(self.path), f"corrupt: {problem}", f"restore it from a backup, {START_OVER}"
        )


def founding_configuration(config: Config) -> Configuration:
    """The configuration ``config``'s list of nodes founds: version 0, every node a
    voter but the spares, at the address its peers dial (a spare's address is kept
    too: the leader adds it from there)."""
    return Configuration.founding(config.founding, config.addresses)


#: What fixes a failed read or write, by its errno: room on the disk, a writable disk.
_FULL = {errno.ENOSPC, errno.EDQUOT}
_READ_ONLY = {errno.EROFS}


def _advice(exc: OSError | UnicodeError, place: Path) -> str:
    """How to fix what ``exc`` says went wrong with the state under ``place``."""
    code = exc.errno if isinstance(exc, OSError) else None
    if code in _FULL:
        return (
            f"free some space on the disk that holds {place} (or its user's quota), or set "
            "state_dir in the config to a disk with room"
        )
    if code in _READ_ONLY:
        return f"{place} is on a read-only filesystem: set state_dir in the config to another"
    return f"make {place} readable and writable by this user, or set state_dir in the config"


def _fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
