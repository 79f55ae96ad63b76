"""Topology builders: configured nodes (and edges) in, :class:`Wiring` out.

A builder only decides who sends to whom; it opens no socket.  What it cannot wire (a
cycle in a tree, a disconnected graph, an edge to an unknown node) it refuses with a
:class:`WiringError` that says which key is wrong and what would fit.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._errors import WiringError
from ._wiring import NodeSpec, Wiring

__all__ = [
    "Edges",
    "bidirectional_ring",
    "full_mesh",
    "graph",
    "spanning_tree",
    "unidirectional_ring",
]

Edges = Sequence[tuple[int, int]]


def unidirectional_ring(nodes: Sequence[NodeSpec], edges: Edges | None = None) -> Wiring:
    """A one-way ring in list order: node i sends to node i+1, the last to the first."""
    ids = [n.id for n in nodes]
    out = {ids[i]: (ids[(i + 1) % len(ids)],) for i in range(len(ids))}
    return Wiring("unidirectional_ring", tuple(nodes), out)


def bidirectional_ring(nodes: Sequence[NodeSpec], edges: Edges | None = None) -> Wiring:
    """A two-way ring in list order: node i talks to i+1 (first) and i−1 (last).

    ``out[i][0]`` is the successor and ``out[i][-1]`` the predecessor, so one-way ring
    algorithms run on it unchanged, in the successor's direction.
    """
    ids = [n.id for n in nodes]
    n = len(ids)
    out = {ids[i]: tuple(dict.fromkeys((ids[(i + 1) % n], ids[(i - 1) % n]))) for i in range(n)}
    return Wiring("bidirectional_ring", tuple(nodes), out)


def full_mesh(nodes: Sequence[NodeSpec], edges: Edges | None = None) -> Wiring:
    """Everyone talks to everyone."""
    ids = [n.id for n in nodes]
    out = {i: tuple(j for j in ids if j != i) for i in ids}
    return Wiring("full_mesh", tuple(nodes), out)


def _adjacency(nodes: Sequence[NodeSpec], edges: Edges, key: str) -> dict[int, list[int]]:
    """Undirected adjacency in config order; refuses unknown nodes, loops and repeats."""
    adjacent: dict[int, list[int]] = {n.id: [] for n in nodes}
    seen: dict[frozenset[int], int] = {}
    for index, (a, b) in enumerate(edges):
        where = f"{key}[{index}]"
        for end in (a, b):
            if end not in adjacent:
                raise WiringError(where, f"node {end} is not in the cluster", "add it to [[nodes]]")
        if a == b:
            raise WiringError(where, f"a loop from node {a} to itself")
        pair = frozenset((a, b))
        if pair in seen:
            raise WiringError(where, f"the edge {a}–{b} is listed twice (also {key}[{seen[pair]}])")
        seen[pair] = index
        adjacent[a].append(b)
        adjacent[b].append(a)
    return adjacent


def _unreached(adjacent: dict[int, list[int]]) -> list[int]:
    start = next(iter(adjacent))
    reached = {start}
    frontier = [start]
    while frontier:
        for peer in adjacent[frontier.pop()]:
            if peer not in reached:
                reached.add(peer)
                frontier.append(peer)
    return [node for node in adjacent if node not in reached]


def graph(nodes: Sequence[NodeSpec], edges: Edges | None = None) -> Wiring:
    """Any connected undirected graph: each edge is a link both ways."""
    if edges is None:
        raise WiringError("edges", "missing", "a graph needs edges = [[a, b], …]")
    adjacent = _adjacency(nodes, edges, "edges")
    lonely = _unreached(adjacent)
    if lonely:
        shown = ", ".join(map(str, lonely[:8])) + (", …" if len(lonely) > 8 else "")
        raise WiringError(
            "edges", f"the graph is not connected: no path to node(s) {shown}", "add edges"
        )
    return Wiring("graph", tuple(nodes), {i: tuple(v) for i, v in adjacent.items()})


def spanning_tree(nodes: Sequence[NodeSpec], edges: Edges | None = None) -> Wiring:
    """A tree: ``parent = <id>`` on every node but the root, or ``edges = [[a, b], …]``.

    Each node's links go to its parent first, then its children in config order.
    """
    parents = {n.id: n.parent for n in nodes if n.parent is not None}
    if edges is None and not parents and len(nodes) > 1:
        raise WiringError(
            "edges", "missing", "a tree needs parent = <id> on each node but the root, or edges"
        )
    if edges is not None and parents:
        raise WiringError("edges", "give either edges or parents, not both")
    key = "edges"
    if edges is None:
        known = {n.id for n in nodes}
        for index, node in enumerate(nodes):
            if node.parent is not None and node.parent not in known:
                raise WiringError(
                    f"nodes[{index}].parent", f"node {node.parent} is not in the cluster"
                )
            if node.parent == node.id:
                raise WiringError(f"nodes[{index}].parent", "a node cannot be its own parent")
        roots = [n.id for n in nodes if n.parent is None]
        if len(roots) != 1:
            shown = ", ".join(map(str, roots[:8])) + (", …" if len(roots) > 8 else "")
            raise WiringError(
                "nodes", f"{len(roots)} roots ({shown or 'none'})", "exactly one node has no parent"
            )
        for node in nodes:
            path = [node.id]
            while (up := parents.get(path[-1])) is not None:
                if up in path:
                    loop = " → ".join(map(str, [*path[path.index(up) :], up]))
                    raise WiringError(
                        "nodes", f"the parents make a cycle ({loop})", "a tree has no cycle"
                    )
                path.append(up)
        edges = [(parent, child) for child, parent in parents.items()]
        key = "parent"
    adjacent = _adjacency(nodes, edges, key)
    if len(edges) != len(nodes) - 1 or _unreached(adjacent):
        problem = (
            "the parents make a cycle"
            if key == "parent"
            else f"{len(edges)} edges for {len(nodes)} nodes do not make a tree"
        )
        raise WiringError(
            key if key == "edges" else "nodes",
            problem,
            "a tree on n nodes is connected and has n − 1 edges",
        )
    order = {n.id: k for k, n in enumerate(nodes)}
    out = {}
    for node in nodes:
        parent = parents.get(node.id)
        rest = sorted((p for p in adjacent[node.id] if p != parent), key=order.__getitem__)
        out[node.id] = ((parent,) if parent is not None else ()) + tuple(rest)
    return Wiring("spanning_tree", tuple(nodes), out)
