"""A path the search found, run again step by step with fresh members, as a trace.

The search keeps numbers; a counterexample is worth a picture.  :func:`records` runs the
path's events again on new :class:`~ringleader.actors.Member` objects (the elections
are deterministic, so the run is the one the search saw) and records every event as the
simulator does (``ringleader.actors.tracing``): sends, receives, timers, changes of
state, crashes, and what the network did — a message lost (a send marked ``lost``, with
why), delivered twice (a receive marked ``duplicate``), a partition and its healing, a
pause and its end.  Step k happens at ``k × step`` virtual seconds.  The run's states go
through the same :class:`~ringleader.actors.checks.SafetyChecker` as a simulated run's,
so a broken check is in the trace (a ``violation`` event) at the step that broke it, for
``replay`` to tell and ``diagram`` to mark.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ringleader.actors.checks import SafetyChecker
from ringleader.actors.core import Action, Notice, Send, StateChanged
from ringleader.actors.crashes import Member
from ringleader.actors.tracing import Record

from ._model import Model

__all__ = ["records"]


class _Run:
    def __init__(self, model: Model, step: float) -> None:
        self.model = model
        self.step = step
        self.members: list[Member | None] = [nodes.member(nodes.initial) for nodes in model.nodes]
        self.channels: list[list[tuple[Any, int, int, int]]] = [[] for _ in model.links]
        self.records: list[Record] = []
        self.order = itertools.count()
        self.keys = itertools.count(1)
        self.sends: dict[int, int] = {}  # message key → its send's place in records
        self.partitions = [False] * len(model.groups)
        self.now = 0.0
        self.safety = SafetyChecker({view.id: view.candidate for view in model.views})

    def record(self, node: int, event: str, *details: object) -> None:
        self.records.append((self.now, next(self.order), node, event, *details))

    def act(self, i: int, actions: list[Action]) -> None:
        """Record what node ``i`` did (the model holds the timers; the trace shows them
        firing)."""
        model = self.model
        unseen: StateChanged | None = None  # recorded before the first send
        for action in actions:
            if unseen is not None and type(action) is not Notice:
                self._state(i, unseen)
                unseen = None
            if type(action) is Send:
                self.send(i, model.index[action.to], action)
            elif type(action) is StateChanged:
                unseen = action
        if unseen is not None:
            self._state(i, unseen)

    def _state(self, i: int, change: StateChanged) -> None:
        member = self.members[i]
        variables = member.election.variables() if member is not None else {}
        state, elected, epoch = str(change.state), change.elected, change.epoch
        node = self.model.ids[i]
        self.record(node, "state", state, elected, epoch, variables)
        safety = self.safety
        found = len(safety.violations)
        safety.observe(node, 1, epoch, state, elected, self.now)
        for violation in safety.violations[found:]:  # the state it made is checked
            self.record(node, "violation", violation)

    def send(self, i: int, to: int, action: Send) -> None:
        model = self.model
        key = next(self.keys)
        why = None
        if self.members[to] is None:
            why = f"P{model.ids[to]} is down"
        elif any(
            active and group[i] != group[to]
            for active, group in zip(self.partitions, model.groups, strict=True)
        ):
            why = "the network is partitioned"
        details: tuple[object, ...] = (model.ids[to], action.message, action.epoch, key)
        if why is not None:
            self.record(model.ids[i], "send", *details, "lost", why)
            return
        self.sends[key] = len(self.records)
        self.record(model.ids[i], "send", *details)
        number = model.messages.number(action.message, action.epoch)
        self.channels[model.link_of[i][to]].append((action.message, action.epoch, key, number))

    def lost(self, key: int, why: str) -> None:
        """Mark the send of message ``key`` as lost, and why."""
        place = self.sends.pop(key, None)
        if place is not None:
            self.records[place] = (*self.records[place], "lost", why)

    def take(self, link: int, number: int, *, keep: bool = False) -> tuple[Any, int, int]:
        channel = self.channels[link]
        at = next(k for k, entry in enumerate(channel) if entry[3] == number)
        message, epoch, key, _ = channel[at] if keep else channel.pop(at)
        return message, epoch, key

    def do(self, event: tuple[Any, ...]) -> None:  # noqa: PLR0915 -- a branch per event
        model = self.model
        what = event[0]
        if what in ("deliver", "duplicate"):
            _, link, number = event
            message, epoch, key = self.take(link, number, keep=what == "duplicate")
            frm, to = model.src[link], model.dst[link]
            member = self.members[to]
            assert member is not None
            extra = ("duplicate",) if what == "duplicate" else ()
            self.record(model.ids[to], "receive", model.ids[frm], message, epoch, key, *extra)
            self.act(to, member.handle_message(model.ids[frm], message, epoch, now=self.now))
            if what == "duplicate":  # its send says how many times it came
                place = self.sends.get(key)
                if place is not None:
                    send = self.records[place]
                    copies = send[9] + 1 if len(send) > 8 else 2
                    self.records[place] = (*send[:8], "copies", copies)
        elif what == "lose":
            _, link, number = event
            self.lost(self.take(link, number)[2], "lost by the network")
        elif what == "start":
            member = self.members[event[1]]
            assert member is not None
            self.act(event[1], member.handle_start(now=self.now))
        elif what == "timer":
            _, i, name = event
            member = self.members[i]
            assert member is not None
            self.record(model.ids[i], "timer", name)
            self.act(i, member.handle_timer(name, now=self.now))
        elif what == "crash":
            i = event[1]
            self.members[i] = None
            self.record(model.ids[i], "crash")
            self.safety.down(model.ids[i], self.now)
            for link in model.into[i]:
                for _, _, key, _ in self.channels[link]:
                    self.lost(key, f"P{model.ids[i]} crashed before it arrived")
                self.channels[link].clear()
        elif what == "restart":  # a new member that recovers, as the simulator's
            i = event[1]
            member = model.nodes[i].reborn()
            self.record(model.ids[i], "restart")
            self.members[i] = member
            self.act(i, member.handle_boot(now=self.now))
        elif what in ("partition", "heal"):
            k = event[1]
            self.partitions[k] = what == "partition"
            groups = [sorted(g) for g in model.options.partitions[k]]
            self.record(min(model.ids), what, groups)
        else:  # pause, resume
            node = model.ids[model.paused_nodes[event[1]]]
            self.record(node, what)


def records(model: Model, events: Sequence[int], *, step: float = 0.001) -> list[Record]:
    """The run of ``events`` (numbers of ``model.events``) as trace records."""
    run = _Run(model, step)
    for k, number in enumerate(events, 1):
        run.now = round(k * step, 9)
        run.do(model.events[number])
    return run.records
