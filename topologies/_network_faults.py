"""Reading a ``[[faults]]`` table that makes the network misbehave (not a crash).

One kind per table — ``partition``, ``loss``, ``delay``, ``duplicate``, ``reorder`` or
``pause`` — with ``from`` and ``until`` (seconds after the nodes are up; default from
the start, for ever; a pause needs ``until``) and, for the kinds that act on messages,
an optional ``link = [sender, receiver]`` (default: every link).  Every mistake is one
:class:`~ringleader.topologies.ConfigError` line naming the key.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from typing import Any

from ringleader.actors.faults import (
    Delay,
    Distribution,
    Duplicate,
    Loss,
    NetworkFault,
    Partition,
    Pause,
    Reorder,
)

from ._errors import ConfigError

__all__ = ["NETWORK_KEYS", "NETWORK_KINDS", "network_fault"]

#: The kinds of network entry, and the keys each table may hold besides its kind.
NETWORK_KINDS = ("partition", "loss", "delay", "duplicate", "reorder", "pause")
NETWORK_KEYS = ("from", "until", "link")
_LINKED = ("loss", "delay", "duplicate", "reorder")

Error = Callable[..., ConfigError]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _node(value: Any, ids: Collection[int]) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in ids


def network_fault(
    key: str, entry: Mapping[str, Any], kind: str, ids: Collection[int], error: Error
) -> NetworkFault:
    """The entry ``entry`` (the table ``key``) of kind ``kind``."""
    shown = ", ".join(str(i) for i in sorted(ids)[:12]) + (", …" if len(ids) > 12 else "")
    for name in entry:
        if name != kind and name not in NETWORK_KEYS:
            raise error(
                f"{key}.{name}",
                f"is not a key of a {kind} entry",
                f"a {kind} entry has {kind}, from, until"
                + (", link" if kind in _LINKED else "")
                + " (one kind per [[faults]] table)",
            )
    start, end = _window(key, entry, error)
    link = None
    if "link" in entry:
        if kind not in _LINKED:
            raise error(f"{key}.link", f"a {kind} entry has no link", "leave it out")
        value = entry["link"]
        if not (isinstance(value, list) and len(value) == 2 and all(_node(v, ids) for v in value)):
            raise error(
                f"{key}.link",
                f"{value!r} is not [sender, receiver] of the cluster's nodes",
                f"e.g. link = [1, 2]; nodes: {shown}",
            )
        link = (value[0], value[1])
    value = entry[kind]
    if kind == "partition":
        return Partition(start, end, _groups(f"{key}.partition", value, ids, shown, error))
    return _entry(key, kind, value, (start, end), link, ids, error)


def _entry(  # noqa: PLR0917 -- what network_fault has read so far
    key: str,
    kind: str,
    value: Any,
    window: tuple[float, float],
    link: tuple[int, int] | None,
    ids: Collection[int],
    error: Error,
) -> NetworkFault:
    """A pause, loss, duplicate, reorder or delay entry, once its window and link are
    read."""
    start, end = window
    if kind == "pause":
        if not _node(value, ids):
            shown = ", ".join(str(i) for i in sorted(ids)[:12])
            raise error(
                f"{key}.pause", f"{value!r} is not a node of the cluster", f"one of: {shown}"
            )
        if end == math.inf:
            raise error(f"{key}.until", "missing", "a pause ends: until = seconds after the start")
        return Pause(start, end, value)
    if kind in ("loss", "duplicate"):
        if not _number(value) or not 0 <= value <= 1:
            raise error(
                f"{key}.{kind}", f"{value!r} is not a probability in [0, 1]", f"{kind} = 0.2"
            )
        cls = Loss if kind == "loss" else Duplicate
        return cls(start, end, link, float(value))
    if kind == "reorder":
        if not _number(value) or not 0 < value <= 60:
            raise error(
                f"{key}.reorder",
                f"{value!r} is not a number of seconds in (0, 60]",
                "how long a message may be held back: reorder = 0.01",
            )
        return Reorder(start, end, link, float(value))
    return Delay(start, end, link, _distribution(f"{key}.delay", value, error))


def _window(key: str, entry: Mapping[str, Any], error: Error) -> tuple[float, float]:
    start = entry.get("from", 0.0)
    end = entry.get("until", math.inf)
    for name, value in (("from", start), ("until", end)):
        if value is not math.inf and (not _number(value) or not 0 <= value <= 86_400):
            raise error(f"{key}.{name}", f"{value!r} is not a number of seconds in [0, 86400]")
    if end <= start:
        raise error(f"{key}.until", f"{end:g} is not after from ({start:g})")
    return float(start), float(end)


def _groups(
    key: str, value: Any, ids: Collection[int], shown: str, error: Error
) -> tuple[frozenset[int], ...]:
    example = "e.g. partition = [[1, 2], [3, 4, 5]] (the nodes of no group are one more)"
    if not isinstance(value, list) or not value:
        raise error(key, f"{value!r} is not a list of groups of node ids", example)
    seen: set[int] = set()
    groups = []
    for group in value:
        if not isinstance(group, list) or not group or not all(_node(v, ids) for v in group):
            raise error(key, f"{group!r} is not a group of the cluster's nodes", f"nodes: {shown}")
        if seen & set(group):
            raise error(key, f"node {sorted(seen & set(group))[0]} is in two groups", example)
        seen |= set(group)
        groups.append(frozenset(group))
    if len(groups) == 1 and seen == set(ids):
        raise error(key, "one group of every node splits nothing", example)
    return tuple(groups)


def _distribution(key: str, value: Any, error: Error) -> Distribution:
    hint = "delay = 0.01 (seconds), [0.001, 0.05] (uniform) or {mean = 0.01} (exponential)"
    if _number(value) and 0 <= value <= 60:
        return Distribution("fixed", float(value))
    if isinstance(value, list) and len(value) == 2 and all(_number(v) for v in value):
        low, high = value
        if 0 <= low <= high <= 60:
            return Distribution("uniform", float(low), float(high))
    mean: Any = value.get("mean") if isinstance(value, dict) and set(value) == {"mean"} else None
    if _number(mean) and 0 < mean <= 60:
        return Distribution("exponential", float(mean))
    raise error(key, f"{value!r} is not a delay in seconds (at most 60)", hint)
