"""Running elections without threads or sockets: the simulator and the safety checker.

:func:`simulate` runs :class:`~ringleader.actors.Member` objects — the very ones the node
actors host — deterministically in virtual time; :class:`SafetyChecker` watches a run
(any host's) for two leaders in one epoch and the like.
"""

from ._safety import SafetyChecker, Violation
from ._simulator import Fault, SimulationResult, simulate

__all__ = ["Fault", "SafetyChecker", "SimulationResult", "Violation", "simulate"]
