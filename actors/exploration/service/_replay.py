"""A path through a service's states, run again with fresh members, as a trace.

The search and the walks keep numbers; a counterexample is worth reading.
:func:`service_records` runs a path's events again on new
:class:`~ringleader.actors.Member` objects (deterministic: the run is the one the search
saw), each given the true time (a tick a step of time), and records every event as a
host would (``ringleader.actors.tracing``): sends, receives, timers, changes of state,
suspicions, crashes and restarts, what the network did — a frame lost (a send
marked ``lost``, with why), delivered twice, a split and its healing, a pause — and the
members changing: an operator's request (``change``: whom it asked to add or remove
which node, and the answer, the new configuration or why not) and each node's
``configuration`` and ``removed``, as ``ringleader node`` says them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ringleader.actors.core import Action, Notice, Persist, Send, StateChanged
from ringleader.actors.crashes import Configuration, Member, Remove
from ringleader.actors.tracing import Record

from ._model import ServiceModel

__all__ = ["service_records"]


class _Run:
    def __init__(self, model: ServiceModel) -> None:
        self.model = model
        n = model.n
        self.members: list[Member | None] = [None] * n
        #: What each node's state file keeps: (epoch, acknowledged, configuration).
        self.kept: list[tuple[int, tuple[int, int | None] | None, Configuration | None]] = [
            (0, None, None)
        ] * n
        self.links: list[list[tuple[Any, int, int]]] = [[] for _ in model.links]
        self.records: list[Record] = []
        self.order = itertools.count()
        self.keys = itertools.count(1)
        self.sends: dict[int, int] = {}  # message key → its send's place in records
        self.cut: frozenset[tuple[int, int]] = frozenset()
        self.cause: tuple[Any, ...] = ()  # the split or cut under way
        self.now = 0.0
        self.ticks = 0
        #: When a record is stamped: ``None``, at the true time; else at this instant
        #: (the step's place in the path, for a page that draws one column a step).
        self.stamp: float | None = None

    def record(self, i: int, event: str, *details: object) -> None:
        node = self.model.ids[i]
        at = self.now if self.stamp is None else self.stamp
        self.records.append((round(at, 9), next(self.order), node, event, *details))

    def start(self, i: int) -> None:
        member = self.model.nodes[i].make(*self.kept[i])
        self.members[i] = member
        self.act(i, member.handle_boot(now=self.now))

    def act(self, i: int, actions: list[Action], told: str | None = None) -> None:
        """Record what node ``i``'s ``actions`` show and carry them out; ``told``: the
        configuration the event's own record gave already."""
        model = self.model
        unseen: StateChanged | None = None  # recorded after a suspicion, before a send
        for action in actions:
            if unseen is not None and type(action) is not Notice:
                self._state(i, unseen)
                unseen = None
            if type(action) is Send:
                self.send(i, model.index[action.to], action)
            elif type(action) is StateChanged:
                unseen = action
            elif type(action) is Notice and action.kind == "suspect" and action.node is not None:
                self.record(i, "suspect", action.node, action.epoch)
            elif type(action) is Notice and action.kind in ("configuration", "removed"):
                if action.detail != told:  # (the change's own record says it already)
                    self.record(i, action.kind, action.detail, action.epoch)
            elif type(action) is Persist:
                configuration = action.configuration
                assert configuration is None or isinstance(configuration, Configuration)
                if configuration is None:
                    configuration = self.kept[i][2]
                self.kept[i] = (action.epoch, action.acknowledged, configuration)
        if unseen is not None:
            self._state(i, unseen)

    def _state(self, i: int, change: StateChanged) -> None:
        member = self.members[i]
        variables = member.election.variables() if member is not None else {}
        state, elected, epoch = str(change.state), change.elected, change.epoch
        self.record(i, "state", state, elected, epoch, variables)

    def send(self, i: int, to: int, action: Send) -> None:
        model = self.model
        key = next(self.keys)
        link = model.link_of[i][to]
        why = None
        if self.members[to] is None:
            why = f"P{model.ids[to]} is down"
        elif (i, to) in self.cut or (to, i) in self.cut:
            why = "the network is cut between them"
        elif (capacity := model.options.capacity) is not None and len(self.links[link]) >= capacity:
            why = "the link is full"
        details: tuple[object, ...] = (model.ids[to], action.message, action.epoch, key)
        if why is not None:
            self.record(i, "send", *details, "lost", why)
            return
        self.sends[key] = len(self.records)
        self.record(i, "send", *details)
        self.links[link].append((action.message, action.epoch, key))

    def lost(self, key: int, why: str) -> None:
        place = self.sends.pop(key, None)
        if place is not None:
            self.records[place] = (*self.records[place], "lost", why)

    def drop(self, links: Sequence[int], why: str) -> None:
        for k in links:
            for _, _, key in self.links[k]:
                self.lost(key, why)
            self.links[k].clear()

    def ask(self, i: int, k: int) -> None:
        """An operator asks node ``i`` for the model's change ``k``: a ``change`` record
        (what, of which node, and the answer: the new configuration, or why not), then
        what it made happen."""
        member = self.members[i]
        assert member is not None
        change = self.model.menu[k]
        refused, actions = member.request(change, now=self.now)
        what = "remove" if isinstance(change, Remove) else "add"
        configuration = member.configuration
        told = None if refused is not None or configuration is None else configuration.describe()
        membership = member.membership
        if told is not None and membership is not None and membership.queued == change:
            # (Rule 5: the change is made once the re-issue is committed; the leader's
            # own configuration event says so then.)
            told += " (re-issued in its round first: the change follows once a majority holds it)"
        self.record(i, "change", what, change.node, refused, told, member.epoch)
        self.act(i, actions, told)

    def _groups(self, event: tuple[Any, ...]) -> list[list[int]]:
        """What a split or cut separates, as the trace says it: two sides (a cut link:
        its two ends)."""
        model = self.model
        if event[0] == "split":
            side = model.splits[event[1]]
            return [
                sorted(model.ids[i] for i in range(model.n) if i in side),
                sorted(model.ids[i] for i in range(model.n) if i not in side),
            ]
        ((a, b),) = model.cuts[event[1]]
        return [[model.ids[a]], [model.ids[b]]]

    def do(self, event: tuple[Any, ...]) -> None:
        model = self.model
        what = event[0]
        if what in ("deliver", "duplicate"):
            k = event[1]
            frm, to = model.links[k]
            message, epoch, key = self.links[k][0] if what == "duplicate" else self.links[k].pop(0)
            member = self.members[to]
            assert member is not None
            extra = ("duplicate",) if what == "duplicate" else ()
            self.record(to, "receive", model.ids[frm], message, epoch, key, *extra)
            self.act(to, member.handle_message(model.ids[frm], message, epoch, now=self.now))
        elif what == "lose":
            self.lost(self.links[event[1]].pop(0)[2], "lost by the network")
        elif what == "timer":
            _, i, name = event
            member = self.members[i]
            assert member is not None
            self.record(i, "timer", name)
            self.act(i, member.handle_timer(name, now=self.now))
        elif what == "dead":
            _, i, peer = event
            member = self.members[i]
            assert member is not None
            self.act(i, member.peer_dead(model.ids[peer], now=self.now))
        elif what == "change":
            self.ask(event[1], event[2])
        elif what == "tick":
            self.ticks += 1
            self.now = self.ticks * model.timing.tick
        elif what == "crash":
            i = event[1]
            self.members[i] = None
            self.record(i, "crash")
            self.drop(model.incoming[i], f"P{model.ids[i]} crashed before it arrived")
        elif what in ("restart", "wipe"):
            i = event[1]
            if what == "wipe":
                self.kept[i] = (0, None, None)
            self.drop(model.outgoing[i], f"P{model.ids[i]} restarted: a frame of its last life")
            self.record(i, "restart")
            self.start(i)
        elif what in ("split", "cut"):
            self.cut = model.cuts[event[1]]
            self.cause = event
            self.record(0, "partition", self._groups(event))
        elif what == "heal":
            self.record(0, "heal", self._groups(self.cause))
            self.cut = frozenset()
        else:  # pause, resume
            self.record(event[1], what)


def service_records(
    model: ServiceModel, events: Sequence[int], *, step: float | None = None
) -> list[Record]:
    """The run of ``events`` (numbers of ``model.events``, from every node's start) as
    trace records, each at the true time it happened; with ``step``, event k's records at
    ``k × step`` instead (as the notes' :func:`~ringleader.actors.exploration.records`
    stamps them: one step, one instant; the members are still given the true time)."""
    run = _Run(model)
    if step is not None:
        run.stamp = 0.0
    for i in range(model.n):  # as the model starts them: every node up, then the frames
        run.members[i] = model.nodes[i].make(*run.kept[i])
    for i in range(model.n):
        member = run.members[i]
        assert member is not None
        run.act(i, member.handle_boot(now=0.0))
    for k, number in enumerate(events, 1):
        if step is not None:
            run.stamp = k * step
        run.do(model.events[number])
    return run.records
