"""A service node's parts, made from its config and options: the settings it runs with,
what the config must give a node in a process of its own, its
:class:`~ringleader.actors.Member`, its codec and its network.
:class:`~ringleader.Node` starts them; nothing here runs anything.
"""

from __future__ import annotations

from ringleader.actors import Member, crash_policy
from ringleader.actors.host import WATCH_KINDS, wire_kinds
from ringleader.errors import ConfigError
from ringleader.topologies import Config, cluster_codec, node_secret
from ringleader.transport import BETWEEN_PROCESSES, Codec, SocketOptions, ZmqNetwork

from ._node_options import NodeOptions
from ._state_file import StateFile

__all__ = ["check_standalone", "node_codec", "node_member", "node_network", "service_settings"]


def service_settings(config: Config, *, teaching: bool = False) -> dict[str, float]:
    """The settings a node of ``config`` runs with in a service: a majority's lease
    (``quorum``) unless the config says ``quorum = false``; ``teaching``: a node of
    ``ringleader run``'s, with the config's settings as they are."""
    settings = config.node_settings()
    if teaching or "quorum" in settings:
        return settings
    if not settings.get("lease"):
        raise ConfigError(
            config.source,
            "lease",
            "0 s: a node of a service leads only with a majority's lease (quorum is on "
            "unless the config says quorum = false), and suspect_after "
            f"{settings['suspect_after']:g} s leaves no room for one",
            "raise suspect_after to at least 4 heartbeats, set lease, or quorum = false to "
            "lead without a majority (and risk two leaders in a partition)",
        )
    return {**settings, "quorum": 1.0}


def check_standalone(config: Config, *, any_port: bool = False) -> None:
    """What a config needs for nodes in separate processes (``node``, ``status``): a
    transport between processes and a fixed address for every node (``any_port``: or a
    wildcard port, ``tcp://127.0.0.1:*``, for nodes a supervisor starts together)."""
    if config.transport not in BETWEEN_PROCESSES:
        raise ConfigError(
            config.source,
            "transport",
            f"{config.transport} cannot reach another process",
            'use transport = "tcp" (or "ipc" on one machine)',
        )
    for index, spec in enumerate(config.nodes):
        if spec.address is None or (spec.address.endswith(":*") and not any_port):
            raise ConfigError(
                config.source,
                f"nodes[{index}].address",
                "every node needs a fixed address, so that its peers can find it",
                'e.g. address = "tcp://192.0.2.10:7001"',
            )


def node_member(
    config: Config,
    node_id: int,
    options: NodeOptions,
    settings: dict[str, float],
    state: StateFile | None,
) -> Member:
    """Node ``node_id``'s election and its parts.  A node a supervisor starts with the
    others (``fresh``) begins at epoch 1 as the config's initiator or not; any other
    recovers: it joins whatever cluster it finds, above the epoch its ``state`` kept.
    The member counts majorities in the configuration its ``state`` keeps (the config
    file's list, unless one changed live was kept)."""
    view = next(v for v in config.wiring.views(settings) if v.id == node_id)
    algorithm = config.algorithm_class
    policy = crash_policy(algorithm)
    durable = state is not None
    configuration = None if state is None else state.configuration
    if options.fresh:
        initiator = node_id in config.initiators
        return Member(
            algorithm,
            view,
            initiator=initiator,
            policy=policy,
            steady=options.steady,
            durable=durable,
            configuration=configuration,
        )
    return Member(
        algorithm,
        view,
        recovering=True,
        floor=0 if state is None else state.epoch,
        acknowledged=None if state is None else state.acknowledged,
        policy=policy,
        steady=options.steady,
        durable=durable,
        configuration=configuration,
    )


def node_codec(config: Config, options: NodeOptions) -> Codec:
    """What seals and opens the node's frames: the cluster's secret (or the one given),
    the config's cluster id, the kinds its algorithm and its parts send, and the
    read-only watch key (``watch_secret_file``) if the config gives one."""
    secret = options.secret or node_secret(config)
    kinds = wire_kinds(config.algorithm_class)
    return cluster_codec(
        config,
        secret,
        config.cluster_id,
        kinds,
        watch_secret=config.watch_secret(),
        watch_kinds=WATCH_KINDS,
    )


def node_network(config: Config, node_id: int, settings: dict[str, float]) -> ZmqNetwork:
    """The node's sockets: one mailbox, a link to each member it may need (a ring
    repaired round a crash links further on); a send waits at most a heartbeat."""
    return ZmqNetwork(
        config.transport,
        nodes=1,
        links=config.n,
        options=SocketOptions(send_timeout=settings["heartbeat"]),
        curve=config.curve_keys([node_id]),
    )
