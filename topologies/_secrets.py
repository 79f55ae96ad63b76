"""Which secret a node of a config signs with.

- A standalone node's (:func:`node_secret`): the configured one; on one machine without
  one, this user's local secret (``local_secret``); across
  machines, none is an error.
- A run's: the configured one, else a random one for this run, in this process
  (:func:`run_secret`) or handed down to its node processes (:func:`secret_env`).
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

from ._config import Config
from ._errors import ConfigError
from ._keys import SECRET_ENV, is_loopback, local_secret, new_secret

__all__ = ["local_secret_path", "node_secret", "run_secret", "secret_env"]

log = logging.getLogger(__name__)

#: The local secrets this process has warned of (once each).
_warned: set[Path] = set()


def node_secret(config: Config) -> bytes:
    """The secret a standalone node (or ``ringleader status``) signs with.

    The config's (``secret_file`` or ``$RINGLEADER_SECRET``) if there is one.  Without
    one, a cluster whose every address is on this machine uses a random secret kept in a
    file only this user can read (``local_secret``), with a warning (once a process: a
    tool that opens several operator lines reads it each time); a cluster that spans
    machines is refused: :class:`ConfigError`, exit 2.
    """
    secret = config.secret()
    if secret is not None:
        return secret
    remote = [
        (n.id, a)
        for n in config.nodes
        for a in (n.address, n.advertise)
        if a is not None and not is_loopback(a)
    ]
    if remote:
        node, address = remote[0]
        raise ConfigError(
            config.source,
            "secret_file",
            f"a secret is required: node {node} is at {address}, reachable from "
            "other machines, and anyone who can reach it could speak on the wire",
            "make one with 'ringleader keys DIR', copy DIR/secret to every machine and set "
            f'secret_file = "DIR/secret" in the config, or set ${SECRET_ENV}',
        )
    path = local_secret_path()
    if path not in _warned:
        _warned.add(path)
        log.warning(
            "no secret_file or $%s: using this user's secret for the cluster, %s (only this "
            "user's nodes on this machine can join; 'ringleader keys DIR' makes one to share)",
            SECRET_ENV,
            path,
        )
    return local_secret(path)


def local_secret_path() -> Path:
    """Where this user's secret for clusters on this machine lives: under
    ``$XDG_RUNTIME_DIR`` (else ``~/.cache``), in a ``ringleader`` directory only this user
    can enter.

    One secret for all of this user's clusters, not one per cluster: two nodes whose
    configs define their cluster differently (another member list, another algorithm)
    can then still read each other's frames far enough to say how they differ, rather
    than only that the signature fails; their cluster ids keep them apart.
    """
    base = os.environ.get("XDG_RUNTIME_DIR") or str(Path.home() / ".cache")
    return Path(base) / "ringleader" / "local.secret"


def run_secret(config: Config) -> bytes:
    """The secret of a run whose nodes all live in this process: the config's, else a
    random one that lives as long as the run."""
    return config.secret() or secrets.token_bytes(32)


def secret_env(config: Config) -> dict[str, str]:
    """What to add to the environment of a run's node processes: nothing if the config
    names a secret (each reads it), else one random secret for this run's children."""
    if config.secret() is not None:
        return {}
    return {SECRET_ENV: new_secret()}
