"""Election algorithms (sans-IO) and the Pykka actor that hosts them.

- :class:`Election` is the base of every algorithm: messages in, messages to send out,
  state ``undecided`` / ``leader`` / ``not_leader`` and ``elected`` as in the notes.
- :class:`LeLann` and :class:`ChangRoberts` elect on a unidirectional ring.
- :class:`NodeActor` runs one algorithm over a :mod:`transport` network.
- :func:`simulate` runs algorithms without threads or sockets, deterministically.
- :data:`ALGORITHMS` maps the config's ``algorithm`` names to classes.
"""

import logging

from ._chang_roberts import ChangRoberts, Elected, ElectionMessage
from ._election import Bound, Candidate, Election, Graph, Message, NodeState, NodeView, Send
from ._lelann import Elect, LeLann
from ._node import Connect, GetStatus, Listen, NodeActor, NodeEvent, NodeStatus, Start
from ._simulator import SimulationResult, simulate

logging.getLogger(__name__).addHandler(logging.NullHandler())

#: Every algorithm by its config name.
ALGORITHMS: dict[str, type[Election]] = {cls.name: cls for cls in (ChangRoberts, LeLann)}

__all__ = [
    "ALGORITHMS",
    "Bound",
    "Candidate",
    "ChangRoberts",
    "Connect",
    "Elect",
    "Elected",
    "Election",
    "ElectionMessage",
    "GetStatus",
    "Graph",
    "LeLann",
    "Listen",
    "Message",
    "NodeActor",
    "NodeEvent",
    "NodeState",
    "NodeStatus",
    "NodeView",
    "Send",
    "SimulationResult",
    "Start",
    "simulate",
]
