"""Message payloads as fixed binary layouts, derived once per class from its fields.

A message class (a dataclass, or a ``NamedTuple``) is read once, when a cluster's codec
is made: each field's type says how the field is written, and the class's payload is its
fields in order.  Nothing is looked up by name on the wire and nothing the wire holds
decides what code runs: a payload is read only as the layout of the class its frame's
kind declared, into numbers, strings and the declared classes themselves.

======================  ==============================================================
field type              bytes (big-endian)
======================  ==============================================================
``bool``                1: 0 or 1
``int``                 8: signed two's complement
``float``               8: IEEE 754 double
an ``enum.Enum``        2: the member's index in the class's definition order
``str``                 4 (length n) + n: UTF-8
``bytes``               4 (length n) + n
``X | None``            1 (0: ``None``, 1: a value) + X if there is one
``tuple[X, ...]``       4 (count n) + n × X
``frozenset[X]``        4 (count n) + n × X, in ascending order (each item once)
``tuple[X, Y, …]``      X, then Y, …
``dict[K, V]``          4 (count n) + n × (K, V)
a dataclass or a        its fields in order, each as its type says
``NamedTuple``
======================  ==============================================================

Runs of fixed-size fields (numbers, bools, enums, and records of those) are packed with
one :class:`struct.Struct`; a class made only of them — every message of the notes'
elections and the failure detector — is a single ``pack``/``unpack``.  The function that
builds such a run's values from its numbers is generated once from the field types, as
:mod:`dataclasses` generates ``__init__``: its source holds indices into the unpacked
numbers and generated names for the classes and enum members it builds, nothing taken
from the class's own names, and it is a handful of calls per message.  Any other type
(``Any``, ``list``, a class with no annotated fields …) cannot be laid out:
:func:`layout` raises :class:`Unencodable` naming the class, the field and its type.
"""

from __future__ import annotations

import dataclasses
import enum
import struct
import types
import typing
from collections.abc import Callable
from operator import attrgetter
from typing import Any, NamedTuple

from ._errors import Unencodable

__all__ = ["Layout", "layout"]

_COUNT = struct.Struct("!I")
_FLAG = struct.Struct("!?")
#: Fixed-size scalars: type → struct code.
_SCALARS: dict[type, str] = {bool: "?", int: "q", float: "d"}
#: An enum's member index.
_ENUM = "H"


class Layout(NamedTuple):
    """How one class goes on the wire: ``pack(message) → bytes`` and
    ``unpack(payload) → message`` (which raises ``ValueError``, ``struct.error``,
    ``IndexError`` or ``UnicodeDecodeError`` on a payload that is not one of them);
    ``shape`` says it in words (``"candidate: (float, int)"``), for the docs and for
    a table's fingerprint."""

    cls: type
    pack: Callable[[Any], bytes]
    unpack: Callable[[Any], Any]
    shape: str


#: Every layout made so far, by class: a class's layout never changes.
_LAYOUTS: dict[type, Layout] = {}


def layout(cls: type) -> Layout:
    """The layout of message class ``cls`` (:class:`Unencodable` if it has none); made
    once per class."""
    known = _LAYOUTS.get(cls)
    if known is None:
        known = _LAYOUTS[cls] = _layout(cls)
    return known


def _layout(cls: type) -> Layout:
    record = _record(cls, cls.__qualname__, ())
    if record.fmt is not None:
        return _fixed_layout(cls, record)
    write, read = record.write, record.read

    def pack(message: Any) -> bytes:
        out = bytearray()
        write(message, out)
        return bytes(out)

    def unpack(payload: Any) -> Any:
        view = memoryview(payload)
        message, end = read(view, 0)
        if end != len(view):
            raise ValueError(f"{len(view) - end} bytes after the message")
        return message

    return Layout(cls, pack, unpack, record.shape)


def _fixed_layout(cls: type, record: _Part) -> Layout:
    """A class of fixed-size fields only: one ``Struct`` for the whole payload."""
    assert record.fmt is not None and record.flat is not None and record.expr is not None
    packer = struct.Struct("!" + record.fmt)
    flat, build, pack_values = record.flat, _compile(record.expr), packer.pack
    paths = record.paths
    if paths is not None and len(paths) > 1:  # numbers and bools: one attrgetter
        get = attrgetter(*paths)

        def pack(message: Any) -> bytes:
            return pack_values(*get(message))

    elif paths is not None and len(paths) == 1:
        get_one = attrgetter(paths[0])

        def pack(message: Any) -> bytes:
            return pack_values(get_one(message))

    elif paths == ():

        def pack(message: Any) -> bytes:
            return b""

    else:

        def pack(message: Any) -> bytes:
            return pack_values(*flat(message))

    unpack_values = packer.unpack

    def unpack(payload: Any) -> Any:
        return build(unpack_values(payload))

    return Layout(cls, pack, unpack, record.shape)


