"""Election algorithms, sans-IO: messages in, actions out; and the simulator that runs them.

- :class:`Election` is one election round at one node, as a slide of the notes tells it:
  state ``undecided`` / ``leader`` / ``not_leader``, ``elected``, one handler per message
  kind; it returns what to send and which timers to set (:class:`Send`,
  :class:`SetTimer`, :class:`CancelTimer`).
- :class:`LeLann` and :class:`ChangRoberts` elect on a ring, :class:`HirschbergSinclair`
  on a two-way ring, :class:`TreeElection` on a spanning tree, :class:`Echo` on any graph,
  :class:`Bully` and :class:`BullyBroadcast` on a full mesh.
- :class:`Member` is what a host runs for one node: the election of the current round,
  composed with the parts that survive crashes — the failure detector, epochs that fence
  old rounds, recovery after a restart and the algorithm's :class:`CrashPolicy` (ring
  repair, Bully's proclamation rule).
- :func:`simulate` runs members without threads or sockets, deterministically;
  :class:`SafetyChecker` watches a run for two leaders in one epoch and the like.
- :class:`NodeTrace` records a node's events as they happen; :func:`write_trace` writes
  a run's as JSON lines with Lamport and vector clocks (``_trace.py`` has the format).
- :data:`ALGORITHMS` maps the config's ``algorithm`` names to classes.

Everything here needs the standard library alone.  The Pykka actor that hosts a member
on a :mod:`transport` network is :mod:`actors.host`.
"""

import logging

from ._actions import Action, CancelTimer, Notice, Send, SetTimer
from ._bound import Bound, Graph
from ._bully import Bully
from ._bully_broadcast import BullyBroadcast
from ._bully_crashes import BullyCrashes, proclaim_in_own_round
from ._chang_roberts import ChangRoberts, ElectionMessage
from ._crash_policy import CrashPolicy
from ._detector import DETECTOR_DEFAULTS, DETECTOR_KINDS, DetectorSettings
from ._echo import Echo
from ._election import Around, Election, NodeState
from ._hirschberg_sinclair import HirschbergSinclair
from ._lease import Lease, LeaseSettings
from ._lelann import Elect, LeLann
from ._member import PROOF_OF_DEATH, Member, crash_policy
from ._message import Message
from ._ring import Elected, RingElection
from ._ring_repair import RingRepair
from ._safety import SafetyChecker, Violation
from ._simulator import Fault, SimulationResult, simulate
from ._trace import (
    EVENTS,
    VECTOR_LIMIT,
    NodeTrace,
    Record,
    TraceClock,
    TraceWriter,
    merge_parts,
    merge_runs,
    read_trace,
    trace_events,
    write_trace,
)
from ._tree import TreeElection
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
    "DETECTOR_DEFAULTS",
    "DETECTOR_KINDS",
    "EVENTS",
    "PROOF_OF_DEATH",
    "VECTOR_LIMIT",
    "Action",
    "Around",
    "Bound",
    "Bully",
    "BullyBroadcast",
    "BullyCrashes",
    "CancelTimer",
    "Candidate",
    "ChangRoberts",
    "CrashPolicy",
    "DetectorSettings",
    "Echo",
    "Elect",
    "Elected",
    "Election",
    "ElectionMessage",
    "Fault",
    "Graph",
    "HirschbergSinclair",
    "LeLann",
    "Lease",
    "LeaseSettings",
    "Member",
    "Message",
    "NodeState",
    "NodeTrace",
    "NodeView",
    "Notice",
    "Record",
    "RingElection",
    "RingRepair",
    "SafetyChecker",
    "Send",
    "SetTimer",
    "SimulationResult",
    "TraceClock",
    "TraceWriter",
    "TreeElection",
    "Violation",
    "crash_policy",
    "merge_parts",
    "merge_runs",
    "proclaim_in_own_round",
    "read_trace",
    "simulate",
    "trace_events",
    "write_trace",
]
