"""The sans-IO shape every election algorithm has.

An algorithm is a plain object.  A host (the Pykka actor, the simulator, a test) feeds it
events through three entry points — :meth:`Election.handle_start`,
:meth:`Election.handle_message`, :meth:`Election.handle_timer` — and gets back what to
do: messages to send (:class:`Send`) and timers to set or cancel (:class:`SetTimer`,
:class:`CancelTimer`).  Inside, a subclass
writes one method per message kind, named as the course notes name the message
(``election``, ``elected``, ``elect`` …), and calls :meth:`Election.send` and
:meth:`Election.decide`.  No socket, thread, clock or pickle is in sight.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection
from typing import Any, ClassVar

from ._actions import Action, CancelTimer, Notice, Send, SetTimer
from ._bound import Bound, Graph
from ._detector import DETECTOR_KINDS, DETECTOR_MESSAGES, Ping, Pong
from ._message import Message
from ._view import Candidate, NodeView

__all__ = [
    "Action",
    "Bound",
    "CancelTimer",
    "Candidate",
    "Election",
    "Graph",
    "Message",
    "NodeState",
    "NodeView",
    "Notice",
    "Ping",
    "Pong",
    "Send",
    "SetTimer",
]


class NodeState(enum.StrEnum):
    """The three states of the election problem (notes 000: nerozhodnutý / vůdce / není vůdce)."""

    UNDECIDED = "undecided"
    LEADER = "leader"
    NOT_LEADER = "not_leader"


Handler = Callable[[Any, Any, int], None]


class Election:
    """Base class of the sans-IO election algorithms.

    Subclasses set ``name`` (the config's ``algorithm`` value), ``title`` and
    ``messages`` (their message classes), implement :meth:`start` and one handler per
    message kind, ``def <kind>(self, message, sender) -> None``, :meth:`reset` (the state
    of one election round) and :meth:`bound` with the notes' message-count formula.

    The variables follow notes 000: ``state`` (undecided / leader / not_leader) and
    ``leader`` (the notes' ``elected_i``: the winner's id, ``None`` for ⊥; reports call
    it ``elected``).  It is not named ``elected`` so that it never collides with a
    handler for the notes' ``elected`` message.

    **Crashes** (notes 002).  With a ``heartbeat`` setting above zero the base class
    runs a failure detector: every ``heartbeat`` s it pings the nodes of
    :meth:`watch_set` (who watches whom is the algorithm's choice) and suspects one that
    has sent nothing for ``suspect_after`` s; any message counts as a sign of life.
    Election rounds are numbered by ``epoch``: every message carries its sender's epoch,
    a message of an older epoch is dropped (counted in :attr:`stale`), one of a newer
    epoch makes the node leave its round (:meth:`reset`) and join the newer one.  A node
    that suspects its leader, or a neighbour while it is undecided, starts a new round
    one epoch above any it has seen (:meth:`new_election`); so does one that stays
    undecided for ``reelect_after`` s (doubling each time), so that no round waits for
    ever on a message a crashed node took with it.  The winning round's epoch is the
    leader's fencing token.  A node restarted after a crash (``recovering=True``) acts
    on no election message until it has learnt the current epoch from a ``ping`` or
    ``pong``, then starts a round above it, as Bully's recovered process does: nothing
    its previous life saw or sent can then affect it.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    messages: ClassVar[tuple[type[Message], ...]]
    #: What the algorithm needs to be safe beyond FIFO reliable links, said to the user
    #: when a run turns out unsafe (Bully: its timeouts must exceed every delay).
    assumption: ClassVar[str | None] = None
    #: How the failure detector is wired for this algorithm, for ``check`` and the docs.
    watches: ClassVar[str] = "its neighbours"
    _handlers: ClassVar[dict[str, Handler]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "messages" not in cls.__dict__:
            return
        handlers: dict[str, Handler] = {}
        for message in cls.messages:
            handler = getattr(cls, message.kind, None)
            if not callable(handler) or message.kind in DETECTOR_KINDS:
                raise TypeError(f"{cls.__name__} has no handler for message kind {message.kind!r}")
            handlers[message.kind] = handler
        cls._handlers = handlers

    def __init__(
        self, node: NodeView, *, initiator: bool = False, recovering: bool = False
    ) -> None:
        self.node = node
        self.id = node.id
        self.me = node.candidate
        self.initiator = initiator
        self.started = False
        self.state = NodeState.UNDECIDED
        self.leader: int | None = None  # elected_i in the notes; None is ⊥
        # A restarted node knows no epoch (0) until it hears one; its pings say so.
        self.epoch = 0 if recovering else 1
        self.epoch_seen = self.epoch  # the largest epoch in any message received
        self.stale = 0  # election messages dropped for an older epoch
        self._outbox: list[Action] = []
        # The failure detector.
        self.heartbeat = self.setting("heartbeat", 0.0)
        self.suspect_after = self.setting("suspect_after", 6 * self.heartbeat)
        self.reelect_after = self.setting("reelect_after", 2.0)
        self.suspected: set[int] = set()
        self.recovering = recovering
        self._learned: int | None = None  # while recovering: the newest epoch heard of
        self._behind = False  # a "behind" timer is pending
        self._watched: set[int] = set()
        self._stall = self.reelect_after

    @classmethod
    def kinds(cls) -> dict[str, type[Message]]:
        """Message kind name → class: the algorithm's and the failure detector's."""
        return {m.kind: m for m in (*cls.messages, *DETECTOR_MESSAGES)}

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        """The notes' message count for this arrangement and initiator set."""
        raise NotImplementedError

    @property
    def detecting(self) -> bool:
        """Whether the failure detector runs (``heartbeat`` > 0)."""
        return self.heartbeat > 0

    # -- entry points for hosts -------------------------------------------------------

    def handle_boot(self) -> list[Action]:
        """The node is up and linked to its peers: start the failure detector, if any.

        Hosts call this once per node (incarnation), before or after
        :meth:`handle_start`.  Without a detector it does nothing.
        """
        if self.detecting:
            self._tick()
            if self.recovering:
                for peer in self.rejoin_set():
                    self.send(peer, Ping())
                self.set_timer("rejoin", self.suspect_after)
            elif self.state is NodeState.UNDECIDED:
                self.set_timer("stall", self._stall)
        return self._flush()

    def handle_start(self) -> list[Action]:
        """This node initiates an election (once; later calls send nothing)."""
        if not self.recovering:
            self.initiator = True
            self.ensure_started()
        return self._flush()

    def handle_timer(self, name: str) -> list[Action]:
        """Timer ``name``, set with :meth:`set_timer` and not cancelled since, fired."""
        if name == "heartbeat":
            self._tick()
        elif name.startswith("suspect."):
            self._suspect(int(name[len("suspect.") :]))
        elif name == "stall":
            self._stalled()
        elif name == "rejoin":
            self._rejoined()
        elif name == "behind":
            self._behind = False
            if self.epoch < self.epoch_seen and not self.recovering:
                self.new_election(f"behind epoch {self.epoch_seen}")
                self._rewatch()
        else:
            getattr(self, f"on_{name}_timeout")()
            if self.detecting:
                self._rewatch()
        return self._flush()

    def handle_message(self, sender: int, message: Message, epoch: int = 1) -> list[Action]:
        """Handle ``message`` of election round ``epoch`` from node ``sender``.

        Determinism rule: a node listed as initiator sends its own election message
        before it handles any message it receives, so message counts do not depend on
        whether its start or a neighbour's message happened to arrive first.
        """
        self.epoch_seen = max(self.epoch_seen, epoch)
        if self.detecting:
            self._heard(sender)
        kind = message.kind
        if kind in DETECTOR_KINDS:
            if kind == "ping":
                self.send(sender, Pong())
            if self.recovering and epoch > 0:  # not another restarted node's
                self._learned = max(self._learned or 0, epoch)
                if not self.rejoin_by_neighbour:
                    self._rejoined()
            elif epoch > self.epoch and not self._behind:
                # A round took place that this node has not heard of (yet: its messages
                # may be on their way).  If it is still behind in a while, it catches up
                # by starting a round itself.
                self._behind = True
                self.set_timer("behind", self.suspect_after)
            return self._flush()
        if self.recovering and (self._learned is None or epoch <= self._learned):
            self.stale += 1  # perhaps meant for this node's previous life
            return self._flush()
        if epoch < self.epoch:
            self.stale += 1
            return self._flush()
        if epoch > self.epoch:
            self._enter(epoch)
        if self.initiator:
            self.ensure_started()
        self._handlers[kind](self, message, sender)
        if self.detecting:
            self._rewatch()
        return self._flush()

    # -- for subclasses ---------------------------------------------------------------

    def start(self) -> None:
        """Begin this node's own election run."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget the current election round (a newer epoch begins).  Subclasses that
        keep per-round state reset it here, and cancel their own timers."""

    def watch_set(self) -> set[int]:
        """The nodes this node's failure detector watches now (default: its neighbours)."""
        return set(self.node.out)

    def ping_set(self, watched: set[int]) -> set[int]:
        """The nodes to ping on each heartbeat, given the ones watched now (default: those).

        A node may ping nodes it does not watch (a leader its followers, so that they all
        hear from it at the same moment and suspect it together if it dies), or skip
        watched nodes that ping it anyway."""
        return watched

    def probe_set(self) -> set[int]:
        """Suspected nodes to keep pinging, to notice when they come back (default: none)."""
        return set()

    def rejoin_set(self) -> set[int]:
        """The nodes a restarted node pings to learn the current epoch."""
        return set(self.node.out)

    #: A restarted node waits for a neighbour to take it back and start the new round
    #: (rings: only the predecessor can link to it again), instead of starting one
    #: itself as soon as it has learnt the current epoch.
    rejoin_by_neighbour: ClassVar[bool] = False

    def on_suspect(self, node: int) -> None:
        """``node`` is suspected to have crashed.  Default: if it led, or this node is in
        the middle of an election, start a new election."""
        if node == self.leader or self.state is NodeState.UNDECIDED:
            self.new_election(f"crash of {node}")

    def on_recovered(self, node: int) -> None:
        """A suspected ``node`` sent something again (it had not crashed, or restarted)."""

    def new_election(self, trigger: str) -> None:
        """Start a new election round, in the next epoch of this node's own above any
        epoch it has seen.

        Epochs after the first are dealt out by rank: with N members, the node at
        position r of ``members`` only starts rounds whose epoch is r modulo N.  Two nodes
        that start a round at the same moment (both suspect the leader) therefore never
        share an epoch: the newer round supersedes the other, and every epoch has one
        initiator, so at most one leader.
        """
        self._enter(self.next_epoch())
        self.initiator = True
        self._outbox.append(Notice("election", self.id, self.epoch, trigger))
        self.ensure_started()

    def next_epoch(self) -> int:
        """The smallest epoch of this node's own above every epoch it has seen."""
        floor = max(self.epoch, self.epoch_seen) + 1
        members = self.node.members
        if len(members) < 2 or self.id not in members:
            return floor
        n, rank = len(members), members.index(self.id)
        return floor + (rank - floor) % n

    def send(self, to: int, message: Message) -> None:
        self._outbox.append(Send(to, message, self.epoch))

    def set_timer(self, name: str, delay: float) -> None:
        """Ask the host to call ``on_<name>_timeout`` in ``delay`` s (replacing a pending one)."""
        self._outbox.append(SetTimer(name, delay))

    def cancel_timer(self, name: str) -> None:
        self._outbox.append(CancelTimer(name))

    def setting(self, name: str, default: float) -> float:
        """A tunable from the config (``node.settings``), else ``default``."""
        return float(self.node.settings.get(name, default))

    def decide(self, leader: Candidate) -> None:
        """Set ``leader`` (``elected_i``) and become leader or not-leader."""
        self.leader = leader.id
        self.state = NodeState.LEADER if leader == self.me else NodeState.NOT_LEADER
        if self.detecting:
            self.cancel_timer("stall")
            self._stall = self.reelect_after

    def ensure_started(self) -> None:
        """Run :meth:`start` unless this node has already started its own run."""
        if not self.started:
            self.started = True
            self.start()

    # -- the failure detector and epochs ---------------------------------------------

    def _enter(self, epoch: int) -> None:
        """Leave the current round for round ``epoch``."""
        self.epoch = epoch
        self.epoch_seen = max(self.epoch_seen, epoch)
        self.started = False
        self.initiator = False
        self.recovering = False
        self.cancel_timer("rejoin")
        self.state = NodeState.UNDECIDED
        self.leader = None
        self.reset()
        if self.detecting:
            self.set_timer("stall", self._stall)

    def _tick(self) -> None:
        self._rewatch()
        for peer in sorted(self.ping_set(self._watched) | (self.probe_set() & self.suspected)):
            self.send(peer, Ping())
        self.set_timer("heartbeat", self.heartbeat)

    def _rewatch(self) -> None:
        """Arm a suspicion timer for every newly watched node; disarm the others."""
        watched = self.watch_set() - self.suspected
        watched.discard(self.id)
        if watched == self._watched:
            return
        for peer in watched - self._watched:
            self.set_timer(f"suspect.{peer}", self.suspect_after)
        for peer in self._watched - watched:
            self.cancel_timer(f"suspect.{peer}")
        self._watched = watched

    def _heard(self, sender: int) -> None:
        if sender in self.suspected:
            self.suspected.discard(sender)
            self._outbox.append(Notice("recovered", sender, self.epoch))
            self.on_recovered(sender)
            self._rewatch()
        elif sender in self._watched:
            self.set_timer(f"suspect.{sender}", self.suspect_after)

    def _suspect(self, node: int) -> None:
        if node not in self._watched:
            return
        self._watched.discard(node)
        self.suspected.add(node)
        self._outbox.append(Notice("suspect", node, self.epoch))
        self.on_suspect(node)
        self._rewatch()

    def _stalled(self) -> None:
        if self.state is not NodeState.UNDECIDED or self.recovering:
            return
        stall = self._stall * 2
        self.new_election(f"no leader after {self._stall:g} s")
        self._stall = stall
        self.set_timer("stall", stall)
        self._rewatch()

    def _rejoined(self) -> None:
        if not self.recovering:
            return
        self.recovering = False
        self.cancel_timer("rejoin")
        self.epoch_seen = max(self.epoch_seen, self._learned or 0)
        # Nobody answered with an epoch: there is no cluster yet (or no live one).
        self.new_election("start" if self._learned is None else f"recovery of {self.id}")
        self._rewatch()

    # -- internals ----------------------------------------------------------------------

    def _flush(self) -> list[Action]:
        out, self._outbox = self._outbox, []
        return out

    def __repr__(self) -> str:
        return f"<{type(self).__name__} node {self.id} {self.state} leader={self.leader}>"
