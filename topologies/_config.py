"""The TOML configuration: loading, validation, command-line overrides.

Every problem is a :class:`ConfigError` naming the file, the key and
what would fix it, e.g. ``ring.toml: nodes[3].id: 7 is used twice (also nodes[1])``.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import os
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import tomli_w

from actors import ALGORITHMS, Bound, Election
from actors.host import OPERATOR
from transport import BETWEEN_PROCESSES, TRANSPORTS, CurveKeys

from ._errors import ConfigError, WiringError
from ._registry import TOPOLOGIES
from ._wiring import NodeSpec, Wiring

__all__ = [
    "DEFAULT_NODES",
    "MODES",
    "SECRET_ENV",
    "SECURITY",
    "TRANSPORT_NAMES",
    "Config",
    "FaultSpec",
    "Overrides",
    "default_config",
    "load_config",
]

TRANSPORT_NAMES = TRANSPORTS
SECRET_ENV = "RINGLEADER_SECRET"
DEFAULT_NODES = 8
DEFAULT_TIMEOUT = 30.0
MIN_SECRET = 16
_KEYS = (
    "topology",
    "algorithm",
    "transport",
    "initiators",
    "timeout",
    "secret_file",
    "nodes",
    "edges",
    "election_timeout",
    "coordinator_timeout",
    "heartbeat",
    "suspect_after",
    "reelect_after",
    "mode",
    "run_for",
    "faults",
    "cluster",
    "security",
    "keys",
)
_NODE_KEYS = ("id", "capacity", "address", "parent")
_FAULT_KEYS = ("at", "crash", "restart_after")
MODES = ("threads", "processes")
SECURITY = ("hmac", "curve")
#: Algorithm tunables: config key → default, in seconds (see actors/_bully.py).
_SETTINGS = {"election_timeout": 0.5, "coordinator_timeout": 1.0}
#: The failure detector's, used when a run goes on after its first election.
_DETECTOR = {"heartbeat": 0.05, "suspect_after": 0.3, "reelect_after": 2.0}
_MAX_SETTING = 86_400.0  # a day
_I64 = 2**63
_FLAGS = {
    "topology": "--topology",
    "algorithm": "--algorithm",
    "transport": "--transport",
    "initiators": "--initiators",
    "timeout": "--timeout",
    "nodes": "--nodes",
    "mode": "--mode",
    "run_for": "--run-for",
}


@dataclass(frozen=True)
class FaultSpec:
    """``[[faults]]``: crash ``crash`` (a node id or ``"leader"``) ``at`` seconds after the
    first leader is elected; bring it back ``restart_after`` seconds later, if given."""

    at: float
    crash: int | str
    restart_after: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"at": self.at, "crash": self.crash, "restart_after": self.restart_after}


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
    source: str = "built-in default"
    auto_algorithm: bool = field(default=True, compare=False)
    mode: str = "threads"
    run_for: float | None = None
    faults: tuple[FaultSpec, ...] = ()
    #: The failure detector's settings, also when this run does not use it (``node``
    #: always does).
    detector_settings: Mapping[str, float] = field(default_factory=lambda: dict(_DETECTOR))
    #: ``cluster``: a name that sets the cluster id (default: one derived from the members).
    cluster: str | None = None
    #: ``security``: ``"hmac"`` (signed frames) or ``"curve"`` (also ZeroMQ CURVE
    #: encryption and peer authentication, with the key pairs in ``keys``).
    security: str = "hmac"
    keys: Path | None = None

    @property
    def detector(self) -> bool:
        """Whether the failure detector runs: the run goes on after its first election."""
        return bool(self.faults) or self.run_for is not None

    @property
    def n(self) -> int:
        return len(self.nodes)

    @cached_property
    def wiring(self) -> Wiring:
        return TOPOLOGIES[self.topology].build(self.nodes, self.edges)

    @property
    def algorithm_class(self) -> type[Election]:
        return TOPOLOGIES[self.topology].algorithm(self.algorithm)

    @property
    def bound(self) -> Bound:
        return self.algorithm_class.bound(self.wiring, self.initiators)

    @property
    def cluster_id(self) -> int:
        """The 64-bit cluster id in every frame: from ``cluster`` if set, else from the
        topology and every node's id and address, so the processes of one config agree on
        it and frames of another cluster are dropped."""
        if self.cluster is not None:
            text = f"name:{self.cluster}"
        else:
            members = ";".join(f"{n.id}@{n.address or ''}" for n in self.nodes)
            text = f"members:{self.topology}:{members}"
        digest = hashlib.sha256(f"ringleader cluster {text}".encode()).digest()
        return int.from_bytes(digest[:8], "big")

    @property
    def addresses(self) -> dict[int, str]:
        """Each node's configured address (nodes without one are left out)."""
        return {n.id: n.address for n in self.nodes if n.address is not None}

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
            **self.settings,
            **self.detector_settings,
        }
        optional = {
            "run_for": self.run_for,
            "cluster": self.cluster,
            "secret_file": None if self.secret_file is None else str(self.secret_file.resolve()),
            "keys": None if self.keys is None else str(self.keys.resolve()),
            "edges": None if self.edges is None else [list(e) for e in self.edges],
        }
        data.update(_given(optional))
        data["nodes"] = [_given(asdict(node)) for node in self.nodes]
        if self.faults:
            data["faults"] = [_given(fault.as_dict()) for fault in self.faults]
        return tomli_w.dumps(data)

    def curve_keys(self, hosted: Collection[int]) -> CurveKeys | None:
        """With ``security = "curve"``: every member's public key (and the operator's, if
        ``keys`` holds one), and the secret keys of ``hosted``; ``None`` otherwise."""
        if self.security != "curve" or self.keys is None:
            return None
        import zmq.auth  # noqa: PLC0415 -- only for CURVE

        public: dict[int, bytes] = {}
        secret: dict[int, bytes] = {}
        names = {n.id: f"node-{n.id}" for n in self.nodes}
        names[OPERATOR] = "operator"
        hint = f"make them with: ringleader keys {self.keys} --ids " + ",".join(
            str(n.id) for n in self.nodes
        )
        for node, name in names.items():
            path = self.keys / f"{name}.key"
            if not path.exists():
                if node == OPERATOR and node not in hosted:
                    continue  # then nobody may ask for status
                raise ConfigError(self.source, "keys", f"{path} is missing", hint)
            try:
                public[node], _ = zmq.auth.load_certificate(path)
                if node in hosted:
                    own = self.keys / f"{name}.key_secret"
                    _, key = zmq.auth.load_certificate(own)
                    if key is None:
                        raise ValueError(f"{own} holds no secret key")
                    secret[node] = key
            except (OSError, ValueError) as exc:
                problem = f"cannot load {name}'s key: {exc}"
                raise ConfigError(self.source, "keys", problem, hint) from None
        return CurveKeys(public, secret)

    def secret(self) -> bytes | None:
        """The cluster secret: ``secret_file``, else ``$RINGLEADER_SECRET``, else ``None``."""
        if self.secret_file is not None:
            return _read_secret(self.secret_file, self.source)
        env = os.environ.get(SECRET_ENV)
        if env is None:
            return None
        secret = env.encode()
        if len(secret) < MIN_SECRET:
            raise ConfigError(
                f"${SECRET_ENV}",
                None,
                f"the secret is {len(secret)} bytes, at least {MIN_SECRET} are needed",
            )
        return secret

    def replace(self, **changes: Any) -> Config:
        return replace(self, **changes)


