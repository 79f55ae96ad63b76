"""Membership changes explored: every ordering of rounds, heartbeats, answers and changes,
checked for two leases at once and a fencing token that goes back.

Each node runs the core's own :class:`~ringleader.actors.crashes.Membership` (or a
variant given, to show what a broken rule lets through); around it the model keeps what
the lease rests on, abstracted from time:

- a node's **round** (it never goes back to an older one) and the round it
  **acknowledged**, with its leader (one leader per round);
- its **promise**: the leader whose heartbeat it acknowledged last and whose round it
  will not leave, nor answer another leader, until the promise **expires** — the
  suspicion window (``suspect_after``) the lease is shorter than.  A promise may expire
  at any moment, so every timing the lease allows is a possible ordering;
- a leader **holds its lease** while a majority of its *current* configuration's voters
  promise it — itself included — each having answered with that configuration's key
  (:meth:`Membership.acknowledged_by`: rules L1 and L2 of
  ``docs/design/membership.md``).

Steps: a voter that promises nobody starts the next round and leads it (``elect``); a
leader's heartbeat reaches a member of its configuration, which learns the leader's
configuration and, if free to, answers with its own (``beat``; the answer is in flight
until ``answer`` delivers it, so answers arrive in any order and late); an operator asks
a leader to add or remove a member, the leader itself included (``change``: the leader
hands over, that is, it stops leading, and its followers' promises run out); a promise
expires (``expire``: a leader's own ends its leadership).  Rounds and changes are each
bounded by a count.

Checked in every state (the names of :data:`CHECKS`): ``two_leases`` — no two nodes hold
a lease at once; ``token_back`` — a lease begins in a round at least that of every lease
before it.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from ringleader.actors.crashes import (
    Acknowledged,
    Add,
    Configuration,
    Follow,
    HandOverFirst,
    Heard,
    Lead,
    Membership,
    MembershipAction,
    Remove,
    Retired,
)

__all__ = ["ChangesExploration", "ChangesModel", "explore_changes"]

#: A step: what happened, in words' parts (``("beat", 3, 1)``: node 3's heartbeat
#: reaches node 1).
Event = tuple[object, ...]


class _Node(NamedTuple):
    membership: Membership
    epoch: int
    acked: tuple[int, int]  # (round, leader) it acknowledged last
    promise: tuple[int, int] | None  # (leader, round) it promises
    retired: bool

    def key(self) -> tuple[object, ...]:
        return (self.membership.key(), self.epoch, self.acked, self.promise, self.retired)


class _Answer(NamedTuple):
    peer: int
    leader: int
    epoch: int
    configuration: Configuration


@dataclass(frozen=True)
class _State:
    nodes: tuple[_Node, ...]
    keys: tuple[tuple[object, ...], ...]  # each node's key (kept: made once per change)
    answers: frozenset[_Answer]
    next_epoch: int
    rounds: int  # rounds left to start
    changes: int  # changes left to ask for
    top: int  # the highest round a lease was held in
    key: tuple[object, ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        rest = (self.answers, self.next_epoch, self.rounds, self.changes, self.top)
        object.__setattr__(self, "key", (self.keys, *rest))


class ChangesModel:
    """Nodes ``founding`` (the config file's voters) and ``others`` (not members yet),
    each running ``membership`` (with ``catch_up``), up to ``rounds`` rounds started and
    ``changes`` changes asked for."""

    def __init__(
        self,
        founding: Sequence[int],
        others: Sequence[int] = (),
        *,
        rounds: int = 2,
        changes: int = 2,
        catch_up: int = 1,
        membership: type[Membership] = Membership,
        late_answers: bool = False,
    ) -> None:
        self.ids = (*founding, *others)
        self.index = {node: i for i, node in enumerate(self.ids)}
        self.founding = Configuration.founding(founding)
        self.rounds, self.changes = rounds, changes
        self.catch_up = catch_up
        self.membership = membership
        self.late_answers = late_answers

    def initial(self) -> _State:
        nodes = tuple(
            _Node(self.membership(node, self.founding, self.catch_up), 0, (0, 0), None, False)
            for node in self.ids
        )
        keys = tuple(n.key() for n in nodes)
        return _State(nodes, keys, frozenset(), 1, self.rounds, self.changes, 0)

    # -- the lease --------------------------------------------------------------------

    def holders(self, state: _State) -> list[int]:
        """The nodes that hold a lease in ``state``."""
        out = []
        for node in state.nodes:
            m, epoch = node.membership, node.membership.epoch
            if epoch is None or node.retired or node.promise != (m.me, epoch):
                continue
            promising = {
                p
                for p in m.acknowledged_by()
                if state.nodes[self.index[p]].promise == (m.me, epoch)
            }
            if m.configuration.is_quorum(promising | {m.me}):
                out.append(m.me)
        return out

    # -- steps ------------------------------------------------------------------------

    def steps(self, state: _State) -> list[tuple[Event, _State]]:
        """Every step enabled in ``state``, and the state it leads to."""
        out: list[tuple[Event, _State]] = []
        for node in state.nodes:
            m, me = node.membership, node.membership.me
            if node.retired:
                continue
            if node.promise is None and state.rounds and m.voter:
                out.append((("elect", me), self._elect(state, me)))
            if node.promise is not None:
                out.append((("expire", me), self._expire(state, me)))
            if m.epoch is None:
                continue
            waiting = {a.peer for a in state.answers if a.leader == me}
            for peer in sorted(m.configuration.members - {me} - waiting):
                out.append((("beat", me, peer), self._beat(state, me, peer)))
            if state.changes:
                for change in self._changes(m.configuration):
                    out.append((("change", me, change), self._change(state, me, change)))
        for answer in sorted(state.answers):
            out.append((("answer", answer.peer, answer.leader), self._answer(state, answer)))
        return out

    def _changes(self, configuration: Configuration) -> list[Add | Remove]:
        members = configuration.members
        adds: list[Add | Remove] = [Add(n) for n in self.ids if n not in members]
        return adds + [Remove(n) for n in sorted(members)]

    def _with(self, state: _State, node: _Node, **changes: object) -> _State:
        i = self.index[node.membership.me]
        nodes = (*state.nodes[:i], node, *state.nodes[i + 1 :])
        keys = (*state.keys[:i], node.key(), *state.keys[i + 1 :])
        return replace(state, nodes=nodes, keys=keys, **changes)  # type: ignore[arg-type]

    def _node(self, state: _State, me: int) -> _Node:
        node = state.nodes[self.index[me]]
        return node._replace(membership=node.membership.copy())

    def _carry_out(self, node: _Node, actions: list[MembershipAction]) -> _Node:
        """What the model's host does with the membership's actions (a leader told to
        hand over stops leading; a node retired takes no part any more)."""
        for action in actions:
            if isinstance(action, Retired | HandOverFirst):
                node.membership.handle(Follow(), 0.0)
                node = node._replace(promise=None, retired=isinstance(action, Retired))
        return node

    def _elect(self, state: _State, me: int) -> _State:
        node, epoch = self._node(state, me), state.next_epoch
        actions = node.membership.handle(Lead(epoch), 0.0)
        node = node._replace(epoch=epoch, acked=(epoch, me), promise=(me, epoch))
        node = self._carry_out(node, actions)
        return self._with(state, node, next_epoch=epoch + 1, rounds=state.rounds - 1)

    def _expire(self, state: _State, me: int) -> _State:
        node = self._node(state, me)
        if node.membership.epoch is not None:
            node.membership.handle(Follow(), 0.0)  # its own lease ran out
        return self._with(state, node._replace(promise=None))

    def _beat(self, state: _State, leader: int, peer: int) -> _State:
        sender = state.nodes[self.index[leader]].membership
        epoch = sender.epoch
        assert epoch is not None
        node = self._node(state, peer)
        free = node.promise in (None, (leader, epoch))
        acked_epoch, acked_leader = node.acked
        if node.retired or node.epoch > epoch or not free:
            return state  # it answers from another round, or not at all: no count
        if acked_epoch == epoch and acked_leader != leader:
            return state
        if node.membership.epoch is not None:
            node.membership.handle(Follow(), 0.0)
        actions = node.membership.handle(Heard(leader, epoch, sender.configuration), 0.0)
        node = self._carry_out(node._replace(epoch=epoch), actions)
        if node.retired:
            return self._with(state, node)
        node = node._replace(acked=(epoch, leader), promise=(leader, epoch))
        answer = _Answer(peer, leader, epoch, node.membership.configuration)
        state = self._with(state, node, answers=state.answers | {answer})
        return state if self.late_answers else self._answer(state, answer)

    def _answer(self, state: _State, answer: _Answer) -> _State:
        node = self._node(state, answer.leader)
        actions = node.membership.handle(
            Acknowledged(answer.peer, answer.epoch, answer.configuration), 0.0
        )
        node = self._carry_out(node, actions)
        return self._with(state, node, answers=state.answers - {answer})

    def _change(self, state: _State, leader: int, change: Add | Remove) -> _State:
        node = self._node(state, leader)
        node = self._carry_out(node, node.membership.handle(change, 0.0))
        return self._with(state, node, changes=state.changes - 1)

    # -- checks -----------------------------------------------------------------------

    def check(self, had: Set[int], after: _State) -> tuple[_State, list[tuple[str, str]]]:
        """``after`` (a step from a state whose lease holders were ``had``) with the
        highest leased round updated, and the checks it broke."""
        broken: list[tuple[str, str]] = []
        holders = self.holders(after)
        if len(holders) > 1:
            who = " and ".join(f"P{n}" for n in holders)
            broken.append(("two_leases", f"{who} hold a lease at the same instant"))
        if not holders:
            return after, broken
        top = after.top
        for holder in holders:
            epoch = after.nodes[self.index[holder]].membership.epoch
            assert epoch is not None
            if holder not in had and epoch < top:
                broken.append(
                    ("token_back", f"P{holder} holds a lease in round {epoch}, after {top}")
                )
            top = max(top, epoch)
        return (after if top == after.top else replace(after, top=top)), broken


@dataclass
class ChangesExploration:
    """What :func:`explore_changes` found: how many states it reached, whether that is
    all of them, the longest shortest path, and for each check broken its first
    counterexample (the events leading to it, and what broke)."""

    states: int = 0
    depth: int = 0
    complete: bool = False
    findings: dict[str, tuple[str, list[Event]]] = field(default_factory=dict)


def explore_changes(model: ChangesModel, limit: int = 2_000_000) -> ChangesExploration:
    """Every state ``model`` reaches, breadth first (so each counterexample is a
    shortest one), checked; stops after ``limit`` states (``complete`` false)."""
    start, _ = model.check(frozenset(), model.initial())
    parents: dict[tuple[object, ...], tuple[tuple[object, ...], Event] | None] = {start.key: None}
    found = ChangesExploration()
    frontier = [start]
    while frontier:
        following = []
        for state in frontier:
            had = frozenset(model.holders(state))
            for event, after in model.steps(state):
                successor, broken = model.check(had, after)
                key = successor.key
                if key in parents:
                    continue
                parents[key] = (state.key, event)
                for kind, detail in broken:
                    if kind not in found.findings:
                        found.findings[kind] = (detail, _path(parents, key))
                following.append(successor)
                if len(parents) > limit:
                    found.states = len(parents)
                    return found
        if following:
            found.depth += 1
        frontier = following
    found.states, found.complete = len(parents), True
    return found


def _path(
    parents: dict[tuple[object, ...], tuple[tuple[object, ...], Event] | None],
    key: tuple[object, ...],
) -> list[Event]:
    events: list[Event] = []
    step = parents[key]
    while step is not None:
        key, event = step
        events.append(event)
        step = parents[key]
    return events[::-1]
