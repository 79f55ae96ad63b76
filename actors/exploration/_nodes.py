"""One node's states, numbered, and what it does on each event: the explorer's cache.

An election is deterministic: what a :class:`~ringleader.actors.Member` does on an event
depends only on its state and the event.  So each distinct state of a node (its
:meth:`~ringleader.actors.Member.key` and the timers its host holds for it) gets a small
number, the first member seen in that state is kept as its *template*, and the outcome
of each event in each state — the number of the state it leads to and the messages sent
— is computed once, on a copy of the template, and looked up ever after.  A search then
handles numbers only: a global state is a tuple of small integers, and most steps cost a
dictionary lookup.  The members are the very objects that real runs and the simulator
host; nothing about them is modelled.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable
from typing import Any

from ringleader.actors.core import CancelTimer, Message, NodeState, Send, SetTimer, frozen
from ringleader.actors.crashes import Member

__all__ = ["CRASHED", "START", "Messages", "NodeStates"]

#: The number of a crashed node's state (it has no other).
CRASHED = -1
#: The event "this initiator wakes up" (a message is a (sender index, message number)
#: pair, a timer its name).
START = 0

#: What an event does: the number of the state it leads to, the sends as
#: ``(receiver index, message number)`` pairs, and the timers (re)set as ``(name, delay
#: in µs)`` pairs, the last setting of each (its pending timers are the new state's).
Move = tuple[int, tuple[tuple[int, int], ...], tuple[tuple[str, int], ...]]


class Messages:
    """Every ``(message, epoch)`` sent in an exploration, numbered."""

    def __init__(self) -> None:
        self.ids: dict[Hashable, int] = {}
        self.items: list[tuple[Message, int]] = []

    def number(self, message: Message, epoch: int) -> int:
        try:
            key: Hashable = (message, epoch)
            hash(key)
        except TypeError:  # a student's message that is not frozen: by its contents
            key = (type(message), frozen(getattr(message, "__dict__", repr(message))), epoch)
        number = self.ids.get(key)
        if number is None:
            number = self.ids[key] = len(self.items)
            self.items.append((message, epoch))
        return number

    def __len__(self) -> int:
        return len(self.items)


class NodeStates:
    """Every state node ``index`` has been seen in, and the memoised moves out of each.

    ``make`` makes the node's member as it starts; ``index_of`` maps node ids to
    indices.  ``wakes``: the node is an initiator that wakes up as a step of its own
    (:data:`START`), unless a message reaches it first (then it never does: it was
    drawn in); otherwise an initiator is one from the start (its member says so) and
    wakes before it handles anything.  Per state number: :attr:`timers` (pending,
    sorted), :attr:`can_start` (an initiator not woken yet), :attr:`active` (either),
    :attr:`stance` (state, elected, epoch) and :attr:`leading` (the epoch it leads, 0 if
    it does not).
    """

    def __init__(
        self,
        index: int,
        make: Callable[[], Member],
        index_of: dict[int, int],
        messages: Messages,
        *,
        wakes: bool = False,
        restart: Callable[[], Member] | None = None,
    ) -> None:
        self.index = index
        self.wakes = wakes
        self._restart = restart
        self._restarted: Move | None = None
        self.messages = messages
        self._index_of = index_of
        self._ids = sorted(index_of, key=index_of.__getitem__)  # index → node id
        self.ids: dict[Hashable, int] = {}
        self.templates: list[Member] = []
        self.timers: list[tuple[str, ...]] = []
        self.can_start: list[bool] = []
        self.active: list[bool] = []  # a timer pending, or still to wake up
        self.stance: list[tuple[NodeState, int | None, int]] = []
        self.leading: list[int] = []
        self.moves: list[dict[Any, Move]] = []
        member = make()
        self._shared = {id(member.view): member.view, id(member.policy): member.policy}
        self.initial = self._number(member, frozenset(), wakes)

    def __len__(self) -> int:
        return len(self.templates)

    def _number(self, member: Member, timers: frozenset[str], may_wake: bool) -> int:
        key = (member.key(), timers, may_wake)
        number = self.ids.get(key)
        if number is None:
            number = self.ids[key] = len(self.templates)
            self.templates.append(member)
            self.timers.append(tuple(sorted(timers)))
            election = member.election
            if self.wakes:
                self.can_start.append(may_wake)
            else:
                self.can_start.append(election.initiator and not election.started)
            self.active.append(bool(timers) or self.can_start[-1])
            self.stance.append((election.state, election.elected, election.epoch))
            self.leading.append(election.epoch if election.state is NodeState.LEADER else 0)
            self.moves.append({})
        return number

    def member(self, number: int) -> Member:
        """A member in state ``number``, to do something with (a copy of the template)."""
        memo = dict(self._shared)
        return copy.deepcopy(self.templates[number], memo)

    def move(self, number: int, event: Any) -> Move:
        """What ``event`` does in state ``number``: :data:`START`, ``(sender index,
        message number)`` or a timer's name."""
        move = self.moves[number].get(event)
        if move is None:
            move = self.moves[number][event] = self._compute(number, event)
        return move

    def _compute(self, number: int, event: Any) -> Move:
        member = self.member(number)
        timers = set(self.timers[number])
        may_wake = self.wakes and self.can_start[number]
        if event == START:
            may_wake = False
            actions = member.handle_start(now=0.0)
        elif type(event) is str:
            timers.discard(event)
            actions = member.handle_timer(event, now=0.0)
        else:
            may_wake = False  # drawn in before it woke: it never starts a run of its own
            sender, message_number = event
            message, epoch = self.messages.items[message_number]
            actions = member.handle_message(self._ids[sender], message, epoch, now=0.0)
        return self._outcome(member, timers, may_wake, actions)

    def restart(self) -> Move:
        """What a restart does: the node, crashed, comes back as a new member that
        recovers (as the simulator restarts it: ``recovering=True``, then its boot),
        with no timer of its previous life pending."""
        if self._restarted is None:
            member = self.reborn()
            actions = member.handle_boot(now=0.0)
            self._restarted = self._outcome(member, set(), False, actions)
        return self._restarted

    def reborn(self) -> Member:
        """A new member for the node restarted, before its boot."""
        if self._restart is None:
            raise ValueError("this exploration does not restart nodes")
        return self._restart()

    def _outcome(self, member: Member, timers: set[str], may_wake: bool, actions: Any) -> Move:
        """``member``'s state number after ``actions``, its sends and timers set."""
        sends = []
        sets: dict[str, int] = {}
        for action in actions:
            if type(action) is Send:
                to = self._index_of.get(action.to)
                if to is None:
                    raise ValueError(f"node {member.id} sends to node {action.to}, not a member")
                sends.append((to, self.messages.number(action.message, action.epoch)))
            elif type(action) is SetTimer:
                timers.add(action.name)
                sets.pop(action.name, None)
                sets[action.name] = round(action.delay * 1e6)
            elif type(action) is CancelTimer:
                timers.discard(action.name)
                sets.pop(action.name, None)
        return (
            self._number(member, frozenset(timers), may_wake),
            tuple(sends),
            tuple(sets.items()),
        )
