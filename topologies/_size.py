"""Size before work: what a run of a config will take, from arithmetic alone.

:func:`estimate` counts a run's links, its messages (the algorithm's bound), its memory
and its open files from the number of nodes, the topology and the transport, without
building the wiring (a 100,000-node full mesh has 10^10 links: the estimate is O(n)).
:func:`refusal` compares a :class:`Size` with the machine's :class:`Limits`, which the
caller reads: one line naming the estimate and the limit, or ``None`` if it fits.
``check`` and ``run`` both ask it, so ``check`` refuses exactly what ``run`` would.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from ringleader.actors import Candidate, Graph
from ringleader.transport import BETWEEN_PROCESSES, SCHEMES
from ringleader.transport import estimate as estimate_files

from ._config import Config

__all__ = ["Limits", "Size", "estimate", "refusal"]

# Bytes of memory, calibrated on this code (CPython 3.11, pyzmq 27, Linux x86-64) with
# ``/usr/bin/time -f %M`` (peak resident set) on ``ringleader run --json`` at two sizes,
# each constant the difference per node or per link:
#   --simulate, a unidirectional ring of 20,000 and 40,000 nodes: 108 and 187 MB (per
#   node: 3.9 kB), a full mesh of 300 and 600 nodes: 51 and 114 MB (per link: 240 B);
#   threads over inproc, a ring of 500 and 1,000 nodes: 63 and 97 MB (per node: 70 kB),
#   a full mesh of 60 and 120 nodes: 77 and 218 MB (per link: 13 kB); over tcp a full
#   mesh of 35 and 70 nodes: 98 and 300 MB (per link: 56 kB, both ends of a connection);
#   ``ringleader check`` alone: 31 MB;
#   processes: the proportional set size (``Pss`` in /proc/PID/smaps_rollup) of each
#   node process of a 12-node ring, 9.2 MB.
#: What the interpreter and ringleader's modules take before any node.
BASE_MEMORY = 30_000_000
#: Simulated (and explored): per node (its algorithm, view, clocks) and per one-way
#: link (the wiring's tuples, the views' in-neighbours).
SIMULATED_NODE = 4_000
SIMULATED_LINK = 240
#: Threads: per node (a Pykka actor and its thread, a mailbox's sockets) and per link
#: (a ZeroMQ PUSH socket and its pipe; over tcp or ipc both ends of a connection too).
THREAD_NODE = 70_000
THREAD_LINK = 13_000
CONNECTED_LINK = 56_000
#: Processes: each node is a forked interpreter of its own.
PROCESS_NODE = 10_000_000
#: Files the parent holds per node process (its stdin and stdout pipes), and its own.
PROCESS_FILES = 2
PARENT_FILES = 32


@dataclass(frozen=True)
class Size:
    """What a run will take: ``files`` in the one process that opens the most."""

    what: str
    nodes: int
    links: int
    messages: int
    memory: int
    files: int
    #: ZeroMQ sockets in one context (0: no ZeroMQ in this run).
    sockets: int = 0

    def resources(self) -> str:
        """Links, memory and files in words (``check`` shows them)."""
        files = f" and {self.files:,} open files" if self.files else ""
        return f"{self.links:,} links, about {_bytes(self.memory)} of memory{files}"

    def summary(self) -> str:
        """The whole estimate in words, for a refusal or a progress line."""
        files = f" and {self.files:,} open files" if self.files else ""
        return (
            f"{self.what}: {self.links:,} links, up to {self.messages:,} messages, "
            f"about {_bytes(self.memory)} of memory{files}"
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "nodes": self.nodes,
            "links": self.links,
            "messages": self.messages,
            "memory_bytes": self.memory,
            "open_files": self.files,
        }


@dataclass(frozen=True)
class Limits:
    """The machine's: available memory in bytes, the files this process may still open
    (its hard limit less those open) and ZeroMQ's sockets per context (``None``: no
    limit known)."""

    memory: int | None = None
    files: int | None = None
    sockets: int | None = None


def links(topology: str, n: int, edges: int | None) -> int:
    """One-way links of ``topology`` on ``n`` nodes (``edges``: a graph's or tree's)."""
    if topology == "full_mesh":
        return n * (n - 1)
    if topology == "unidirectional_ring":
        return n  # a ring of one links its node to itself
    if topology == "bidirectional_ring":
        return 2 * n if n > 2 else n  # two nodes: one link each way, not two
    if topology == "spanning_tree":
        return 2 * (n - 1)
    return 2 * (edges or 0)


def estimate(config: Config, *, simulate: bool = False) -> Size:
    """What running ``config`` will take (``simulate``: in the simulator, or explored)."""
    n = config.n
    m = links(config.topology, n, None if config.edges is None else len(config.edges))
    messages = config.algorithm_class.bound(_sketch(config), config.initiators).value
    if simulate:
        what = f"a simulated {n:,}-node {config.topology}"
        memory = BASE_MEMORY + n * SIMULATED_NODE + m * SIMULATED_LINK
        return Size(what, n, m, messages, memory, 0)
    transport = config.transport
    what = f"a {n:,}-node {config.topology} over {transport}"
    if config.mode == "processes":
        # Files in the process that opens the most: the parent, or the node with the
        # most neighbours (its links, and the connections it accepts, in one network).
        what += " in processes"
        memory = BASE_MEMORY + n * PROCESS_NODE + m * CONNECTED_LINK
        node = estimate_files(transport, 1, _max_degree(config))
        files = max(PARENT_FILES + n * PROCESS_FILES, node.files)
        return Size(what, n, m, messages, memory, files, node.sockets)
    per_link = CONNECTED_LINK if transport in BETWEEN_PROCESSES else THREAD_LINK
    memory = BASE_MEMORY + n * THREAD_NODE + m * per_link
    if transport not in SCHEMES:  # memory: queues in this process, no files
        return Size(what, n, m, messages, memory, 0)
    demand = estimate_files(transport, n, m)
    return Size(what, n, m, messages, memory, demand.files, demand.sockets)


def refusal(size: Size, limits: Limits) -> str | None:
    """Why ``size`` cannot fit ``limits``, in one line, or ``None`` if it fits."""
    if limits.memory is not None and size.memory > limits.memory:
        return (
            f"{size.summary()}; this machine has {_bytes(limits.memory)} available: "
            "run fewer nodes or a sparser topology (--force to try anyway)"
        )
    if limits.sockets is not None and size.sockets > limits.sockets:
        return (
            f"{size.summary()}, in {size.sockets:,} ZeroMQ sockets; one context allows "
            f"at most {limits.sockets:,}: run fewer nodes, or simulate it (ringleader run "
            "--simulate), which opens none "
            "(--force to try anyway)"
        )
    if limits.files is not None and size.files > limits.files:
        return (
            f"{size.summary()}; this process may open at most {limits.files:,} more "
            "(its hard limit, less those open): raise it (ulimit -Hn), run fewer nodes, "
            "or simulate it (ringleader run --simulate), which opens none (--force to try "
            "anyway)"
        )
    return None


def _max_degree(config: Config) -> int:
    """The most out-neighbours any node has."""
    n = config.n
    if config.topology == "full_mesh":
        return n - 1
    if config.topology in ("unidirectional_ring", "bidirectional_ring"):
        return links(config.topology, n, None) // max(n, 1)
    return max((len(peers) for peers in config.wiring.out.values()), default=0)


def _bytes(count: int) -> str:
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count / 10**3:,.0f} kB"


def _sketch(config: Config) -> Graph:
    """The graph an algorithm's bound reads, without the wiring's links listed where the
    topology alone says them: a full mesh's out-neighbours are computed on demand."""
    if config.topology == "full_mesh":
        candidates = [node.candidate for node in config.nodes]
        return _Graph(candidates, _MeshOut(tuple(node.id for node in config.nodes)))
    return config.wiring  # at most linear in the nodes or in the config's edges


@dataclass(frozen=True)
class _Graph:
    candidates: Sequence[Candidate]
    out: Mapping[int, Sequence[int]]


class _Others(Sequence[int]):
    """Every id of ``ids`` but ``me``, without a list of them."""

    def __init__(self, ids: tuple[int, ...], me: int) -> None:
        self._ids = ids
        self._me = me

    def __len__(self) -> int:
        return len(self._ids) - 1

    def __getitem__(self, index: int) -> int:  # type: ignore[override]
        others = [i for i in self._ids if i != self._me]
        return others[index]


class _MeshOut(Mapping[int, Sequence[int]]):
    def __init__(self, ids: tuple[int, ...]) -> None:
        self._ids = ids
        self._known = frozenset(ids)

    def __getitem__(self, key: int) -> Sequence[int]:
        if key not in self._known:
            raise KeyError(key)
        return _Others(self._ids, key)

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)
