"""``ringleader keys``: the cluster secret and the nodes' CURVE key pairs, as files."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from .errors import UsageError

__all__ = ["SECRET_NAME", "curve_key_paths", "make_keys"]

SECRET_NAME = "secret"


def curve_key_paths(directory: Path, node: int) -> tuple[Path, Path]:
    """Where node ``node``'s CURVE public and secret key files live in ``directory``."""
    return directory / f"node-{node}.key", directory / f"node-{node}.key_secret"


def make_keys(directory: Path, ids: Iterable[int] = ()) -> list[tuple[Path, bool]]:
    """Write ``directory/secret`` and, for each of ``ids``, a CURVE key pair.

    Returns ``(path, written)`` for every file: a file that exists already is kept as it
    is (``written`` false), so running it again for more ids never changes a key that
    machines may already hold.  Secrets are created with mode 0600.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {directory}: {exc.strerror or exc}") from None
    results = [(directory / SECRET_NAME, _write_secret(directory / SECRET_NAME))]
    for node in ids:
        public, secret = curve_key_paths(directory, node)
        if public.exists() or secret.exists():
            results += [(public, False), (secret, False)]
            continue
        import zmq.auth  # noqa: PLC0415 -- only for CURVE

        made_public, made_secret = zmq.auth.create_certificates(directory, f"node-{node}")
        Path(made_secret).chmod(0o600)
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
