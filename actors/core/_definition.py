"""What defines a cluster: its members, its algorithm and the settings its lease rests on.

Two nodes belong to one cluster when they agree on all of it, not merely on a name: a
node whose config lists another member, another address, another algorithm or another
heartbeat would take part in elections by other rules, and a lease granted under one
``suspect_after`` is not safe under another.  The cluster id in every frame is a digest
of the definition (:attr:`ClusterDefinition.cluster_id`), so frames of a node defined
otherwise are never acted on; :func:`describe_difference` says, for people, how two
definitions differ.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import NamedTuple

__all__ = ["ClusterDefinition", "DefinedNode", "Difference", "describe_difference"]

#: The digest's version: a change to what a definition holds gives every cluster a new id.
_DIGEST = "ringleader cluster definition 1"
#: How many ids a list of members shows before it is cut short.
SHOWN = 12


class DefinedNode(NamedTuple):
    """One member as the cluster defines it (``address`` ``""`` and ``suspect_after``
    0.0 where the config gives none; ``parent`` on a spanning tree)."""

    id: int
    address: str
    capacity: float
    suspect_after: float = 0.0
    parent: int | None = None


@dataclass(frozen=True, slots=True)
class ClusterDefinition:
    """A cluster as its config defines it.  ``name`` is ``""`` without one;
    ``algorithm`` its election's name and ``messages`` each of its message kinds with
    the layout it has on the wire (``"election: ElectionMessage(candidate: …)"``), so
    that two nodes whose election classes differ are two clusters, wherever the classes'
    files are; ``lease`` 0.0 without a lease; ``heartbeat`` the failure detector's (0.0:
    off)."""

    name: str
    topology: str
    algorithm: str
    messages: tuple[str, ...]
    nodes: tuple[DefinedNode, ...]
    edges: tuple[tuple[int, int], ...]
    heartbeat: float
    suspect_after: float
    lease: float
    quorum: bool
    #: The nodes listed but not in the founding configuration (``spare = true``).
    spares: tuple[int, ...] = ()

    @property
    def cluster_id(self) -> int:
        """The 64-bit id every frame of this cluster carries: a digest of all of it
        (``spares`` only when there are some: a config without keeps its id)."""
        fields = asdict(self)
        if not self.spares:
            del fields["spares"]
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(f"{_DIGEST}\n{text}".encode()).digest()
        return int.from_bytes(digest[:8], "big")


class Difference(NamedTuple):
    """One way two definitions differ: what (``members``, ``address``, ``algorithm``,
    ``heartbeat`` …), and how each side has it, in words (``members 1,2,3,4``)."""

    aspect: str
    theirs: str
    mine: str


def _ids(nodes: tuple[DefinedNode, ...]) -> str:
    ids = [str(n.id) for n in nodes]
    if len(ids) <= SHOWN:
        return ",".join(ids)
    return ",".join(ids[: SHOWN - 1]) + f",…,{ids[-1]} ({len(ids)} nodes)"


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _per_node(
    aspect: str, theirs: ClusterDefinition, mine: ClusterDefinition, say: str
) -> Difference | None:
    """The first node both list whose ``aspect`` differs (``say``: how to show one)."""
    ours = {n.id: n for n in mine.nodes}
    differing = [
        (n, ours[n.id])
        for n in theirs.nodes
        if n.id in ours and getattr(n, aspect) != getattr(ours[n.id], aspect)
    ]
    if not differing:
        return None
    theirs_node, my_node = differing[0]
    more = f" (and {len(differing) - 1} more)" if len(differing) > 1 else ""
    return Difference(
        aspect,
        say.format(id=theirs_node.id, value=getattr(theirs_node, aspect)) + more,
        say.format(id=my_node.id, value=getattr(my_node, aspect)),
    )


def differences(theirs: ClusterDefinition, mine: ClusterDefinition) -> list[Difference]:
    """How ``theirs`` differs from ``mine``, most telling first, each side in words."""
    found: list[Difference] = []
    if [n.id for n in theirs.nodes] != [n.id for n in mine.nodes]:
        found.append(
            Difference("members", f"members {_ids(theirs.nodes)}", f"members {_ids(mine.nodes)}")
        )
    for aspect, say in (
        ("address", "node {id} at {value}"),
        ("capacity", "node {id} of capacity {value:g}"),
        ("suspect_after", "node {id} suspecting after {value:g} s"),
        ("parent", "node {id} under {value}"),
    ):
        difference = _per_node(aspect, theirs, mine, say)
        if difference is not None:
            found.append(difference)
    for aspect, show in (
        ("algorithm", str),
        ("topology", str),
        ("heartbeat", _seconds),
        ("suspect_after", _seconds),
        ("lease", _seconds),
    ):
        theirs_value, my_value = getattr(theirs, aspect), getattr(mine, aspect)
        if theirs_value != my_value:
            found.append(
                Difference(aspect, f"{aspect} {show(theirs_value)}", f"{aspect} {show(my_value)}")
            )
    if theirs.algorithm == mine.algorithm and theirs.messages != mine.messages:
        found.append(_messages(theirs.messages, mine.messages))
    if theirs.quorum != mine.quorum:
        found.append(
            Difference(
                "quorum", *(f"quorum {'on' if q else 'off'}" for q in (theirs.quorum, mine.quorum))
            )
        )
    if theirs.spares != mine.spares:
        found.append(
            Difference(
                "spares",
                *(f"spares {','.join(map(str, d.spares)) or 'none'}" for d in (theirs, mine)),
            )
        )
    if theirs.edges != mine.edges:
        found.append(Difference("edges", *(f"{len(d.edges)} edges" for d in (theirs, mine))))
    if theirs.name != mine.name:
        found.append(
            Difference(
                "name", *(f'name "{n}"' if n else "no name" for n in (theirs.name, mine.name))
            )
        )
    return found


def _messages(theirs: tuple[str, ...], mine: tuple[str, ...]) -> Difference:
    """Two versions of one algorithm: its kinds, or the first kind laid out otherwise."""
    kinds = [[m.partition(": ")[0] for m in side] for side in (theirs, mine)]
    if kinds[0] != kinds[1]:
        return Difference("messages", *(f"messages {', '.join(k)}" for k in kinds))
    theirs_one, my_one = next((t, m) for t, m in zip(theirs, mine, strict=True) if t != m)
    return Difference("messages", f"message {theirs_one}", f"message {my_one}")


def describe_difference(
    peer: int, theirs: ClusterDefinition, mine: ClusterDefinition
) -> tuple[str, list[Difference]]:
    """One line for people, ``node 4 runs another cluster: members 1,2,3,4; mine:
    members 1,2,3``, and the differences it names."""
    found = differences(theirs, mine)
    if not found:
        return f"node {peer} runs a cluster defined as mine under another id", found
    what = ", ".join(d.theirs for d in found)
    own = ", ".join(d.mine for d in found)
    return f"node {peer} runs another cluster: {what}; mine: {own}", found
