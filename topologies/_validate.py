"""Reading a TOML config into a validated :class:`~ringleader.topologies.Config`.

Every problem is a :class:`ConfigError` naming the file, the key and
what would fix it, e.g. ``ring.toml: nodes[3].id: 7 is used twice (also nodes[1])``.
"""

from __future__ import annotations

import difflib
import math
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ringleader.actors import ALGORITHMS, DetectorSettings, LeaseSettings
from ringleader.actors.faults import NetworkFault
from ringleader.transport import BETWEEN_PROCESSES

from ._codec import check_messages
from ._config import Config, FaultSpec, Overrides
from ._custom import AlgorithmError, custom_algorithm, is_custom
from ._errors import ConfigError, WiringError
from ._keys import read_secret
from ._network_faults import NETWORK_KEYS, NETWORK_KINDS, network_fault
from ._registry import TOPOLOGIES
from ._schema import (
    ALGORITHM_DEFAULTS,
    DEFAULT_NODES,
    DEFAULT_TIMEOUT,
    DETECTOR_DEFAULTS,
    FAULT_AFTER,
    FAULT_KEYS,
    FLAGS,
    KEYS,
    MAX_ID,
    MAX_SETTING,
    MODES,
    NODE_KEYS,
    SECURITY,
    TRANSPORT_NAMES,
)
from ._wiring import NodeSpec

__all__ = ["default_config", "load_config"]

