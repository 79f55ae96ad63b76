"""The configuration's schema: every key a config may hold, its default and its limits.

The single source of these values outside the election classes: the validator checks
against them, :class:`~ringleader.topologies.Config` defaults to them, and the supervisor falls back
on :data:`DETECTOR_DEFAULTS` as the nodes do.
"""

from __future__ import annotations

from ringleader.actors import ALGORITHMS
from ringleader.actors import DETECTOR_DEFAULTS as DETECTOR
from ringleader.transport import TRANSPORTS

__all__ = [
    "ALGORITHM_DEFAULTS",
    "DEFAULT_NODES",
    "DEFAULT_TIMEOUT",
    "DETECTOR_DEFAULTS",
    "FAULT_AFTER",
    "FAULT_KEYS",
    "FLAGS",
    "KEYS",
    "MAX_ID",
    "MAX_SETTING",
    "MODES",
    "NODE_KEYS",
    "SECURITY",
    "TRANSPORT_NAMES",
]

#: The top-level keys.
KEYS = (
    "topology",
    "algorithm",
    "transport",
    "initiators",
    "timeout",
    "secret_file",
    "watch_secret_file",
    "nodes",
    "edges",
    "election_timeout",
    "coordinator_timeout",
    "heartbeat",
    "suspect_after",
    "reelect_after",
    "lease",
    "quorum",
    "preempt",
    "fast_failover",
    "mode",
    "run_for",
    "faults",
    "cluster",
    "security",
    "keys",
    "pickle_messages",
    "state_dir",
)
#: The keys of one ``[[nodes]]`` table, and of one ``[[faults]]`` table.
NODE_KEYS = ("id", "capacity", "address", "advertise", "parent", "suspect_after", "spare")
FAULT_KEYS = ("at", "crash", "restart_after", "after")
#: What a fault's ``at`` counts from: the first leader (default), or the run's start.
FAULT_AFTER = ("leader", "start")
#: The top-level keys the command line can override, and the option that does.
FLAGS = {
    "topology": "--topology",
    "algorithm": "--algorithm",
    "transport": "--transport",
    "initiators": "--initiators",
    "timeout": "--timeout",
    "nodes": "--nodes",
    "mode": "--mode",
    "run_for": "--run-for",
}

TRANSPORT_NAMES = TRANSPORTS
MODES = ("threads", "processes")
SECURITY = ("hmac", "curve")
DEFAULT_NODES = 8
DEFAULT_TIMEOUT = 30.0
#: Algorithm tunables: config key → default, in seconds, as the algorithms declare them
#: (``Election.tunables``: Bully's T and T′).
ALGORITHM_DEFAULTS = {
    key: default for cls in ALGORITHMS.values() for key, default in cls.tunables.items()
}
#: The failure detector's, used when a run goes on after its first election: the nodes'
#: own defaults (``ringleader.actors.DETECTOR_DEFAULTS``), as config keys.
DETECTOR_DEFAULTS = {
    "heartbeat": DETECTOR.heartbeat,
    "suspect_after": DETECTOR.suspect_after,
    "reelect_after": DETECTOR.reelect_after,
}
#: The longest any setting in seconds may be: a day.
MAX_SETTING = 86_400.0
#: Node ids are 64-bit, above -2**63 (the operator's id).
MAX_ID = 2**63
