"""The codec of a config's cluster: its secret, its id, its table of message kinds, and
whether it opted in to pickle (``pickle_messages``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ringleader.transport import Codec, Unencodable

from ._config import Config
from ._errors import ConfigError

__all__ = ["check_messages", "cluster_codec"]

#: A secret for a codec made only to check the message classes: it signs nothing.
_CHECKING = bytes(32)


def cluster_codec(
    config: Config,
    secret: bytes,
    cluster: int,
    kinds: Mapping[str, type[Any]],
    *,
    watch_secret: bytes | None = None,
    watch_kinds: Collection[str] = (),
) -> Codec:
    """A :class:`~ringleader.transport.Codec` for ``config``'s cluster speaking ``kinds``;
    with ``watch_secret`` (the read-only watch key), frames from or to a watcher are
    keyed with it and may only be of ``watch_kinds``.

    A message class that has no compact layout, in a config without
    ``pickle_messages = true``, is a :class:`ConfigError` now, when the cluster is set up,
    rather than an error at its first send.
    """
    try:
        return Codec(
            secret,
            cluster,
            kinds,
            pickle=config.pickle_messages,
            watch_secret=watch_secret,
            watch_kinds=watch_kinds,
        )
    except Unencodable as exc:
        raise ConfigError(
            config.source,
            "pickle_messages",
            str(exc),
            "give its fields types the wire carries (docs/wire-format.md), or set "
            "pickle_messages = true, knowing the risk (docs/security.md)",
        ) from None


def check_messages(config: Config) -> None:
    """The :class:`ConfigError` :func:`cluster_codec` would raise for ``config``'s
    algorithm, now: for an algorithm of your own, when its config is loaded."""
    algorithm = config.algorithm_class
    cluster_codec(config, _CHECKING, 0, {m.kind: m for m in algorithm.messages})
