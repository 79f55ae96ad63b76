"""Who may send to a node: the set its session admits frames from.

Any member of the cluster (to repair a ring), else its in-neighbours; the operator; and a
watcher holding only the read-only watch key (its codec admits it for watch kinds only).
The views of one cluster share one ``members`` tuple, so its nodes share one set: a set
per node would hold n² entries (1.6 GB for 5,000 nodes).  Kept by the tuple's identity,
the tuple held alongside so that its id cannot be reused meanwhile.
"""

from __future__ import annotations

import threading

from ringleader.actors.core import NodeView
from ringleader.transport import OPERATOR, WATCHER

__all__ = ["SENDER_SETS_KEPT", "senders"]

#: Clusters whose senders' set is kept, shared by their nodes.
SENDER_SETS_KEPT = 8
_sender_sets: dict[int, tuple[tuple[int, ...], frozenset[int]]] = {}
_sender_sets_lock = threading.Lock()


def senders(view: NodeView) -> frozenset[int]:
    """Who may send to the node of ``view`` (see the module's docstring)."""
    if not view.members:
        return frozenset((*view.inbound, OPERATOR, WATCHER))
    key = id(view.members)
    with _sender_sets_lock:
        kept = _sender_sets.get(key)
        if kept is None or kept[0] is not view.members:
            if len(_sender_sets) >= SENDER_SETS_KEPT:
                del _sender_sets[next(iter(_sender_sets))]
            kept = _sender_sets[key] = (view.members, frozenset((*view.members, OPERATOR, WATCHER)))
    return kept[1]
