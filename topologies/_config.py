"""A validated configuration (:class:`Config`), its crash schedule (:class:`FaultSpec`)
and the command line's :class:`Overrides`.

:class:`Config` also derives what a run needs from it: the wiring, the algorithm's class
and bound, the cluster id, the TOML a node process reads back.  Validation is in
``_validate.py``; secret and key files in ``_keys.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ringleader.actors import Bound, DetectorSettings, Election, LeaseSettings
from ringleader.actors.core import ClusterDefinition, DefinedNode
from ringleader.actors.faults import NetworkFault
from ringleader.transport import CurveKeys, Unencodable, layout

from ._custom import custom_algorithm, is_custom
from ._errors import ConfigError
from ._keys import configured_secret, is_loopback, load_curve_keys, read_secret
from ._registry import TOPOLOGIES
from ._schema import DETECTOR_DEFAULTS
from ._wiring import NodeSpec, Wiring

__all__ = ["Config", "FaultSpec", "Overrides"]


@dataclass(frozen=True)
class FaultSpec:
    """``[[faults]]``: crash ``crash`` (a node id or ``"leader"``) ``at`` seconds after the
    first leader is elected (``after = "start"``: after the run starts, to crash a node in
    the middle of the first election); bring it back ``restart_after`` seconds later, if
    given."""

    at: float
    crash: int | str
    restart_after: float | None = None
    after: str = "leader"

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "crash": self.crash,
            "restart_after": self.restart_after,
            "after": self.after,
        }


@dataclass(frozen=True)
class Overrides:
    """Values given on the command line; they replace the config's."""

    topology: str | None = None
    algorithm: str | None = None
    transport: str | None = None
    nodes: int | None = None
    initiators: list[int] | str | None = None
    timeout: float | None = None
    mode: str | None = None
    run_for: float | None = None

    def items(self) -> list[tuple[str, Any]]:
        return [(k, v) for k, v in vars(self).items() if v is not None]


