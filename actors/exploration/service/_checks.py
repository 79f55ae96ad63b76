"""What the explorer checks in a service's every state, and which guarantee each is.

Safety, on every step (``_model.py`` finds them as it makes each step):

- ``token_back`` — every lease is in an epoch at least that of every lease before it:
  the fencing token never goes back;
- ``two_leases`` — no two nodes hold a lease at the same true instant (a lease counted
  as long as drift may stretch it: its shadow, ``_timing.py``; but a lease begun by a
  node that heard from the other leader after that one's own count ended begins after
  it: ``_model.py``);
- ``two_leaders`` — one leader per epoch: no two nodes ever hold a lease in one epoch;
- ``two_acks`` — a node acknowledges at most one leader per round (a ``pong`` in the
  leader's epoch, or its own lease), across its restarts with its state kept.

Progress, once the search is complete (``_search.py``): from every state in which the
faults are over (the network whole, nobody paused, and a majority up — one node without
a quorum —: a crashed node may stay down), a state in which one leader holds its lease
and every live node names it is reachable without another fault — ``no_progress``
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CHECKS", "GUARANTEES", "Finding"]

#: Every check, in the order they are reported, in words.
CHECKS = {
    "token_back": "every lease in an epoch at least every earlier lease's (the token never "
    "goes back)",
    "two_leases": "no two nodes hold a lease at the same instant",
    "two_leaders": "one leader per epoch (no two nodes hold a lease in one epoch)",
    "two_acks": "a node acknowledges at most one leader per round",
    "no_progress": "once the faults are over, one leader holding its lease, named by "
    "every node, can always be reached",
}

#: Which promise of ``docs/service-guarantees.md`` each check is.
GUARANTEES = {
    "token_back": "the fencing token only grows",
    "two_leases": "one leader at a time (is_leader on two nodes at once)",
    "two_leaders": "the fencing token only grows (an epoch is one leader's token)",
    "two_acks": "one leader per round (what the token's growth rests on)",
    "no_progress": "a cluster whose faults are over has a leader again",
}


@dataclass(frozen=True)
class Finding:
    """The first state found that breaks check ``kind`` (by a shortest path), and how
    many steps broke it in all."""

    kind: str
    detail: str
    state: int
    count: int = 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "detail": self.detail,
            "count": self.count,
            "guarantee": GUARANTEES[self.kind],
        }
