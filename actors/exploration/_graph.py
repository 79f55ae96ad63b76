"""The explored state graph, kept compact, and the fewest and most messages to each state.

States are numbered in the order the breadth-first search found them; state 0 is the
initial one.  The edges out of state ``s`` are ``start[s]`` to ``start[s + 1]`` of the
flat arrays ``target`` (the next state), ``sent`` (messages sent on the step) and
``event`` (what happened, a number of :attr:`Model.events`), because the search expands
states in number order.  ``parent[s]`` is the edge that found ``s``: following parents
back gives a shortest path (in steps).

A message count belongs to a path, not to a state; :meth:`Graph.extremes` computes the
fewest and the most messages over every path to each state in one pass over the graph,
states in topological order (Kahn).  A graph with a cycle (a run that can go on for
ever) has no most: states reached through a cycle get ``None``.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass

__all__ = ["Extremes", "Graph"]


@dataclass
class Extremes:
    """The fewest and most messages over every path to each state (``most[s]`` is -1
    where a cycle makes it unbounded), and the edge each comes through."""

    fewest: array[int]
    most: array[int]
    fewest_edge: array[int]
    most_edge: array[int]
    cyclic: bool


class Graph:
    """States found, and the edges out of the states expanded so far."""

    def __init__(self) -> None:
        self.start = array("q", [0])
        self.target = array("q")
        self.sent = array("H")
        self.event = array("q")
        self.parent = array("q", [-1])

    @property
    def expanded(self) -> int:
        """How many states have their edges here (the first ones, by number)."""
        return len(self.start) - 1

    @property
    def edges(self) -> int:
        return len(self.target)

    def source(self, edge: int) -> int:
        """The state edge ``edge`` leaves from."""
        return bisect_right(self.start, edge) - 1

    def path(self, state: int, via: array[int] | None = None) -> list[int]:
        """The edges from state 0 to ``state``: through the parents (a shortest path),
        or through ``via`` (an edge per state, as ``Extremes`` has them)."""
        links = self.parent if via is None else via
        edges: list[int] = []
        seen = set()
        while state != 0:
            edge = links[state]
            if edge < 0 or state in seen:
                break
            seen.add(state)
            edges.append(edge)
            state = self.source(edge)
        edges.reverse()
        return edges

    def nbytes(self) -> int:
        """The bytes its arrays hold."""
        arrays = (self.start, self.target, self.sent, self.event, self.parent)
        return sum(a.itemsize * len(a) for a in arrays)

    def extremes(self, states: int) -> Extremes:
        """The fewest and most messages to each of the ``states`` states."""
        start, target, sent = self.start, self.target, self.sent
        expanded = self.expanded
        unset = -1
        fewest = array("q", [unset]) * states
        most = array("q", [unset]) * states
        fewest_edge = array("q", [-1]) * states
        most_edge = array("q", [-1]) * states
        waiting = array("q", [0]) * states  # edges into each state not yet relaxed
        for t in target:
            waiting[t] += 1
        fewest[0] = most[0] = 0
        ready = deque([0] if waiting[0] == 0 else [])  # every other state has a parent edge
        done = 0
        while ready:
            s = ready.popleft()
            done += 1
            if s >= expanded:
                continue
            low, high = fewest[s], most[s]
            for edge in range(start[s], start[s + 1]):
                t, w = target[edge], sent[edge]
                if fewest[t] == unset or low + w < fewest[t]:
                    fewest[t] = low + w
                    fewest_edge[t] = edge
                if high + w > most[t]:
                    most[t] = high + w
                    most_edge[t] = edge
                waiting[t] -= 1
                if waiting[t] == 0:
                    ready.append(t)
        cyclic = done < states
        if cyclic:
            self._fewest_anyway(states, fewest, fewest_edge)
            for s in range(states):
                if waiting[s] > 0:  # reached through a cycle: no most
                    most[s] = unset
                    most_edge[s] = -1
            self._unbounded_downstream(states, most, most_edge, waiting)
        return Extremes(fewest, most, fewest_edge, most_edge, cyclic)

    def _fewest_anyway(self, states: int, fewest: array[int], fewest_edge: array[int]) -> None:
        """Dijkstra from state 0: the fewest messages where cycles stop Kahn's order."""
        start, target, sent, expanded = self.start, self.target, self.sent, self.expanded
        for s in range(states):
            fewest[s] = -1
            fewest_edge[s] = -1
        fewest[0] = 0
        heap = [(0, 0)]
        while heap:
            d, s = heapq.heappop(heap)
            if d != fewest[s] or s >= expanded:
                continue
            for edge in range(start[s], start[s + 1]):
                t = target[edge]
                nd = d + sent[edge]
                if fewest[t] == -1 or nd < fewest[t]:
                    fewest[t] = nd
                    fewest_edge[t] = edge
                    heapq.heappush(heap, (nd, t))

    def _unbounded_downstream(
        self, states: int, most: array[int], most_edge: array[int], waiting: array[int]
    ) -> None:
        """Every state reachable from one with no most has none either."""
        start, target, expanded = self.start, self.target, self.expanded
        todo = [s for s in range(states) if waiting[s] > 0]
        seen = set(todo)
        while todo:
            s = todo.pop()
            most[s] = -1
            most_edge[s] = -1
            if s >= expanded:
                continue
            for edge in range(start[s], start[s + 1]):
                t = target[edge]
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
