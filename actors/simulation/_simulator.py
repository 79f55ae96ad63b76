"""A deterministic, single-threaded simulator for sans-IO elections.

A discrete-event simulation in virtual time: every message takes a latency drawn from
``latency`` (seconds), links stay FIFO as the notes assume (a message never overtakes an
earlier one on the same link), initiators start at random moments within the first
``latency[1]``, and timers fire at their virtual deadline.  One seed is one reproducible
run; many seeds explore many interleavings.  No actors, sockets or pickling: it runs the
very :class:`~ringleader.actors.Member` objects the node actors host, fast enough for property tests
and large ``n``.

``faults`` crash and restart nodes at given virtual times: a crashed node's pending
timers and the messages still on their way to it are lost, while what it sent before
crashing is still delivered (as on a real network); a restarted node is a new member
with ``recovering=True``.  ``network`` makes the network misbehave
(:mod:`ringleader.actors.faults`: partitions, loss, delay, duplicates, reordering, and
pauses, during which what reaches a node waits), drawn from the same seed.  With a
failure detector (a ``heartbeat`` setting) nothing is ever quiet, so such runs need
``until``.  ``trace=True`` records every event for
:func:`~ringleader.actors.write_trace` (``SimulationResult.records``).
"""

from __future__ import annotations

import gc
import itertools
import random
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from ringleader.actors.algorithms import crash_policy
from ringleader.actors.checks import SafetyChecker
from ringleader.actors.core import (
    Action,
    CancelTimer,
    Election,
    NodeState,
    NodeView,
    Notice,
    Send,
    SetTimer,
    StateChanged,
)
from ringleader.actors.crashes import Member
from ringleader.actors.faults import Misbehaving, NetworkFault, Partition, Pause
from ringleader.actors.tracing import Record

from ._queue import EventQueue

__all__ = ["Fault", "SimulationResult", "simulate"]


@dataclass(frozen=True)
class Fault:
    """At virtual time ``at``, ``action`` (``"crash"`` or ``"restart"``) node ``node``."""

    at: float
    action: str
    node: int


@dataclass
class SimulationResult:
    """The outcome of one simulated run."""

    nodes: dict[int, Member]
    messages: Counter[str] = field(default_factory=Counter)
    steps: int = 0
    time: float = 0.0  # virtual seconds until the last event
    crashed: set[int] = field(default_factory=set)
    notices: list[tuple[float, int, Notice]] = field(default_factory=list)
    safety: SafetyChecker | None = None
    dropped: int = 0  # messages for or from an older life of a node
    #: Messages sent that never arrived (their receiver was down, or restarted), by
    #: kind; ``messages`` counts them too.
    lost: Counter[str] = field(default_factory=Counter)
    #: Every event, in the order it happened, when the run was traced.
    records: list[Record] | None = None

    @property
    def total(self) -> int:
        return sum(self.messages.values())

    @property
    def live(self) -> dict[int, Member]:
        return {i: a for i, a in self.nodes.items() if i not in self.crashed}

    @property
    def leaders(self) -> list[int]:
        return [i for i, a in self.live.items() if a.state is NodeState.LEADER]

    @property
    def elected(self) -> dict[int, int | None]:
        return {i: a.elected for i, a in self.live.items()}


_FAULT, _START, _DELIVER, _TIMER, _DEAD = 0, 1, 2, 3, 4
#: Notices that report the leadership (a node's state changes are seen as they happen).
_REPORTS = frozenset({"state", "lost", "lease"})
#: A send's record, ``(t, order, node, "send", peer, message, epoch, key)``, before
#: anything about what became of it.
_SEND_RECORD = 8