class _Source:
    """The source of a generated builder: ``v[0]``, ``v[1]`` … for the numbers in turn,
    and a generated name (``_0``, ``_1`` …) for each class or enum table it uses."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {}
        self._numbers = 0

    def number(self) -> str:
        index, self._numbers = self._numbers, self._numbers + 1
        return f"v[{index}]"

    def name(self, obj: Any) -> str:
        name = f"_{len(self.namespace)}"
        self.namespace[name] = obj
        return name


def _compile(expression: Callable[[_Source], str]) -> Callable[[tuple[Any, ...]], Any]:
    """``v → value``: the function that builds a fixed part from its unpacked numbers."""
    source = _Source()
    body = expression(source)
    exec(f"def build(v):\n    return {body}\n", source.namespace)  # noqa: S102 -- see above
    build: Callable[[tuple[Any, ...]], Any] = source.namespace["build"]
    return build


# -- the parts a layout is made of ------------------------------------------------------------


class _Part(NamedTuple):
    """One type's encoding.  Fixed-size parts have ``fmt`` (struct codes), ``flat``
    (value → its numbers, in order) and ``expr`` (the source of the expression that
    builds the value from its numbers); every part has ``write`` (value, buffer) and
    ``read`` (view, offset → value, offset).
    ``paths``: for a record of plain numbers and bools (and records of them), the dotted
    attribute path of each number, so that one ``attrgetter`` flattens it."""

    shape: str
    write: Callable[[Any, bytearray], None]
    read: Callable[[memoryview, int], tuple[Any, int]]
    fmt: str | None = None
    flat: Callable[[Any], tuple[Any, ...]] | None = None
    expr: Callable[[_Source], str] | None = None
    paths: tuple[str, ...] | None = None
    min_size: int = 0


def _part(hint: Any, where: str, seen: tuple[type, ...]) -> _Part:
    origin = typing.get_origin(hint)
    if origin is not None:
        return _generic(hint, origin, where, seen)
    if not isinstance(hint, type):
        raise Unencodable(f"{where}: {hint} has no layout")
    if issubclass(hint, enum.Enum):
        return _enum(hint)
    if hint in _SCALARS:
        return _scalar(hint)
    if hint is str:
        return _text()
    if hint is bytes:
        return _bytes()
    if dataclasses.is_dataclass(hint) or _is_named_tuple(hint):
        return _record(hint, where, seen)
    raise Unencodable(f"{where}: {hint.__qualname__} has no layout")


def _generic(hint: Any, origin: Any, where: str, seen: tuple[type, ...]) -> _Part:
    """``X | None``, ``tuple[...]``, ``frozenset[X]`` and ``dict[K, V]``."""
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1 and len(args) == 2:
            return _optional(_part(options[0], where, seen))
        raise Unencodable(f"{where}: {hint} is a union of several types")
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence(_part(args[0], where, seen))
        if not args or () in args:
            raise Unencodable(f"{where}: {hint} says nothing of its items")
        return _tuple([_part(a, where, seen) for a in args])
    if origin is frozenset and len(args) == 1:
        return _set(_part(args[0], where, seen))
    if origin is dict and len(args) == 2:
        return _mapping(_part(args[0], where, seen), _part(args[1], where, seen))
    raise Unencodable(f"{where}: {hint} has no layout")


def _is_named_tuple(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def _fields(cls: type, where: str) -> list[tuple[str, Any]]:
    """The annotated fields of a dataclass or ``NamedTuple``, in order, with their types."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception as exc:  # noqa: BLE001 -- a name the annotations use is not importable
        raise Unencodable(f"{where}: its field types cannot be resolved ({exc})") from None
    if dataclasses.is_dataclass(cls):
        fields = [f.name for f in dataclasses.fields(cls)]
        if any(not f.init or f.kw_only for f in dataclasses.fields(cls)):
            raise Unencodable(f"{where}: only positional fields can be rebuilt")
    elif _is_named_tuple(cls):
        fields = list(cls._fields)  # type: ignore[attr-defined]
    else:
        raise Unencodable(f"{where}: {cls.__qualname__} is neither a dataclass nor a NamedTuple")
    missing = [name for name in fields if name not in hints]
    if missing:
        raise Unencodable(f"{where}: field {missing[0]} has no type")
    return [(name, hints[name]) for name in fields]


