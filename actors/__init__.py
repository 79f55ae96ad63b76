"""Election algorithms, sans-IO: messages in, actions out; and the simulator that runs them.

- :class:`Election` is the base of every algorithm: messages in, messages to send out,
  state ``undecided`` / ``leader`` / ``not_leader`` and ``elected`` as in the notes.
- :class:`LeLann` and :class:`ChangRoberts` elect on a ring, :class:`HirschbergSinclair`
  on a two-way ring, :class:`TreeElection` on a spanning tree, :class:`Echo` on any graph,
  :class:`Bully` and :class:`BullyBroadcast` on a full mesh.
- :func:`simulate` runs algorithms without threads or sockets, deterministically.
- :data:`ALGORITHMS` maps the config's ``algorithm`` names to classes.

Everything here needs the standard library alone.  The Pykka actor that hosts an
election on a :mod:`transport` network is :mod:`actors.host`.
"""

import logging

from ._actions import Action, CancelTimer, Notice, Send, SetTimer
from ._bound import Bound, Graph
from ._bully import Bully, BullyBroadcast
from ._chang_roberts import ChangRoberts, Elected, ElectionMessage
from ._detector import DETECTOR_KINDS
from ._echo import Echo, TreeElection
from ._election import Election, NodeState
from ._hirschberg_sinclair import HirschbergSinclair
from ._lelann import Elect, LeLann
from ._message import Message
from ._safety import SafetyChecker, Violation
from ._simulator import Fault, SimulationResult, simulate
from ._view import Candidate, NodeView

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
    "DETECTOR_KINDS",
    "Action",
    "Bound",
    "Bully",
    "BullyBroadcast",
    "CancelTimer",
    "Candidate",
    "ChangRoberts",
    "Echo",
    "Elect",
    "Elected",
    "Election",
    "ElectionMessage",
    "Fault",
    "Graph",
    "HirschbergSinclair",
    "LeLann",
    "Message",
    "NodeState",
    "NodeView",
    "Notice",
    "SafetyChecker",
    "Send",
    "SetTimer",
    "SimulationResult",
    "TreeElection",
    "Violation",
    "simulate",
]
