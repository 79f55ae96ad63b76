"""``ringleader explore``: a config's run, every ordering of it, in the explorer.

:func:`explore_config` turns a config into an exploration of
:mod:`ringleader.actors.exploration`: its nodes, wiring, initiators and algorithm (yours
too), its algorithm's settings (Bully's T and T′), and its ``[[faults]]`` read as what
may happen (:func:`explore_options`), then runs the search.  The failure detector is
not part of an explored run: its heartbeats never end, so no run would ever be
complete; a crash is something that may happen (``--crashes``), and nobody notices it
but through the algorithm's own timers.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import partial
from typing import Any

from ringleader.actors import Election, NodeView
from ringleader.actors.exploration import Exploration, Options, explore
from ringleader.actors.faults import (
    Delay,
    Duplicate,
    Loss,
    Partition,
    Pause,
    Reorder,
)
from ringleader.topologies import Config

__all__ = ["explore_config", "explore_inputs", "explore_options"]


def explore_inputs(
    config: Config, options: Options, algorithm: type[Election] | None = None
) -> tuple[type[Election], Sequence[NodeView], Collection[int], Options]:
    """What an explored model of ``config`` is built from: its algorithm, its nodes'
    views (with the algorithm's own settings, its tunables: the failure detector's and
    the lease's are left out, see the module's docs), its initiators, and ``options``.
    A worker process builds its own model from these (a model's members are not sent
    between processes)."""
    algorithm = algorithm or config.algorithm_class
    settings = {k: v for k, v in config.settings.items() if k in algorithm.tunables}
    return algorithm, config.wiring.views(settings), config.initiators, options


def explore_options(
    config: Config,
    *,
    unordered: bool = False,
    starts: str = "any",
    timers: str | None = None,
    crashes: int | None = None,
    restarts: bool = False,
    losses: int | None = None,
    duplicates: int | None = None,
) -> Options:
    """What may happen in an explored run of ``config``: the command line's choices,
    and, where it makes none, what the config's ``[[faults]]`` say.

    An explored run has no clock, so each entry says what *may* happen, at any moment:
    a crash entry lets its node (any node, for ``"leader"``) crash, once per entry
    (``restarts``: a crashed node may come back, as a new member that recovers);
    ``loss`` and ``duplicate`` let one message (on the entry's link, or any) be lost or
    delivered twice (``--loss``, ``--duplicates``: as many as that); ``reorder`` lifts
    FIFO on its link (or everywhere); ``partition`` may split the network once, and heal
    it later; ``pause`` lets its node stand still once (meanwhile the other nodes' timers
    do not wait for what is on its way to it); a ``delay`` that may last as long as a
    timeout of the algorithm lets timers fire at any moment (``--timers any``).
    """
    entries = list(config.faults)
    named = {entry.crash for entry in entries}
    crashable = None if not entries or "leader" in named else frozenset(int(n) for n in named)
    network = config.network

    def links(
        kind: type[Loss | Duplicate | Reorder],
    ) -> tuple[int, frozenset[tuple[int, int]] | None]:
        """How many of these entries, and their links (``None``: every link)."""
        found: list[Loss | Duplicate | Reorder] = [e for e in network if isinstance(e, kind)]
        pairs = {e.link for e in found}
        if not found or None in pairs:
            return len(found), None
        return len(found), frozenset(link for link in pairs if link is not None)

    lossy, lossy_links = links(Loss)
    copying, copying_links = links(Duplicate)
    reordering, reordered = links(Reorder)
    longest = max((e.delay.most for e in network if isinstance(e, Delay)), default=0.0)
    algorithm = config.algorithm_class
    timeouts = [config.settings.get(k, v) for k, v in algorithm.tunables.items()]
    early = bool(algorithm.timers) and bool(timeouts) and longest >= min(timeouts)
    return Options(
        unordered=unordered or (reordering > 0 and reordered is None),
        starts=starts,
        unordered_links=reordered or frozenset(),
        timers=timers or ("any" if early else "quiet"),
        crashes=len(entries) if crashes is None else crashes,
        crashable=crashable,
        restarts=restarts,
        losses=(1 if lossy else 0) if losses is None else losses,
        lossy_links=lossy_links if lossy else None,
        duplicates=(1 if copying else 0) if duplicates is None else duplicates,
        duplicating_links=copying_links if copying else None,
        partitions=tuple(e.groups for e in network if isinstance(e, Partition)),
        pauses=tuple(e.node for e in network if isinstance(e, Pause)),
    )


def explore_config(
    config: Config,
    options: Options | None = None,
    *,
    algorithm: type[Election] | None = None,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    progress: Any = None,
    exact: bool = True,
    workers: int = 1,
    ray: str | None = None,
) -> Exploration:
    """Explore ``config`` under ``options`` (default: :func:`explore_options`);
    ``exact``: keep every state whole and the graph, else fingerprints (see
    :func:`~ringleader.actors.exploration.explore`).

    ``workers``: more than one shares the lean search (fingerprints: ``exact`` must be
    false) out to that many worker processes, each holding the whole seen-set and
    expanding a slice of each level (:func:`~ringleader.actors.exploration.explore_slices`):
    the same result as one, state for state.  ``ray``: to that many actors of the Ray
    cluster at that address instead (``auto``, or its head's ``HOST:PORT``; ``workers``
    0: one per CPU of the cluster), each owning the states of its part of the seen-set
    (:func:`~ringleader.actors.exploration.explore_parts`), which needs
    ``pip install 'ringleader[ray]'``."""
    config.check_no_spares("ringleader explore (without --service)")
    options = options or explore_options(config)
    shared = workers > 1 or ray is not None
    if shared and exact:
        raise ValueError("workers share the lean search: exact must be false")
    algorithm_given = algorithm
    algorithm = algorithm or config.algorithm_class
    bound = algorithm.bound(config.wiring, config.initiators)
    if shared:
        from ringleader.actors.exploration import (  # noqa: PLC0415
            SliceProcesses,
            explore_parts,
            explore_slices,
        )

        # Each worker builds its model again from these: the config's algorithm is found
        # again from the config (yours too, from its file); one given here goes by
        # reference (so it must be importable).
        build = partial(explore_inputs, config, options, algorithm_given)
        limits: dict[str, Any] = {
            "bound": bound,
            "max_states": max_states,
            "max_depth": max_depth,
            "progress": progress,
        }
        if ray is None:
            return explore_slices(build, SliceProcesses, workers, **limits)
        from ._ray import RayPool, ray_cluster  # noqa: PLC0415

        with ray_cluster(ray) as cpus:
            return explore_parts(build, RayPool, workers or cpus, **limits)
    return explore(
        *explore_inputs(config, options, algorithm),
        bound=bound,
        max_states=max_states,
        max_depth=max_depth,
        progress=progress,
        exact=exact,
    )