def _record(cls: type, where: str, seen: tuple[type, ...]) -> _Part:
    """A dataclass or ``NamedTuple``: its fields in order."""
    if cls in seen:
        raise Unencodable(f"{where}: {cls.__qualname__} contains itself")
    fields = [
        (name, _part(hint, f"{cls.__qualname__}.{name}", (*seen, cls)))
        for name, hint in _fields(cls, where)
    ]
    shape = f"{cls.__name__}(" + ", ".join(f"{name}: {p.shape}" for name, p in fields) + ")"
    make = cls._make if _is_named_tuple(cls) else (lambda values: cls(*values))  # type: ignore[attr-defined]
    parts = [p for _, p in fields]
    if all(p.fmt is not None for p in parts):
        return _fixed_record(cls, shape, fields)
    runs = _runs(fields)

    def write(value: Any, out: bytearray) -> None:
        for run in runs:
            run.write(value, out)

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        values: list[Any] = []
        for run in runs:
            at = run.read_into(view, at, values)
        return make(values), at

    return _Part(shape, write, read, min_size=sum(p.min_size for p in parts))


class _Run(NamedTuple):
    """Consecutive fields of a record, written together: fixed ones with one struct."""

    write: Callable[[Any, bytearray], None]
    read_into: Callable[[memoryview, int, list[Any]], int]


def _runs(fields: list[tuple[str, _Part]]) -> list[_Run]:
    runs: list[_Run] = []
    fixed: list[tuple[str, _Part]] = []

    def close_fixed() -> None:
        if fixed:
            runs.append(_fixed_run(list(fixed)))
            fixed.clear()

    for name, part in fields:
        if part.fmt is not None:
            fixed.append((name, part))
            continue
        close_fixed()
        runs.append(_variable_run(name, part))
    close_fixed()
    return runs


def _fixed_run(fields: list[tuple[str, _Part]]) -> _Run:
    packer = struct.Struct("!" + "".join(p.fmt or "" for _, p in fields))
    getters = [(attrgetter(name), p.flat) for name, p in fields]
    build = _compile(lambda src: "(" + "".join(f"{_expr(p)(src)}, " for _, p in fields) + ")")

    def write(value: Any, out: bytearray) -> None:
        numbers: list[Any] = []
        for get, flat in getters:
            assert flat is not None
            numbers += flat(get(value))
        out += packer.pack(*numbers)

    def read_into(view: memoryview, at: int, values: list[Any]) -> int:
        values += build(packer.unpack_from(view, at))
        return at + packer.size

    return _Run(write, read_into)


def _variable_run(name: str, part: _Part) -> _Run:
    get, write_one, read_one = attrgetter(name), part.write, part.read

    def write(value: Any, out: bytearray) -> None:
        write_one(get(value), out)

    def read_into(view: memoryview, at: int, values: list[Any]) -> int:
        value, at = read_one(view, at)
        values.append(value)
        return at

    return _Run(write, read_into)


def _expr(part: _Part) -> Callable[[_Source], str]:
    assert part.expr is not None
    return part.expr


def _fixed_record(cls: type, shape: str, fields: list[tuple[str, _Part]]) -> _Part:
    """A record of fixed-size fields: fixed itself."""
    fmt = "".join(p.fmt or "" for _, p in fields)
    getters = [(attrgetter(name), p.flat) for name, p in fields]
    paths: tuple[str, ...] | None = ()
    for name, p in fields:
        if paths is None or p.paths is None:
            paths = None
        else:
            paths += tuple(f"{name}.{sub}" if sub else name for sub in p.paths)

    def flat(value: Any) -> tuple[Any, ...]:
        numbers: list[Any] = []
        for get, flat_one in getters:
            assert flat_one is not None
            numbers += flat_one(get(value))
        return tuple(numbers)

    def expr(src: _Source) -> str:
        return f"{src.name(cls)}(" + ", ".join(_expr(p)(src) for _, p in fields) + ")"

    size = struct.calcsize("!" + fmt)
    packer = struct.Struct("!" + fmt)
    build = _compile(expr)

    def write(value: Any, out: bytearray) -> None:
        out += packer.pack(*flat(value))

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        return build(packer.unpack_from(view, at)), at + size

    return _Part(shape, write, read, fmt, flat, expr, paths, size)


# -- scalars ----------------------------------------------------------------------------------


def _scalar(cls: type) -> _Part:
    code = _SCALARS[cls]
    packer = struct.Struct("!" + code)

    def write(value: Any, out: bytearray) -> None:
        out += packer.pack(value)

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        return packer.unpack_from(view, at)[0], at + packer.size

    return _Part(cls.__name__, write, read, code, _one, _Source.number, ("",), packer.size)


def _one(value: Any) -> tuple[Any, ...]:
    return (value,)