def simulate(
    algorithm: type[Election],
    views: Sequence[NodeView],
    initiators: Collection[int],
    *,
    seed: int = 0,
    latency: tuple[float, float] = (0.0001, 0.001),
    faults: Sequence[Fault] = (),
    until: float | None = None,
    max_steps: int = 50_000_000,
    max_time: float = 3600.0,
    trace: bool = False,
    proof_of_death: bool = False,
    network: Sequence[NetworkFault] = (),
) -> SimulationResult:
    """Run ``algorithm`` on ``views`` until no message is in flight and no timer pending
    (or, with ``until``, until that virtual time).

    Raises :class:`RuntimeError` if ``max_steps`` events or ``max_time`` virtual seconds
    do not finish it (an algorithm that re-elects for ever, on a topology it does not fit).
    ``proof_of_death``: when a node crashes, each node linked to it learns it at once
    (after one message delay), as a refused connection tells it over tcp or ipc; a
    member acts on it as its ``fast_failover`` setting says (see
    :meth:`~ringleader.actors.Member.peer_dead`).  The cyclic garbage collector is
    paused while it runs (as ``timeit`` pauses it).
    """
    # A run makes few reference cycles (a restarted node's old member), while its set-up
    # and its messages in flight would make the cyclic garbage collector go through every
    # node's objects again and again (13 % of a 100,000-node run): it is paused meanwhile,
    # as timeit pauses it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        run = _Simulation.prepare(algorithm, views, initiators, seed, latency, faults, trace)
        run.proof_of_death = proof_of_death
        if network:
            run.misbehave(network)
        if until is None and any(a.detector is not None for a in run.nodes.values()):
            raise ValueError("a run with a failure detector never goes quiet: give `until`")
        return run.until_quiet(max_steps, max_time if until is None else until, until is not None)
    finally:
        if collecting:
            gc.enable()


class _Link:
    """A link from one node to another: its last arrival (links are FIFO) and its end."""

    __slots__ = ("last", "to")

    def __init__(self, to: _Node) -> None:
        self.last = 0.0
        self.to = to


class _Node:
    """What the simulator keeps of one node, over all its lives (events carry it)."""

    __slots__ = ("down", "id", "known", "life", "links", "member", "timers")

    def __init__(self, member: Member) -> None:
        self.id = member.id
        self.member = member
        self.life = 1  # its incarnation
        self.down = False
        self.links: dict[int, _Link] = {}  # by the receiver's id
        # What this node knows of each peer's life, as a Session does: messages carry the
        # receiver's life as the sender last heard it and the sender's own; a message for
        # an older life of its receiver, or from an older life of its sender, is dropped.
        self.known: dict[int, int] = {}
        self.timers: dict[str, int] = {}  # the live generation of each timer name


