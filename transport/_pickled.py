"""Payloads by pickle, for the message classes of a cluster that opted in.

Only a cluster whose config says ``pickle_messages = true`` has any: then a message
class that has no compact layout (``_layout.py``: a field of type ``Any``, a ``list``, an
object of its own) goes by pickle, cloudpickle's where the class cannot be named by
reference (a lambda, a class in ``__main__``).  Unpickling runs whatever the pickle
names: a holder of the cluster secret can make every node of such a cluster run code of
its choice (``docs/security.md``).  The frame's signature is checked first, as for
every frame, so nobody else can.
"""

from __future__ import annotations

import io
import pickle
import threading
from typing import Any

import cloudpickle

__all__ = ["Pickled"]

_PROTOCOL = 5

#: The modules the user asked cloudpickle to pickle by value (its own set, changed in
#: place by ``register_pickle_by_value``; a set that stays empty if it ever moves).
_BY_VALUE: set[str] = getattr(cloudpickle.cloudpickle, "_PICKLE_BY_VALUE_MODULES", set())


class _Pickler(cloudpickle.Pickler):  # type: ignore[misc]
    """A ``CloudPickler`` that remembers which classes it pickled by reference.

    For a class, cloudpickle decides on every dump whether it can be pickled by
    reference (importable under its module and name) or must go by value, and that
    look-up costs more than pickling a small message.  The answer does not change for a
    class once it is imported, so it is kept; classes pickled by value are asked anew.
    """

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=_PROTOCOL)
        self._by_reference: set[type] = set()

    def reducer_override(self, obj: Any) -> Any:
        if not isinstance(obj, type):
            return super().reducer_override(obj)
        if obj in self._by_reference:
            return NotImplemented
        reduced = super().reducer_override(obj)
        if reduced is NotImplemented:
            self._by_reference.add(obj)
        return reduced


class Pickled:
    """The payloads of one opted-in message class: :meth:`dumps` and :meth:`loads`."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self._local = threading.local()

    def dumps(self, message: object) -> bytes:
        """``pickle.dumps(message)`` where that is what cloudpickle would write too, else
        ``cloudpickle.dumps(message)``.

        The standard pickler (C, a few µs) writes every class and function by reference,
        as cloudpickle does for those importable from a module other than ``__main__``.
        It fails on what it cannot name (a lambda, a local class), and a reference into
        ``__main__`` would name the wrong thing in the receiving process: those, and any
        module the user registered with ``cloudpickle.register_pickle_by_value``, go to
        cloudpickle, which pickles them by value.
        """
        if not _BY_VALUE:
            try:
                data = pickle.dumps(message, _PROTOCOL)
            except Exception:  # noqa: BLE001 -- whatever it cannot pickle, cloudpickle may
                data = b"__main__"
            if b"__main__" not in data:
                return data
        return self._cloudpickle(message)

    def _cloudpickle(self, message: object) -> bytes:
        """``cloudpickle.dumps(message)``, with one reused pickler per thread.

        Building a ``CloudPickler`` costs more than pickling a small message with it;
        clearing its memo between messages gives the same bytes as a fresh one (a test
        holds it to that).
        """
        local = self._local
        try:
            buffer, pickler = local.buffer, local.pickler
        except AttributeError:
            buffer = local.buffer = io.BytesIO()
            pickler = local.pickler = _Pickler(buffer)
        buffer.seek(0)
        buffer.truncate()
        pickler.clear_memo()
        pickler.dump(message)
        return bytes(buffer.getvalue())

    def loads(self, payload: Any) -> object:
        """Unpickle an authentic payload (the caller checks its class)."""
        return pickle.loads(payload)  # opted in, and authenticated first
