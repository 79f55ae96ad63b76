"""A trace's first line: what ran — the algorithm, the topology, the nodes, the config as
run, the seed and the version of ringleader — so that a replay tells the run from what
ran rather than guessing it from the message kinds.

``{"event":"header","algorithm":"chang_roberts","topology":"unidirectional_ring",
"nodes":[{"id":1,"capacity":1},…],"config":{…},"seed":0,"mode":"simulated",
"ringleader":"0.1.0"}``.  ``algorithm`` is the config's name for one of the notes'
algorithms, ``module:Class`` for any other.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ringleader.actors import ALGORITHMS, Election
from ringleader.topologies import Config
from ringleader.transport import __version__

__all__ = ["algorithm_name", "trace_header"]

Event = dict[str, Any]


def algorithm_name(algorithm: type[Election]) -> str:
    """``algorithm`` as a config names it: its registry name if it is one of the notes'
    algorithms, else ``module:Class`` (the config's value, with the file it came from,
    is the header's ``config.algorithm``)."""
    if ALGORITHMS.get(getattr(algorithm, "name", "")) is algorithm:
        return algorithm.name
    return f"{algorithm.__module__}:{algorithm.__qualname__}"


def _fault(fault: Any) -> Any:
    if hasattr(fault, "as_dict"):
        return fault.as_dict()
    if dataclasses.is_dataclass(fault) and not isinstance(fault, type):
        return {"kind": type(fault).__name__.lower(), **dataclasses.asdict(fault)}
    return repr(fault)


def _config(config: Config) -> dict[str, Any]:
    """The config's values as the run used them (its file's, after the command line's
    overrides and the defaults); nothing machine-local (secrets, keys, state folders)."""
    values: dict[str, Any] = {
        "topology": config.topology,
        "algorithm": config.algorithm,
        "transport": config.transport,
        "mode": config.mode,
        "nodes": [
            {k: v for k, v in dataclasses.asdict(spec).items() if v is not None}
            for spec in config.nodes
        ],
        "initiators": list(config.initiators),
        "timeout": config.timeout,
        "settings": dict(config.settings),
    }
    if config.edges is not None:
        values["edges"] = [list(edge) for edge in config.edges]
    if config.run_for is not None:
        values["run_for"] = config.run_for
    if config.faults or config.network:
        values["faults"] = [_fault(f) for f in (*config.faults, *config.network)]
    if config.cluster is not None:
        values["cluster"] = config.cluster
    values["source"] = config.source
    return values


def trace_header(
    config: Config,
    *,
    algorithm: type[Election] | None = None,
    seed: int | None = None,
    mode: str | None = None,
) -> Event:
    """The header of a trace of ``config``'s run (``algorithm``: the class that ran, if
    not the config's; ``seed``: the simulator's or the explorer's; ``mode``: threads,
    processes, simulated, explored, node)."""
    ran = algorithm or config.algorithm_class
    header: Event = {
        "event": "header",
        "algorithm": algorithm_name(ran),
        # its own title only: a student's subclass of ChangRoberts is not Chang–Roberts
        "title": vars(ran).get("title") or ran.__name__,
        "topology": config.topology,
        "nodes": [{"id": spec.id, "capacity": spec.capacity} for spec in config.nodes],
        "mode": mode or config.mode,
        "config": _config(config),
    }
    if seed is not None:
        header["seed"] = seed
    header["ringleader"] = __version__
    return header
