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
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, Protocol

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
    "Send",
    "SetTimer",
]


class NodeState(enum.StrEnum):
    """The three states of the election problem (notes 000: nerozhodnutý / vůdce / není vůdce)."""

    UNDECIDED = "undecided"
    LEADER = "leader"
    NOT_LEADER = "not_leader"


class Candidate(NamedTuple):
    """The election criterion: the largest ``(capacity, id)`` wins.

    Ordering is the tuple's, so equal capacities go to the larger id and the order is
    strict (ids are unique), as notes 003 require of capacities.
    """

    capacity: float
    id: int


class Message:
    """Base of election messages: a frozen dataclass with a ``kind`` name from the notes.

    Define message classes in an importable module (not ``__main__``), with positional
    fields: they are pickled by reference as ``Class(*fields)``, which is smaller and
    about twice as quick to load as a frozen dataclass's default ``__setstate__``.
    """

    kind: ClassVar[str]
    __match_args__: ClassVar[tuple[str, ...]] = ()
    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), tuple([getattr(self, name) for name in self.__match_args__])


@dataclass(frozen=True, slots=True)
class Send:
    """One message to send to neighbour ``to``."""

    to: int
    message: Message


@dataclass(frozen=True, slots=True)
class SetTimer:
    """Fire ``name`` at this node after ``delay`` seconds (replacing a pending one)."""

    name: str
    delay: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    """Forget the pending timer ``name``, if any."""

    name: str


#: What a handler asks its host to do.
Action = Send | SetTimer | CancelTimer


@dataclass(frozen=True, slots=True)
class NodeView:
    """What one node knows of its place: itself and its neighbours, in topology order.

    ``capacities`` holds each out-neighbour's capacity (the config gives every node's),
    for algorithms such as Bully that address "every higher node".  ``settings`` holds
    the algorithm's tunables from the config (e.g. Bully's timeouts, in seconds).
    """

    id: int
    capacity: float
    out: tuple[int, ...]
    inbound: tuple[int, ...]
    capacities: Mapping[int, float] = field(default_factory=dict)
    settings: Mapping[str, float] = field(default_factory=dict)

    @property
    def candidate(self) -> Candidate:
        return Candidate(self.capacity, self.id)

    def neighbour(self, node: int) -> Candidate:
        """Neighbour ``node`` as a candidate."""
        return Candidate(self.capacities.get(node, node), node)


class Graph(Protocol):
    """Who talks to whom, as far as an algorithm's message-count formula cares."""

    @property
    def candidates(self) -> Sequence[Candidate]:
        """Every node, in the order the topology lists them (ring order on a ring)."""
        ...

    @property
    def out(self) -> Mapping[int, Sequence[int]]:
        """Each node's out-neighbours."""
        ...


@dataclass(frozen=True)
class Bound:
    """The notes' message count for a run: ``exact`` (it must be met) or an upper bound."""

    formula: str
    value: int
    exact: bool

    def holds(self, messages: int) -> bool:
        return messages == self.value if self.exact else messages <= self.value

    def as_dict(self) -> dict[str, Any]:
        return {"formula": self.formula, "value": self.value, "exact": self.exact}


Handler = Callable[[Any, Any, int], None]


class Election:
    """Base class of the sans-IO election algorithms.

    Subclasses set ``name`` (the config's ``algorithm`` value), ``title`` and
    ``messages`` (their message classes), implement :meth:`start` and one handler per
    message kind, ``def <kind>(self, message, sender) -> None``, and implement
    :meth:`bound` with the notes' message-count formula.

    The variables follow notes 000: ``state`` (undecided / leader / not_leader) and
    ``leader`` (the notes' ``elected_i``: the winner's id, ``None`` for ⊥; reports call
    it ``elected``).  It is not named ``elected`` so that it never collides with a
    handler for the notes' ``elected`` message.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    messages: ClassVar[tuple[type[Message], ...]]
    #: What the algorithm needs to be safe beyond FIFO reliable links, said to the user
    #: when a run turns out unsafe (Bully: its timeouts must exceed every delay).
    assumption: ClassVar[str | None] = None
    _handlers: ClassVar[dict[str, Handler]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "messages" not in cls.__dict__:
            return
        handlers: dict[str, Handler] = {}
        for message in cls.messages:
            handler = getattr(cls, message.kind, None)
            if not callable(handler):
                raise TypeError(f"{cls.__name__} has no handler for message kind {message.kind!r}")
            handlers[message.kind] = handler
        cls._handlers = handlers

    def __init__(self, node: NodeView, *, initiator: bool = False) -> None:
        self.node = node
        self.id = node.id
        self.me = node.candidate
        self.initiator = initiator
        self.started = False
        self.state = NodeState.UNDECIDED
        self.leader: int | None = None  # elected_i in the notes; None is ⊥
        self.epoch = 1
        self._outbox: list[Action] = []

    @classmethod
    def kinds(cls) -> dict[str, type[Message]]:
        """Message kind name → class, for the codec."""
        return {m.kind: m for m in cls.messages}

    @classmethod
    def bound(cls, graph: Graph, initiators: Collection[int]) -> Bound:
        """The notes' message count for this arrangement and initiator set."""
        raise NotImplementedError

    # -- entry points for hosts -------------------------------------------------------

    def handle_start(self) -> list[Action]:
        """This node initiates an election (once; later calls send nothing)."""
        self.ensure_started()
        return self._flush()

    def handle_timer(self, name: str) -> list[Action]:
        """Timer ``name``, set with :meth:`set_timer` and not cancelled since, fired."""
        handler = getattr(self, f"on_{name}_timeout")
        handler()
        return self._flush()

    def handle_message(self, sender: int, message: Message) -> list[Action]:
        """Handle ``message`` from neighbour ``sender``.

        Determinism rule: a node listed as initiator sends its own election message
        before it handles any message it receives, so message counts do not depend on
        whether its start or a neighbour's message happened to arrive first.
        """
        if self.initiator:
            self.ensure_started()
        self._handlers[message.kind](self, message, sender)
        return self._flush()

    # -- for subclasses ---------------------------------------------------------------

    def start(self) -> None:
        """Begin this node's own election run."""
        raise NotImplementedError

    def send(self, to: int, message: Message) -> None:
        self._outbox.append(Send(to, message))

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

    def ensure_started(self) -> None:
        """Run :meth:`start` unless this node has already started its own run."""
        if not self.started:
            self.started = True
            self.start()

    # -- internals ----------------------------------------------------------------------

    def _flush(self) -> list[Action]:
        out, self._outbox = self._outbox, []
        return out

    def __repr__(self) -> str:
        return f"<{type(self).__name__} node {self.id} {self.state} leader={self.leader}>"
