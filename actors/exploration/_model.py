"""The explored system: nodes, links, what is in flight, and every step that may come next.

A global state is one flat tuple of small integers (see ``_nodes.py`` and
``_channels.py``)::

    (node 0's state, …, node n−1's state,      one number per node (CRASHED: -1)
     link 0's contents, …, link L−1's contents, one number per link (0: empty)
     crashes left, losses left, duplicates left,
     each partition's phase, each pause's phase, 0 before, 1 under way, 2 over
     each node's clock)                         with timers that fire in deadline
                                                order (``_clocks.py``) only

It is canonical: every node's election and member state and what its host holds for it
(timers, whether it has woken), what is in flight on each link (in order, or as a bag
when order is lifted), and what the faults may still do.  What a run *did* — how many
messages it sent, how it got here — belongs to a path, not to a state, and is left out.

:meth:`Model.expand` lists the steps enabled in a state: an initiator wakes up, a link
delivers (its first message, or any when unordered), a timer fires (when the timer rule
allows: with ``"quiet"``, once nothing is in flight, the timer with the least time left),
and, while the run is still going on, a node crashes (or, crashed, restarts), a message is lost or
duplicated, a partition begins or heals, a node pauses or resumes.  A state with none of
the first three left, nothing in flight and no timer pending is an *end state*.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from ringleader.actors.algorithms import crash_policy
from ringleader.actors.core import Election, NodeView
from ringleader.actors.crashes import Member

from ._channels import EMPTY, Channels
from ._clocks import Clocks
from ._nodes import CRASHED, START, Messages, NodeStates
from ._options import Options

__all__ = ["Event", "Model", "NewLink", "Step"]

#: A step as the search records it: what happened (see :attr:`Model.events`).
Event = tuple[Any, ...]
#: ``(event number, next state, messages sent, the node that came to lead or -1)``: only
#: such a step can make two leaders at once (:func:`~ringleader.actors.checks.co_leaders`).
Step = tuple[int, tuple[int, ...], int, int]
#: A step at one node, resolved for the search: ``(event number, the node's next state,
#: its sends as (receiver index, link slot in the state, message, FIFO), the epoch it
#: now leads if it did not before, else 0, the timers it (re)set with their delays)``.
Push = tuple[int, int, int, bool]
Entry = tuple[int, int, tuple[Push, ...], int, tuple[tuple[str, int], ...]]

_BEFORE, _UNDER_WAY, _OVER = 0, 1, 2


class NewLink(Exception):
    """A node sent on a link the model did not have (outside the wiring)."""

    def __init__(self, link: tuple[int, int]) -> None:
        super().__init__(link)
        self.link = link


class Model:
    """``algorithm`` on ``views`` (one per node, in topology order), ``initiators``
    waking up whenever they like, under ``options``.

    ``links``: extra ``(sender, receiver)`` links beyond the views' out-neighbours (the
    search adds one when an election sends outside its wiring).
    """

    def __init__(
        self,
        algorithm: type[Election],
        views: Sequence[NodeView],
        initiators: Collection[int],
        options: Options | None = None,
        *,
        links: Collection[tuple[int, int]] = (),
        member: Callable[..., Member] = Member,
    ) -> None:
        self.algorithm = algorithm
        self.views = list(views)
        self.options = options = options or Options()
        self.ids = [v.id for v in self.views]
        self.index = {node: i for i, node in enumerate(self.ids)}
        self.n = n = len(self.views)
        starting = set(initiators)
        self.initiators = [node for node in self.ids if node in starting]
        policy = crash_policy(algorithm)
        self.messages = Messages()
        self.channels = Channels()

        # With starts "any", an initiator is made as a node that is not one, and wakes up
        # (becomes one) as a step of its own, unless a message reaches it first.
        hosts_rule = options.starts == "first"

        def maker(view: NodeView) -> Callable[[], Member]:
            initiator = hosts_rule and view.id in starting
            return lambda: member(algorithm, view, initiator=initiator, policy=policy)

        def restarter(view: NodeView) -> Callable[[], Member] | None:
            if not (options.restarts and options.crashes):
                return None
            return lambda: member(algorithm, view, recovering=True, policy=policy)

        self.nodes = [
            NodeStates(
                i,
                maker(view),
                self.index,
                self.messages,
                wakes=not hosts_rule and view.id in starting,
                restart=restarter(view),
            )
            for i, view in enumerate(self.views)
        ]
        pairs = [(v.id, peer) for v in self.views for peer in v.out if peer != v.id]
        pairs += [link for link in links if link not in pairs]
        self.links: list[tuple[int, int]] = list(dict.fromkeys(pairs))
        self.L = L = len(self.links)
        self.src = [self.index[a] for a, _ in self.links]
        self.dst = [self.index[b] for _, b in self.links]
        self.link_of = [[-1] * n for _ in range(n)]
        for k, (a, b) in enumerate(self.links):
            self.link_of[self.index[a]][self.index[b]] = k
        self.into = [[k for k in range(L) if self.dst[k] == i] for i in range(n)]
        self.unordered = [
            options.unordered or link in options.unordered_links for link in self.links
        ]
        self.lossy = [
            options.lossy_links is None or link in options.lossy_links for link in self.links
        ]
        self.duplicating = [
            options.duplicating_links is None or link in options.duplicating_links
            for link in self.links
        ]
        crashable = options.crashable
        self.crashable = [crashable is None or node in crashable for node in self.ids]
        # Each partition: every node's group (the nodes of no group are one group more,
        # as a config's partition entry and the simulator have it).
        self.groups = []
        for split in options.partitions:
            group = [-1] * n
            for g, members in enumerate(split):
                for node in members:
                    group[self.index[node]] = g
            self.groups.append(group)
        self.paused_nodes = [self.index[node] for node in options.pauses]
        self.extras = n + L  # where the crashes left are; then losses, duplicates, phases
        self.phases = n + L + 3
        #: Timers fire in the order of their deadlines (see ``_clocks.py``): each node's
        #: clock is in the state, from here on.
        self.timed = options.timers == "quiet" and bool(algorithm.timers)
        self.clocks = Clocks()
        self.clock_base = self.phases + len(options.partitions) + len(options.pauses)
        self.timers_any = options.timers == "any"
        #: Whether a crashed node may come back (a step of its own: a crashed node restarts).
        self.restarts = options.restarts and options.crashes > 0
        #: Whether anything but the orderings may happen (crashes, losses …).
        self.faulty = options.faulty
        #: Whether every send lands on its FIFO link (the search's plain path).
        self.plain = not (
            options.faulty or options.unordered or options.unordered_links or self.groups
        )
        #: Every event seen, by number (see :meth:`describe`).
        self.events: list[Event] = []
        self._event_ids: dict[Event, int] = {}
        #: Per node, per state number: step key → ``Entry`` (see ``_entry``).
        self.cache: list[list[dict[Any, Entry]]] = [[{}] for _ in self.nodes]

    # -- states ------------------------------------------------------------------------

    def initial(self) -> tuple[int, ...]:
        options = self.options
        return (
            *(nodes.initial for nodes in self.nodes),
            *([EMPTY] * self.L),
            options.crashes,
            options.losses,
            options.duplicates,
            *([_BEFORE] * len(self.groups)),
            *([_BEFORE] * len(self.paused_nodes)),
            *([0] * (self.n if self.timed else 0)),
        )

    def event(self, event: Event) -> int:
        """The number of ``event``."""
        number = self._event_ids.get(event)
        if number is None:
            number = self._event_ids[event] = len(self.events)
            self.events.append(event)
        return number

    def mover(self, number: int) -> int:
        """The node whose state the steps of event ``number`` may change — every other
        node's state stays as it was — or -1 if they change no node's state."""
        event = self.events[number]
        what = event[0]
        if what in ("deliver", "duplicate"):
            return self.dst[event[1]]
        if what in ("start", "timer", "crash", "restart"):
            return int(event[1])
        if what in ("lose", "partition", "heal", "pause", "resume"):
            return -1  # links and phases only
        raise ValueError(f"no mover known for event {event!r}")

    def crashed(self, state: tuple[int, ...]) -> list[int]:
        """The ids of the nodes that crashed in ``state``."""
        return [self.ids[i] for i in range(self.n) if state[i] == CRASHED]

    def faultless(self, state: tuple[int, ...]) -> bool:
        """Whether no fault has struck on any path to ``state``: no node crashed, no
        message lost or duplicated, no partition or pause begun."""
        options, x = self.options, self.extras
        return (
            CRASHED not in state[: self.n]
            and state[x] == options.crashes
            and state[x + 1] == options.losses
            and state[x + 2] == options.duplicates
            and not any(state[self.phases : self.clock_base])
        )

    def paused(self, state: tuple[int, ...]) -> set[int]:
        """The indices of the nodes paused in ``state``."""
        base = self.phases + len(self.groups)
        return {node for k, node in enumerate(self.paused_nodes) if state[base + k] == _UNDER_WAY}

    # -- steps -------------------------------------------------------------------------

    def expand(self, state: tuple[int, ...]) -> tuple[list[Step], bool]:  # noqa: PLR0912, PLR0915
        """The steps enabled in ``state``, and whether it is an end state."""
        n, channels, cache = self.n, self.channels, self.cache
        heads, pushed, dst = channels.heads, channels.pushed, self.dst
        paused = self.paused(state) if self.paused_nodes else ()
        # Without crashes, partitions or unordered links every send lands on its FIFO
        # link: the plain path, the search's hottest loop.
        plain = self.plain
        faulty = self.faulty
        nodes, timed, clocks, clock_base = self.nodes, self.timed, self.clocks, self.clock_base
        out: list[Step] = []
        append = out.append
        quiet = True
        busy = False  # something is still to happen (not an end state)
        for link, content in enumerate(state[n : n + self.L]):
            if not content:
                continue
            busy = True
            to = dst[link]
            if to in paused:
                continue
            quiet = False
            if plain or not self.unordered[link]:
                choices: Any = (heads[content],)
            else:
                choices = channels.choices(content)
            base = link << 32
            local = state[to]
            moves = cache[to][local]
            for message, rest in choices:
                key = base | message
                entry = moves.get(key)
                if entry is None:
                    entry = self._entry(to, local, key)
                number, new, pushes, lead, sets = entry
                successor = list(state)
                successor[n + link] = rest
                successor[to] = new
                if timed:
                    at = clock_base + to
                    successor[at] = clocks.after(state[at], nodes[to].timers[new], sets)
                if plain:
                    for _, slot, sent, _ in pushes:
                        there = successor[slot]
                        after = pushed[there].get(sent)
                        successor[slot] = channels.push(there, sent) if after is None else after
                else:
                    self._land(successor, to, pushes)
                append((number, tuple(successor), len(pushes), to if lead else -1))
                if faulty:
                    self._mishaps(state, link, message, rest, out)
        timers_any = self.timers_any
        least = -2  # the least time left on any timer that may fire now (-2: not yet known)
        for i, local in enumerate(state[:n]):
            if local == CRASHED:
                continue
            node = nodes[i]
            if not node.active[local]:
                continue
            busy = True
            if i in paused:
                continue
            if node.can_start[local]:
                append(self._act(state, i, -1))
            timers = node.timers[local]
            if timers and (quiet or timers_any):
                if not timed:
                    for name in timers:
                        append(self._act(state, i, name))
                    continue
                if least == -2:
                    least = self._least(state, paused)
                clock = state[clock_base + i]
                for name in timers:
                    if clocks.left(clock, name) == least:  # the next to fire
                        append(self._fire(state, i, name, least))
        if not busy:
            return out, True
        if faulty:
            self._faults(state, out)
        return out, False

    def _land(self, successor: list[int], i: int, pushes: tuple[Push, ...]) -> None:
        """Node ``i``'s sends, each on its link, unless lost (its receiver crashed, or a
        partition is in the way)."""
        channels, groups = self.channels, self.groups
        for target, slot, sent, fifo in pushes:
            if successor[target] == CRASHED or (groups and self._across(successor, i, target)):
                continue
            if fifo:
                successor[slot] = channels.push(successor[slot], sent)
            else:
                successor[slot] = channels.add(successor[slot], sent)

    def _mishaps(
        self, state: tuple[int, ...], link: int, message: int, rest: int, out: list[Step]
    ) -> None:
        """After the delivery of ``message`` on ``link`` (``out[-1]``): the same message
        delivered and kept for a second time, or lost instead."""
        n, x = self.n, self.extras
        if state[x + 2] and self.duplicating[link]:
            step = out[-1]
            copy = list(step[1])
            copy[n + link] = state[n + link]  # the message stays: delivered again later
            copy[x + 2] -= 1
            number = self.event(("duplicate", link, message))
            out.append((number, tuple(copy), step[2], step[3]))
        if state[x + 1] and self.lossy[link]:
            successor = list(state)
            successor[n + link] = rest
            successor[x + 1] -= 1
            out.append((self.event(("lose", link, message)), tuple(successor), 0, -1))

    def _faults(self, state: tuple[int, ...], out: list[Step]) -> None:
        """The faults that may strike in ``state`` (not an end state)."""
        event, n, x = self.event, self.n, self.extras
        base = self.phases
        for k in range(len(self.groups)):
            phase = state[base + k]
            if phase != _OVER:
                successor = list(state)
                successor[base + k] += 1
                what = "partition" if phase == _BEFORE else "heal"
                out.append((event((what, k)), tuple(successor), 0, -1))
        base += len(self.groups)
        for k in range(len(self.paused_nodes)):
            phase = state[base + k]
            if phase != _OVER:
                successor = list(state)
                successor[base + k] += 1
                what = "pause" if phase == _BEFORE else "resume"
                out.append((event((what, k)), tuple(successor), 0, -1))
        if state[x]:
            for i in range(n):
                if state[i] != CRASHED and self.crashable[i]:
                    successor = list(state)
                    successor[i] = CRASHED
                    for link in self.into[i]:
                        successor[n + link] = EMPTY  # lost with it
                    if self.timed:
                        successor[self.clock_base + i] = 0  # its timers die with it
                    successor[x] -= 1
                    out.append((event(("crash", i)), tuple(successor), 0, -1))
        if self.restarts:
            for i in range(n):
                if state[i] == CRASHED:
                    out.append(self._restart(state, i))

    def _restart(self, state: tuple[int, ...], i: int) -> Step:
        """Node ``i``, crashed, comes back as a new member that recovers."""
        new, sends, sets = self.nodes[i].restart()
        cache = self.cache[i]
        while len(cache) < len(self.nodes[i]):
            cache.append({})
        pushes = []
        for to, message in sends:
            link = self.link_of[i][to]
            if link < 0:
                raise NewLink((self.ids[i], self.ids[to]))
            pushes.append((to, self.n + link, message, not self.unordered[link]))
        successor = list(state)
        successor[i] = new
        if self.timed:
            at = self.clock_base + i
            successor[at] = self.clocks.after(0, self.nodes[i].timers[new], sets)
        self._land(successor, i, tuple(pushes))
        return self.event(("restart", i)), tuple(successor), len(pushes), -1

    def _entry(self, i: int, local: int, key: Any) -> Entry:
        """What the step ``key`` does at node ``i`` in state ``local``, for the search:
        ``key`` is a delivery's ``link << 32 | message``, -1 to wake up, or a timer's
        name.  Its sends are resolved to the links they go on."""
        node = self.nodes[i]
        event: Any
        if key == -1:
            event, number = START, self.event(("start", i))
        elif type(key) is str:
            event, number = key, self.event(("timer", i, key))
        else:
            link, message = key >> 32, key & 0xFFFFFFFF
            event, number = (self.src[link], message), self.event(("deliver", link, message))
        new, sends, sets = node.move(local, event)
        cache = self.cache[i]
        while len(cache) < len(node):
            cache.append({})
        pushes = []
        for to, message in sends:
            link = self.link_of[i][to]
            if link < 0:
                raise NewLink((self.ids[i], self.ids[to]))
            pushes.append((to, self.n + link, message, not self.unordered[link]))
        was, now = node.leading[local], node.leading[new]
        entry = (number, new, tuple(pushes), now if now and now != was else 0, sets)
        cache[local][key] = entry
        return entry

    def _act(self, state: tuple[int, ...], i: int, key: Any) -> Step:
        """Node ``i`` wakes up (``key`` -1) or a timer of it fires (its name)."""
        local = state[i]
        entry = self.cache[i][local].get(key)
        if entry is None:
            entry = self._entry(i, local, key)
        number, new, pushes, lead, sets = entry
        successor = list(state)
        successor[i] = new
        if self.timed:
            at = self.clock_base + i
            successor[at] = self.clocks.after(state[at], self.nodes[i].timers[new], sets)
        self._land(successor, i, pushes)
        return number, tuple(successor), len(pushes), i if lead else -1

    def _least(self, state: tuple[int, ...], paused: Any) -> int:
        """The least time left on a pending timer of a live node that is not paused."""
        least, clocks, base = -1, self.clocks, self.clock_base
        for i in range(self.n):
            if state[i] != CRASHED and i not in paused:
                left = clocks.least[state[base + i]]
                if left >= 0 and (least < 0 or left < least):
                    least = left
        return least

    def _fire(self, state: tuple[int, ...], i: int, name: str, elapsed: int) -> Step:
        """Node ``i``'s timer ``name`` fires, ``elapsed`` µs after the last step: every
        clock moves on by that much."""
        local = state[i]
        entry = self.cache[i][local].get(name)
        if entry is None:
            entry = self._entry(i, local, name)
        number, new, pushes, lead, sets = entry
        successor = list(state)
        successor[i] = new
        clocks, base = self.clocks, self.clock_base
        for j in range(self.n):
            successor[base + j] = clocks.advance(state[base + j], elapsed)
        at = base + i
        successor[at] = clocks.after(successor[at], self.nodes[i].timers[new], sets)
        self._land(successor, i, pushes)
        return number, tuple(successor), len(pushes), i if lead else -1

    def _across(self, state: Any, i: int, j: int) -> bool:
        """Whether a partition under way in ``state`` separates nodes ``i`` and ``j``."""
        base = self.phases
        for k, group in enumerate(self.groups):
            if state[base + k] == _UNDER_WAY and group[i] != group[j]:
                return True
        return False

    # -- words -------------------------------------------------------------------------

    def describe(self, number: int) -> str:
        """Event ``number`` in words: ``deliver election(P4) from P4 to P9``."""
        event = self.events[number]
        what = event[0]
        if what in ("deliver", "duplicate", "lose"):
            _, link, message = event
            a, b = self.links[link]
            text = self.message_text(message)
            verb = {"deliver": "deliver", "duplicate": "deliver a copy of", "lose": "lose"}[what]
            return f"{verb} {text} from P{a} to P{b}"
        if what == "start":
            return f"P{self.ids[event[1]]} wakes up (initiates)"
        if what == "timer":
            return f"P{self.ids[event[1]]}'s timer {event[2]} fires"
        if what in ("crash", "restart"):
            return f"P{self.ids[event[1]]} {what}{'es' if what == 'crash' else 's'}"
        if what in ("partition", "heal"):
            split = self.options.partitions[event[1]]
            sides = [sorted(g) for g in split]
            listed = {node for g in split for node in g}
            rest = [node for node in sorted(self.ids) if node not in listed]
            groups = " | ".join(
                " ".join(f"P{node}" for node in side) for side in [*sides, rest] if side
            )
            return f"the network {'splits' if what == 'partition' else 'heals'}: {groups}"
        node = self.ids[self.paused_nodes[event[1]]]
        return f"P{node} {'pauses' if what == 'pause' else 'resumes'}"

    def message_text(self, number: int) -> str:
        """Message ``number`` as the notes write it: ``election(P4)``, with its epoch
        when it is not 1."""
        message, epoch = self.messages.items[number]
        fields = [getattr(message, name) for name in message.__match_args__]
        shown = []
        for value in fields:
            if isinstance(value, tuple) and hasattr(value, "id") and hasattr(value, "capacity"):
                shown.append(f"P{value.id}")
            else:
                shown.append(str(value))
        text = f"{message.kind}({', '.join(shown)})"
        return text if epoch == 1 else f"{text} e{epoch}"
