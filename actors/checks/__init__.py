"""The checks: what a run must never do, and what must hold when it is over — one
meaning, written once, for every mode.

The explorer asks them of every state it reaches, the simulator and the hosts (threads,
processes) of every state a run passes through (each state change makes a new one):

- :func:`co_leaders` / :func:`two_leaders`: at most one leader per epoch — two live
  nodes leading one epoch at once break it (``two_leaders``);
- :func:`end_verdicts`: once a run is over, each on its own — every live node decided
  (``undecided``), they name one leader in one round, which says it leads
  (``disagreement``), it is alive (``crashed_leader``), and it is the one the notes elect
  (``wrong_leader``) — passed, failed, not checked (why) or out of scope;
  :func:`end_check`, the first that fails;
- :func:`agreement`: when a cluster has a leader (every host and report asks it);
- :class:`SafetyChecker`: a run's states, one state change at a time, through the
  checks above, plus what only a run's history shows (an epoch reused, an older epoch or
  an older life acting); each broken check is a :class:`Violation`, with its moment,
  its nodes and its epoch.
"""

from ._agreement import Stance, agreement
from ._checker import SafetyChecker, Violation
from ._end import (
    FAILED,
    NOT_CHECKED,
    OUT_OF_SCOPE,
    PASSED,
    EndFinding,
    end_check,
    end_verdicts,
)
from ._leaders import co_leaders, leaders_words, two_leaders

__all__ = [
    "FAILED",
    "NOT_CHECKED",
    "OUT_OF_SCOPE",
    "PASSED",
    "EndFinding",
    "SafetyChecker",
    "Stance",
    "Violation",
    "agreement",
    "co_leaders",
    "end_check",
    "end_verdicts",
    "leaders_words",
    "two_leaders",
]
