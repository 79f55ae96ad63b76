"""How a node runs beyond its config and id — :class:`NodeOptions`, checked once, when
made, whoever makes them: :class:`~ringleader.Node`'s keywords, ``ringleader node``'s
flags, a supervisor's request.

A rule broken is an :class:`OptionError` naming the options involved; its message can be
spelled the way the one who gave them wrote them (``fresh_state`` for Python,
``--fresh-state`` on the command line).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ringleader.errors import UsageError

__all__ = ["NodeOptions", "OptionError", "check_node_id", "flag", "keyword", "parse_address"]


class OptionError(TypeError):
    """Options of the wrong kind, or that do not go together.  ``template`` names each
    option as ``{name}``; ``str()`` spells them as Python keywords."""

    def __init__(self, template: str, **values: object) -> None:
        self.template = template
        self.values = values
        super().__init__(self.spelled(keyword))

    def spelled(self, spell: Callable[[str], str]) -> str:
        """The message with each option named by ``spell(name)``."""
        names = {name: spell(name) for name in _NAMES}
        return self.template.format(**names, **{f"{k}_value": v for k, v in self.values.items()})


def keyword(name: str) -> str:
    """An option's name as :class:`~ringleader.Node` spells it: a supervised node is
    one given its ``incarnation``."""
    return "incarnation" if name == "supervised" else name


def flag(name: str) -> str:
    """An option's name as ``ringleader node`` spells it: ``fresh_state`` →
    ``--fresh-state``; a supervised node's life (``incarnation``) is ``--supervised``'s."""
    return "--supervised" if name == "supervised" else "--" + name.replace("_", "-")


_NAMES = ("node_id", "metrics", "fresh", "fresh_state", "incarnation", "supervised")


def parse_address(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` → ``(host, port)``; port 0 picks a free one.  A bad value raises
    :class:`~ringleader.UsageError` saying what is expected."""
    host, colon, port = text.rpartition(":")
    host = host.strip("[]")  # [::1]:9100
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise UsageError(
            f"--metrics {text!r}: expected HOST:PORT, e.g. 127.0.0.1:9100 (port 0: any free one)"
        )
    return host, int(port)


@dataclass(frozen=True, slots=True)
class NodeOptions:
    """What :class:`~ringleader.Node` documents for each: ``metrics`` (``"HOST:PORT"``,
    kept parsed as :attr:`metrics_at`), ``secret``, ``fresh``, ``addresses``,
    ``fresh_state``, ``incarnation`` (a supervised node's life), ``steady``."""

    metrics: str | None = None
    secret: bytes | None = None
    fresh: bool = False
    addresses: Mapping[int, str] | None = None
    fresh_state: bool = False
    incarnation: int | None = None
    steady: bool = True
    metrics_at: tuple[str, int] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        incarnation = self.incarnation
        if incarnation is not None and (
            isinstance(incarnation, bool) or not isinstance(incarnation, int) or incarnation < 1
        ):
            raise OptionError(
                "{incarnation} must be an int from 1 (lives are numbered from 1), "
                "not {incarnation_value!r}",
                incarnation=incarnation,
            )
        if self.fresh and incarnation is None:
            raise OptionError(
                "{fresh} is for a supervisor's run, which numbers its nodes' lives: "
                "give {supervised} too"
            )
        if self.fresh_state and incarnation is not None:
            raise OptionError(
                "{fresh_state} starts a node's state over; a supervised node keeps none"
            )
        if self.metrics is not None:
            if not isinstance(self.metrics, str):
                raise OptionError(
                    '{metrics} must be a str "HOST:PORT" (e.g. "127.0.0.1:9100"), '
                    "not {metrics_value!r}",
                    metrics=self.metrics,
                )
            object.__setattr__(self, "metrics_at", parse_address(self.metrics))

    @property
    def supervised(self) -> bool:
        """Whether a supervisor runs the node (it numbers its lives; the node keeps no
        state and follows the notes' rules for ``ringleader run``)."""
        return self.incarnation is not None


def check_node_id(node_id: object) -> None:
    """A node id given as something else than an int: an :class:`OptionError`."""
    if isinstance(node_id, bool) or not isinstance(node_id, int):
        raise OptionError(
            "{node_id} must be an int, one of the config's ids, not {node_id_value!r}",
            node_id=node_id,
        )
