"""``ringleader keys``: the cluster secret and the nodes' CURVE key pairs, as files."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from .errors import UsageError

__all__ = ["SECRET_NAME", "make_keys"]

SECRET_NAME = "secret"


def make_keys(directory: Path, ids: Iterable[int] = ()) -> list[tuple[Path, bool]]:
    """Write ``directory/secret`` and, for each of ``ids``, a CURVE key pair
    (``node-ID.key``, ``node-ID.key_secret``), plus one for the operator's tools
    (``operator.key``…) when there are ids.

    Returns ``(path, written)`` for every file: a file that exists already is kept as it
    is (``written`` false), so running it again for more ids never changes a key that
    machines may already hold.  Secrets are created with mode 0600.
    """
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {directory}: {exc.strerror or exc}") from None
    # Secret keys are born private: no moment in which another user could read one.
    umask = os.umask(0o077)
    try:
        return _make(directory, list(ids))
    except OSError as exc:
        raise UsageError(f"cannot write in {directory}: {exc.strerror or exc}") from None
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
        import zmq.auth  # noqa: PLC0415 -- only for CURVE

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
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w") as file:
        file.write(secrets.token_hex(32) + "\n")
    return True
