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

from typing import Any

from ringleader.actors import Election
from ringleader.actors.exploration import Exploration, Options, explore
from ringleader.topologies import Config

__all__ = ["ALGORITHM_SETTINGS", "explore_config", "explore_options"]

#: The settings an explored run keeps: the algorithms' own (the failure detector's and
#: the lease's are left out, see the module's docs).
ALGORITHM_SETTINGS = ("election_timeout", "coordinator_timeout")


def explore_options(
    config: Config,
    *,
    unordered: bool = False,
    timers: str | None = None,
    crashes: int | None = None,
    losses: int | None = None,
    duplicates: int | None = None,
) -> Options:
    """What may happen in an explored run of ``config``: the command line's choices,
    and, where it makes none, what the config's ``[[faults]]`` say.

    A crash entry lets its node (any node, for ``"leader"``) crash, once per entry
    (restarts are not explored).
    """
    entries = list(config.faults)
    named = {entry.crash for entry in entries}
    crashable = (
        None if not entries or "leader" in named else frozenset(int(n) for n in named)
    )
    return Options(
        unordered=unordered,
        timers=timers or "quiet",
        crashes=len(entries) if crashes is None else crashes,
        crashable=crashable,
        losses=losses or 0,
        duplicates=duplicates or 0,
    )


def explore_config(
    config: Config,
    options: Options | None = None,
    *,
    algorithm: type[Election] | None = None,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    progress: Any = None,
) -> Exploration:
    """Explore ``config`` under ``options`` (default: :func:`explore_options`)."""
    algorithm = algorithm or config.algorithm_class
    settings = {k: v for k, v in config.settings.items() if k in ALGORITHM_SETTINGS}
    return explore(
        algorithm,
        config.wiring.views(settings),
        config.initiators,
        options or explore_options(config),
        bound=algorithm.bound(config.wiring, config.initiators),
        max_states=max_states,
        max_depth=max_depth,
        progress=progress,
    )
