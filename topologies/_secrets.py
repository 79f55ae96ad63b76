"""The cluster secret and the CURVE keys: where each is read from.

- The configured secret: ``secret_file``, else ``$RINGLEADER_SECRET``, else none
  (:func:`configured_secret`, what :meth:`Config.secret` returns).
- With ``security = "curve"``, the key pairs in ``keys`` (:func:`load_curve_keys`).
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

import zmq.auth

from actors.host import OPERATOR
from transport import CurveKeys

from ._errors import ConfigError

__all__ = [
    "MIN_SECRET",
    "SECRET_ENV",
    "configured_secret",
    "load_curve_keys",
    "read_secret",
]

SECRET_ENV = "RINGLEADER_SECRET"
#: The shortest secret accepted, in bytes.
MIN_SECRET = 16


def read_secret(path: Path, source: str) -> bytes:
    """The secret in ``path`` (``secret_file`` of the config ``source``)."""
    try:
        secret = path.read_bytes().strip()
    except OSError as exc:
        raise ConfigError(
            source, "secret_file", f"cannot read {path}: {exc.strerror or exc}"
        ) from None
    if len(secret) < MIN_SECRET:
        raise ConfigError(
            source,
            "secret_file",
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
                _, key = zmq.auth.load_certificate(own)
                if key is None:
                    raise ValueError(f"{own} holds no secret key")
                secret[node] = key
        except (OSError, ValueError) as exc:
            problem = f"cannot load {name}'s key: {exc}"
            raise ConfigError(source, "keys", problem, hint) from None
    return CurveKeys(public, secret)
