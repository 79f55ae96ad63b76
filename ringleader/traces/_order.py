"""Which nodes a picture of a run shows, and in which order, top to bottom.

On a ring the nodes are drawn in ring order (read from the messages: each goes to its
successor), from the leader on, so that a message round the ring steps down the picture
and only the one closing the ring goes back up; elsewhere in id order.  A run of more
nodes than a picture holds shows the nodes that matter — the leader, the crashed, those
that suspected someone, the initiators whose candidacy went farthest — chosen rather
than the first few: on a ring each with a stretch of its neighbours, so that the
messages between them are in the picture too; and it says what it left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from ._steps import RINGS, algorithm_of
from ._trace_file import candidate

__all__ = ["choose_nodes", "node_order", "ring_order"]

Event = dict[str, Any]

#: The kinds that go to a ring node's successor (a probe or reply: going clockwise).
_ROUND = {"election", "elected", "elect"}
_BOTH_WAYS = {"probe", "reply"}


def _id_order(nodes: Iterable[Any]) -> list[Any]:
    return sorted(nodes, key=lambda n: (str(type(n)), n))


def _leaders(events: Sequence[Event]) -> list[Any]:
    final: dict[Any, str] = {}
    for event in events:
        if event["event"] == "state":
            final[event["node"]] = event["state"]
        elif event["event"] == "crash":
            final[event["node"]] = "crashed"
    return [node for node, state in final.items() if state == "leader"]


def ring_order(events: Sequence[Event], nodes: Iterable[Any]) -> list[Any] | None:
    """``nodes`` in ring order, from the leader (else the smallest id), if the run is a
    ring election (``None`` otherwise); nodes the messages do not place come last."""
    sends = [e for e in events if e["event"] == "send" and not e.get("heartbeat")]
    if algorithm_of({e["kind"] for e in sends}) not in RINGS:
        return None
    after: dict[Any, Counter[Any]] = {}
    for send in sends:
        kind = send["kind"]
        fields = send.get("fields") or {}
        if kind in _ROUND or (kind in _BOTH_WAYS and fields.get("direction") == 1):
            after.setdefault(send["node"], Counter())[send["peer"]] += 1
    successor = {node: peers.most_common(1)[0][0] for node, peers in after.items()}
    everyone = _id_order(nodes)
    leaders = [n for n in _leaders(events) if n in successor]
    order: list[Any] = []
    placed: set[Any] = set()
    for start in [*leaders[:1], *everyone]:  # a repaired ring may be in pieces
        node = start
        while node is not None and node not in placed:
            order.append(node)
            placed.add(node)
            node = successor.get(node)
    return order


def node_order(events: Sequence[Event], nodes: Iterable[Any]) -> list[Any]:
    """``nodes`` top to bottom: ring order on a ring, else id order."""
    nodes = list(nodes)
    return ring_order(events, nodes) or _id_order(nodes)


def _facts(events: Sequence[Event]) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """The crashed, the suspecting, the initiators (by how far their candidacy went) and
    every node by how busy it was."""
    crashed: dict[Any, None] = {}
    suspecting: dict[Any, None] = {}
    initiators: list[Any] = []
    busy: Counter[Any] = Counter()
    seen: set[Any] = set()
    for event in events:
        node, kind = event["node"], event["event"]
        busy[node] += 1
        if kind in ("crash", "restart"):
            crashed[node] = None
        elif kind == "suspect":
            suspecting[node] = None
        if node not in seen:
            seen.add(node)
            if kind == "send":  # its first act is a send of its own: it initiated
                initiators.append(node)
    reach = Counter(
        candidate(e.get("fields")) for e in events if e["event"] == "send" and e.get("fields")
    )
    initiators.sort(key=lambda n: -reach[n])
    return list(crashed), list(suspecting), initiators, [n for n, _ in busy.most_common()]


def _stretch(order: list[Any], around: Any, size: int, taken: set[Any]) -> list[Any]:
    """Up to ``size`` nodes of the ring ``order`` around ``around``: it, then its
    neighbours, nearest first, alternately before and after it."""
    at = order.index(around)
    n = len(order)
    out = [around] if around not in taken else []
    for k in range(1, n):
        for node in (order[(at + k) % n], order[(at - k) % n]):
            if len(out) >= size:
                return out
            if node not in taken and node not in out:
                out.append(node)
    return out


def choose_nodes(
    events: Sequence[Event], nodes: Sequence[Any], limit: int
) -> tuple[list[Any], str | None]:
    """At most ``limit`` of ``nodes`` (all, if they fit), in the picture's order, and
    what was left out, in words (``None``: nothing)."""
    ring = ring_order(events, nodes)
    order = ring or _id_order(nodes)
    if len(order) <= limit:
        return order, None
    crashed, suspecting, initiators, busy = _facts(events)
    groups = [
        ("the leader", _leaders(events)),
        ("the crashed", crashed),
        ("those that suspected a crash", suspecting),
        ("the initiators whose candidacy went farthest", initiators),
        ("the busiest nodes", busy),
    ]
    chosen: list[Any] = []
    taken: set[Any] = set()
    named: list[str] = []
    anchors = 0
    for what, group in groups:
        added = False
        for node in group:
            if len(chosen) >= limit or node in taken or node not in order:
                continue
            if ring:  # with its neighbours: the messages between them are drawn
                anchors += 1
                share = max(3, limit // 2) if anchors == 1 else max(3, limit // 6)
                more = _stretch(order, node, min(share, limit - len(chosen)), taken)
            else:
                more = [node]
            chosen += more
            taken.update(more)
            added = added or bool(more)
        if added:
            named.append(what + (" and their neighbours" if ring else ""))
    kept = [n for n in order if n in taken]
    if ring:  # start after the longest run of nodes left out
        kept = _rotated(order, taken)
    way = "ring order" if ring else "id order"
    return kept, (
        f"{len(order) - len(kept)} of {len(order)} nodes and every message to or from them "
        f"(shown, in {way}: {', '.join(named)})"
    )


def _rotated(order: list[Any], shown: set[Any]) -> list[Any]:
    """The shown nodes of the ring ``order``, starting after its longest gap."""
    n = len(order)
    best, best_end, run = -1, 0, 0
    for k in range(2 * n):  # twice round: a gap may wrap
        if order[k % n] in shown:
            if run > best:
                best, best_end = run, k % n
            run = 0
        else:
            run += 1
    start = best_end if best >= 0 else 0
    return [order[(start + k) % n] for k in range(n) if order[(start + k) % n] in shown]
