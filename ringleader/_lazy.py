"""A package's names, each imported when first asked for.

The front door and the heavier packages under it (:mod:`ringleader.cluster`,
:mod:`ringleader.service`) import nothing until a name is used, so that importing one
part of the stack never loads the rest.  Each declares where its names live and takes
its module ``__getattr__`` and ``__dir__`` from :func:`lazy_names`::

    __getattr__, __dir__ = lazy_names(__name__, globals(), {"run": "._run"})
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, namespace: dict[str, Any], homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` (whose globals are
    ``namespace``), each name of ``homes`` coming from the module named beside it
    (relative to ``package`` if it starts with a dot)."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, package), name)
        namespace[name] = value  # asked once: a plain attribute from now on
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
