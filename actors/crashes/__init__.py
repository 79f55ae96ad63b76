"""Living with crashes: a :class:`Member` is an election composed with the parts that
survive them.

- :class:`Member` is what a host runs for one node: the election of the current round,
  side by side with the failure detector (:class:`DetectorSettings`; ``ping``/``pong``),
  the epochs that fence old rounds, recovery after a restart, the leader's
  :class:`Lease` and the algorithm's :class:`CrashPolicy`.
- A :class:`CrashPolicy` sees a node through a narrow :class:`Situation` and answers with
  values or an intent (:class:`NewRound`, :class:`Retry`); :class:`RingRepair` (notes
  002's repaired ring) and :class:`BullyCrashes` (Bully's watch and proclamation rule)
  are the algorithms' own.  Which algorithm has which policy is declared with the
  algorithms (:data:`ringleader.actors.CRASH_POLICIES`).
- :class:`Membership` keeps the cluster's :class:`Configuration` (its voters and
  learners, versioned) and changes it one member at a time (``_membership.py``).
- The service modes add the steady rules (:class:`SteadySettings`, ``_steady.py``): a
  pre-vote before any round (:class:`PreVote`), no round against a live leader, the
  hand-over (:class:`HandOver`), and heartbeats from the leader only.
"""

from ._bully_crashes import BullyCrashes, proclaim_in_own_round
from ._configuration import Configuration, ConfigurationError
from ._crash_policy import CrashPolicy, Intent, NewRound, Retry, Situation
from ._detector import (
    DETECTOR_DEFAULTS,
    DETECTOR_KINDS,
    DETECTOR_MESSAGES,
    HEARTBEAT,
    SUSPECT,
    DetectorSettings,
    Ping,
    Pong,
)
from ._handover import HandOver, HandOverRequest
from ._lease import Lease, LeaseSettings
from ._member import PROOF_OF_DEATH, Member
from ._membership import (
    CATCH_UP,
    Acknowledged,
    Add,
    Changed,
    Committed,
    Follow,
    HandOverFirst,
    Heard,
    Keep,
    Lead,
    Membership,
    MembershipAction,
    MembershipEvent,
    Refused,
    Remove,
    Retired,
    Told,
)
from ._moments import SAME_MOMENT, after, reached
from ._prevote import ANY_ATTEMPT, PreVote, PreVoteReply
from ._ring_repair import RingRepair
from ._steady import STEADY_KINDS, STEADY_MESSAGES, SteadySettings

__all__ = [
    "ANY_ATTEMPT",
    "CATCH_UP",
    "DETECTOR_DEFAULTS",
    "DETECTOR_KINDS",
    "DETECTOR_MESSAGES",
    "HEARTBEAT",
    "PROOF_OF_DEATH",
    "SAME_MOMENT",
    "STEADY_KINDS",
    "STEADY_MESSAGES",
    "SUSPECT",
    "Acknowledged",
    "Add",
    "BullyCrashes",
    "Changed",
    "Committed",
    "Configuration",
    "ConfigurationError",
    "CrashPolicy",
    "DetectorSettings",
    "Follow",
    "HandOver",
    "HandOverFirst",
    "HandOverRequest",
    "Heard",
    "Intent",
    "Keep",
    "Lead",
    "Lease",
    "LeaseSettings",
    "Member",
    "Membership",
    "MembershipAction",
    "MembershipEvent",
    "NewRound",
    "Ping",
    "Pong",
    "PreVote",
    "PreVoteReply",
    "Refused",
    "Remove",
    "Retired",
    "Retry",
    "RingRepair",
    "Situation",
    "SteadySettings",
    "Told",
    "after",
    "proclaim_in_own_round",
    "reached",
]
