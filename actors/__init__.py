"""Election algorithms (sans-IO) and the Pykka actor that hosts them.

- :class:`Election` is the base of every algorithm: messages in, messages to send out,
  state ``undecided`` / ``leader`` / ``not_leader`` and ``elected`` as in the notes.
- :class:`LeLann` and :class:`ChangRoberts` elect on a ring, :class:`HirschbergSinclair`
  on a two-way ring, :class:`TreeElection` on a spanning tree, :class:`Echo` on any graph,
  :class:`Bully` and :class:`BullyBroadcast` on a full mesh.
- :class:`NodeActor` runs one algorithm over a :mod:`transport` network.
- :func:`simulate` runs algorithms without threads or sockets, deterministically.
- :data:`ALGORITHMS` maps the config's ``algorithm`` names to classes.
"""

import logging

from ._bully import Bully, BullyBroadcast
from ._chang_roberts import ChangRoberts, Elected, ElectionMessage
from ._echo import Echo, TreeElection
from ._election import (
    OPERATOR,
    Action,
    Bound,
    CancelTimer,
    Candidate,
    Election,
    Graph,
    Message,
    NodeState,
    NodeView,
    Notice,
    Send,
    SetTimer,
    StatusAnswer,
    StatusQuery,
)
from ._hirschberg_sinclair import HirschbergSinclair
from ._lelann import Elect, LeLann
from ._node import (
    Boot,
    Connect,
    Crash,
    GetStatus,
    Listen,
    NodeActor,
    NodeEvent,
    NodeStatus,
    Start,
)
from ._safety import SafetyChecker, Violation
from ._simulator import Fault, SimulationResult, simulate

logging.getLogger(__name__).addHandler(logging.NullHandler())

#: Every algorithm by its config name.
ALGORITHMS: dict[str, type[Election]] = {
    cls.name: cls
    for cls in (
        ChangRoberts,
        LeLann,
        HirschbergSinclair,
        TreeElection,
        Echo,
        Bully,
        BullyBroadcast,
    )
}

__all__ = [
    "ALGORITHMS",
    "OPERATOR",
    "Action",
    "Boot",
    "Bound",
    "Bully",
    "BullyBroadcast",
    "CancelTimer",
    "Candidate",
    "ChangRoberts",
    "Connect",
    "Crash",
    "Echo",
    "Elect",
    "Elected",
    "Election",
    "ElectionMessage",
    "Fault",
    "GetStatus",
    "Graph",
    "HirschbergSinclair",
    "LeLann",
    "Listen",
    "Message",
    "NodeActor",
    "NodeEvent",
    "NodeState",
    "NodeStatus",
    "NodeView",
    "Notice",
    "SafetyChecker",
    "Send",
    "SetTimer",
    "SimulationResult",
    "Start",
    "StatusAnswer",
    "StatusQuery",
    "TreeElection",
    "Violation",
    "simulate",
]
