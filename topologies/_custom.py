"""Your own election: ``algorithm = "module:Class"`` (or ``"file.py:Class"``) in a config.

A student's :class:`~ringleader.actors.Election` subclass runs wherever the notes'
seven do — ``run`` (threads and processes), ``run --simulate``, ``explore`` — with its
own ``bound()``.  :func:`custom_algorithm` imports it: ``module`` as Python would (the
config's own directory is tried too, so a file next to the config needs no
``PYTHONPATH``), or the file ``file.py`` (relative to the config).  Anything wrong — the
module will not import, the class is missing, it is not an ``Election``, it has no
``name`` or ``bound()`` — is an :class:`AlgorithmError` in one line, which the config's
validator turns into a :class:`~ringleader.topologies.ConfigError`.

The spec a config keeps is canonical: a module found only next to the config is kept as
its file's absolute path, so that a node process started elsewhere (``mode =
"processes"``) imports the same file.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from ringleader.actors import Election

__all__ = ["AlgorithmError", "custom_algorithm", "is_custom"]

_LOADED: dict[str, type[Election]] = {}


class AlgorithmError(Exception):
    """A custom algorithm that cannot be used: ``problem``, and ``hint`` for the fix."""

    def __init__(self, problem: str, hint: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.hint = hint


def is_custom(name: str) -> bool:
    """Whether ``name`` names a class of one's own (``module:Class``)."""
    return ":" in name


def custom_algorithm(spec: str, base: Path | None = None) -> tuple[str, type[Election]]:
    """The canonical spec and the class of ``spec``, ``"module:Class"`` or
    ``"path/to/file.py:Class"`` (relative to ``base``, the config's directory)."""
    loaded = _LOADED.get(spec) if base is None else None  # a canonical spec, known
    if loaded is not None:
        return spec, loaded
    where, _, name = spec.rpartition(":")
    example = 'e.g. algorithm = "my_election:MyElection" with my_election.py next to the config'
    if not where or not name.isidentifier():
        raise AlgorithmError(f"{spec!r} is not module:Class", example)
    if where.endswith(".py") or "/" in where:
        path = Path(where).expanduser()
        if not path.is_absolute() and base is not None:
            path = base / path
        module = _from_file(path.resolve())
        canonical = f"{path.resolve()}:{name}"
    else:
        module, found_at = _import(where, base)
        canonical = spec if found_at is None else f"{found_at}:{name}"
    cls = getattr(module, name, None)
    if cls is None:
        raise AlgorithmError(f"{where} has no {name}", f"define class {name}(Election) in it")
    _check(cls, spec)
    _LOADED[canonical] = cls
    return canonical, cls


def _check(cls: object, spec: str) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Election)):
        raise AlgorithmError(
            f"{spec} is not an Election class",
            "subclass ringleader.actors.Election (see docs/your-algorithm.md)",
        )
    if not isinstance(getattr(cls, "name", None), str):
        raise AlgorithmError(f"{spec} has no name", 'give the class a name = "my_election"')
    if not getattr(cls, "messages", None):
        raise AlgorithmError(
            f"{spec} has no messages", "list its message classes: messages = (MyMessage,)"
        )
    if cls.bound.__func__ is Election.bound.__func__:  # type: ignore[attr-defined]
        raise AlgorithmError(
            f"{spec} has no bound()",
            "write bound(cls, graph, initiators) returning Bound(formula, value, exact)",
        )


def _import(module: str, base: Path | None) -> tuple[object, Path | None]:
    """Import ``module``: first as a file next to the config (``base``; then its file is
    returned too), else as Python would, else as a package next to the config."""
    top = module.split(".", maxsplit=1)[0]
    file = None if base is None else (base / f"{top}.py").resolve()
    if "." not in module and file is not None and file.is_file():
        return _from_file(file), file
    try:
        return importlib.import_module(module), None
    except ModuleNotFoundError as exc:
        if exc.name != top:
            raise _failed(module, exc) from None
    except Exception as exc:  # noqa: BLE001 -- the student's module failed: say how
        raise _failed(module, exc) from None
    if base is None or not (base / top / "__init__.py").is_file():
        raise AlgorithmError(
            f"cannot import {module} (no {top}.py next to the config, nor on the path)",
            f"put {top}.py next to the config, or add its folder to PYTHONPATH",
        )
    sys.path.insert(0, str(base.resolve()))
    try:
        return importlib.import_module(module), None
    except Exception as exc:  # noqa: BLE001
        raise _failed(module, exc) from None


def _from_file(path: Path) -> object:
    """The module in the file ``path``, imported under its file's name (so that its
    messages pickle by reference, in this process and in a node process alike)."""
    if not path.is_file():
        raise AlgorithmError(f"{path} is not a file", "give the path of a .py file")
    name = path.stem
    known = sys.modules.get(name)
    if known is not None and getattr(known, "__file__", None) == str(path):
        return known
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AlgorithmError(f"cannot import {path}", "give the path of a .py file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(path.parent)
    if folder not in sys.path:  # its neighbours import as it does: from hasty import Bid
        sys.path.append(folder)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001
        del sys.modules[name]
        raise _failed(str(path), exc) from None
    return module


def _failed(module: str, exc: BaseException) -> AlgorithmError:
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    where = ""
    if isinstance(exc, SyntaxError) and exc.filename:
        detail = exc.msg
        where = f" ({Path(exc.filename).name}, line {exc.lineno})"
    else:
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            where = f" ({Path(tb.tb_frame.f_code.co_filename).name}, line {tb.tb_lineno})"
    return AlgorithmError(
        f"cannot import {module}: {type(exc).__name__}: {detail}{where}",
        "fix the module (python -c 'import it' shows the whole traceback)",
    )
