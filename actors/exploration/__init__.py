"""Every ordering, explored: a model checker for the very same elections.

The notes' claims are about *all* the orderings: Chang–Roberts' worst case is one order
of deliveries, Bully is safe only if every answer comes within T.  :func:`explore` runs
the :class:`~ringleader.actors.Member` objects that real runs and the simulator host
through every reachable state of a run — every moment each initiator wakes up, every
order in which the messages in flight are delivered (FIFO per link unless
:class:`Options` lifts it), every moment a timer may fire, and, when asked, crashes,
lost and duplicated messages, partitions and pauses — and checks each state.

- ``_options.py``: :class:`Options`, what may happen besides the orderings;
- ``_nodes.py``, ``_channels.py``, ``_clocks.py``: one node's states, a link's contents
  and a node's pending timers with their time left, numbered, with memoised moves (the
  canonical state is a tuple of small integers);
- ``_model.py``: :class:`Model`, the global state and every step enabled in it;
- ``_checks.py``: what is checked (:data:`KINDS`), :class:`Finding`, and what became of
  each check (:class:`Verdict`: passed, failed, or not checked and why);
- ``_graph.py``: the explored graph and the fewest and most messages to each state;
- ``_fingerprints.py``: the states seen as 64-bit fingerprints (``fingerprint``,
  ``Seen``) and the odds that two shared one;
- ``_frontier.py``: the states still to explore, packed, spilled to disk past a bound;
- ``_runs.py``: a :class:`Path` found, and the complete runs' fewest and most messages;
- ``_lean.py``: the lean search (fingerprints, the counts carried level by level);
- ``_search.py``: :func:`explore`, breadth-first, exact or lean, and its
  :class:`Exploration`;
- ``_sealing.py``, ``_share.py``, ``_parts.py``, ``_workers.py``: the lean search
  shared out to several workers, a level at a time, the same result as one: by the
  states' hash, each worker owning its part of the seen-set (:func:`explore_parts`,
  :class:`Processes`; Ray's machines);
- ``_slices.py``: by slices of each level in number order, each worker holding the
  whole seen-set (:func:`explore_slices`, :class:`SliceProcesses`; one machine's
  processes);
- ``_replay.py``: a path found, run again step by step into a trace (:func:`records`).

Standard library only, like the rest of :mod:`ringleader.actors`.
"""

from ._checks import (
    CHECK_WORDS,
    FAILED,
    KINDS,
    NOT_CHECKED,
    OUT_OF_SCOPE,
    PASSED,
    Finding,
    Verdict,
    end_check,
    end_verdicts,
    leaders_clash,
)
from ._graph import Graph
from ._model import Model, NewLink
from ._nodes import CRASHED
from ._options import START_RULES, TIMER_RULES, Options
from ._parts import Part
from ._replay import records
from ._search import Exploration, Path, explore
from ._slices import Slice, SliceProcesses, explore_slices
from ._workers import Pool, PoolMaker, Processes, WorkerFailed, explore_parts

__all__ = [
    "CHECK_WORDS",
    "CRASHED",
    "FAILED",
    "KINDS",
    "NOT_CHECKED",
    "OUT_OF_SCOPE",
    "PASSED",
    "START_RULES",
    "TIMER_RULES",
    "Exploration",
    "Finding",
    "Graph",
    "Model",
    "NewLink",
    "Options",
    "Part",
    "Path",
    "Pool",
    "PoolMaker",
    "Processes",
    "Slice",
    "SliceProcesses",
    "Verdict",
    "WorkerFailed",
    "end_check",
    "end_verdicts",
    "explore",
    "explore_parts",
    "explore_slices",
    "leaders_clash",
    "records",
]