#: The topologies whose builder can refuse a config (edges or parents that do not make
#: one); their wiring is built while the config is read.  A ring or a full mesh wires
#: any nodes, and is built only when a run needs it, after its size is estimated (a
#: full mesh of 100,000 nodes has 10^10 links).
_REFUSING = frozenset({"graph", "spanning_tree"})


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
            return ConfigError("command line", FLAGS[root], problem, hint)
        return ConfigError(self.source, key, problem, hint)

    def config(self) -> Config:
        for key in self.data:
            if key not in KEYS:
                close = difflib.get_close_matches(key, KEYS, n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"valid keys: {_choices(KEYS)}"
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
        faults, network = self.faults(nodes, topology)
        run_for = self.data.get("run_for")
        if run_for is not None and (not _is_number(run_for) or not 0 <= run_for <= MAX_SETTING):
            raise self.error("run_for", f"{run_for!r} is not a number of seconds in [0, 86400]")
        settings = self.settings()
        detector = self.detector()
        detector.update(self.lease(detector, nodes))
        detector.update(self.preempt())
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
            watch_secret_file=self.secret_file("watch_secret_file"),
            source=self.source,
            auto_algorithm=auto,
            mode=mode,
            run_for=None if run_for is None else float(run_for),
            faults=faults,
            network=network,
            detector_settings=detector,
            cluster=self.cluster(),
            security=security,
            keys=self.keys(security, transport),
            pickle_messages=self.flag("pickle_messages"),
            state_dir=self.state_dir(),
        )
        try:
            if topology in _REFUSING:  # the others wire any nodes: built when needed
                config.wiring  # noqa: B018 -- build it now, so a bad wiring is a config error
        except WiringError as exc:
            raise self.wiring_error(exc, topology) from None
        if is_custom(algorithm):  # your own messages: laid out now, not at set-up
            check_messages(config)
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
        for key, default in ALGORITHM_DEFAULTS.items():
            value = self.data.get(key, default)
            if not _is_number(value) or not 0 < value <= MAX_SETTING:
                raise self.error(
                    key, f"{value!r} is not a number of seconds in (0, {MAX_SETTING:g}]"
                )
            settings[key] = float(value)
        return settings

    def seconds(self, key: str, value: Any, *, zero: bool = False) -> float:
        low, bracket = (0.0, "[") if zero else (0.0, "(")
        if (
            not _is_number(value)
            or not (low <= value if zero else low < value)
            or value > MAX_SETTING
        ):
            raise self.error(
                key, f"{value!r} is not a number of seconds in {bracket}0, {MAX_SETTING:g}]"
            )
        return float(value)

    def detector(self) -> dict[str, float]:
        settings = {k: self.seconds(k, self.data.get(k, v)) for k, v in DETECTOR_DEFAULTS.items()}
        if "suspect_after" not in self.data:
            settings["suspect_after"] = DetectorSettings.default_suspect_after(
                settings["heartbeat"]
            )
        if settings["suspect_after"] <= settings["heartbeat"]:
            raise self.error(
                "suspect_after",
                f"{settings['suspect_after']:g} s is not longer than heartbeat "
                f"({settings['heartbeat']:g} s): every node would be suspected",
                "make it at least 3 heartbeats",
            )
        fast = self.data.get("fast_failover")
        if fast is not None:  # absent: on (the nodes' default)
            # true/false (a config written back by to_toml says 1.0/0.0)
            if not isinstance(fast, bool | int | float) or fast not in (0, 1):
                raise self.error(
                    "fast_failover", f"{fast!r} is not true or false", "fast_failover = false"
                )
            settings["fast_failover"] = float(fast)
        return settings

    def lease(self, detector: dict[str, float], nodes: tuple[NodeSpec, ...]) -> dict[str, float]:
        """``lease`` (seconds, 0 = none) and, when given, ``quorum`` (1.0 or 0.0: left
        out, each mode has its default), checked against the detector: the lease must
        run out before any follower can suspect the leader."""
        heartbeat = detector["heartbeat"]
        suspect_after = min(
            [detector["suspect_after"], *(n.suspect_after for n in nodes if n.suspect_after)]
        )
        quorum = self.data.get("quorum", False)
        if not isinstance(quorum, bool):
            raise self.error("quorum", f"{quorum!r} is not true or false", "quorum = true")
        if "lease" not in self.data:
            lease = LeaseSettings.default_lease(heartbeat, suspect_after)
        else:
            lease = self.seconds("lease", self.data["lease"], zero=True)
            top = suspect_after - heartbeat
            if lease and lease > top + 1e-9:
                raise self.error(
                    "lease",
                    f"{lease:g} s must be below suspect_after {suspect_after:g} s minus a "
                    f"heartbeat ({heartbeat:g} s), or a follower may elect another leader "
                    "while this one still holds its lease",
                    f"lease = {LeaseSettings.default_lease(heartbeat, suspect_after) or top:g}",
                )
            if lease and lease < 2 * heartbeat - 1e-9:
                raise self.error(
                    "lease",
                    f"{lease:g} s is shorter than two heartbeats ({2 * heartbeat:g} s): "
                    "the leader could not renew it in time",
                    "raise it, lower heartbeat, or lease = 0 for none",
                )
        if quorum and not lease:
            raise self.error(
                "quorum",
                "a quorum needs a lease (suspect_after must leave room for one: "
                f"at least 2 heartbeats below it, now {suspect_after:g} s)",
                "set lease, or raise suspect_after",
            )
        if "quorum" not in self.data:
            return {"lease": lease}
        return {"lease": lease, "quorum": 1.0 if quorum else 0.0}

    def preempt(self) -> dict[str, float]:
        """``preempt`` (the service modes: a node above the leader takes the leadership
        over, by hand-over), kept as 1.0 among the settings when true."""
        preempt = self.data.get("preempt", False)
        if not isinstance(preempt, bool | int | float) or preempt not in (0, 1):
            raise self.error("preempt", f"{preempt!r} is not true or false", "preempt = true")
        return {"preempt": 1.0} if preempt else {}

    def faults(
        self, nodes: tuple[NodeSpec, ...], topology: str
    ) -> tuple[tuple[FaultSpec, ...], tuple[NetworkFault, ...]]:
        """The crash schedule, and the entries that make the network misbehave."""
        value = self.data.get("faults")
        if value is None:
            return (), ()
        example = 'e.g. [[faults]] at = 0.3, crash = "leader", restart_after = 0.8'
        if not isinstance(value, list):
            raise self.error("faults", "must be a list of [[faults]] tables", example)
        ids = {n.id for n in nodes}
        faults = []
        network: list[NetworkFault] = []
        for index, entry in enumerate(value):
            key = f"faults[{index}]"
            if not isinstance(entry, dict):
                raise self.error(key, "must be a table", example)
            misbehaving = self.network_fault(key, entry, ids)
            if misbehaving is not None:
                network.append(misbehaving)
                continue
            for name in entry:
                if name not in FAULT_KEYS:
                    valid = (*FAULT_KEYS, *NETWORK_KINDS, *NETWORK_KEYS)
                    close = difflib.get_close_matches(name, valid, n=1)
                    hint = f"did you mean {close[0]!r}?" if close else f"valid: {_choices(valid)}"
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
            after = entry.get("after", "leader")
            if after not in FAULT_AFTER:
                raise self.error(
                    f"{key}.after",
                    f"{after!r} is not what at counts from",
                    '"leader" (the first leader, the default) or "start" (the run\'s start)',
                )
            faults.append(FaultSpec(at, crash, restart, after))
        return tuple(faults), tuple(network)

    def network_fault(self, key: str, entry: dict[str, Any], ids: set[int]) -> NetworkFault | None:
        """The table ``entry`` as a network entry, or ``None`` if it is a crash entry."""
        kinds = [kind for kind in NETWORK_KINDS if kind in entry]
        if not kinds:
            return None
        if len(kinds) > 1 or "crash" in entry:
            both = " and ".join([*kinds, *(["crash"] if "crash" in entry else [])])
            raise self.error(key, f"has {both}", "one kind per [[faults]] table")
        return network_fault(key, entry, kinds[0], ids, self.error)

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

    def state_dir(self) -> Path | None:
        value = self.data.get("state_dir")
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.error(
                "state_dir", f"{value!r} is not a directory name", 'e.g. state_dir = "state"'
            )
        path = Path(value).expanduser()
        if not path.is_absolute() and self.base is not None:
            path = self.base / path
        return path

    def cluster(self) -> str | None:
        value = self.data.get("cluster")
        if value is not None and (not isinstance(value, str) or not value):
            raise self.error("cluster", f"{value!r} is not a name", 'e.g. cluster = "lab-3"')
        return value

    def flag(self, key: str) -> bool:
        """A key that is true or false (false unless given)."""
        value = self.data.get(key, False)
        if not isinstance(value, bool):
            raise self.error(key, f"{value!r} is not true or false", f"{key} = true")
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
        given = self.data.get("algorithm")
        if isinstance(given, str) and is_custom(given):
            try:  # your own Election subclass: any topology (its bound() says what it costs)
                canonical, _ = custom_algorithm(given, self.base or Path.cwd())
            except AlgorithmError as exc:
                raise self.error("algorithm", exc.problem, exc.hint) from None
            return canonical, False
        if isinstance(given, str) and given not in ("auto", *ALGORITHMS):
            raise self.error(
                "algorithm",
                f"unknown algorithm {given!r}",
                f"valid: {_choices(('auto', *ALGORITHMS))}, or module:Class for your own",
            )
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
        return self.seconds("timeout", self.data.get("timeout", DEFAULT_TIMEOUT))

    def secret_file(self, key: str = "secret_file") -> Path | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.error(key, f"{value!r} is not a file name")
        path = Path(value).expanduser()
        if not path.is_absolute() and self.base is not None:
            path = self.base / path
        read_secret(path, self.source, key)
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
        seen_addresses: dict[str, str] = {}  # dialled address -> the key that gave it
        specs = []
        for index, entry in enumerate(value):
            spec = self.node(index, entry, transport)
            if spec.id in seen_ids:
                raise self.error(
                    f"nodes[{index}].id",
                    f"{spec.id} is used twice (also nodes[{seen_ids[spec.id]}])",
                )
            seen_ids[spec.id] = index
            # Peers dial the advertised address: two nodes may bind the same one (every
            # interface, port 7001, on two machines) but never advertise the same.
            dial = spec.dial
            if dial is not None and not dial.endswith(":*"):  # * is any port
                # (the other's key names which of its two it was: its advertise, say)
                other = f"nodes[{index}]" + ("" if spec.advertise is None else ".advertise")
                if dial in seen_addresses:
                    raise self.error(
                        f"nodes[{index}].{'address' if spec.advertise is None else 'advertise'}",
                        f"{dial} is used twice (also {seen_addresses[dial]})",
                    )
                seen_addresses[dial] = other
            specs.append(spec)
        if all(spec.spare for spec in specs):
            raise self.error(
                "nodes",
                "every node is spare: a cluster needs a member to begin with",
                "leave spare = true out of the nodes the cluster begins with",
            )
        return tuple(specs)

    def node(self, index: int, entry: Any, transport: str) -> NodeSpec:
        key = f"nodes[{index}]"
        if not isinstance(entry, dict):
            raise self.error(
                key, "must be a table with at least an id", "write [[nodes]] then id = …"
            )
        for name in entry:
            if name not in NODE_KEYS:
                raise self.error(
                    f"{key}.{name}", "unknown key", f"valid keys: {_choices(NODE_KEYS)}"
                )
        node_id = entry.get("id")
        if node_id is None:
            raise self.error(f"{key}.id", "missing", "every node needs a unique integer id")
        if not _is_int(node_id) or not -MAX_ID < node_id < MAX_ID:
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
        advertise = self.advertise(key, entry, transport)
        parent = entry.get("parent")
        if parent is not None and not _is_int(parent):
            raise self.error(f"{key}.parent", f"{parent!r} is not a node id")
        suspect_after = entry.get("suspect_after")
        if suspect_after is not None:
            suspect_after = self.seconds(f"{key}.suspect_after", suspect_after)
        spare = entry.get("spare", False)
        if not isinstance(spare, bool):
            raise self.error(
                f"{key}.spare",
                f"{spare!r} is not true or false",
                "spare = true lists a node a service may add live; leave it out otherwise",
            )
        return NodeSpec(node_id, capacity, address, parent, suspect_after, advertise, spare)

    def advertise(self, key: str, entry: dict[str, Any], transport: str) -> str | None:
        """The node's ``advertise`` address (what its peers dial), checked against its
        ``address`` (what it binds): one that binds every interface must say where it is
        reached, and an advertised port must be a real one."""
        address, advertise = entry.get("address"), entry.get("advertise")
        port = None if address is None else address.rpartition(":")[2]
        if advertise is None:
            if transport == "tcp" and address is not None and _binds_every_interface(address):
                raise self.error(
                    f"{key}.address",
                    f"{address} binds every interface, an address its peers cannot dial",
                    f'add advertise = "tcp://NAME:{port}" to this node, NAME being the '
                    "host name or IP address its peers reach it at",
                )
            return None
        if transport != "tcp":
            raise self.error(
                f"{key}.advertise",
                f"only a tcp address can differ from the one bound (the transport is {transport})",
                "leave advertise out: peers use the node's address",
            )
        if address is None:
            raise self.error(
                f"{key}.advertise",
                "given without an address to bind",
                'add address = "tcp://0.0.0.0:7001" (say) to this node',
            )
        self.check_address(
            f"{key}.advertise", advertise, transport, "or leave it out: peers dial its address"
        )
        if port == "*":
            raise self.error(
                f"{key}.address",
                f"{address}: a port left to the node cannot be advertised",
                f"bind a fixed port, the one {advertise} maps to",
            )
        if advertise.endswith(":*") or _binds_every_interface(advertise):
            raise self.error(
                f"{key}.advertise",
                f"{advertise} is not an address a peer can dial",
                "give this node's host name or IP address and a fixed port, "
                'e.g. advertise = "tcp://node1.example:7001"',
            )
        return str(advertise)

    def check_address(
        self,
        key: str,
        address: Any,
        transport: str,
        otherwise: str = "or leave it out for a free one",
    ) -> None:
        """``address`` is one of ``transport``'s; ``otherwise``: the fix besides an
        example (what leaving it out does)."""
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
                f"e.g. {examples[transport]}, {otherwise}",
            )
        rest = address[len(transport) + 3 :]
        if transport == "tcp":
            host, _, port = rest.rpartition(":")
            if not host or not (port == "*" or (port.isdigit() and 0 < int(port) < 65536)):
                raise self.error(
                    key, f"{address!r} needs a host and a port", f"e.g. {examples['tcp']}"
                )
            bracketed = host.startswith("[") and host.endswith("]") and len(host) > 2
            if ("[" in host or "]" in host or ":" in host) and not bracketed:
                raise self.error(
                    key,
                    f"{address!r}: an IPv6 host goes in brackets, with nothing else",
                    "e.g. tcp://[::1]:7001",
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


def _binds_every_interface(address: str) -> bool:
    """Whether a tcp ``address`` is a wildcard (``0.0.0.0``, ``*``, ``::``): a place to
    bind, not one to dial."""
    host = address[len("tcp://") :].rpartition(":")[0].strip("[]")
    return host in ("*", "0.0.0.0", "::")  # noqa: S104 -- recognised, not bound