def _enum(cls: type[enum.Enum]) -> _Part:
    members = list(cls)
    if len(members) > 0xFFFF:
        raise Unencodable(f"{cls.__qualname__} has more than 65,535 members")
    index = {member: i for i, member in enumerate(members)}
    packer = struct.Struct("!" + _ENUM)

    def flat(value: Any) -> tuple[Any, ...]:
        return (index[value],)

    def expr(src: _Source) -> str:
        return f"{src.name(members)}[{src.number()}]"

    def write(value: Any, out: bytearray) -> None:
        out += packer.pack(index[value])

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        return members[packer.unpack_from(view, at)[0]], at + packer.size

    return _Part(cls.__name__, write, read, _ENUM, flat, expr, None, packer.size)


def _length(view: memoryview, at: int, item_size: int) -> tuple[int, int]:
    """A count (or byte length) and where its items begin; refused if they cannot fit."""
    (count,) = _COUNT.unpack_from(view, at)
    at += _COUNT.size
    if count * max(item_size, 1) > len(view) - at:
        raise ValueError(f"{count} items cannot fit in {len(view) - at} bytes")
    return count, at


def _text() -> _Part:
    def write(value: str, out: bytearray) -> None:
        data = value.encode()
        out += _COUNT.pack(len(data))
        out += data

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        size, at = _length(view, at, 1)
        return str(view[at : at + size], "utf-8"), at + size

    return _Part("str", write, read, min_size=_COUNT.size)


def _bytes() -> _Part:
    def write(value: bytes, out: bytearray) -> None:
        out += _COUNT.pack(len(value))
        out += value

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        size, at = _length(view, at, 1)
        return bytes(view[at : at + size]), at + size

    return _Part("bytes", write, read, min_size=_COUNT.size)


# -- containers -------------------------------------------------------------------------------


def _optional(inner: _Part) -> _Part:
    write_inner, read_inner = inner.write, inner.read

    def write(value: Any, out: bytearray) -> None:
        if value is None:
            out += b"\0"
        else:
            out += b"\1"
            write_inner(value, out)

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        (present,) = _FLAG.unpack_from(view, at)
        if not present:
            return None, at + 1
        return read_inner(view, at + 1)

    return _Part(f"{inner.shape} | None", write, read, min_size=1)


def _sequence(item: _Part) -> _Part:
    write_item, read_item, size = item.write, item.read, item.min_size

    def write(value: Any, out: bytearray) -> None:
        out += _COUNT.pack(len(value))
        for one in value:
            write_item(one, out)

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        count, at = _length(view, at, size)
        items = []
        for _ in range(count):
            one, at = read_item(view, at)
            items.append(one)
        return tuple(items), at

    return _Part(f"tuple[{item.shape}, ...]", write, read, min_size=_COUNT.size)


def _set(item: _Part) -> _Part:
    """A frozenset: its items in ascending order, so that one set has one payload; a
    payload that names an item twice, or out of order, is not that layout."""
    write_item, read_item, size = item.write, item.read, item.min_size

    def write(value: Any, out: bytearray) -> None:
        out += _COUNT.pack(len(value))
        for one in sorted(value):
            write_item(one, out)

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        count, at = _length(view, at, size)
        items: list[Any] = []
        for _ in range(count):
            one, at = read_item(view, at)
            if items and not items[-1] < one:
                raise ValueError("a set's items must come once each, in ascending order")
            items.append(one)
        return frozenset(items), at

    return _Part(f"frozenset[{item.shape}]", write, read, min_size=_COUNT.size)


def _tuple(items: list[_Part]) -> _Part:
    shape = "tuple[" + ", ".join(p.shape for p in items) + "]"

    def write(value: Any, out: bytearray) -> None:
        if len(value) != len(items):
            raise ValueError(f"{shape} needs {len(items)} items, not {len(value)}")
        for part, one in zip(items, value, strict=True):
            part.write(one, out)

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        values = []
        for part in items:
            one, at = part.read(view, at)
            values.append(one)
        return tuple(values), at

    return _Part(shape, write, read, min_size=sum(p.min_size for p in items))


def _mapping(key: _Part, value: _Part) -> _Part:
    size = key.min_size + value.min_size

    def write(mapping: Any, out: bytearray) -> None:
        out += _COUNT.pack(len(mapping))
        for k, v in mapping.items():
            key.write(k, out)
            value.write(v, out)

    def read(view: memoryview, at: int) -> tuple[Any, int]:
        count, at = _length(view, at, size)
        result = {}
        for _ in range(count):
            k, at = key.read(view, at)
            result[k], at = value.read(view, at)
        return result, at

    return _Part(f"dict[{key.shape}, {value.shape}]", write, read, min_size=_COUNT.size)