@dataclass(frozen=True)
class Config:
    """A validated configuration.  ``algorithm`` is resolved (never ``"auto"``)."""

    topology: str
    algorithm: str
    transport: str
    initiators: tuple[int, ...]
    timeout: float
    nodes: tuple[NodeSpec, ...]
    edges: tuple[tuple[int, int], ...] | None = None
    settings: Mapping[str, float] = field(default_factory=dict)
    secret_file: Path | None = None
    #: ``watch_secret_file``: the read-only watch key, for ``ringleader watch --key``.
    watch_secret_file: Path | None = None
    source: str = "built-in default"
    auto_algorithm: bool = field(default=True, compare=False)
    mode: str = "threads"
    run_for: float | None = None
    faults: tuple[FaultSpec, ...] = ()
    #: The ``[[faults]]`` entries that make the network misbehave (partition, loss,
    #: delay, duplicate, reorder, pause), in every mode.
    network: tuple[NetworkFault, ...] = ()
    #: The failure detector's settings, also when this run does not use it (``node``
    #: always does).
    detector_settings: Mapping[str, float] = field(default_factory=lambda: dict(DETECTOR_DEFAULTS))
    #: ``cluster``: a name that sets the cluster id (default: one derived from the members).
    cluster: str | None = None
    #: ``security``: ``"hmac"`` (signed frames) or ``"curve"`` (also ZeroMQ CURVE
    #: encryption and peer authentication, with the key pairs in ``keys``).
    security: str = "hmac"
    keys: Path | None = None
    #: ``pickle_messages``: message classes that have no compact layout go by pickle
    #: (a holder of the secret can then run code on every node: ``docs/security.md``).
    pickle_messages: bool = False
    #: ``state_dir``: where ``ringleader node`` keeps each node's state (default: the
    #: user's, see :func:`ringleader.service.default_state_dir`).
    state_dir: Path | None = None

    @property
    def detector(self) -> bool:
        """Whether the failure detector runs: the run goes on after its first election."""
        return bool(self.faults) or self.run_for is not None

    @property
    def n(self) -> int:
        return len(self.nodes)

    @property
    def founding(self) -> list[int]:
        """The ids of the founding configuration's members: every node not ``spare``
        (a spare is listed so that every node knows its address and its place, and a
        service may add it live)."""
        return [n.id for n in self.nodes if not n.spare]

    @property
    def spares(self) -> list[int]:
        """The ids of the nodes listed ``spare = true``."""
        return [n.id for n in self.nodes if n.spare]

    def check_no_spares(self, what: str) -> None:
        """Raise a :class:`ConfigError` if a node is ``spare``: ``what`` (a run of the
        notes' rules, the simulator, the explorer without ``--service``) elects among
        every node, and has no members to add one to."""
        for index, spec in enumerate(self.nodes):
            if spec.spare:
                raise ConfigError(
                    self.source,
                    f"nodes[{index}].spare",
                    f"{what} elects among every node: a spare is for a service "
                    "(ringleader node, or explore --service)",
                    "leave spare out, or run the nodes with ringleader node",
                )

    @cached_property
    def wiring(self) -> Wiring:
        return TOPOLOGIES[self.topology].build(self.nodes, self.edges)

    @property
    def algorithm_class(self) -> type[Election]:
        if is_custom(self.algorithm):  # "module:Class": a class of one's own
            return custom_algorithm(self.algorithm)[1]
        return TOPOLOGIES[self.topology].algorithm(self.algorithm)

    @property
    def bound(self) -> Bound:
        return self.algorithm_class.bound(self.wiring, self.initiators)

    @property
    def definition(self) -> ClusterDefinition:
        """What defines this config's cluster: its name, topology, algorithm, every node
        (id, the address its peers dial: ``advertise`` if given; capacity, own
        ``suspect_after``, parent), its edges, and the settings a standalone node's lease
        rests on (heartbeat, suspect_after, lease, quorum), as :meth:`node_settings`
        gives them to its failure detector and lease; ``quorum`` as a node of a service
        runs it: on unless the config says ``quorum = false`` (so a config that leaves it
        out and one that turns it off define two clusters)."""
        settings = self.node_settings()
        detector = DetectorSettings.of(settings)
        lease = LeaseSettings.of(settings)
        algorithm = self.algorithm_class
        nodes = tuple(
            DefinedNode(
                n.id, n.dial or "", float(n.capacity), _us(n.suspect_after or 0.0), n.parent
            )
            for n in self.nodes
        )
        return ClusterDefinition(
            name=self.cluster or "",
            topology=self.topology,
            algorithm=algorithm.name,
            messages=tuple(f"{m.kind}: {_layout_of(m)}" for m in algorithm.messages),
            nodes=nodes,
            edges=tuple(self.edges or ()),
            heartbeat=0.0 if detector is None else _us(detector.heartbeat),
            suspect_after=0.0 if detector is None else _us(detector.suspect_after),
            lease=0.0 if lease is None else _us(lease.lease),
            quorum=lease is not None and bool(settings.get("quorum", 1.0)),
            spares=tuple(self.spares),
        )

    @property
    def cluster_id(self) -> int:
        """The 64-bit cluster id in every frame: a digest of :attr:`definition`, so the
        processes of one config agree on it, and frames of a node whose config defines
        the cluster otherwise (another member, address, algorithm or lease setting; not
        only another ``cluster`` name) are never acted on."""
        return self.definition.cluster_id

    @property
    def addresses(self) -> dict[int, str]:
        """Each node's address as its peers and operators dial it: its ``advertise``
        address if given, else the one it binds (nodes without one are left out)."""
        return {n.id: n.dial for n in self.nodes if n.dial is not None}

    @property
    def remote(self) -> bool:
        """Whether some node is reachable from another machine: it binds or advertises an
        address that is not on loopback (nor ipc)."""
        return any(
            a is not None and not is_loopback(a)
            for n in self.nodes
            for a in (n.address, n.advertise)
        )

    def node_settings(self) -> dict[str, float]:
        """The settings a standalone node runs with: the failure detector always on."""
        return {**self.settings, **self.detector_settings}

    def to_toml(self) -> str:
        """This config as TOML that :func:`load_config` reads back to an equal config."""
        data: dict[str, Any] = {
            "topology": self.topology,
            "algorithm": self.algorithm,
            "transport": self.transport,
            "initiators": list(self.initiators),
            "timeout": self.timeout,
            "mode": self.mode,
            "security": self.security,
            "pickle_messages": self.pickle_messages,
            **self.settings,
            **self.detector_settings,
        }
        optional = {
            "run_for": self.run_for,
            "cluster": self.cluster,
            "secret_file": None if self.secret_file is None else str(self.secret_file.resolve()),
            "watch_secret_file": None
            if self.watch_secret_file is None
            else str(self.watch_secret_file.resolve()),
            "keys": None if self.keys is None else str(self.keys.resolve()),
            "state_dir": None if self.state_dir is None else str(self.state_dir.resolve()),
            "edges": None if self.edges is None else [list(e) for e in self.edges],
        }
        for flag in ("quorum", "preempt"):  # kept as 1.0 / 0.0 among the settings
            if flag in data:  # a bool in TOML
                data[flag] = bool(data[flag])
        data.update(_given(optional))
        data["nodes"] = [
            {k: v for k, v in _given(asdict(node)).items() if k != "spare" or v}
            for node in self.nodes
        ]
        if self.faults or self.network:
            data["faults"] = [_given(fault.as_dict()) for fault in self.faults]
            data["faults"] += [entry.as_toml() for entry in self.network]
        import tomli_w  # noqa: PLC0415 -- only node processes need a config written

        return tomli_w.dumps(data)

    def curve_keys(self, hosted: Collection[int]) -> CurveKeys | None:
        """With ``security = "curve"``: every member's public key (and the operator's, if
        ``keys`` holds one), and the secret keys of ``hosted``; ``None`` otherwise."""
        if self.security != "curve" or self.keys is None:
            return None
        return load_curve_keys(self.keys, [n.id for n in self.nodes], hosted, self.source)

    def secret_keys_here(self) -> list[int]:
        """With ``security = "curve"``, load the key files as ``run`` and ``node`` do (a
        :class:`ConfigError` names the first missing or bad one) and return the nodes
        whose secret key is here: every node when all of them are on this machine, else
        those whose ``node-ID.key_secret`` is in ``keys``.  ``[]`` without CURVE."""
        if self.security != "curve" or self.keys is None:
            return []
        ids = [n.id for n in self.nodes]
        if self.remote:
            ids = [i for i in ids if (self.keys / f"node-{i}.key_secret").exists()]
        self.curve_keys(ids)
        return ids

    def secret(self) -> bytes | None:
        """The cluster secret: ``secret_file``, else ``$RINGLEADER_SECRET``, else ``None``."""
        return configured_secret(self.secret_file, self.source)

    def watch_secret(self) -> bytes | None:
        """The read-only watch key (``watch_secret_file``), or ``None``."""
        if self.watch_secret_file is None:
            return None
        return read_secret(self.watch_secret_file, self.source, "watch_secret_file")

    def replace(self, **changes: Any) -> Config:
        return replace(self, **changes)


def _given(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without those not given (``None``): TOML has no null."""
    return {key: value for key, value in values.items() if value is not None}


def _layout_of(message: type) -> str:
    """How ``message`` goes on the wire, in words (``pickle`` without a layout)."""
    try:
        return layout(message).shape
    except Unencodable:
        return "pickle"


def _us(seconds: float) -> float:
    """A setting to the microsecond: 3 × 0.1 s and 0.3 s define the same cluster."""
    return round(seconds, 6)
