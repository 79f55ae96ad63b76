"""The shape every election algorithm has: one round at one node, as a slide tells it.

An election is a plain object.  A host feeds it events — its start, a message, a timer
firing — and gets back what to do: messages to send (:class:`Send`) and timers to set or
cancel (:class:`SetTimer`, :class:`CancelTimer`).  Inside, a subclass holds the notes'
variables, writes one handler per message kind, ``on_<kind>``, named as the course notes
name the message (``on_election``, ``on_elected``, ``on_coordinator`` …), one per timer it
sets, ``on_<timer>_timeout``, and :meth:`Election.bound`, the notes' message count.  No
socket, thread, clock or pickle is in sight, and no crash either: the failure detector,
the epochs and the ring repair are parts that a :class:`~ringleader.actors.Member` composes around
an election (see ``_member.py``); an election only asks them, through :attr:`Election.around`,
who is suspected, who its live neighbours on a ring are, and for a new round.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Hashable, Mapping, Set
from typing import Any, ClassVar, Protocol

from ._actions import Action, CancelTimer, Send, SetTimer
from ._bound import Bound, Graph
from ._message import Message
from ._view import Candidate, NodeView

__all__ = ["Around", "Election", "NodeState", "frozen"]

#: Message kinds no algorithm may use: the failure detector's, the steady rules', the
#: operator's and the cluster identity's.
RESERVED_KINDS = frozenset(
    {
        "ping",
        "pong",
        "prevote",
        "prevote_reply",
        "handover",
        "handover_request",
        "status_query",
        "status_answer",
        "transfer_query",
        "transfer_answer",
        "cluster_notice",
    }
)


class NodeState(enum.StrEnum):
    """The three states of the election problem (notes 000: nerozhodnutý / vůdce / není vůdce)."""

    UNDECIDED = "undecided"
    LEADER = "leader"
    NOT_LEADER = "not_leader"


class Around(Protocol):
    """What an election may ask of whatever runs it (a :class:`~ringleader.actors.Member`).

    The slides assume that nobody crashes; these are the few questions whose answers
    change when somebody does.
    """

    @property
    def suspected(self) -> Set[int]:
        """The nodes the failure detector suspects to have crashed (none without one)."""
        ...

    @property
    def successor(self) -> int:
        """On a ring: the next live node (notes 002: the ring is repaired round a crash)."""
        ...

    @property
    def predecessor(self) -> int:
        """On a two-way ring: the previous live node."""
        ...

    def new_round(self, why: str) -> None:
        """Leave this round for a new one that this node starts (a new epoch)."""
        ...

    def may_proclaim(self) -> bool:
        """Whether this round may have this node proclaim itself leader now (Bully asks:
        after a crash, see :func:`~ringleader.actors.proclaim_in_own_round`)."""
        ...

    def own_round(self) -> bool:
        """Whether this node, drawn into another node's round, holds its own election in
        a round of its own at once (Bully asks: the notes' "sends its own election",
        where it may proclaim itself only in a round it started)."""
        ...


class Alone:
    """The surroundings of an election run by itself, as on the slides: nobody crashes,
    there is one round, and the ring is as wired."""

    suspected: Set[int] = frozenset()

    def __init__(self, node: NodeView) -> None:
        self.successor = node.out[0] if node.out else node.id
        self.predecessor = node.out[-1] if node.out else node.id

    def new_round(self, why: str) -> None:
        raise RuntimeError(f"a new round ({why}) needs epochs: run the election in a Member")

    def may_proclaim(self) -> bool:
        return True

    def own_round(self) -> bool:
        return False


Handler = Callable[[Any, Any, int], None]

#: ``Send(to, message, epoch)`` made in one call: a named tuple's own ``__new__`` is a
#: Python function, and a simulated run makes a million of them.
_send = tuple.__new__

#: An election's attributes that are its place and its plumbing, not its state: the
#: same in every state of one node (see :meth:`Election.key`).
_NOT_STATE = frozenset({"node", "id", "me", "around", "_outbox"})

#: What :meth:`Election.variables` leaves out besides the plumbing: what a trace's
#: ``state`` event says already, and the host's bookkeeping of the round's start.
_NOT_VARIABLES = _NOT_STATE | {"state", "elected", "epoch", "started", "initiator"}


def frozen(value: Any) -> Hashable:
    """``value`` as a hashable value equal for equal contents: sets and dicts as frozen
    sets, lists as tuples, other objects by their attributes (for :meth:`Election.key`)."""
    if isinstance(value, Set):
        return frozenset(frozen(v) for v in value)
    if isinstance(value, Mapping):
        return frozenset((frozen(k), frozen(v)) for k, v in value.items())
    if isinstance(value, list) or type(value) is tuple:
        return tuple(frozen(v) for v in value)
    if _by_value(value):
        return value  # type: ignore[no-any-return]
    state = getattr(value, "__dict__", None)
    if state is None:
        return repr(value)
    return (type(value), frozenset((k, frozen(v)) for k, v in state.items()))


def _by_value(value: Any) -> bool:
    """Whether ``value`` is hashable by its contents already: an enum, a frozen
    dataclass (a message), or a hashable value without attributes (a number, a string,
    a :class:`Candidate`)."""
    if isinstance(value, enum.Enum):
        return True
    params = getattr(type(value), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return True
    return isinstance(value, Hashable) and not hasattr(value, "__dict__")


class Election:
    """One election round at one node.

    Subclasses set ``name`` (the config's ``algorithm`` value), ``title``, ``messages``
    (their message classes) and ``timers`` (the names of the timers they set), and write
    :meth:`start`, ``on_<kind>(self, message, sender)`` for every message kind,
    ``on_<timer>_timeout(self)`` for every timer, and :meth:`bound`.  Both sets of
    handlers are checked when the class is made.

    The variables follow notes 000: :attr:`state` (undecided / leader / not_leader) and
    :attr:`elected` (``elected_i``: the winner's id, ``None`` for ⊥).  :attr:`epoch` is
    the number of the round; a new round is a new object.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    messages: ClassVar[tuple[type[Message], ...]]
    timers: ClassVar[tuple[str, ...]] = ()
    #: The config keys this algorithm reads (:meth:`setting`), each with its default in
    #: seconds: the only place these defaults are written.
    tunables: ClassVar[Mapping[str, float]] = {}
    #: What the algorithm needs to be safe beyond FIFO reliable links, said to the user
    #: when a run turns out unsafe (Bully: its timeouts must exceed every delay).
    assumption: ClassVar[str | None] = None
    _handlers: ClassVar[dict[str, Handler]]
    _timeouts: ClassVar[dict[str, Callable[[Any], None]]]
    _declared: ClassVar[tuple[tuple[str, Any], ...]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Every class with messages (its own or inherited) gets its handlers looked up
        # again: a subclass that overrides on_<kind> alone must have its own handler.
        if getattr(cls, "messages", None) is not None:
            handlers: dict[str, Handler] = {}
            for message in cls.messages:
                kind = message.kind
                if kind in RESERVED_KINDS or not kind.isidentifier():
                    raise TypeError(f"{cls.__name__}: {kind!r} cannot be a message kind")
                handler = getattr(cls, f"on_{kind}", None)
                if not callable(handler):
                    raise TypeError(f"{cls.__name__} has no handler on_{kind} for {kind!r}")
                handlers[kind] = handler
            cls._handlers = handlers
        if getattr(cls, "messages", None) is not None:
            timeouts: dict[str, Callable[[Any], None]] = {}
            for timer in cls.timers:
                handler = getattr(cls, f"on_{timer}_timeout", None)
                if not timer.isidentifier() or not callable(handler):
                    raise TypeError(f"{cls.__name__} has no handler on_{timer}_timeout")
                if f"{timer}_timeout" in cls._handlers:
                    raise TypeError(f"{cls.__name__}: on_{timer}_timeout also handles a message")
                timeouts[timer] = handler
            cls._timeouts = timeouts

    def __init__(
        self,
        node: NodeView,
        *,
        initiator: bool = False,
        epoch: int = 1,
        around: Around | None = None,
        outbox: list[Action] | None = None,
    ) -> None:
        self.node = node
        self.id = node.id
        self.me = node.candidate
        self.initiator = initiator
        self.epoch = epoch
        self.around: Around = around if around is not None else Alone(node)
        self.started = False
        self.state = NodeState.UNDECIDED
        self.elected: int | None = None  # elected_i in the notes; None is ⊥
        self._outbox: list[Action] = [] if outbox is None else outbox
        self._pending: set[str] = set()  # timers set and not fired or cancelled
        # The notes' variables with a class default (Hirschberg–Sinclair's phase = 0 …),
        # each node's own from the start and in one order: set later, in the order its
        # messages came, they gave each election a dict of its own (832 bytes a node).
        for name, value in type(self)._defaults():
            if not hasattr(type(value), "__get__"):  # a subclass's property stays one
                setattr(self, name, value)

    @classmethod
    def kinds(cls) -> dict[str, type[Message]]:
        """Message kind name → class."""
        return {m.kind: m for m in cls.messages}

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        """The notes' message count for this arrangement and initiator set."""
        raise NotImplementedError

    # -- for hosts: step, then collect the actions ------------------------------------

    def handle_start(self) -> list[Action]:
        """This node initiates the election (once; later calls send nothing)."""
        self.initiate()
        return self.flush()

    def handle_message(self, sender: int, message: Message) -> list[Action]:
        """Handle ``message`` from node ``sender``."""
        self.receive(sender, message)
        return self.flush()

    def handle_timer(self, name: str) -> list[Action]:
        """Timer ``name``, set by this election and not cancelled since, fired."""
        self.timeout(name)
        return self.flush()

    def receive(self, sender: int, message: Message) -> None:
        """Handle ``message``; its actions wait in the outbox.

        Determinism rule: a node listed as initiator sends its own election message
        before it handles any message it receives, so message counts do not depend on
        whether its start or a neighbour's message happened to arrive first.
        """
        if self.initiator and not self.started:
            self.started = True
            self.start()
        self._handlers[message.kind](self, message, sender)

    def timeout(self, name: str) -> None:
        """Run ``on_<name>_timeout``; its actions wait in the outbox."""
        self._pending.discard(name)
        self._timeouts[name](self)

    def cancel_timers(self) -> None:
        """Cancel every timer this election set (its round is over)."""
        for name in sorted(self._pending):
            self._outbox.append(CancelTimer(name))
        self._pending.clear()

    def flush(self) -> list[Action]:
        out = self._outbox[:]
        self._outbox.clear()
        return out

    def key(self) -> Hashable:
        """This round's state at this node as a hashable value: two elections of one node
        with equal keys behave alike from now on.  The explorer (``ringleader explore``)
        tells states apart by it.

        The default takes every instance attribute but the node's place and plumbing
        (``node``, ``id``, ``me``, ``around``, the outbox), sets and lists by their
        contents, and leaves out an attribute still equal to its class's default (so that
        ``participant = False`` set again is the state it was).  Override it only if the
        election keeps state elsewhere than in its attributes.
        """
        cls = type(self)
        items = []
        for name, value in self.__dict__.items():
            if name in _NOT_STATE:
                continue
            if name in cls.__dict__ or hasattr(cls, name):
                default = getattr(cls, name)
                if not callable(default) and type(default) is type(value) and default == value:
                    continue
            items.append((name, frozen(value)))
        items.sort(key=lambda item: item[0])
        return tuple(items)

    def variables(self) -> dict[str, Any]:
        """The notes' variables of this round at this node, by name: Chang–Roberts'
        ``participant``, Hirschberg–Sinclair's ``phase``, the echo's ``parent`` … — what
        a trace's ``state`` event carries (``vars``), so that a replay tells the run
        from them rather than guessing.  Read only when the run is traced.

        The default takes the public attributes the election sets (on itself, or as a
        class default such as ``participant = False``), but ``state``, ``elected`` and
        ``epoch`` (the event has them), ``initiator``, ``started`` and the node's place
        and plumbing.  Override it to show the variables another way.
        """
        names = dict.fromkeys(name for name, _ in type(self)._defaults())
        names.update(dict.fromkeys(n for n in self.__dict__ if not n.startswith("_")))
        return {n: getattr(self, n) for n in names if n not in _NOT_VARIABLES}

    @classmethod
    def _defaults(cls) -> tuple[tuple[str, Any], ...]:
        """The variables this election declares with a class default (``participant =
        False``), base classes' first, with their defaults; looked up once a class."""
        found = cls.__dict__.get("_declared")
        if found is not None:
            return found  # type: ignore[no-any-return]
        names: dict[str, None] = {}
        for klass in reversed(cls.__mro__):
            if not issubclass(klass, Election) or klass is Election:
                continue
            for name, value in vars(klass).items():
                if (
                    name.startswith("_")
                    or name in _BASE_NAMES
                    or callable(value)
                    or isinstance(value, classmethod | staticmethod | property)
                ):
                    continue
                names[name] = None
        declared = tuple((name, getattr(cls, name)) for name in names)
        cls._declared = declared
        return declared

    # -- for what runs it: the round's few changes that come from outside a slide -------
    #
    # Only an election changes its own state.  Whatever composes it with crash handling
    # (a Member) asks for these; their actions wait in the outbox like a handler's.

    def initiate(self) -> None:
        """This node initiates the election (once; later calls send nothing)."""
        self.initiator = True
        self.ensure_started()

    def retry(self) -> None:
        """A node this round counts on is now suspected to have crashed: do again what
        may have been lost with it.  The default does nothing; Bully asks the higher
        nodes again, a ring node sends its ``elected`` announcement again across the
        repaired link."""

    def fenced(self, sender: int, message: Message, epoch: int) -> None:
        """``message`` of an older round, ``epoch``, reached this node: it is fenced off,
        not handled.  The default says nothing back; an algorithm whose notes answer a
        message whatever round it comes from answers here, in this round (Bully rejects
        a lower node's ``election``: a higher process is alive, in any round)."""

    def step_down(self) -> None:
        """Stop leading (or following): undecided again in this round, its timers
        cancelled (the lease ran out, the node paused, or it resigned)."""
        self.cancel_timers()
        self.state = NodeState.UNDECIDED
        self.elected = None

    def follow(self, leader: int) -> None:
        """Take ``leader`` as this round's leader without having taken part in it (its
        heartbeat said so: this node missed the round)."""
        self.decide(self.node.neighbour(leader))

    # -- for subclasses ---------------------------------------------------------------

    def start(self) -> None:
        """Begin this node's own election run."""
        raise NotImplementedError

    def ensure_started(self) -> None:
        """Run :meth:`start` unless this node has already started its own run."""
        if not self.started:
            self.started = True
            self.start()

    def send(self, to: int, message: Message) -> None:
        self._outbox.append(_send(Send, (to, message, self.epoch)))

    def set_timer(self, name: str, delay: float) -> None:
        """Call ``on_<name>_timeout`` in ``delay`` s (replacing a pending ``name``)."""
        self._pending.add(name)
        self._outbox.append(SetTimer(name, delay))

    def cancel_timer(self, name: str) -> None:
        if name in self._pending:
            self._pending.discard(name)
            self._outbox.append(CancelTimer(name))

    def setting(self, name: str, default: float | None = None) -> float:
        """A tunable from the config (``node.settings``), else ``default``, else its
        default in :attr:`tunables`."""
        return self.node.setting(name, self.tunables[name] if default is None else default)

    def decide(self, leader: Candidate) -> None:
        """Set ``elected`` and become leader or not-leader."""
        self.elected = leader.id
        self.state = NodeState.LEADER if leader == self.me else NodeState.NOT_LEADER

    @property
    def suspected(self) -> Set[int]:
        """The nodes suspected to have crashed (none, unless crash handling is on)."""
        return self.around.suspected

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"<{name} node {self.id} epoch {self.epoch} {self.state} elected={self.elected}>"


#: The class attributes every election has (its description, not its variables).
_BASE_NAMES = frozenset(
    n for n in [*vars(Election), *Election.__annotations__] if not n.startswith("_")
)
