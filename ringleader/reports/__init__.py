"""What a run reports: :class:`Report` (what ``ringleader run`` prints, and its
``--json``), its nodes, election rounds and faults; :class:`FailoverMetrics` (each round's
and each fault's times) and :func:`supervised_report` (a supervised run's report)."""

from ._failover import FailoverMetrics
from ._report import ElectionReport, FaultReport, NodeReport, Report
from ._run_report import supervised_report

__all__ = [
    "ElectionReport",
    "FailoverMetrics",
    "FaultReport",
    "NodeReport",
    "Report",
    "supervised_report",
]
