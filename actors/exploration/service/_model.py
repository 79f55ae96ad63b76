"""The explored service: its nodes, links, what is in flight, what each node kept, and
every step that may come next.

A global state is one flat tuple of small integers::

    (node 0's state, …, node n−1's state,       ``_nodes.py``; DOWN: crashed
     link 0's contents, …,                       one per ordered pair (FIFO; self too)
     each node's kept state (its state file),    interned (epoch, (acked, leader))
     each node's published (leader, epoch),      interned
     each node's lease shadow, ticks left,       0: it holds none; below 0: it ended on
                                                 its clock, its shadow runs on (``_timing.py``)
     each node's last acknowledgement,           interned (epoch, leader), for check iv
     the highest epoch a lease was held in, its holder + 1,
     what is left of each fault (``FAULTS``' order),
     the nodes whose state was lost, a mask; the split under way (0: none);
     the nodes paused, a mask; the refused links not yet told, a mask,
     what each node heard of leases ended, a mask,
     the membership changes an operator may still ask for)

Each frame in flight carries a *tag*, the same kind of mask: the nodes whose lease had
ended on their own clock, while its shadow still runs, that its sender had heard of (or
was) when it sent it.  A lease that begins at a node that heard so of another's end
begins after that end in true time, however the two clocks drift: it does not overlap
that other's shadow (a leader whose lease ran out acknowledges the next one; the next
one is elected at its word).

:meth:`ServiceModel.expand` lists the steps enabled in a state — a message delivered,
a due timer fired, a refused link told, a tick of true time (only once no node that can
act has a timer due), the faults, and an operator's membership change (``--changes``:
a leader is asked to remove a member, or to add a removed one back) — each with the
checks its step broke.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from ringleader.actors.algorithms import crash_policy
from ringleader.actors.core import Election, NodeView
from ringleader.actors.crashes import (
    Add,
    Configuration,
    DetectorSettings,
    LeaseSettings,
    Member,
    Remove,
    SteadySettings,
)

from ._flights import EMPTY, Flights
from ._nodes import ENDED, Kept, Move, ServiceNode
from ._numbering import Numbering
from ._options import FAULTS, ServiceOptions
from ._timing import FOREVER, Timing

__all__ = ["DOWN", "FAULT_EVENTS", "Choice", "Event", "ServiceModel", "Step", "Unsettled"]

#: The state number of a crashed node.
DOWN = -1
#: A step as the search records it: what happened (see :meth:`ServiceModel.describe`).
Event = tuple[Any, ...]
#: ``(event number, next state, the checks it broke as (kind, detail))``.
Step = tuple[int, tuple[int, ...], tuple[tuple[str, str], ...]]
#: What may happen next, before it is worked out (see :meth:`ServiceModel.enabled`).
Choice = tuple[Any, ...]

_CRASHES, _RESTARTS, _WIPES, _PARTITIONS, _CUTS, _LOSSES, _DUPLICATES, _PAUSES = range(len(FAULTS))
#: Events that are faults (a run with none of them from some state on is fault-free);
#: an operator's membership change counts among them: a leader must come back without
#: one, and a walk makes one as rarely as a fault.
FAULT_EVENTS = frozenset(
    {
        "crash",
        "restart",
        "wipe",
        "split",
        "cut",
        "heal",
        "lose",
        "duplicate",
        "pause",
        "resume",
        "change",
    }
)


class Unsettled(Exception):
    """A fault-free run from the start does not settle on a leader holding its lease."""


class ServiceModel:
    """``algorithm`` under the steady rules on ``views`` (one per node), every node a
    service node that keeps its state, with ``options``' faults and ``timing``'s
    clocks."""

    def __init__(
        self,
        algorithm: type[Election],
        views: Sequence[NodeView],
        options: ServiceOptions,
        timing: Timing,
        *,
        founding: Sequence[int] | None = None,
    ) -> None:
        self.algorithm = algorithm
        self.views = list(views)
        self.options, self.timing = options, timing
        self.ids = [v.id for v in self.views]
        #: The founding configuration's members: every node but the config's spares
        #: (a spare takes no part until a change adds it).
        self.founding = Configuration.founding(self.ids if founding is None else founding)
        self.n = n = len(self.views)
        self.index = {node: i for i, node in enumerate(self.ids)}
        policy = crash_policy(algorithm)
        settings = SteadySettings.of(self.views[0].settings)
        if settings is None:
            raise ValueError("a service's rules need the failure detector and a lease")
        self.settings = settings
        sample = self._maker(self.views[0], policy)(0, None, None)
        #: The membership changes an operator may ask for (see ``_options.CHANGES``).
        self.menu: list[Add | Remove] = [*map(Remove, self.ids), *map(Add, self.ids)]
        assert sample.lease is not None
        self.numbering = Numbering(sample.lease.horizon)
        # A clock tells apart no more than this many ticks since its node's last event.
        elapsed = timing.ticks(settings.suspect_after + settings.lease) + 3
        self.nodes = [
            ServiceNode(
                i,
                self.ids,
                self._maker(view, policy),
                timing=timing,
                numbering=self.numbering,
                elapsed=elapsed,
                menu=self.menu,
            )
            for i, view in enumerate(self.views)
        ]
        self.flights = Flights(options.delay)
        # Every ordered pair, a node to itself too (a ring repaired round every other node
        # is a ring of one).
        self.links = [(a, b) for a in range(n) for b in range(n)]
        self.L = L = len(self.links)
        self.link_of = [[-1] * n for _ in range(n)]
        for k, (a, b) in enumerate(self.links):
            self.link_of[a][b] = k
        self.outgoing = [[self.link_of[i][j] for j in range(n)] for i in range(n)]
        self.incoming = [[self.link_of[j][i] for j in range(n)] for i in range(n)]
        # What the network may lose: two sides, any (the first node's side first), then
        # one link; each as the pairs it separates.
        self.splits = [
            frozenset(side)
            for size in range(1, n)
            for side in itertools.combinations(range(n), size)
            if 0 in side
        ]
        self.cuts = [
            frozenset((a, b) for a in side for b in range(n) if b not in side)
            for side in self.splits
        ] + [frozenset({(a, b)}) for a, b in itertools.combinations(range(n), 2)]
        self.apart = [[[False] * n for _ in range(n)] for _ in self.cuts]
        for c, pairs in enumerate(self.cuts):
            for a, b in pairs:
                self.apart[c][a][b] = self.apart[c][b][a] = True
        self.kept: list[Kept] = [(0, (0, None), None)]
        self._kept_ids = {self.kept[0]: 0}
        #: (leader index, epoch) pairs, interned: whom a node names (0: nobody), whom it
        #: acknowledged last.
        self.pairs: list[tuple[int, int]] = [(-1, 0)]
        self._pair_ids = {self.pairs[0]: 0}
        # The layout (see the module's docstring).
        self.K = n + L
        self.P = self.K + n
        self.S = self.P + n
        self.A = self.S + n
        self.T = self.A + n
        self.B = self.T + 2
        self.W = self.B + len(FAULTS)
        self.X, self.Z, self.Q = self.W + 1, self.W + 2, self.W + 3
        self.H, self.C = self.Q + 1, self.Q + 1 + n
        self.minority = (n - 1) // 2
        self.majority = n // 2 + 1
        lease = LeaseSettings.of(self.views[0].settings)
        #: How many live nodes a leader needs: a majority with a quorum, else one.
        self.needed = self.majority if lease is not None and lease.quorum else 1
        detector = DetectorSettings.of(self.views[0].settings)
        self.fast_failover = detector is not None and detector.fast_failover
        #: Every event seen, by number.
        self.events: list[Event] = []
        self._event_ids: dict[Event, int] = {}

    def _maker(
        self, view: NodeView, policy: Any
    ) -> Callable[[int, tuple[int, int | None] | None, Configuration | None], Member]:
        algorithm = self.algorithm
        # (As ``ringleader node`` builds it: the configuration its state file kept, else
        # the founding one.)
        founding = self.founding

        def make(
            floor: int,
            acknowledged: tuple[int, int | None] | None,
            configuration: Configuration | None,
        ) -> Member:
            return Member(
                algorithm,
                view,
                recovering=True,
                floor=floor,
                acknowledged=acknowledged,
                policy=policy,
                steady=True,
                durable=True,
                configuration=founding if configuration is None else configuration,
            )

        return make

    # -- numbers -----------------------------------------------------------------------

    def event(self, event: Event) -> int:
        number = self._event_ids.get(event)
        if number is None:
            number = self._event_ids[event] = len(self.events)
            self.events.append(event)
        return number

    def _pair(self, pair: tuple[int, int]) -> int:
        number = self._pair_ids.get(pair)
        if number is None:
            number = self._pair_ids[pair] = len(self.pairs)
            self.pairs.append(pair)
        return number

    def _keep(self, kept: Kept) -> int:
        number = self._kept_ids.get(kept)
        if number is None:
            number = self._kept_ids[kept] = len(self.kept)
            self.kept.append(kept)
        return number

    # -- states ------------------------------------------------------------------------

    def initial(self) -> tuple[tuple[int, ...], tuple[tuple[str, str], ...]]:
        """The state once every node has started (node by node), and what that broke."""
        n, options = self.n, self.options
        state = [
            *([DOWN] * n),
            *([EMPTY] * self.L),
            *([0] * n),  # nothing kept yet
            *([0] * n),  # nothing published
            *([0] * n),  # no lease
            *([0] * n),  # nothing acknowledged
            0,
            0,
            *options.budgets,
            0,
            0,
            0,
            0,
            *([0] * n),  # no lease ended, nor heard of
            options.changes,
        ]
        broken: list[tuple[str, str]] = []
        moves = [node.start() for node in self.nodes]
        for i, move in enumerate(moves):  # every node is up before the first frame lands
            state[i] = move[0]
        for i, move in enumerate(moves):
            self._apply(state, i, move, broken)
        return tuple(state), tuple(broken)

    def settle(
        self, state: tuple[int, ...], limit: int = 100_000
    ) -> tuple[tuple[int, ...], list[int]]:
        """The state a fault-free run from ``state`` reaches when every frame is delivered
        at once, in link order, timers fire in node order and time goes on only when
        nothing else can happen — until one leader holds its lease, every node names it
        and nothing is in flight — and the events that lead there."""
        path: list[int] = []
        for _ in range(limit):
            if self.leading(state) is not None and not any(state[self.n : self.K]):
                return state, path
            steps = [
                step for step in self.expand(state) if self.events[step[0]][0] not in FAULT_EVENTS
            ]
            number, state, broken = steps[0]
            if broken:
                raise Unsettled(f"a fault-free run from the start breaks a check: {broken[0][1]}")
            path.append(number)
        raise Unsettled(f"no leader holds its lease after {limit:,} steps of a fault-free run")

    def up(self, state: tuple[int, ...]) -> bool:
        """Whether the faults are over in ``state``: the network whole, nobody paused,
        and enough nodes up for a leader (a majority with a quorum; once a change was
        made, of the newest configuration's voters too): a crashed node may stay down,
        the others must get a leader back without it."""
        if state[self.X] or state[self.Z]:
            return False
        if self.n - state[: self.n].count(DOWN) < self.needed:
            return False
        if state[self.C] == self.options.changes:
            return True  # (no change made)
        # A change made: a majority of the newest configuration's voters up too (voters
        # 1,3 with node 1 down elect nobody, as any cluster of two with one down).
        voters = max(self._configurations(state), key=lambda c: c.key).voters
        up = sum(1 for v in voters if state[self.index[v]] != DOWN)
        return up > len(voters) // 2

    def named(self, state: tuple[int, ...], i: int) -> str:
        """Whom node ``i`` names in ``state``, in words."""
        leader, epoch = self.pairs[state[self.P + i]]
        return "nobody" if leader < 0 else f"P{self.ids[leader]} (epoch {epoch})"

    def recover(self, state: tuple[int, ...]) -> Step:
        """A step that ends a fault under way, whatever is left of the faults: the
        network heals, a paused node resumes, or a crashed one restarts with its state
        kept."""
        if state[self.X]:
            successor = list(state)
            successor[self.X] = 0
            return self.event(("heal",)), tuple(successor), ()
        paused = state[self.Z]
        for i in range(self.n):
            if paused >> i & 1:
                successor = list(state)
                successor[self.Z] &= ~(1 << i)
                return self.event(("resume", i)), tuple(successor), ()
        for i in range(self.n):
            if state[i] == DOWN:
                successor = list(state)
                successor[self.B + _RESTARTS] += 1  # (not one of the faults counted)
                return self._restart(tuple(successor), i, wipe=False)
        raise ValueError("no fault is under way")

    @cached_property
    def _all_members(self) -> bool:
        """Whether every node is a founding member (the config lists no spare)."""
        return len(self.founding.members) == self.n

    def leading(self, state: tuple[int, ...]) -> tuple[int, int] | None:
        """``(leader, epoch)`` if every live member names one leader in one epoch and that
        leader holds its lease (a member: of that leader's configuration; a node it
        removed may never hear of it)."""
        P, S, n = self.P, self.S, self.n
        live = [i for i in range(n) if state[i] != DOWN]
        named = {state[P + i] for i in live}
        if len(named) != 1 and state[self.C] == self.options.changes and self._all_members:
            return None  # (no change made, and no spare: every node is a member)
        for pair in named:
            leader, epoch = self.pairs[pair]
            if leader < 0 or state[leader] == DOWN or state[S + leader] <= 0:
                continue
            if len(named) > 1:
                configuration = self.nodes[leader].configuration(state[leader])
                members = self.ids if configuration is None else configuration.members
                if any(state[P + i] != pair for i in live if self.ids[i] in members):
                    continue
            return self.ids[leader], epoch
        return None

    # -- steps -------------------------------------------------------------------------

    def expand(self, state: tuple[int, ...]) -> list[Step]:
        """The steps enabled in ``state``."""
        take = self.take
        return [take(state, choice) for choice in self.enabled(state)]

    def enabled(self, state: tuple[int, ...]) -> list[Choice]:  # noqa: PLR0912, PLR0915
        """What may happen next in ``state``, as choices for :meth:`take` (what happens,
        and where)."""
        n, nodes, flights = self.n, self.nodes, self.flights
        paused, B = state[self.Z], self.B
        out: list[Choice] = []
        late = False  # a frame has been on its way as long as a frame may be
        for k in range(self.L):
            content = state[n + k]
            if not content:
                continue
            to = self.links[k][1]
            if state[to] == DOWN or paused >> to & 1:
                continue
            late = late or flights.due(content)
            out.append(("deliver", k))
            if state[B + _DUPLICATES]:
                out.append(("duplicate", k))
            if state[B + _LOSSES]:
                out.append(("lose", k))
        due = False
        for i in range(n):
            local = state[i]
            if local == DOWN or paused >> i & 1:
                continue
            for name in nodes[i].due[local]:
                due = True
                out.append(("timer", i, name))
        told = state[self.Q]
        if told:
            for bit in range(n * n):
                if told >> bit & 1:
                    i, peer = divmod(bit, n)
                    if not paused >> i & 1:
                        out.append(("dead", i, peer))
        if not due and not late:
            out.append(("tick",))
        if state[self.X]:
            out.append(("heal",))
        else:
            if state[B + _PARTITIONS]:
                out += [("split", c) for c in range(len(self.splits))]
            if state[B + _CUTS]:
                out += [("cut", c) for c in range(len(self.splits), len(self.cuts))]
        for i in range(n):
            if state[i] == DOWN:
                if state[B + _RESTARTS]:
                    out.append(("restart", i))
                if state[B + _WIPES] and self._may_wipe(state, i):
                    out.append(("wipe", i))
                continue
            if paused >> i & 1:
                out.append(("resume", i))
            elif state[B + _PAUSES]:
                out.append(("pause", i))
            if state[B + _CRASHES]:
                out.append(("crash", i))
            if state[self.C]:
                change = nodes[i].change
                out += [("change", i, k) for k in range(len(self.menu)) if change(state[i], k)]
        return out

    def take(self, state: tuple[int, ...], choice: Choice) -> Step:  # noqa: PLR0911
        """The step ``choice`` (one of :meth:`enabled`'s) makes from ``state``."""
        what = choice[0]
        if what in ("deliver", "duplicate"):
            k = choice[1]
            head = self.flights.head(state[self.n + k])
            assert head is not None
            return self._deliver(state, k, head, keep=what == "duplicate")
        if what == "timer":
            _, i, name = choice
            return self._act(state, i, name, choice)
        if what == "tick":
            return self._tick(state)
        if what == "lose":
            return self._lose(state, choice[1])
        if what == "dead":
            _, i, peer = choice
            return self._act(state, i, ("dead", peer), choice, i * self.n + peer)
        if what == "change":
            return self._change(state, choice)
        return self._fault(state, choice)

    def _change(self, state: tuple[int, ...], choice: Choice) -> Step:
        """An operator asks node ``i`` for the change ``menu[k]`` (``choice``: ``("change",
        i, k)``; :meth:`enabled` offers it only to a node that would not refuse it)."""
        _, i, k = choice
        move = self.nodes[i].change(state[i], k)
        assert move is not None
        successor = list(state)
        successor[self.C] -= 1
        broken: list[tuple[str, str]] = []
        self._apply(successor, i, move, broken)
        return self.event(choice), tuple(successor), tuple(broken)

    def _lose(self, state: tuple[int, ...], k: int) -> Step:
        head = self.flights.head(state[self.n + k])
        assert head is not None
        message, _, rest = head
        successor = list(state)
        successor[self.n + k] = rest
        successor[self.B + _LOSSES] -= 1
        return self.event(("lose", k, message)), tuple(successor), ()

    def _fault(self, state: tuple[int, ...], choice: Choice) -> Step:
        """A fault begins or ends (``choice``: what, and where)."""
        what, B = choice[0], self.B
        if what == "crash":
            return self._crash(state, choice[1])
        if what in ("restart", "wipe"):
            return self._restart(state, choice[1], wipe=what == "wipe")
        successor = list(state)
        if what == "heal":
            successor[self.X] = 0
        elif what in ("split", "cut"):
            successor[self.X] = choice[1] + 1
            successor[B + (_PARTITIONS if what == "split" else _CUTS)] -= 1
        elif what == "resume":
            successor[self.Z] &= ~(1 << choice[1])
        else:  # pause
            successor[self.Z] |= 1 << choice[1]
            successor[B + _PAUSES] -= 1
        return self.event(choice), tuple(successor), ()

    def _deliver(
        self, state: tuple[int, ...], k: int, head: tuple[int, int, int], *, keep: bool
    ) -> Step:
        """The first frame on link ``k`` (``head``: it, its tag and what is left)
        delivered, and gone from the link unless ``keep`` (a copy delivered)."""
        message, tag, rest = head
        sender, to = self.links[k]
        move = self.nodes[to].move(state[to], (sender, message))
        successor = list(state)
        if keep:
            successor[self.B + _DUPLICATES] -= 1
        else:
            successor[self.n + k] = rest
        broken: list[tuple[str, str]] = []
        self._apply(successor, to, move, broken, tag)
        what = "duplicate" if keep else "deliver"
        return self.event((what, k, message)), tuple(successor), tuple(broken)

    def _act(self, state: tuple[int, ...], i: int, key: Any, event: Event, told: int = -1) -> Step:
        move = self.nodes[i].move(state[i], key)
        successor = list(state)
        if told >= 0:
            successor[self.Q] &= ~(1 << told)
        broken: list[tuple[str, str]] = []
        self._apply(successor, i, move, broken)
        return self.event(event), tuple(successor), tuple(broken)

    def _apply(
        self, state: list[int], i: int, move: Move, broken: list[tuple[str, str]], heard: int = 0
    ) -> None:
        """Node ``i``'s move, into ``state`` (``heard``: the tag of the frame it got): its
        numbers moved on in flight, what it kept, published and acknowledged, and its
        sends on their links; and the checks."""
        local, sends, publish, persist, acks, shift = move
        n, flights = self.n, self.flights
        state[i] = local
        if heard:
            state[self.H + i] |= heard
        if shift != (0, 0):
            heartbeats, attempts = shift
            for k in self.outgoing[i]:  # its pings and pre-votes
                state[n + k] = self._moved(state[n + k], 1, heartbeats, attempts)
            for k in self.incoming[i]:  # the answers to them
                state[n + k] = self._moved(state[n + k], -1, heartbeats, attempts)
        if persist is not None:
            self._kept_by(state, i, persist)
        if publish is not None:
            self._published(state, i, publish, broken)
        for epoch, leader in acks:
            self._acknowledged(state, i, epoch, leader, broken)
        if not sends:
            return
        cut = state[self.X]
        apart = self.apart[cut - 1] if cut else None
        capacity = self.options.capacity
        # (Sent after its own lease ended on its clock, if it did: its bit.)
        tag = state[self.H + i] | (1 << i if state[self.S + i] < 0 else 0)
        for to, message in sends:
            if state[to] == DOWN:
                continue  # lost: nobody is there
            if apart is not None and apart[i][to]:
                continue  # lost: the network is cut between them
            k = n + self.link_of[i][to]
            if capacity is not None and flights.length(state[k]) >= capacity:
                continue  # lost: the link is full
            state[k] = flights.push(state[k], message, tag)

    def _kept_by(self, state: list[int], i: int, persist: Kept) -> None:
        """Node ``i`` writes ``persist`` to its state file (a configuration ``None``: the
        one it kept before stays)."""
        if persist[2] is None:
            persist = (*persist[:2], self.kept[state[self.K + i]][2])
        state[self.K + i] = self._keep(persist)

    def _published(
        self, state: list[int], i: int, publish: tuple[int, int, int], broken: list[Any]
    ) -> None:
        """Node ``i`` published whom it names and its lease: checks (i) to (iii)."""
        leader, epoch, shadow = publish
        was_epoch = self.pairs[state[self.P + i]][1]
        held = state[self.S + i]
        state[self.P + i] = self._pair((leader, epoch))
        if shadow == ENDED or (not shadow and held < 0):
            # Over on its clock: its clock may be slow, so what is left of the shadow
            # runs on (a lease given up before its end, ends now: shadow 0).
            state[self.S + i] = -abs(held)
            return
        if held < 0:
            self._shadow_over(state, i)
        state[self.S + i] = shadow
        if not shadow:
            return
        if not (held and was_epoch == epoch):
            self._lease_begins(state, i, epoch, broken)
        S, heard = self.S, state[self.H + i]
        holders = [
            j
            for j in range(self.n)
            if state[S + j] > 0 or (state[S + j] < 0 and not heard >> j & 1)
        ]
        if len(holders) > 1:
            who = " and ".join(f"P{self.ids[j]}" for j in holders)
            broken.append(("two_leases", f"{who} hold a lease at the same instant"))

    def _moved(self, content: int, owner: int, heartbeats: int, attempts: int) -> int:
        """Link ``content`` with the messages whose numbers are its ``owner`` end's
        (+1 sender, -1 receiver) counted back further."""
        numbering = self.numbering
        owners = numbering.owner
        return self.flights.rewritten(
            content,
            lambda m: numbering.moved(m, heartbeats, attempts) if owners[m] == owner else m,
        )

    def _lease_begins(self, state: list[int], i: int, epoch: int, broken: list[Any]) -> None:
        """Node ``i``'s lease begins in ``epoch``: checks (i) and (iii)."""
        top, holder = state[self.T], state[self.T + 1] - 1
        who = f"P{self.ids[i]}"
        if epoch < top:
            broken.append(
                ("token_back", f"{who} holds a lease in epoch {epoch}, after one in epoch {top}")
            )
        elif epoch == top and holder != i:
            other = f"P{self.ids[holder]}"
            broken.append(
                ("two_leaders", f"{who} holds a lease in epoch {epoch}, after {other} in it")
            )
        if epoch >= top:
            state[self.T], state[self.T + 1] = epoch, i + 1

    def _acknowledged(
        self, state: list[int], i: int, epoch: int, leader: int, broken: list[Any]
    ) -> None:
        """Node ``i`` acknowledges ``leader`` of round ``epoch``: check (iv)."""
        last_leader, last_epoch = self.pairs[state[self.A + i]]
        if epoch == last_epoch and leader != last_leader:
            who, one, two = (f"P{self.ids[x]}" for x in (i, last_leader, leader))
            broken.append(
                ("two_acks", f"{who} acknowledges {two} in epoch {epoch}, after {one} in it")
            )
        if epoch >= last_epoch:
            state[self.A + i] = self._pair((leader, epoch))

    def _tick(self, state: tuple[int, ...]) -> Step:
        """True time goes on by a tick: every clock with it; every lease's shadow too."""
        successor = list(state)
        n, nodes, S, flights = self.n, self.nodes, self.S, self.flights
        paused = state[self.Z]
        for i in range(n):
            if state[i] != DOWN:
                successor[i] = nodes[i].ticked(state[i])
            shadow = state[S + i]
            if 0 < shadow < FOREVER:
                successor[S + i] = shadow - 1
            elif shadow < 0:
                successor[S + i] = shadow + 1
                if shadow == -1:
                    self._shadow_over(successor, i)
        if flights.delay is not None:  # (what waits for a paused node has arrived)
            for k, (_, to) in enumerate(self.links):
                if successor[n + k] and not paused >> to & 1:
                    successor[n + k] = flights.aged(successor[n + k])
        return self.event(("tick",)), tuple(successor), ()

    def _shadow_over(self, state: list[int], i: int) -> None:
        """Node ``i``'s shadow is over: what was heard of its lease's end matters no more."""
        bit, n, H = 1 << i, self.n, self.H
        for j in range(n):
            state[H + j] &= ~bit
        untagged = self.flights.untagged
        for k in range(n, n + self.L):
            if state[k]:
                state[k] = untagged(state[k], bit)

    def _may_wipe(self, state: tuple[int, ...], i: int) -> bool:
        """Whether node ``i`` may lose its state, as the guarantee allows it: the other
        nodes that acknowledged the newest lease and keep their state still meet every
        majority (so at most a minority ever loses it); and, once a change was made, every
        older configuration still outvoted (see :meth:`_outvoted`)."""
        if state[self.C] != self.options.changes and not self._outvoted(state, i):
            return False
        newest, K, n = state[self.T], self.K, self.n
        wiped = state[self.W] | 1 << i
        everyone = list(range(n))
        if state[self.C] == self.options.changes:
            groups = [everyone]  # (no change made: every node votes)
        else:  # a majority of every configuration held, or kept, still keeps its state
            index = self.index
            groups = [[index[v] for v in sorted(c.voters)] for c in self._configurations(state)]
        for voters in groups:
            keepers = sum(1 for j in voters if j != i and self.kept[state[K + j]][1][0] >= newest)
            count = len(voters)
            lost = sum(1 for j in voters if wiped >> j & 1)
            if keepers < count - (count // 2 + 1) + 1 or lost > (count - 1) // 2:
                return False
        return True

    def _outvoted(self, state: tuple[int, ...], i: int) -> bool:
        """Whether, node ``i``'s state lost, every configuration older than the newest
        that a node still holds or keeps (the founding one too: what ``i`` comes back
        with) is outvoted: each of its majorities holds a node that kept a newer one.

        A node keeps a configuration durably so that the configurations that grant a
        lease stay a chain (``docs/design/membership.md``, "Leases and the fencing
        token across a change": every majority of a configuration shares a node, whose
        key only grows, with the majority that committed the next).  A node that loses
        its state comes back in the founding configuration: its key goes back, which
        the chain's argument does not allow for.  It is one of a minority all the same,
        as long as each older configuration that anyone may still lead in is outvoted by
        nodes that kept a newer one (their answers carry it: a leader of the older one
        adopts it, rule 3).  Otherwise — node 2 removed while cut off (it holds the
        founding voters 1,2,3), node 1 removed later (it holds voters 3,4, in which it
        is nobody) — node 1 wiped and node 2 are a majority of voters 1,2,3 that knows
        nothing newer: they elect a leader while node 3 holds its lease with node 4.
        That is two nodes of the founding configuration losing what links it to the
        next: a majority of it, not a minority."""
        K, kept, founding, n = self.K, self.kept, self.founding, self.n
        keys = [
            founding.key if j == i else (kept[state[K + j]][2] or founding).key for j in range(n)
        ]
        held = {
            self.nodes[j].configuration(state[j]) or founding
            for j in range(n)
            if j != i and state[j] != DOWN
        }
        held |= {kept[state[K + j]][2] or founding for j in range(n) if j != i}
        held.add(founding)
        newest = max(c.key for c in held)
        index = self.index
        for configuration in held:
            key = configuration.key
            if key == newest:
                continue
            voters = configuration.voters
            newer = sum(1 for v in voters if keys[index[v]] > key)
            count = len(voters)
            if newer < count - (count // 2 + 1) + 1:
                return False
        return True

    def _configurations(self, state: tuple[int, ...]) -> set[Configuration]:
        """Every configuration a live node holds or a node's state file keeps in
        ``state``."""
        founding = self.founding
        held = {
            self.nodes[j].configuration(state[j]) or founding
            for j in range(self.n)
            if state[j] != DOWN
        }
        return held | {self.kept[state[self.K + j]][2] or founding for j in range(self.n)}

    def _crash(self, state: tuple[int, ...], i: int) -> Step:
        n = self.n
        successor = list(state)
        successor[i] = DOWN
        successor[self.B + _CRASHES] -= 1
        successor[self.Z] &= ~(1 << i)
        for k in self.incoming[i]:
            successor[n + k] = EMPTY  # lost with it
        successor[self.P + i] = 0
        if successor[self.S + i] < 0:
            self._shadow_over(successor, i)
        successor[self.S + i] = 0  # a dead process holds nothing
        successor[self.H + i] = 0  # nor knows anything
        told = successor[self.Q] & ~sum(1 << (i * n + j) for j in range(n))
        if self.options.proof_of_death and self.fast_failover:
            for j in range(n):
                if j != i and state[j] != DOWN:
                    told |= 1 << (j * n + i)  # j's link to i will be refused
        successor[self.Q] = told
        return self.event(("crash", i)), tuple(successor), ()

    def _restart(self, state: tuple[int, ...], i: int, *, wipe: bool) -> Step:
        n = self.n
        successor = list(state)
        if wipe:
            successor[self.B + _WIPES] -= 1
            successor[self.W] |= 1 << i
            successor[self.K + i] = 0
            successor[self.A + i] = 0  # a node that lost its state is a new node
        else:
            successor[self.B + _RESTARTS] -= 1
        for k in self.outgoing[i]:
            successor[n + k] = EMPTY  # its last life's frames: dropped as a stale life's
        for j in range(n):
            successor[self.Q] &= ~(1 << (j * n + i))  # its links accept again
        floor, acknowledged, configuration = self.kept[successor[self.K + i]]
        move = self.nodes[i].start(floor, None if floor == 0 else acknowledged, configuration)
        broken: list[tuple[str, str]] = []
        self._apply(successor, i, move, broken)
        what = "wipe" if wipe else "restart"
        return self.event((what, i)), tuple(successor), tuple(broken)

    # -- words -------------------------------------------------------------------------

    def describe(self, number: int) -> str:  # noqa: PLR0911
        """Event ``number`` in words."""
        event = self.events[number]
        what = event[0]
        name = self.ids
        if what in ("deliver", "duplicate", "lose"):
            _, k, message = event
            a, b = self.links[k]
            text = self.message_text(message)
            verb = {"deliver": "deliver", "duplicate": "deliver a copy of", "lose": "lose"}[what]
            return f"{verb} {text} from P{name[a]} to P{name[b]}"
        if what == "timer":
            return f"P{name[event[1]]}'s timer {event[2]} fires"
        if what == "dead":
            return f"P{name[event[1]]}'s link to P{name[event[2]]} is refused"
        if what == "change":
            change = self.menu[event[2]]
            asked = "remove" if isinstance(change, Remove) else "add (as a learner)"
            return f"an operator asks P{name[event[1]]} to {asked} P{change.node}"
        if what == "tick":
            return f"{self.timing.tick:g} s pass"
        if what == "split":
            side = self.splits[event[1]]
            one = " ".join(f"P{name[i]}" for i in sorted(side))
            other = " ".join(f"P{name[i]}" for i in range(self.n) if i not in side)
            return f"the network splits: {one} | {other}"
        if what == "cut":
            ((a, b),) = self.cuts[event[1]]
            return f"the link P{name[a]}–P{name[b]} goes down"
        if what == "heal":
            return "the network is whole again"
        verbs = {
            "crash": "crashes",
            "restart": "restarts (its state kept)",
            "wipe": "restarts (its state lost)",
            "pause": "pauses",
            "resume": "resumes",
        }
        return f"P{name[event[1]]} {verbs[what]}"

    def message_text(self, number: int) -> str:
        """Message ``number`` as written: ``ping(seq −1) e4``, ``election e4``."""
        message, epoch = self.numbering.items[number]
        back = self.numbering.back[number]
        fields = [f"{k}={getattr(message, k)}" for k in message.__match_args__]
        if back is not None:
            name = "seq" if message.kind in ("ping", "pong") else "attempt"
            fields = [f for f in fields if not f.startswith(f"{name}=")]
            fields.append("newest" if back == 0 else ("long before" if back < -99 else f"{back}"))
        return f"{message.kind}({', '.join(fields)}) e{epoch}"
