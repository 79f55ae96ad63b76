"""Members under the steady rules in virtual time, for ``tests/actors/test_steady.py``.

A :class:`World` runs one :class:`~ringleader.actors.Member` per node of a full mesh:
every frame takes :data:`DELAY`, timers fire on time, and it can cut a node off (both
ways, or one link), crash one and restart it (a fresh, recovering member, as
``ringleader node`` starts one).  It records every change of leadership.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any

from ringleader.actors import ALGORITHMS, Member, NodeState, NodeView, crash_policy
from ringleader.actors.core import Action, CancelTimer, Notice, Publish, Send, SetTimer
from ringleader.actors.crashes import Configuration

#: One hop, in seconds (a loopback network).
DELAY = 0.001
HEARTBEAT, SUSPECT_AFTER = 0.05, 0.3


@dataclass
class Change:
    """Node ``node`` started leading (``led``) or stopped (``lost``) epoch ``epoch``."""

    at: float
    node: int
    kind: str
    epoch: int
    why: str = ""


@dataclass
class World:
    ids: tuple[int, ...] = (1, 2, 3, 4, 5)
    algorithm: str = "bully"
    quorum: bool = True
    preempt: bool = False
    steady: bool = True
    #: A restarted member keeps the highest epoch its last life saw and the round it
    #: acknowledged last (its state file, as ``ringleader node`` keeps them); else it
    #: restarts with none (its state was lost).
    durable: bool = False
    settings: dict[str, float] = field(default_factory=dict)
    #: The cluster's configuration every member starts with (``None``: all vote).
    configuration: Configuration | None = None

    def __post_init__(self) -> None:
        self.now = 0.0
        self._queue: list[tuple[float, int, str, int, Any]] = []
        self._order = itertools.count()
        self._timers: dict[tuple[int, str], int] = {}
        self.members: dict[int, Member] = {}
        self.down: set[int] = set()
        self.isolated: set[int] = set()
        self.blocked: set[frozenset[int]] = set()
        #: Until when each paused node stands still (see :meth:`pause`).
        self.paused: dict[int, float] = {}
        self.changes: list[Change] = []
        self.notices: list[tuple[float, int, Notice]] = []
        self.sent: list[tuple[float, int, Send]] = []
        #: What each node published last: (leader, epoch, lease_until on its clock).
        self.published: dict[int, tuple[int | None, int, float]] = {}
        #: Every publication: (when, node, what).
        self.publications: list[tuple[float, int, Publish]] = []
        self._views = {i: self._view(i) for i in self.ids}
        self._seen: dict[int, tuple[NodeState, int | None, int]] = {}

    def _view(self, node: int) -> NodeView:
        others = tuple(p for p in self.ids if p != node)
        settings = {
            "heartbeat": HEARTBEAT,
            "suspect_after": SUSPECT_AFTER,
            "reelect_after": 2.0,
            "lease": 0.2,
            "quorum": float(self.quorum),
            "preempt": float(self.preempt),
            **self.settings,
        }
        return NodeView(node, node, others, others, {n: n for n in self.ids}, settings, self.ids)

    # -- running --------------------------------------------------------------------------

    def boot(self, *nodes: int, wiped: bool = False) -> None:
        """Start (or restart) ``nodes`` as ``ringleader node`` does: recovering members
        (``wiped``: their state was lost, even if the world is :attr:`durable`)."""
        algorithm = ALGORITHMS[self.algorithm]
        for node in nodes or self.ids:
            self.down.discard(node)
            for key in [k for k in self._timers if k[0] == node]:
                del self._timers[key]
            last = self.members.get(node)
            kept = self.durable and last is not None and not wiped
            member = Member(
                algorithm,
                self._views[node],
                recovering=True,
                floor=last.seen if kept and last is not None else 0,
                acknowledged=last.acknowledged if kept and last is not None else None,
                policy=crash_policy(algorithm),
                steady=self.steady,
                durable=self.durable,
                configuration=self.configuration,
            )
            self.members[node] = member
            self.published.pop(node, None)
            self._seen[node] = (member.state, member.elected, member.epoch)
            self._run(node, member.handle_boot(now=self.now))

    def crash(self, node: int) -> None:
        self.down.add(node)
        self.published.pop(node, None)
        self._observe(node, gone=True)

    def pause(self, node: int, seconds: float) -> None:
        """``node`` stands still for ``seconds`` from now (SIGSTOP, a GC pause): what
        reaches it, and its timers, wait until then, in their order."""
        self.paused[node] = self.now + seconds

    def run(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass."""
        until = self.now + seconds
        while self._queue and self._queue[0][0] <= until:
            at, _, kind, node, payload = heapq.heappop(self._queue)
            self.now = at
            if node in self.down:
                continue
            if self.paused.get(node, at) > at:  # it stands still: later
                self._push(self.paused[node], kind, node, payload)
                continue
            member = self.members[node]
            if kind == "frame":
                sender, message, epoch = payload
                if self._cut(sender, node):
                    continue
                self._run(node, member.handle_message(sender, message, epoch, now=self.now))
            else:
                name, token = payload
                if self._timers.get((node, name)) != token:
                    continue  # replaced or cancelled
                del self._timers[(node, name)]
                self._run(node, member.handle_timer(name, now=self.now))
        self.now = until

    def call(self, node: int, method: str, *args: Any, **kwargs: Any) -> str | None:
        """Call an entry point of ``node``'s member (``resign``, ``transfer`` …) now;
        what it refused, if it says."""
        answer = getattr(self.members[node], method)(*args, now=self.now, **kwargs)
        refused, actions = answer if isinstance(answer, tuple) else (None, answer)
        self._run(node, actions)
        return refused

    def holds_lease(self, node: int) -> bool:
        """Whether ``node`` counts itself leader now, as its host would publish it."""
        leader, _, until = self.published.get(node, (None, 0, 0.0))
        return node not in self.down and leader == node and self.now < until

    def _cut(self, a: int, b: int) -> bool:
        """``isolated`` nodes are cut off from the others together (they still talk to
        each other); a ``blocked`` pair cannot talk at all."""
        return (a in self.isolated) != (b in self.isolated) or frozenset((a, b)) in self.blocked

    def _run(self, node: int, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, Send):
                self.sent.append((self.now, node, action))
                if action.to in self.down or self._cut(node, action.to):
                    continue
                self._push(
                    self.now + DELAY, "frame", action.to, (node, action.message, action.epoch)
                )
            elif isinstance(action, SetTimer):
                token = next(self._order)
                self._timers[(node, action.name)] = token
                self._push(self.now + action.delay, "timer", node, (action.name, token))
            elif isinstance(action, CancelTimer):
                self._timers.pop((node, action.name), None)
            elif isinstance(action, Notice):
                self.notices.append((self.now, node, action))
            elif isinstance(action, Publish):
                self.published[node] = (action.leader, action.epoch, action.lease_until)
                self.publications.append((self.now, node, action))
        self._observe(node)

    def _push(self, at: float, kind: str, node: int, payload: Any) -> None:
        heapq.heappush(self._queue, (at, next(self._order), kind, node, payload))

    def _observe(self, node: int, *, gone: bool = False) -> None:
        member = self.members[node]
        was = self._seen[node]
        now = (
            (NodeState.UNDECIDED, None, was[2])
            if gone
            else (member.state, member.elected, member.epoch)
        )
        if now == was:
            return
        self._seen[node] = now
        if was[0] is NodeState.LEADER and (now[0] is not NodeState.LEADER or now[2] != was[2]):
            why = "crashed" if gone else self._why(node)
            self.changes.append(Change(self.now, node, "lost", was[2], why))
        if now[0] is NodeState.LEADER and (was[0] is not NodeState.LEADER or now[2] != was[2]):
            self.changes.append(Change(self.now, node, "led", now[2]))

    def _why(self, node: int) -> str:
        """Why ``node`` last stopped leading, as its ``lost`` notice says."""
        for _, n, notice in reversed(self.notices):
            if n == node and notice.kind == "lost":
                return notice.detail
        return "superseded"

    # -- reading --------------------------------------------------------------------------

    def views(self) -> dict[int, tuple[int | None, int]]:
        """Each live node's (leader, epoch)."""
        return {
            n: (None if m.state is NodeState.UNDECIDED else m.elected, m.epoch)
            for n, m in self.members.items()
            if n not in self.down
        }

    def agreed(self) -> tuple[int, int] | None:
        views = set(self.views().values())
        if len(views) != 1:
            return None
        leader, epoch = views.pop()
        return None if leader is None or leader in self.down else (leader, epoch)

    def since(self, at: float, kind: str | None = None) -> list[Change]:
        return [c for c in self.changes if c.at >= at and (kind is None or c.kind == kind)]

    def elections(self, at: float) -> list[tuple[int, str]]:
        """The rounds started since ``at``: (node, why)."""
        return [(n, a.detail) for t, n, a in self.notices if t >= at and a.kind == "election"]

    def frames(self, since: float, until: float, kinds: tuple[str, ...]) -> int:
        return sum(1 for t, _, s in self.sent if since <= t < until and s.message.kind in kinds)
