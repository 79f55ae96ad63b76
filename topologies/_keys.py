"""The cluster secret and the CURVE keys as files: reading, checking and making them.

- The configured secret: ``secret_file``, else ``$RINGLEADER_SECRET``, else none
  (:func:`configured_secret`, what :meth:`Config.secret` returns).
- This user's local secret for a cluster on one machine (:func:`local_secret`).
- With ``security = "curve"``, the key pairs in ``keys`` (:func:`load_curve_keys`).
- New secret and key files, for ``ringleader keys`` (:func:`make_keys`).

A secret file (the cluster secret, a CURVE secret key, this user's local secret) that
other users may read is refused (:func:`check_private`): whoever reads it can sign frames
as any member.

Which secret a node of a config signs with is ``_secrets.py``'s.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import secrets
import stat
from collections.abc import Collection, Iterable
from pathlib import Path

import zmq.auth

from ringleader.transport import OPERATOR, CurveKeys

from ._errors import ConfigError

__all__ = [
    "MIN_SECRET",
    "SECRET_ENV",
    "SECRET_NAME",
    "configured_secret",
    "is_loopback",
    "load_curve_keys",
    "local_secret",
    "make_keys",
    "new_secret",
    "read_secret",
]

#: The mode bits that let other users read a file: group's and others' read.
READABLE_BY_OTHERS = stat.S_IRGRP | stat.S_IROTH

log = logging.getLogger(__name__)

SECRET_ENV = "RINGLEADER_SECRET"
#: The shortest secret accepted, in bytes.
MIN_SECRET = 16
#: The secret's file name in a directory ``ringleader keys`` made.
SECRET_NAME = "secret"


def new_secret() -> str:
    """A new secret as secret files and ``$RINGLEADER_SECRET`` hold it: 32 random bytes
    in hex."""
    return secrets.token_hex(32)


def check_private(path: Path, mode: int, source: str, key: str | None) -> None:
    """Refuse a secret file whose ``mode`` lets other users read it: a one-line
    :class:`ConfigError` naming the file and the fix."""
    if mode & READABLE_BY_OTHERS:
        raise ConfigError(
            source,
            key,
            f"{path} can be read by other users (mode {stat.S_IMODE(mode):04o}): "
            "anyone who reads it can sign frames as a member",
            f"chmod 600 {path}",
        )


def _read_private(path: Path, source: str, key: str | None) -> bytes:
    """The bytes of secret file ``path``, if only its owner may read it (its mode is
    read from the open file: the file checked is the file read)."""
    with path.open("rb") as file:
        check_private(path, os.fstat(file.fileno()).st_mode, source, key)
        return file.read()


def read_secret(path: Path, source: str, key: str = "secret_file") -> bytes:
    """The secret in ``path`` (``key``, ``secret_file`` or ``watch_secret_file``, of the
    config ``source``)."""
    try:
        secret = _read_private(path, source, key).strip()
    except OSError as exc:
        raise ConfigError(source, key, f"cannot read {path}: {exc.strerror or exc}") from None
    if len(secret) < MIN_SECRET:
        raise ConfigError(
            source,
            key,
            f"{path} holds {len(secret)} bytes, at least {MIN_SECRET} are needed",
            "put a long random string in it, e.g. "
            "python -c 'import secrets; print(secrets.token_hex(32))'",
        )
    return secret


def configured_secret(secret_file: Path | None, source: str) -> bytes | None:
    """The cluster secret: ``secret_file``, else ``$RINGLEADER_SECRET``, else ``None``."""
    if secret_file is not None:
        return read_secret(secret_file, source)
    env = os.environ.get(SECRET_ENV)
    if env is None:
        return None
    secret = env.encode()
    if len(secret) < MIN_SECRET:
        raise ConfigError(
            f"${SECRET_ENV}",
            None,
            f"the secret is {len(secret)} bytes, at least {MIN_SECRET} are needed",
        )
    return secret


def load_curve_keys(
    keys: Path, members: Collection[int], hosted: Collection[int], source: str
) -> CurveKeys:
    """Every member's public key in ``keys`` (and the operator's, if there is one), and
    the secret keys of ``hosted``."""
    public: dict[int, bytes] = {}
    secret: dict[int, bytes] = {}
    names = {node: f"node-{node}" for node in members}
    names[OPERATOR] = "operator"
    hint = f"make them with: ringleader keys {keys} --ids " + ",".join(str(n) for n in members)
    for node, name in names.items():
        path = keys / f"{name}.key"
        if not path.exists():
            if node == OPERATOR and node not in hosted:
                continue  # then nobody may ask for status
            raise ConfigError(source, "keys", f"{path} is missing", hint)
        try:
            public[node], _ = zmq.auth.load_certificate(path)
            if node in hosted:
                own = keys / f"{name}.key_secret"
                if not own.exists():
                    raise ConfigError(source, "keys", f"{own} is missing", hint)
                check_private(own, own.stat().st_mode, source, "keys")
                _, key = zmq.auth.load_certificate(own)
                if key is None:
                    raise ValueError(f"{own} holds no secret key")
                secret[node] = key
        except (OSError, ValueError) as exc:
            problem = f"cannot load {name}'s key: {exc}"
            raise ConfigError(source, "keys", problem, hint) from None
    return CurveKeys(public, secret)


def is_loopback(address: str) -> bool:
    """Whether ``address`` can only be reached from this machine (ipc, or tcp on loopback)."""
    if not address.startswith("tcp://"):
        return True
    host = address[len("tcp://") :].rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve anywhere


def local_secret(path: Path) -> bytes:
    """The secret in ``path``, made first (32 random bytes, mode 0600) if there is none.

    Nodes started together race to make it: each writes a file of its own and links it
    into place, so a reader never sees half a secret, and every node gets the same one.
    """
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not path.exists():
            draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
            fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as file:
                file.write(new_secret() + "\n")
            try:
                os.link(draft, path)
            except FileExistsError:
                pass  # another node made it first: use theirs
            finally:
                draft.unlink()
        return _read_private(path, str(path), None).strip()
    except OSError as exc:
        raise ConfigError(
            str(path),
            None,
            f"cannot keep this user's cluster secret here: {exc.strerror or exc}",
            f"set secret_file in the config, or ${SECRET_ENV}",
        ) from None


# -- making -----------------------------------------------------------------------------


class _Unwritable(OSError):
    """A file :func:`make_keys` could not make; ``str()`` says which, in one line."""


def make_keys(directory: Path, ids: Iterable[int] = ()) -> list[tuple[Path, bool]]:
    """Write ``directory/secret`` and, for each of ``ids``, a CURVE key pair
    (``node-ID.key``, ``node-ID.key_secret``), plus one for the operator's tools
    (``operator.key``…) when there are ids.

    Returns ``(path, written)`` for every file: a file that exists already is kept as it
    is (``written`` false), so running it again for more ids never changes a key that
    machines may already hold.  Secrets are created with mode 0600.  Raises
    :class:`OSError` saying in one line what could not be written.
    """
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise _Unwritable(f"cannot create {directory}: {exc.strerror or exc}") from None
    # Secret keys are born private: no moment in which another user could read one.
    umask = os.umask(0o077)
    try:
        return _make(directory, list(ids))
    except _Unwritable:
        raise
    except OSError as exc:
        raise _Unwritable(f"cannot write in {directory}: {exc.strerror or exc}") from None
    finally:
        os.umask(umask)


def _make(directory: Path, ids: list[int]) -> list[tuple[Path, bool]]:
    results = [(directory / SECRET_NAME, _write_secret(directory / SECRET_NAME))]
    names = [f"node-{node}" for node in ids]
    if names:
        names.append("operator")  # for ringleader status
    for name in names:
        public, secret = directory / f"{name}.key", directory / f"{name}.key_secret"
        if public.exists() or secret.exists():
            results += [(public, False), (secret, False)]
            continue
        made_public, made_secret = zmq.auth.create_certificates(directory, name)
        Path(made_public).chmod(0o644)  # public: any of this machine's users may read it
        results += [(Path(made_public), True), (Path(made_secret), True)]
    return results


def _write_secret(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    except OSError as exc:
        raise _Unwritable(f"cannot write {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w") as file:
        file.write(new_secret() + "\n")
    return True