def _read_secret(path: Path, source: str) -> bytes:
    try:
        secret = path.read_bytes().strip()
    except OSError as exc:
        raise ConfigError(
            source, "secret_file", f"cannot read {path}: {exc.strerror or exc}"
        ) from None
    if len(secret) < MIN_SECRET:
        raise ConfigError(
            source,
            "secret_file",
            f"{path} holds {len(secret)} bytes, at least {MIN_SECRET} are needed",
            "put a long random string in it, e.g. "
            "python -c 'import secrets; print(secrets.token_hex(32))'",
        )
    return secret


def default_config(overrides: Overrides | None = None) -> Config:
    """The built-in default: an 8-node unidirectional ring, every node initiating."""
    return _Validator(
        {"topology": "unidirectional_ring", "nodes": DEFAULT_NODES},
        "built-in default",
        None,
        overrides,
    ).config()


def load_config(path: str | os.PathLike[str] | None, overrides: Overrides | None = None) -> Config:
    """Load and validate ``path`` (``None``: the built-in default), applying ``overrides``."""
    if path is None:
        return default_config(overrides)
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(source, None, "no such file") from None
    except IsADirectoryError:
        raise ConfigError(source, None, "is a directory, not a TOML file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            source, None, f"is not UTF-8 text (byte {exc.start})", "save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(source, None, f"cannot read it: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, None, f"TOML syntax error: {exc}") from None
    return _Validator(data, source, path.parent, overrides).config()


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _choices(values: Any) -> str:
    return ", ".join(str(v) for v in values)


class _Validator:
    def __init__(
        self,
        data: Mapping[str, Any],
        source: str,
        base: Path | None,
        overrides: Overrides | None,
    ) -> None:
        self.data = dict(data)
        self.source = source
        self.base = base
        self.from_cli: set[str] = set()
        for key, value in overrides.items() if overrides else []:
            self.data[key] = value
            self.from_cli.add(key)

    def error(self, key: str, problem: str, hint: str | None = None) -> ConfigError:
        root = key.split("[", 1)[0].split(".", 1)[0]
        if root in self.from_cli:
            return ConfigError("command line", _FLAGS[root], problem, hint)
        return ConfigError(self.source, key, problem, hint)

    def config(self) -> Config:
        for key in self.data:
            if key not in _KEYS:
                close = difflib.get_close_matches(key, _KEYS, n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"valid keys: {_choices(_KEYS)}"
                raise self.error(key, "unknown key", hint)
        topology = self.topology()
        algorithm, auto = self.algorithm(topology)
        transport = self.choice("transport", "tcp", TRANSPORT_NAMES)
        nodes = self.nodes(transport)
        edges = self.edges()
        mode = self.choice("mode", "threads", MODES)
        security = self.choice("security", "hmac", SECURITY)
        if mode == "processes" and transport not in BETWEEN_PROCESSES:
            raise self.error(
                "mode",
                f"one process per node cannot use transport {transport}: its mailboxes "
                "live inside one process",
                'use transport = "tcp" or "ipc"',
            )
        faults = self.faults(nodes, topology)
        run_for = self.data.get("run_for")
        if run_for is not None and (not _is_number(run_for) or not 0 <= run_for <= _MAX_SETTING):
            raise self.error("run_for", f"{run_for!r} is not a number of seconds in [0, 86400]")
        settings = self.settings()
        detector = self.detector()
        if faults or run_for is not None:
            settings.update(detector)
        config = Config(
            topology=topology,
            algorithm=algorithm,
            transport=transport,
            initiators=self.initiators(nodes),
            timeout=self.timeout(),
            nodes=nodes,
            edges=edges,
            settings=settings,
            secret_file=self.secret_file(),
            source=self.source,
            auto_algorithm=auto,
            mode=mode,
            run_for=None if run_for is None else float(run_for),
            faults=faults,
            detector_settings=detector,
            cluster=self.cluster(),
            security=security,
            keys=self.keys(security, transport),
        )
        try:
            config.wiring  # noqa: B018 -- build it now, so a bad wiring is a config error
        except WiringError as exc:
            raise self.wiring_error(exc, topology) from None
        return config

    def wiring_error(self, exc: WiringError, topology: str) -> ConfigError:
        if "topology" in self.from_cli:
            problem = f"the config does not make a {topology}: {exc.key}: {exc.problem}"
            return ConfigError("command line", "--topology", problem, exc.hint)
        key = exc.key if exc.key != "parent" else "nodes"
        return self.error(key, f"{exc.problem} ({topology})", exc.hint)

    def edges(self) -> tuple[tuple[int, int], ...] | None:
        value = self.data.get("edges")
        if value is None:
            return None
        if not isinstance(value, list):
            raise self.error(
                "edges", "must be a list of [a, b] pairs", "e.g. edges = [[1, 2], [2, 3]]"
            )
        pairs = []
        for index, pair in enumerate(value):
            if not (isinstance(pair, list) and len(pair) == 2 and all(_is_int(v) for v in pair)):
                raise self.error(
                    f"edges[{index}]", f"{pair!r} is not a pair of node ids", "e.g. [1, 2]"
                )
            pairs.append((pair[0], pair[1]))
        return tuple(pairs)

    def settings(self) -> dict[str, float]:
        settings = {}
        for key, default in _SETTINGS.items():
            value = self.data.get(key, default)
            if not _is_number(value) or not 0 < value <= _MAX_SETTING:
                raise self.error(
                    key, f"{value!r} is not a number of seconds in (0, {_MAX_SETTING:g}]"
                )
            settings[key] = float(value)
        return settings

    def seconds(self, key: str, value: Any, *, zero: bool = False) -> float:
        low, bracket = (0.0, "[") if zero else (0.0, "(")
        if (
            not _is_number(value)
            or not (low <= value if zero else low < value)
            or value > _MAX_SETTING
        ):
            raise self.error(
                key, f"{value!r} is not a number of seconds in {bracket}0, {_MAX_SETTING:g}]"
            )
        return float(value)

    def detector(self) -> dict[str, float]:
        settings = {k: self.seconds(k, self.data.get(k, v)) for k, v in _DETECTOR.items()}
        if "suspect_after" not in self.data:
            settings["suspect_after"] = max(settings["suspect_after"], 3 * settings["heartbeat"])
        if settings["suspect_after"] <= settings["heartbeat"]:
            raise self.error(
                "suspect_after",
                f"{settings['suspect_after']:g} s is not longer than heartbeat "
                f"({settings['heartbeat']:g} s): every node would be suspected",
                "make it at least 3 heartbeats",
            )
        return settings

    def faults(self, nodes: tuple[NodeSpec, ...], topology: str) -> tuple[FaultSpec, ...]:
        value = self.data.get("faults")
        if value is None:
            return ()
        example = 'e.g. [[faults]] at = 0.3, crash = "leader", restart_after = 0.8'
        if not isinstance(value, list):
            raise self.error("faults", "must be a list of [[faults]] tables", example)
        ids = {n.id for n in nodes}
        faults = []
        for index, entry in enumerate(value):
            key = f"faults[{index}]"
            if not isinstance(entry, dict):
                raise self.error(key, "must be a table", example)
            for name in entry:
                if name not in _FAULT_KEYS:
                    close = difflib.get_close_matches(name, _FAULT_KEYS, n=1)
                    hint = (
                        f"did you mean {close[0]!r}?"
                        if close
                        else f"valid: {_choices(_FAULT_KEYS)}"
                    )
                    raise self.error(f"{key}.{name}", "unknown key", hint)
            if "at" not in entry:
                raise self.error(
                    f"{key}.at", "missing", "seconds after the first leader is elected"
                )
            at = self.seconds(f"{key}.at", entry["at"], zero=True)
            crash = entry.get("crash")
            if crash is None:
                raise self.error(f"{key}.crash", "missing", 'a node id, or "leader"')
            if crash != "leader" and (not _is_int(crash) or crash not in ids):
                shown = _choices(sorted(ids)[:12]) + (", …" if len(ids) > 12 else "")
                raise self.error(
                    f"{key}.crash",
                    f"{crash!r} is not a node of the cluster",
                    f'"leader" or one of: {shown}',
                )
            restart = entry.get("restart_after")
            if restart is not None:
                restart = self.seconds(f"{key}.restart_after", restart)
            faults.append(FaultSpec(at, crash, restart))
        return tuple(faults)

    def keys(self, security: str, transport: str) -> Path | None:
        value = self.data.get("keys")
        if security != "curve":
            if value is not None:
                raise self.error("keys", 'is only used with security = "curve"')
            return None
        if transport not in BETWEEN_PROCESSES:
            raise self.error(
                "security",
                f"CURVE needs a ZeroMQ transport between sockets, not {transport}",
                'use transport = "tcp" or "ipc"',
            )
        hint = "a directory made with: ringleader keys DIR --ids 1,2,3"
        if not isinstance(value, str) or not value:
            raise self.error(
                "keys", "missing" if value is None else f"{value!r} is not a path", hint
            )
        path = Path(value).expanduser()
        if not path.is_absolute() and self.base is not None:
            path = self.base / path
        if not path.is_dir():
            raise self.error("keys", f"{path} is not a directory", hint)
        return path

    def cluster(self) -> str | None:
        value = self.data.get("cluster")
        if value is not None and (not isinstance(value, str) or not value):
            raise self.error("cluster", f"{value!r} is not a name", 'e.g. cluster = "lab-3"')
        return value

    def choice(self, key: str, default: str | None, valid: tuple[str, ...]) -> str:
        value = self.data.get(key, default)
        if value is None:
            raise self.error(key, "missing", f"required; one of: {_choices(valid)}")
        if not isinstance(value, str) or value not in valid:
            raise self.error(key, f"unknown {key} {value!r}", f"valid: {_choices(valid)}")
        return value

    def topology(self) -> str:
        return self.choice("topology", None, tuple(TOPOLOGIES))

    def algorithm(self, topology: str) -> tuple[str, bool]:
        name = self.choice("algorithm", "auto", ("auto", *ALGORITHMS))
        fits = TOPOLOGIES[topology].algorithms
        swapped = "topology" in self.from_cli and "algorithm" not in self.from_cli
        if name == "auto" or (swapped and name not in fits):
            # --topology swaps the wiring; the config's algorithm goes if it does not fit.
            return fits[0], True
        if name not in fits:
            raise self.error(
                "algorithm",
                f"{name} does not fit topology {topology}",
                f"fits: {_choices(fits)}, or auto",
            )
        return name, False

    def timeout(self) -> float:
        value = self.data.get("timeout", DEFAULT_TIMEOUT)
        if not _is_number(value) or value <= 0:
            raise self.error("timeout", f"{value!r} is not a positive number of seconds")
        return float(value)

    def secret_file(self) -> Path | None:
        value = self.data.get("secret_file")
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.error("secret_file", f"{value!r} is not a file name")
        path = Path(value).expanduser()
        if not path.is_absolute() and self.base is not None:
            path = self.base / path
        _read_secret(path, self.source)
        return path

    def nodes(self, transport: str) -> tuple[NodeSpec, ...]:
        value = self.data.get("nodes")
        if value is None:
            raise self.error(
                "nodes", "missing", "give a count (nodes = 8) or one [[nodes]] table per node"
            )
        if _is_int(value):
            if value < 1:
                raise self.error("nodes", f"{value} nodes: at least 1 is needed")
            return tuple(NodeSpec(i, i) for i in range(1, value + 1))
        if not isinstance(value, list) or not value:
            raise self.error(
                "nodes", "must be a node count or a non-empty list of [[nodes]] tables"
            )
        seen_ids: dict[int, int] = {}
        seen_addresses: dict[str, int] = {}
        specs = []
        for index, entry in enumerate(value):
            spec = self.node(index, entry, transport)
            if spec.id in seen_ids:
                raise self.error(
                    f"nodes[{index}].id",
                    f"{spec.id} is used twice (also nodes[{seen_ids[spec.id]}])",
                )
            seen_ids[spec.id] = index
            if spec.address is not None:
                if spec.address in seen_addresses:
                    raise self.error(
                        f"nodes[{index}].address",
                        f"{spec.address} is used twice "
                        f"(also nodes[{seen_addresses[spec.address]}])",
                    )
                seen_addresses[spec.address] = index
            specs.append(spec)
        return tuple(specs)

    def node(self, index: int, entry: Any, transport: str) -> NodeSpec:
        key = f"nodes[{index}]"
        if not isinstance(entry, dict):
            raise self.error(
                key, "must be a table with at least an id", "write [[nodes]] then id = …"
            )
        for name in entry:
            if name not in _NODE_KEYS:
                raise self.error(
                    f"{key}.{name}", "unknown key", f"valid keys: {_choices(_NODE_KEYS)}"
                )
        node_id = entry.get("id")
        if node_id is None:
            raise self.error(f"{key}.id", "missing", "every node needs a unique integer id")
        if not _is_int(node_id) or not -_I64 < node_id < _I64:
            raise self.error(
                f"{key}.id", f"{node_id!r} is not a 64-bit integer above -2**63 (the operator's)"
            )
        capacity = entry.get("capacity", node_id)
        if not _is_number(capacity):
            raise self.error(f"{key}.capacity", f"{capacity!r} is not a finite number")
        assert capacity is not None
        address = entry.get("address")
        if address is not None:
            self.check_address(f"{key}.address", address, transport)
        parent = entry.get("parent")
        if parent is not None and not _is_int(parent):
            raise self.error(f"{key}.parent", f"{parent!r} is not a node id")
        return NodeSpec(node_id, capacity, address, parent)

    def check_address(self, key: str, address: Any, transport: str) -> None:
        examples = {
            "tcp": "tcp://127.0.0.1:7001",
            "ipc": "ipc:///tmp/ringleader/node1.sock",
            "inproc": "inproc://node1",
            "memory": "memory://node1",
        }
        if not isinstance(address, str) or not address.startswith(f"{transport}://"):
            raise self.error(
                key,
                f"{address!r} is not a {transport}:// address (the transport is {transport})",
                f"e.g. {examples[transport]}, or leave it out for a free one",
            )
        rest = address[len(transport) + 3 :]
        if transport == "tcp":
            host, _, port = rest.rpartition(":")
            if not host or not (port == "*" or (port.isdigit() and 0 < int(port) < 65536)):
                raise self.error(
                    key, f"{address!r} needs a host and a port", f"e.g. {examples['tcp']}"
                )
        elif not rest:
            raise self.error(key, f"{address!r} has no name", f"e.g. {examples[transport]}")

    def initiators(self, nodes: tuple[NodeSpec, ...]) -> tuple[int, ...]:
        value = self.data.get("initiators", "all")
        ids = [n.id for n in nodes]
        if value == "all":
            return tuple(ids)
        if not isinstance(value, list) or not value or not all(_is_int(v) for v in value):
            raise self.error(
                "initiators", f'{value!r} is not "all" or a non-empty list of node ids'
            )
        known = set(ids)
        for v in value:
            if v not in known:
                shown = _choices(ids[:12]) + (", …" if len(ids) > 12 else "")
                raise self.error("initiators", f"node {v} is not in the cluster", f"nodes: {shown}")
        if len(set(value)) != len(value):
            raise self.error("initiators", "lists a node twice")
        order = {i: k for k, i in enumerate(ids)}
        return tuple(sorted(value, key=order.__getitem__))


def _given(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` without those not given (``None``): TOML has no null."""
    return {key: value for key, value in values.items() if value is not None}