class _Simulation:
    def __init__(
        self,
        algorithm: type[Election],
        views: Sequence[NodeView],
        nodes: dict[int, Member],
        rng: random.Random,
        latency: tuple[float, float],
        *,
        trace: bool,
    ) -> None:
        self.algorithm = algorithm
        self.policy = crash_policy(algorithm)
        self.views = {v.id: v for v in views}
        self.nodes = nodes
        self.slots = {i: _Node(member) for i, member in nodes.items()}
        self.rng = rng
        # rng.uniform(low, high) is low + (high - low) * random(): the same draws, inlined.
        self.random = rng.random
        self.low, self.high = latency
        self.span = self.high - self.low
        self.safety = SafetyChecker({v.id: v.candidate for v in views})
        self.records: list[Record] | None = [] if trace else None
        self.result = SimulationResult(nodes, safety=self.safety, records=self.records)
        # (time, order, kind, node, *details), the details as the kind has them (see push).
        # A day of the queue: a fortieth of the longest latency.
        self.events = EventQueue((self.high or 0.001) / 40)
        self.order = itertools.count(1)
        self.messages = itertools.count(1)  # message ids, for the trace
        self.counts: dict[str, int] = {}  # messages by kind, in the order first sent
        # Whether a node may have more than one life (crash and restart): without faults
        # every message is for and from a node's only life, and no session is needed.
        self.lives = True
        self.proof_of_death = False  # a crash is told to the nodes linked to it
        #: Where each traced send is among the records, while it may yet be lost (in a
        #: run with crashes): a message lost on its way marks its send so.
        self.sent_at: dict[Any, int] = {}
        #: The network's misbehaviour, if the run has any (see misbehave()).
        self.network: Misbehaving | None = None

    @classmethod
    def prepare(  # noqa: PLR0917 -- simulate()'s arguments, passed on
        cls,
        algorithm: type[Election],
        views: Sequence[NodeView],
        initiators: Collection[int],
        seed: int,
        latency: tuple[float, float],
        faults: Sequence[Fault],
        trace: bool,
    ) -> _Simulation:
        """A run with every node booted and the starts and faults scheduled."""
        starting = set(initiators)
        policy = crash_policy(algorithm)  # it keeps no state of its own: one for all
        nodes = {
            v.id: Member(algorithm, v, initiator=v.id in starting, policy=policy) for v in views
        }
        run = cls(algorithm, views, nodes, random.Random(seed), latency, trace=trace)
        run.lives = bool(faults)
        for slot in run.slots.values():
            run.act(0.0, slot, slot.member.handle_boot(now=0.0))
        for view in views:
            if view.id in starting:
                run.push(run.rng.uniform(0, latency[1]), _START, run.slots[view.id])
        for fault in faults:
            run.push(fault.at, _FAULT, fault.node, fault.action)
        return run

    def misbehave(self, entries: Sequence[NetworkFault]) -> None:
        """Let the network misbehave as ``entries`` say (drawn from the run's seed); the
        partitions and pauses are in the trace when they begin and end."""
        self.network = Misbehaving(entries, self.rng)
        first = min(self.slots)
        for entry in entries:
            if isinstance(entry, Partition):
                groups = [sorted(g) for g in entry.groups]
                self.push(entry.start, _FAULT, first, ("partition", groups))
                if entry.end < float("inf"):
                    self.push(entry.end, _FAULT, first, ("heal", groups))
            elif isinstance(entry, Pause):
                self.push(entry.start, _FAULT, entry.node, ("pause", entry.seconds))
                self.push(entry.end, _FAULT, entry.node, ("resume", entry.seconds))

    def push(self, when: float, kind: int, node: _Node | int, *details: object) -> None:
        """An event at ``node`` (its record; a fault: its id): a start (no details), a
        fault (the action), a delivery (sender, message, epoch, the sender's life, the
        receiver's as the sender knew it, the trace key) or a timer (name, generation,
        life)."""
        self.events.push((when, next(self.order), kind, node, *details))

    def record(self, now: float, node: int, event: str, *details: object) -> None:
        assert self.records is not None
        self.records.append((now, next(self.order), node, event, *details))

    def act(  # noqa: PLR0912, PLR0915 -- the hot path: a branch per action, inlined
        self, now: float, slot: _Node, actions: list[Action]
    ) -> None:
        node, life, records = slot.id, slot.life, self.records
        push, order, counts = self.events.push, self.order, self.counts
        low, span, draw, links = self.low, self.span, self.random, slot.links
        # A change of state is seen after what set it off (a suspicion) and before the
        # sends (a handler decides, or enters a round, then sends).
        unseen: StateChanged | None = None
        for action in actions:
            if unseen is not None and type(action) is not Notice:
                self.observe(now, slot, unseen)
                unseen = None
            if type(action) is Send:
                if self.network is not None:
                    self.send_through(now, slot, action)
                    continue
                to, message, epoch = action
                arrival = now + (low + span * draw())
                link = links.get(to)
                if link is None:
                    link = links[to] = _Link(self.slots[to])
                if arrival < link.last:  # noqa: PLR1730 -- a call less per message
                    arrival = link.last  # FIFO per link
                link.last = arrival
                kind = message.kind
                # A ping asks whoever is there; everything else is for the life last heard.
                to_life = 0 if kind == "ping" or not self.lives else slot.known.get(to, 0)
                counts[kind] = counts.get(kind, 0) + 1
                key = None
                if records is not None:
                    key = next(self.messages)
                    if self.lives:  # it may be lost on its way: remember where it is
                        self.sent_at[key] = len(records)
                if self.lives and link.to.down:  # sent to a node that is down: lost now
                    self.result.lost[kind] += 1
                    if records is not None:
                        why = f"P{to} is down"
                        self.record(now, node, "send", to, message, epoch, key, "lost", why)
                    continue
                if records is not None:
                    self.record(now, node, "send", to, message, epoch, key)
                event = (arrival, next(order), _DELIVER, link.to, node, message, epoch, life)
                push((*event, to_life, key))
            elif type(action) is StateChanged:
                unseen = action
            elif type(action) is Notice:
                if action.kind in _REPORTS:
                    continue  # the leadership's reports: what observe sees
                self.result.notices.append((now, node, action))
                if records is not None and action.kind == "suspect":
                    self.record(now, node, "suspect", action.node, action.epoch)
            elif type(action) is SetTimer or type(action) is CancelTimer:
                # A timer set or cancelled: either way, one pending before is void.
                name = action.name
                slot.timers[name] = generation = slot.timers.get(name, 0) + 1
                if type(action) is SetTimer:
                    self.push(now + action.delay, _TIMER, slot, name, generation, life)
            # (Persist, Publish: this run keeps nothing, and nobody reads it from outside.)
        if unseen is not None:
            self.observe(now, slot, unseen)

    def send_through(self, now: float, slot: _Node, action: Send) -> None:
        """``action`` sent through a misbehaving network: lost, late, twice, overtaken."""
        assert self.network is not None
        node, to, message, epoch = slot.id, action.to, action.message, action.epoch
        fate = self.network.fate(node, to, now)
        kind = message.kind
        self.counts[kind] = self.counts.get(kind, 0) + 1
        key = next(self.messages) if self.records is not None else None
        if not fate.copies:
            if self.records is not None:
                self.record(now, node, "send", to, message, epoch, key, "lost", fate.lost)
            return
        if self.records is not None:
            copies = ("copies", len(fate.copies)) if len(fate.copies) > 1 else ()
            self.record(now, node, "send", to, message, epoch, key, *copies)
        link = slot.links.get(to)
        if link is None:
            link = slot.links[to] = _Link(self.slots[to])
        to_life = 0 if kind == "ping" or not self.lives else slot.known.get(to, 0)
        for copy, extra in enumerate(fate.copies):
            arrival = now + extra + (self.low + self.span * self.random())
            if fate.fifo:
                arrival = max(arrival, link.last)
                link.last = arrival
            tagged = key if copy == 0 or key is None else ("duplicate", key)
            self.push(arrival, _DELIVER, link.to, node, message, epoch, slot.life, to_life, tagged)

    def observe(self, now: float, slot: _Node, change: StateChanged) -> None:
        """``slot``'s node changed its state, as it reports."""
        state, elected, epoch = str(change.state), change.elected, change.epoch
        safety = self.safety
        found = len(safety.violations)
        safety.observe(slot.id, slot.life, epoch, state, elected, now)
        if self.records is not None:
            variables = slot.member.election.variables()
            self.record(now, slot.id, "state", state, elected, epoch, variables)
            for violation in safety.violations[found:]:  # the state it made is checked
                self.record(now, slot.id, "violation", violation)

    def fault(self, now: float, node: int, action: str | tuple[str, object]) -> None:
        if isinstance(action, tuple):  # the network: partition, heal, pause, resume
            if self.records is not None:
                self.record(now, node, *action)
            return
        crashed, slot = self.result.crashed, self.slots[node]
        if action == "crash" and node not in crashed:
            crashed.add(node)
            self.safety.down(node, now)
            slot.down = True
            slot.life += 1  # its timers die with it
            if self.records is not None:
                self.record(now, node, "crash")
            if self.proof_of_death:  # each link to it is refused, a message delay later
                for peer in self.views[node].inbound:
                    if peer not in crashed:
                        told = self.slots[peer]
                        delay = self.low + self.span * self.random()
                        self.push(now + delay, _DEAD, told, node, told.life)
        elif action == "restart" and node in crashed:
            crashed.discard(node)
            slot.down = False
            slot.life += 1
            slot.known.clear()  # a new life starts with a new session
            fresh = Member(self.algorithm, self.views[node], recovering=True, policy=self.policy)
            self.nodes[node] = slot.member = fresh
            if self.records is not None:
                self.record(now, node, "restart")
            self.act(now, slot, fresh.handle_boot(now=now))

    def until_quiet(  # noqa: PLR0912, PLR0915 -- the event loop: a branch per kind
        self, max_steps: int, max_time: float, timed: bool
    ) -> SimulationResult:
        result, events = self.result, self.events
        steps, time = result.steps, result.time
        pop = events.pop
        # Without crashes, a trace or a misbehaving network, a message is simply handled
        # (see deliver).
        plain = not self.lives and self.records is None and self.network is None
        pauses = self.network is not None and bool(self.network.pauses)
        try:
            while True:
                if steps >= max_steps:
                    raise RuntimeError(f"no end after {max_steps} events")
                try:
                    event = pop()
                except IndexError:  # nothing pending: quiet
                    break
                now, kind = event[0], event[2]
                if now > max_time:
                    if timed:
                        time = max_time
                        return result
                    raise RuntimeError(f"no end after {max_time:g} virtual seconds")
                if kind == _FAULT:
                    self.fault(now, event[3], event[4])
                    continue
                slot = event[3]
                if slot.down:
                    if kind == _DELIVER:
                        self.lost(event, f"P{slot.id} is down")
                    continue  # lost with the node
                if pauses and self.waits(now, slot, event):
                    continue
                if kind == _DELIVER:
                    if plain:
                        actions = slot.member.handle_message(event[4], event[5], event[6], now=now)
                    else:
                        actions = self.deliver(now, slot, event)
                elif kind == _TIMER:
                    actions = self.fire(now, slot, event)
                elif kind == _DEAD:
                    if event[5] != slot.life:
                        continue  # told to a previous life
                    actions = slot.member.peer_dead(event[4], now=now)
                else:
                    actions = slot.member.handle_start(now=now)
                if actions is None:
                    continue
                steps += 1
                time = now
                self.act(now, slot, actions)
        finally:
            result.steps, result.time = steps, time
            result.messages.update(self.counts)
            self.counts.clear()
        return result

    def waits(self, now: float, slot: _Node, event: tuple[Any, ...]) -> bool:
        """Whether ``slot``'s node stands still (a pause) at ``now``: then ``event``
        waits until it resumes (after what waits already: in the order they came)."""
        assert self.network is not None
        until = self.network.paused_until(slot.id, now)
        if until is None:
            return False
        self.events.push((until, next(self.order), *event[2:]))
        return True

    def deliver(self, now: float, slot: _Node, event: tuple[Any, ...]) -> list[Action] | None:
        """A message arrives at ``slot``'s node: its actions, or ``None`` if it was dropped."""
        _, _, _, _, sender, message, epoch, life, to_life, key = event
        copy = type(key) is tuple and key[0] == "duplicate"
        if self.lives:
            known = slot.known
            if (to_life and to_life != slot.life) or life < known.get(sender, 0):
                self.result.dropped += 1
                self.lost(
                    event,
                    f"P{slot.id} has restarted since: it was for its previous life"
                    if to_life and to_life != slot.life
                    else f"P{sender} has restarted since it sent it",
                )
                return None
            known[sender] = life
            self.sent_at.pop(key, None)  # it arrived
        if self.records is not None:
            if copy:  # the second copy of a message the network duplicated
                self.record(now, slot.id, "receive", sender, message, epoch, key[1], "duplicate")
            else:
                self.record(now, slot.id, "receive", sender, message, epoch, key)
        return slot.member.handle_message(sender, message, epoch, now=now)

    def lost(self, event: tuple[Any, ...], why: str) -> None:
        """The message of delivery ``event`` never arrived, ``why`` in words: its send is
        marked lost in the trace (it was sent while its receiver was up)."""
        message, key = event[5], event[9]
        self.result.lost[message.kind] += 1
        records = self.records
        at = self.sent_at.pop(key, None)
        if records is not None and at is not None and len(records[at]) == _SEND_RECORD:
            records[at] = (*records[at], "lost", why)

    def fire(self, now: float, slot: _Node, event: tuple[Any, ...]) -> list[Action] | None:
        """A timer of ``slot``'s node is due: its actions, or ``None`` if it was void."""
        _, _, _, _, name, generation, life = event
        timers = slot.timers
        if life != slot.life or timers.get(name) != generation:
            return None  # cancelled, replaced, or set by a previous life
        del timers[name]
        if self.records is not None:
            self.record(now, slot.id, "timer", name)
        return slot.member.handle_timer(name, now=now)
