"""``spare = true``: a node listed in the config that is no member of the founding
configuration (a service adds it live, ``ringleader member add``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ringleader.service._state_file import founding_configuration
from ringleader.topologies import Config, ConfigError, load_config

HEAD = 'topology = "full_mesh"\nalgorithm = "bully"\ntransport = "tcp"\n'


def _load(tmp_path: Path, spares: dict[int, str], name: str = "cluster.toml") -> Config:
    text = HEAD
    for node in (1, 2, 3, 4):
        text += f'\n[[nodes]]\nid = {node}\naddress = "tcp://192.0.2.{node}:7001"\n'
        if node in spares:
            text += f"spare = {spares[node]}\n"
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def test_a_spare_is_listed_with_its_address_but_is_no_founding_member(tmp_path: Path) -> None:
    config = _load(tmp_path, {4: "true"})
    assert config.founding == [1, 2, 3] and config.spares == [4]
    assert config.addresses[4] == "tcp://192.0.2.4:7001"  # every node knows where it is
    assert [n.id for n in config.wiring.nodes] == [1, 2, 3, 4]  # and has its place
    configuration = founding_configuration(config)
    assert configuration.voters == {1, 2, 3} and not configuration.learners
    again = tmp_path / "again.toml"
    again.write_text(config.to_toml(), encoding="utf-8")
    assert load_config(again).spares == [4]


def test_spares_are_part_of_the_cluster_s_identity_and_none_leaves_it_as_it_was(
    tmp_path: Path,
) -> None:
    plain = _load(tmp_path, {}, "plain.toml")
    said_false = _load(tmp_path, {4: "false"}, "false.toml")
    with_spare = _load(tmp_path, {4: "true"}, "spare.toml")
    assert plain.cluster_id == said_false.cluster_id
    assert with_spare.cluster_id != plain.cluster_id
    assert plain.definition.spares == () and with_spare.definition.spares == (4,)


@pytest.mark.parametrize(
    ("spares", "error"),
    [
        ({4: '"yes"'}, "nodes[3].spare: 'yes' is not true or false"),
        (
            {1: "true", 2: "true", 3: "true", 4: "true"},
            "nodes: every node is spare: a cluster needs a member to begin with",
        ),
    ],
)
def test_a_bad_spare_is_one_line_naming_the_key(
    tmp_path: Path, spares: dict[int, str], error: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        _load(tmp_path, spares)
    assert error in str(raised.value) and "\n" not in str(raised.value)
