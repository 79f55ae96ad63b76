"""A griffe extension: the docstrings' Sphinx roles become mkdocstrings cross-references.

The code base writes cross-references as Sphinx does (``:class:`~ringleader.actors.Member```,
``:meth:`stop```, ``:mod:`ringleader.transport```): readable in the source and in
``help()``.  When the docs are built, each role is resolved as Python would resolve the
name in the docstring's scope (the module's imports, the class, the package) and
rewritten as an autorefs link, ``[`Member`][ringleader.actors.Member]``.  A name that does
not resolve is a warning, and a resolved name the site does not document is autorefs'
"could not find cross-reference target" warning: either fails ``mkdocs build --strict``.

Names outside ringleader (``pickle.loads``, ``ValueError``) are shown as code without a
link: the site is built without network access, so there are no inventories to link to.
Also: a reST literal-block marker (``text::`` at the end of a line) becomes ``text:``, so
the indented block after it is a Markdown code block.
"""

from __future__ import annotations

import builtins
import logging
import re
from typing import Any

import griffe

_logger = logging.getLogger("mkdocs.plugins.ringleader.crossrefs")

_ROLE = re.compile(r":(?:py:)?(class|meth|func|mod|attr|data|exc|obj|const):`(~?)([^`]+)`")
_LITERAL = re.compile(r"(\S)::[ \t]*$", re.MULTILINE)
_OURS = "ringleader"
#: Roles whose target is called: shown with parentheses, as Sphinx does.
_CALLED = {"meth", "func"}


class SphinxRoles(griffe.Extension):
    """Rewrite every docstring of the package once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.path != _OURS:
            return
        seen: set[str] = set()
        for obj in _walk(pkg, seen):
            if obj.docstring is not None:
                obj.docstring.value = convert(obj, obj.docstring.value)


def _walk(obj: griffe.Object, seen: set[str]) -> Any:
    if obj.path in seen:
        return
    seen.add(obj.path)
    yield obj
    for member in obj.members.values():
        if member.is_alias:
            continue
        yield from _walk(member, seen)  # type: ignore[arg-type]


def convert(obj: griffe.Object, text: str) -> str:
    """``text`` (a docstring of ``obj``) with its roles as links and its ``::`` as ``:``."""

    def link(match: re.Match[str]) -> str:
        role, short, name = match.groups()
        target = resolve(obj, name.strip())
        shown = name.rsplit(".", 1)[-1] if short else name.lstrip(".")
        if role in _CALLED:
            shown += "()"
        if target is None:
            return f"`{shown}`"
        return f"[`{shown}`][{target}]"

    return _LITERAL.sub(r"\1:", _ROLE.sub(link, text))


def resolve(obj: griffe.Object, name: str) -> str | None:
    """The full path of ``name`` as seen from ``obj``, or None for a name outside ringleader.

    A name inside ringleader that leads nowhere is logged as a warning (and so fails a
    strict build), wherever its docstring is: rendered on the site or not.
    """
    target = _lookup(obj, name)
    if target is None:
        return None
    try:
        obj.modules_collection[target]
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        _logger.warning("%s: a Sphinx role names %r, which does not exist", obj.path, name)
    return target


def _lookup(obj: griffe.Object, name: str) -> str | None:
    if name.startswith("."):  # relative to the docstring's package: ._protocol
        package = obj.module if obj.module.is_package else obj.module.parent
        assert package is not None
        return f"{package.path}{name}"
    if name.split(".", 1)[0] == _OURS:
        return name
    head, _, rest = name.partition(".")
    scope: griffe.Object | None = obj
    while scope is not None:
        found = _in_scope(scope, head)
        if found is None:
            scope = scope.parent
            continue
        if found.split(".", 1)[0] != _OURS:
            return None
        return f"{found}.{rest}" if rest else found
    if hasattr(builtins, head) or head in _OUTSIDE:
        return None
    _logger.warning("%s: a Sphinx role names %r, which is not in scope", obj.path, name)
    return None


def _in_scope(scope: griffe.Object, head: str) -> str | None:
    """What ``head`` is in ``scope``: its own names, its imports, a class's inherited members."""
    try:
        return scope.resolve(head)
    except griffe.NameResolutionError:
        pass
    if scope.is_class:
        try:
            members = scope.all_members  # inherited too (the bases must be loaded)
        except Exception:  # noqa: BLE001 - a base outside the package: its own names only
            return None
        if head in members:
            return f"{scope.path}.{head}"
    return None


#: Modules of other projects and the standard library named in roles.
_OUTSIDE = {"pickle", "time", "zmq", "hmac", "pykka", "socket", "os", "signal", "json"}
