"""What travels between nodes: a message of one of the notes' kinds."""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Message"]


class Message:
    """Base of election messages: a frozen dataclass with a ``kind`` name from the notes.

    Define message classes in an importable module (not ``__main__``), with positional
    fields: they are pickled by reference as ``Class(*fields)``, which is smaller and
    about twice as quick to load as a frozen dataclass's default ``__setstate__``.
    """

    kind: ClassVar[str]
    __match_args__: ClassVar[tuple[str, ...]] = ()
    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), tuple([getattr(self, name) for name in self.__match_args__])
