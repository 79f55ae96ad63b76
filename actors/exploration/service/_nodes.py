"""One service node's states, numbered, and what each event does to one: the explorer's
cache for the service's rules.

A node's state is its member (numbered by :meth:`~ringleader.actors.Member.key`: its
times counted from its last event, its numbers back from its newest), the timers it has
pending with the ticks left on each, and the ticks since its last event (its clock).
The first member seen with a key is kept as the template; an event in a state is worked
out once, on a copy of the template, given the time its clock reads, and looked up ever
after.  The members are the very objects a ``ringleader node`` process runs.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ringleader.actors.core import (
    Action,
    CancelTimer,
    Message,
    Persist,
    Publish,
    Send,
    SetTimer,
)
from ringleader.actors.crashes import Add, Configuration, Member, Ping, Pong, Remove, reached

from ._numbering import Numbering
from ._timing import FOREVER, Timing

__all__ = ["BOOT", "ENDED", "Kept", "Move", "ServiceNode"]

#: The event "the node starts" (a timer is its name, a delivery ``(sender index,
#: message number)``, a refused link ``("dead", peer index)``, an operator's request
#: ``("change", menu index)``).
BOOT = "boot"

#: The shadow a node publishes when its lease ended on its own clock: what is left of its
#: shadow runs on (its clock may be slow: it may, in true time, still hold it).  A lease
#: given up before its end (a hand-over, a newer leader heard) ends at that instant.
ENDED = -1

#: What a node's state file keeps: ``(epoch, (acked, acked leader), configuration)``,
#: the configuration ``None`` while it is the founding one (what a wiped node has).
Kept = tuple[int, tuple[int, int | None], Configuration | None]

#: What an event does at a node: ``(its next state, its sends as (receiver index,
#: message number), what it published — (leader index or -1, epoch, shadow ticks) or
#: None —, what it asked to keep — (epoch, (acked, acked leader), a newer
#: configuration or None: the one kept already) or None —, the rounds it acknowledged
#: as (epoch, leader index), how many heartbeats and attempts it numbered)``.
Move = tuple[
    int,
    tuple[tuple[int, int], ...],
    tuple[int, int, int] | None,
    Kept | None,
    tuple[tuple[int, int], ...],
    tuple[int, int],
]


class ServiceNode:
    """Every state node ``index`` has been seen in, and the moves out of each.

    ``make(floor, acknowledged, configuration)`` makes its member as a service starts
    it (recovering, above what it kept, in the configuration it kept: the founding one
    if ``None``); ``ids`` are the nodes' ids by index; ``elapsed`` is how many ticks of a
    clock are told apart (a node idle longer is as if idle that long); ``menu``: the
    membership changes an operator may ask for (``("change", k)`` asks for ``menu[k]``).
    """

    def __init__(
        self,
        index: int,
        ids: Sequence[int],
        make: Callable[[int, tuple[int, int | None] | None, Configuration | None], Member],
        *,
        timing: Timing,
        numbering: Numbering,
        elapsed: int,
        menu: Sequence[Add | Remove] = (),
    ) -> None:
        self.menu = list(menu)
        self.index = index
        self.ids = list(ids)
        self.make = make
        self.timing = timing
        self.numbering = numbering
        self.elapsed = elapsed
        self._index_of = {node: i for i, node in enumerate(ids)}
        self.members: list[Member] = []
        self._member_ids: dict[Hashable, int] = {}
        #: Per state number: (member number, pending timers as (name, ticks left), ticks
        #: since its last event).
        self.locals: list[tuple[int, tuple[tuple[str, int], ...], int]] = []
        self._local_ids: dict[tuple[int, tuple[tuple[str, int], ...], int], int] = {}
        #: Per state number: the timers due now (none left), by name.
        self.due: list[tuple[str, ...]] = []
        self._moves: list[dict[Any, Move]] = []
        self._changes: list[dict[int, Move | None]] = []
        self._ticked: list[int] = []
        self._shared: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self.locals)

    def start(
        self,
        floor: int = 0,
        acknowledged: tuple[int, int | None] | None = None,
        configuration: Configuration | None = None,
    ) -> Move:
        """The node starts (or restarts, having kept ``floor``, ``acknowledged`` and
        ``configuration``)."""
        member = self.make(floor, acknowledged, configuration)
        if not self._shared:
            self._shared = _immutable(member)
        return self._work(member, {}, BOOT)

    def _number(self, member: Member, timers: dict[str, int]) -> int:
        key = member.key()
        number = self._member_ids.get(key)
        if number is None:
            number = self._member_ids[key] = len(self.members)
            self.members.append(member)
        return self._local(number, tuple(sorted(timers.items())), 0)

    def _local(self, member: int, timers: tuple[tuple[str, int], ...], elapsed: int) -> int:
        key = (member, timers, elapsed)
        number = self._local_ids.get(key)
        if number is None:
            number = self._local_ids[key] = len(self.locals)
            self.locals.append(key)
            self.due.append(tuple(name for name, left in timers if left <= 0))
            self._moves.append({})
            self._changes.append({})
            self._ticked.append(-1)
        return number

    def ticked(self, local: int) -> int:
        """State ``local`` one tick later (a timer at 0 stays at 0: it is due, and fires
        when the node can)."""
        found = self._ticked[local]
        if found < 0:
            member, timers, elapsed = self.locals[local]
            found = self._local(
                member,
                tuple((name, max(0, left - 1)) for name, left in timers),
                min(elapsed + 1, self.elapsed),
            )
            self._ticked[local] = found
        return found

    def move(self, local: int, event: Any) -> Move:
        """What ``event`` does in state ``local``: a timer's name, ``(sender index,
        message number)``, or ``("dead", peer index)``."""
        moves = self._moves[local]
        found = moves.get(event)
        if found is None:
            member_number, timers, elapsed = self.locals[local]
            template = self.members[member_number]
            member = copy.deepcopy(template, dict(self._shared))
            now = template.now + elapsed * self.timing.tick
            pending = dict(timers)
            found = moves[event] = self._work(member, pending, event, now)
        return found

    def configuration(self, local: int) -> Configuration | None:
        """The configuration node's member counts majorities in, in state ``local``."""
        return self.members[self.locals[local][0]].configuration

    def change(self, local: int, k: int) -> Move | None:
        """What asking for ``menu[k]`` does in state ``local``; ``None`` if this node
        refuses it (it does not lead, holds no lease, has a change pending …: see
        :meth:`~ringleader.actors.Member.refuse_change`), an operator's question that
        changes nothing."""
        found = self._changes[local]
        if k in found:
            return found[k]
        member_number, _, elapsed = self.locals[local]
        template = self.members[member_number]
        now = template.now + elapsed * self.timing.tick
        refused = template.refuse_change(self.menu[k], now)
        move = found[k] = None if refused is not None else self.move(local, ("change", k))
        return move

    def _work(self, member: Member, timers: dict[str, int], event: Any, now: float = 0.0) -> Move:
        before = member.numbering
        held = member.lease_until
        actions, ping = self._handle(member, timers, event, now)
        after = member.numbering
        sends: list[tuple[int, int]] = []
        publish: tuple[int, int, int] | None = None
        persist: Kept | None = None
        acks: list[tuple[int, int]] = []
        for position, action in enumerate(actions):
            if type(action) is Send:
                to = self._index_of.get(action.to)
                if to is None:
                    raise ValueError(f"node {member.id} sends to node {action.to}, not a member")
                message = action.message
                if ping is not None and _acknowledges(message, action.epoch, ping, to):
                    acks.append(ping)
                sends.append((to, self.numbering.own(message, action.epoch, after)))
            elif type(action) is SetTimer:
                timers[action.name] = self.timing.ticks(action.delay)
            elif type(action) is CancelTimer:
                timers.pop(action.name, None)
            elif type(action) is Publish:
                publish = self._published(action, now, held)
                if publish[2] and publish[0] == self.index:
                    acks.append((action.epoch, self.index))  # leading with a lease
            elif type(action) is Persist:
                if position:  # the host carries out actions in order: the file first
                    raise RuntimeError(
                        f"node {member.id} asks to keep its state after {actions[0]!r}: "
                        "a host would act before the state file has it"
                    )
                configuration = action.configuration
                assert configuration is None or isinstance(configuration, Configuration)
                persist = (action.epoch, action.acknowledged, configuration)
        shift = (after[0] - before[0], after[1] - before[1])
        return (self._number(member, timers), tuple(sends), publish, persist, tuple(acks), shift)

    def _handle(
        self, member: Member, timers: dict[str, int], event: Any, now: float
    ) -> tuple[list[Action], tuple[int, int] | None]:
        """``member``'s actions on ``event``, and the heartbeat it was, if one: (its
        epoch, its sender)."""
        if event == BOOT:
            return member.handle_boot(now=now), None
        if type(event) is str:
            timers.pop(event, None)
            return member.handle_timer(event, now=now), None
        if event[0] == "dead":
            return member.peer_dead(self.ids[event[1]], now=now), None
        if event[0] == "change":
            return member.request(self.menu[event[1]], now=now)[1], None
        sender, number = event
        message, epoch = self.numbering.message(number, member.numbering)
        ping = (epoch, sender) if isinstance(message, Ping) and message.seq > 0 else None
        return member.handle_message(self.ids[sender], message, epoch, now=now), ping

    def _published(self, publish: Publish, now: float, held: float) -> tuple[int, int, int]:
        """``publish`` for the checks: (leader index or -1, epoch, the shadow of its lease
        in ticks from now; 0 if it holds none, :data:`ENDED` if the one it held until
        ``held`` ended on its clock)."""
        leader = -1 if publish.leader is None else self._index_of[publish.leader]
        until, timing = publish.lease_until, self.timing
        if leader != self.index or reached(now, until):
            shadow = ENDED if 0 < held < FOREVER and reached(now, held) else 0
        elif until == float("inf"):
            shadow = FOREVER
        else:
            sent = until - timing.lease  # the heartbeat it rests on left then
            shadow = max(1, round((sent - now) / timing.tick) + timing.shadow)
        return leader, publish.epoch, shadow


def _immutable(member: Member) -> dict[int, Any]:
    """The parts of ``member`` that never change, by id: a copy shares them (a memo for
    :func:`copy.deepcopy`)."""
    parts: list[Any] = [
        member.view,
        member.policy,
        member.settings,
        member.view.settings,
        member.configuration,  # (a value: a change makes a new one)
    ]
    lease, steady = member.lease, member.steady
    if lease is not None:
        parts += [lease.settings, lease.peers, lease.voting]
    if steady is not None:
        parts.append(steady.settings)
    return {id(part): part for part in parts if part is not None}


def _acknowledges(message: Message, epoch: int, ping: tuple[int, int], to: int) -> bool:
    """Whether ``message`` sent to ``to`` in round ``epoch`` acknowledges the heartbeat
    ``ping`` (its epoch, its sender) just delivered: a pong in the leader's epoch."""
    return isinstance(message, Pong) and message.seq > 0 and to == ping[1] and epoch == ping[0]
