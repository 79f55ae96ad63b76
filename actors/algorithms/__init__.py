"""The notes' election algorithms, one module each, and the registry of them.

:class:`LeLann` and :class:`ChangRoberts` elect on a one-way ring, :class:`HirschbergSinclair`
on a two-way ring (all :class:`RingElection`\\ s), :class:`TreeElection` on a spanning tree,
:class:`Echo` on any graph, :class:`Bully` and :class:`BullyBroadcast` on a full mesh.

:data:`ALGORITHMS` maps the config's ``algorithm`` names to the classes;
:data:`CRASH_POLICIES` says which crash policy each family lives with, and
:func:`crash_policy` finds an algorithm's.  A new algorithm is one new module here plus
its line in each table.
"""

from ringleader.actors.core import Election
from ringleader.actors.crashes import BullyCrashes, CrashPolicy, RingRepair

from ._bully import Bully, Coordinator, ElectionCall, OkAnswer
from ._bully_broadcast import BullyBroadcast
from ._chang_roberts import ChangRoberts, ElectionMessage
from ._echo import Echo
from ._hirschberg_sinclair import HirschbergSinclair
from ._lelann import Elect, LeLann
from ._ring import Elected, RingElection
from ._tree import TreeElection

__all__ = [
    "ALGORITHMS",
    "CRASH_POLICIES",
    "Bully",
    "BullyBroadcast",
    "ChangRoberts",
    "Coordinator",
    "Echo",
    "Elect",
    "Elected",
    "ElectionCall",
    "ElectionMessage",
    "HirschbergSinclair",
    "LeLann",
    "OkAnswer",
    "RingElection",
    "TreeElection",
    "crash_policy",
]

#: Every algorithm by its config name.
ALGORITHMS: dict[str, type[Election]] = {
    cls.name: cls
    for cls in (
        ChangRoberts,
        LeLann,
        HirschbergSinclair,
        TreeElection,
        Echo,
        Bully,
        BullyBroadcast,
    )
}

#: The crash policy of each family of algorithms; an algorithm has its class's, or its
#: nearest listed base's, else the default :class:`CrashPolicy` (watch the neighbours).
#: Policies keep no state: one object serves every node.
CRASH_POLICIES: dict[type[Election], CrashPolicy] = {
    RingElection: RingRepair(),
    HirschbergSinclair: RingRepair(both_ways=True),
    Bully: BullyCrashes(),
}

_DEFAULT = CrashPolicy()


def crash_policy(algorithm: type[Election]) -> CrashPolicy:
    """The crash policy ``algorithm`` lives with (see :data:`CRASH_POLICIES`)."""
    for cls in algorithm.__mro__:
        policy = CRASH_POLICIES.get(cls)
        if policy is not None:
            return policy
    return _DEFAULT
