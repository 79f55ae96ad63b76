"""A model's tables, sealed: steps that would number something new are set aside.

A state is a tuple of small numbers, each an entry of a table the model fills as it
meets new node states, link contents, clocks, messages and events (``_nodes.py``,
``_channels.py``, ``_clocks.py``).  Workers that share a search (``_parts.py``) must
number alike, or one state would be two tuples in two workers.  One search fills its
tables in the order it expands states (their numbers); so do the workers, if the steps
that add an entry are taken in that order by every worker:

- while a level is expanded, the tables are *sealed* (:func:`seal`): a step that would
  add an entry raises :class:`Sealed` before anything is added, and its state is set
  aside — a state that needs nothing new is expanded as one search expands it, since
  the tables only grow;
- then every worker expands every state set aside by any worker, in number order,
  tables open, and so adds the same entries under the same numbers.

Only states that meet something never seen before are set aside: many in the first
levels, a few in a thousand after them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._model import Model

__all__ = ["Sealed", "seal"]


class Sealed(Exception):
    """A sealed table was asked to take a new entry."""


class _Switch:
    on = False


class _Table(dict[Any, int]):
    """A table of numbers that refuses new entries while its switch is on."""

    def __init__(self, entries: dict[Any, int], switch: _Switch) -> None:
        super().__init__(entries)
        self.switch = switch

    def __setitem__(self, key: Any, value: int) -> None:
        if self.switch.on:
            raise Sealed
        super().__setitem__(key, value)


def seal(model: Model) -> Callable[[bool], None]:
    """Make ``model``'s tables sealable; the function returned seals them (``True``) or
    opens them (``False``).  Every table is written as ``number = table[key] = len(…)``
    before the entry's other lists grow, so a refused entry leaves nothing behind; the
    memos of moves are filled only once a move is wholly computed."""
    switch = _Switch()
    model.messages.ids = _Table(model.messages.ids, switch)
    model.channels._ids = _Table(model.channels._ids, switch)
    model.clocks._ids = _Table(model.clocks._ids, switch)
    model._event_ids = _Table(model._event_ids, switch)
    for nodes in model.nodes:
        nodes.ids = _Table(nodes.ids, switch)

    def turn(on: bool) -> None:
        switch.on = on

    return turn
