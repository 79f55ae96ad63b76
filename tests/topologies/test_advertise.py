"""``advertise`` beside ``address``: what a node binds and what its peers dial."""

from __future__ import annotations

from pathlib import Path

import pytest

from ringleader.topologies import Config, ConfigError, load_config, node_secret

HEAD = 'topology = "full_mesh"\n'


def _load(tmp_path: Path, *nodes: str, transport: str = "tcp") -> Config:
    text = HEAD + f'transport = "{transport}"\n'
    for number, body in enumerate(nodes, 1):
        text += f"\n[[nodes]]\nid = {number}\n{body}\n"
    path = tmp_path / "cluster.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def test_peers_dial_the_advertised_address_and_the_cluster_is_defined_by_it(
    tmp_path: Path,
) -> None:
    config = _load(
        tmp_path,
        'address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://node1.example:7001"',
        'address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://node2.example:7001"',
        'address = "tcp://192.0.2.3:7001"',
    )
    assert config.addresses == {
        1: "tcp://node1.example:7001",
        2: "tcp://node2.example:7001",
        3: "tcp://192.0.2.3:7001",
    }
    bound = [n.address for n in config.nodes]
    assert bound == ["tcp://0.0.0.0:7001", "tcp://0.0.0.0:7001", "tcp://192.0.2.3:7001"]
    defined = [n.address for n in config.definition.nodes]
    assert defined == list(config.addresses.values())
    again = load_config_text(tmp_path, config.to_toml())
    assert again.nodes == config.nodes


def load_config_text(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "again.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def test_without_advertise_the_bound_address_is_dialled_and_the_cluster_id_is_unchanged(
    tmp_path: Path,
) -> None:
    plain = _load(tmp_path, 'address = "tcp://192.0.2.1:7001"', 'address = "tcp://192.0.2.2:7001"')
    same = _load(
        tmp_path,
        'address = "tcp://192.0.2.1:7001"\nadvertise = "tcp://192.0.2.1:7001"',
        'address = "tcp://192.0.2.2:7001"',
    )
    assert plain.addresses == {1: "tcp://192.0.2.1:7001", 2: "tcp://192.0.2.2:7001"}
    assert plain.cluster_id == same.cluster_id


BAD = {
    "every interface, no advertise": (
        ('address = "tcp://0.0.0.0:7001"', 'address = "tcp://192.0.2.2:7001"'),
        "cluster.toml: nodes[0].address: tcp://0.0.0.0:7001 binds every interface, an "
        'address its peers cannot dial (add advertise = "tcp://NAME:7001" to this node, '
        "NAME being the host name or IP address its peers reach it at)",
    ),
    "star, no advertise": (
        ('address = "tcp://*:7001"',),
        "nodes[0].address: tcp://*:7001 binds every interface",
    ),
    "ipv6 wildcard, no advertise": (
        ('address = "tcp://[::]:7001"',),
        "nodes[0].address: tcp://[::]:7001 binds every interface",
    ),
    "advertised wildcard": (
        ('address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://0.0.0.0:7001"',),
        "nodes[0].advertise: tcp://0.0.0.0:7001 is not an address a peer can dial",
    ),
    "advertised any port": (
        ('address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://node1:*"',),
        "nodes[0].advertise: tcp://node1:* is not an address a peer can dial",
    ),
    "bound any port": (
        ('address = "tcp://0.0.0.0:*"\nadvertise = "tcp://node1:7001"',),
        "nodes[0].address: tcp://0.0.0.0:*: a port left to the node cannot be advertised",
    ),
    "no port": (
        ('address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://node1"',),
        "nodes[0].advertise: 'tcp://node1' needs a host and a port",
    ),
    "no address": (
        ('advertise = "tcp://node1:7001"',),
        "nodes[0].advertise: given without an address to bind",
    ),
    "advertised twice": (
        (
            'address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://node1:7001"',
            'address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://node1:7001"',
        ),
        "nodes[1].advertise: tcp://node1:7001 is used twice (also nodes[0].advertise)",
    ),
    "advertises another's address": (
        (
            'address = "tcp://192.0.2.1:7001"',
            'address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://192.0.2.1:7001"',
        ),
        "nodes[1].advertise: tcp://192.0.2.1:7001 is used twice (also nodes[0])",
    ),
    "another's address advertised first": (
        (
            'address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://192.0.2.2:7001"',
            'address = "tcp://192.0.2.2:7001"',
        ),
        "nodes[1].address: tcp://192.0.2.2:7001 is used twice (also nodes[0].advertise)",
    ),
    "not a tcp address": (
        ('address = "tcp://0.0.0.0:7001"\nadvertise = "node1:7001"',),
        "nodes[0].advertise: 'node1:7001' is not a tcp:// address (the transport is tcp) "
        "(e.g. tcp://127.0.0.1:7001, or leave it out: peers dial its address)",
    ),
    "ipv6 unclosed": (
        ('address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://[::1:7001"',),
        "nodes[0].advertise: 'tcp://[::1:7001': an IPv6 host goes in brackets, with nothing "
        "else (e.g. tcp://[::1]:7001)",
    ),
    "ipv6 bare": (
        ('address = "tcp://::1:7001"',),
        "nodes[0].address: 'tcp://::1:7001': an IPv6 host goes in brackets",
    ),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_advertise_is_one_line_naming_the_key_and_the_fix(tmp_path: Path, case: str) -> None:
    nodes, message = BAD[case]
    with pytest.raises(ConfigError) as raised:
        _load(tmp_path, *nodes)
    text = str(raised.value)
    assert "\n" not in text
    assert message in text


def test_advertise_is_for_tcp_only(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        _load(
            tmp_path,
            'address = "ipc:///tmp/rl/1.sock"\nadvertise = "ipc:///tmp/rl/x.sock"',
            transport="ipc",
        )
    assert "nodes[0].advertise: only a tcp address can differ from the one bound" in str(
        raised.value
    )


def test_a_node_binding_every_interface_needs_a_secret(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        'address = "tcp://0.0.0.0:7001"\nadvertise = "tcp://127.0.0.1:7001"',
        'address = "tcp://127.0.0.1:7002"',
    )
    with pytest.raises(ConfigError) as raised:
        node_secret(config)
    assert "node 1 is at tcp://0.0.0.0:7001, reachable from other machines" in str(raised.value)
