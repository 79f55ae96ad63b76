"""A node's variables as JSON for the page: sets sorted, a node's info as ``P<id>``."""

from __future__ import annotations

from typing import Any

from ringleader.actors.core import NodeState

__all__ = ["jsonable"]


def jsonable(value: Any) -> Any:  # noqa: PLR0911 -- one case per kind of value
    """A variable's value as JSON: sets sorted, a node's info as ``P<id>``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, NodeState):
        return str(value)
    if isinstance(value, tuple) and hasattr(value, "id") and hasattr(value, "capacity"):
        return f"P{value.id}"
    if hasattr(value, "kind") and hasattr(value, "__match_args__"):  # a message, as sent
        fields = (jsonable(getattr(value, name)) for name in value.__match_args__)
        return f"{value.kind}({', '.join(map(str, fields))})"
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        items = [jsonable(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=str)
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return str(value)
