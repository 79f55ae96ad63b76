"""``ringleader explore --service``: a config's cluster as ``ringleader node`` runs it,
every ordering of it, in the service explorer.

:func:`explore_service_config` turns a config into a
:class:`~ringleader.actors.exploration.service.ServiceModel`: its nodes and algorithm
with the settings a node of a service runs with (a quorum unless the config says
``quorum = false``; the failure detector, the steady rules, the lease, the state file),
the explorer's clocks (:func:`service_timing`), and the faults asked for; then searches
it completely (or as far as a limit allows), or walks it at random.
"""

from __future__ import annotations

from typing import Any

from ringleader.actors.crashes import LeaseSettings
from ringleader.actors.exploration.service import (
    ServiceExploration,
    ServiceModel,
    ServiceOptions,
    Timing,
    WalkResult,
    default_drift,
    default_tick,
    search,
    walk,
)
from ringleader.service import service_settings
from ringleader.topologies import Config, ConfigError

__all__ = ["explore_service_config", "service_model", "service_timing"]


def service_timing(
    config: Config, *, drift: float | None = None, tick: float | None = None
) -> Timing:
    """The explorer's clocks for ``config``'s nodes: ``tick`` (default: the largest that
    divides every timing it sets; a ``ValueError`` if one given does not divide them) and
    ``drift`` (default: the margin its lease leaves,
    :func:`~ringleader.actors.exploration.service.default_drift`)."""
    settings = service_settings(config)
    algorithm = config.algorithm_class
    timeouts = [settings.get(k, v) for k, v in algorithm.tunables.items()]
    lease = LeaseSettings.of(settings)
    if lease is None:
        raise ConfigError(
            config.source,
            "lease",
            "0 s: the service explorer checks a lease, and this config has none",
            "set heartbeat, suspect_after and lease so that a lease fits (quorum needs one)",
        )
    largest = default_tick(settings, timeouts)
    micros = None if tick is None else round(tick * 1e6)
    if micros is not None and (micros <= 0 or round(largest * 1e6) % micros):
        # A tick that does not divide them fires timers late, each by its own amount:
        # the lease against how long a follower vouches, a heartbeat against a stall.
        raise ValueError(
            f"a tick of {tick:g} s does not divide every timing of the config (heartbeat, "
            f"suspect_after, lease, reelect_after, the algorithm's timeouts): give "
            f"{largest:g} s (the default) or a whole fraction of it"
        )
    return Timing(
        largest if tick is None else tick,
        default_drift(settings) if drift is None else drift,
        lease.lease,
    )


def service_model(
    config: Config, options: ServiceOptions, timing: Timing | None = None
) -> ServiceModel:
    """``config``'s cluster as a service runs it, with ``options``' faults."""
    settings = service_settings(config)
    return ServiceModel(
        config.algorithm_class,
        config.wiring.views(settings),
        options,
        timing or service_timing(config),
        founding=config.founding,
    )


def explore_service_config(
    config: Config,
    options: ServiceOptions,
    *,
    timing: Timing | None = None,
    settled: bool = True,
    walks: int | None = None,
    walk_steps: int = 500,
    seed: int = 0,
    max_states: int = 1_000_000,
    max_depth: int | None = None,
    max_seconds: float | None = None,
    progress: Any = None,
    lean: bool = False,
    exact: bool = False,
) -> ServiceExploration | WalkResult:
    """Search ``config``'s service completely (up to ``max_states``, ``max_depth`` and
    ``max_seconds``),
    or with ``walks``, walk it at random that many times, ``walk_steps`` steps each,
    from ``seed``; from the cluster settled on its first leader (``settled``), or from
    every node's start.  ``lean``: keep a fingerprint of each state (whole states if
    ``exact``), the frontier on disk and no graph (no progress check)."""
    model = service_model(config, options, timing)
    if walks is not None:
        return walk(
            model,
            walks=walks,
            length=walk_steps,
            seed=seed,
            settled=settled,
            progress=progress,
        )
    return search(
        model,
        settled=settled,
        max_states=max_states,
        max_depth=max_depth,
        max_seconds=max_seconds,
        progress=progress,
        lean=lean,
        exact=exact,
    )
