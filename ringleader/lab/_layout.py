"""Where the page draws each node: round an ellipse in ring order (rings, meshes,
graphs), or in layers from the root (a tree); the box it is drawn in, in SVG units."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence

__all__ = ["HEIGHT", "MARGIN", "WIDTH", "layout"]

#: The page's box for the network, in SVG units.
WIDTH, HEIGHT, MARGIN = 1500.0, 640.0, 90.0


def layout(
    topology: str, ids: Sequence[int], links: Iterable[tuple[int, int]]
) -> dict[int, tuple[float, float]]:
    """Each node's place (``links``: pairs of node ids)."""
    if topology == "spanning_tree":
        return _layers(ids, links)
    n = len(ids)
    # An ellipse as wide as the box lets each node's words stand beside it.
    across, down = WIDTH / 2 - 4 * MARGIN, HEIGHT / 2 - MARGIN
    return {
        node: (
            round(WIDTH / 2 + across * math.cos(-math.pi / 2 + 2 * math.pi * k / n), 1),
            round(HEIGHT / 2 + down * math.sin(-math.pi / 2 + 2 * math.pi * k / n), 1),
        )
        for k, node in enumerate(ids)
    }


def _layers(ids: Sequence[int], links: Iterable[tuple[int, int]]) -> dict[int, tuple[float, float]]:
    """A tree in layers from its root (the first node), breadth first."""
    neighbours: dict[int, set[int]] = {node: set() for node in ids}
    for a, b in links:
        neighbours[a].add(b)
        neighbours[b].add(a)
    depth = {ids[0]: 0}
    order = [ids[0]]
    queue = deque([ids[0]])
    while queue:
        node = queue.popleft()
        for peer in sorted(neighbours[node], key=list(ids).index):
            if peer not in depth:
                depth[peer] = depth[node] + 1
                order.append(peer)
                queue.append(peer)
    for node in ids:  # a node out of reach (never in a tree): a layer of its own
        if node not in depth:
            depth[node] = max(depth.values()) + 1
            order.append(node)
    layers = max(depth.values()) + 1
    where = {}
    for level in range(layers):
        row = [node for node in order if depth[node] == level]
        for k, node in enumerate(row):
            x = MARGIN + (k + 0.5) * (WIDTH - 2 * MARGIN) / len(row)
            # Each node's words below it: the last layer's too.
            y = 60 + level * (HEIGHT - 60 - 170) / max(1, layers - 1)
            where[node] = (round(x, 1), round(y, 1))
    return where
