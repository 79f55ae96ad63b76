"""Every ordering of a service's run, checked: the rules ``ringleader node`` runs.

The notes' explorer (:mod:`ringleader.actors.exploration`) runs the notes' elections; this
one runs members as a service node does — the failure detector, the steady rules, the
lease on each node's clock, the state file and restarts — through every reachable state,
with clocks that tick and may drift and faults that strike at any moment, and checks the
service's guarantees in each (``_checks.py``).

- ``_timing.py``: ticks, timers and drift (:class:`Timing`);
- ``_numbering.py``: heartbeats and attempts in flight, counted back from their owner's;
- ``_nodes.py``: one node's states and memoised moves;
- ``_options.py``: the faults (:class:`ServiceOptions`);
- ``_model.py``: :class:`ServiceModel`, the global state and every step;
- ``_checks.py``: what is checked (:data:`CHECKS`), :class:`Finding`;
- ``_search.py``: :func:`search`, breadth-first, then progress;
- ``_lean.py``: the same search lean (``search(lean=True)``): fingerprints seen, the
  frontier on disk, no graph (no progress check);
- ``_walks.py``: :func:`walk`, seeded random runs, for what is too deep or wide;
- ``_replay.py``: a path found, run again into a trace (:func:`service_records`);
- ``_changes.py``: membership changes explored (:class:`ChangesModel`,
  :func:`explore_changes`): the core's :class:`~ringleader.actors.crashes.Membership`
  with the lease abstracted as promises, checked for two leases and the token going
  back across changes.
"""

from ._changes import ChangesExploration, ChangesModel, explore_changes
from ._checks import CHECKS, GUARANTEES, Finding
from ._model import DOWN, FAULT_EVENTS, ServiceModel, Unsettled
from ._options import FAULTS, ServiceOptions
from ._replay import service_records
from ._search import ServiceExploration, search
from ._timing import FOREVER, Timing, default_drift, default_tick
from ._walks import WalkResult, walk

__all__ = [
    "CHECKS",
    "DOWN",
    "FAULTS",
    "FAULT_EVENTS",
    "FOREVER",
    "GUARANTEES",
    "ChangesExploration",
    "ChangesModel",
    "Finding",
    "ServiceExploration",
    "ServiceModel",
    "ServiceOptions",
    "Timing",
    "Unsettled",
    "WalkResult",
    "default_drift",
    "default_tick",
    "explore_changes",
    "search",
    "service_records",
    "walk",
]
