"""What a run reports: :class:`Report` (what ``ringleader run`` prints, and its
``--json``), its nodes, election rounds and faults; :class:`FailoverMetrics` (each round's
and each fault's times), :func:`supervised_report` (a supervised run's report) and
:func:`setup_failed_report` (a run whose cluster could not be set up)."""

from ._failover import FailoverMetrics
from ._report import ElectionReport, FaultReport, NodeReport, Report
from ._run_report import setup_failed_report, supervised_report

__all__ = [
    "ElectionReport",
    "FailoverMetrics",
    "FaultReport",
    "NodeReport",
    "Report",
    "setup_failed_report",
    "supervised_report",
]
