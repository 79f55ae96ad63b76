"""Running elections without threads or sockets: the simulator.

:func:`simulate` runs :class:`~ringleader.actors.Member` objects — the very ones the node
actors host — deterministically in virtual time; the
:class:`~ringleader.actors.checks.SafetyChecker` watches every state the run passes
through (for two leaders in one epoch and the like).
"""

from ringleader.actors.checks import SafetyChecker, Violation

from ._simulator import Fault, SimulationResult, simulate

__all__ = ["Fault", "SafetyChecker", "SimulationResult", "Violation", "simulate"]
