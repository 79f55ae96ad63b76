"""Election algorithms, sans-IO: messages in, actions out; and the simulator that runs them.

Everything here needs the standard library alone; the Pykka actor that hosts a member on
a :mod:`ringleader.transport` network is :mod:`ringleader.actors.host`.  The packages:

- :mod:`~ringleader.actors.core` — :class:`Election`, one round at one node as a slide
  of the notes tells it (state, ``elected``, one handler per message kind), what it
  returns (:class:`Send`, :class:`SetTimer`, :class:`CancelTimer`, :class:`Notice`),
  :class:`NodeView` and :class:`Bound`;
- :mod:`~ringleader.actors.checks` — the checks every mode runs, with one meaning
  (at most one leader per epoch, the end-state checks, :func:`agreement`) and the
  :class:`SafetyChecker` that runs them over a run's states;
- :mod:`~ringleader.actors.algorithms` — the notes' seven algorithms, :data:`ALGORITHMS`
  by config name and the crash policy each lives with (:func:`crash_policy`);
- :mod:`~ringleader.actors.crashes` — :class:`Member`, an election composed with the
  parts that survive crashes (failure detector, epochs, recovery, lease,
  :class:`CrashPolicy`);
- :mod:`~ringleader.actors.simulation` — :func:`simulate`;
- :mod:`~ringleader.actors.faults` — a network that misbehaves on purpose (the
  ``[[faults]]`` entries: partition, loss, delay, duplicate, reorder, pause);
- :mod:`~ringleader.actors.exploration` — ``ringleader explore``: every ordering of a run,
  checked (:func:`~ringleader.actors.exploration.explore`);
- :mod:`~ringleader.actors.tracing` — :class:`NodeTrace` and the trace format.
"""

import logging

from .algorithms import (
    ALGORITHMS,
    CRASH_POLICIES,
    Bully,
    BullyBroadcast,
    ChangRoberts,
    Echo,
    Elect,
    Elected,
    ElectionMessage,
    HirschbergSinclair,
    LeLann,
    RingElection,
    TreeElection,
    crash_policy,
)
from .checks import SafetyChecker, Violation, agreement
from .core import (
    Action,
    Around,
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
)
from .crashes import (
    DETECTOR_DEFAULTS,
    DETECTOR_KINDS,
    PROOF_OF_DEATH,
    BullyCrashes,
    CrashPolicy,
    DetectorSettings,
    Intent,
    Lease,
    LeaseSettings,
    Member,
    NewRound,
    Retry,
    RingRepair,
    Situation,
    proclaim_in_own_round,
)
from .simulation import Fault, SimulationResult, simulate
from .tracing import (
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

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "ALGORITHMS",
    "CRASH_POLICIES",
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
    "Intent",
    "LeLann",
    "Lease",
    "LeaseSettings",
    "Member",
    "Message",
    "NewRound",
    "NodeState",
    "NodeTrace",
    "NodeView",
    "Notice",
    "Record",
    "Retry",
    "RingElection",
    "RingRepair",
    "SafetyChecker",
    "Send",
    "SetTimer",
    "SimulationResult",
    "Situation",
    "TraceClock",
    "TraceWriter",
    "TreeElection",
    "Violation",
    "agreement",
    "crash_policy",
    "merge_parts",
    "merge_runs",
    "proclaim_in_own_round",
    "read_trace",
    "simulate",
    "trace_events",
    "write_trace",
]
