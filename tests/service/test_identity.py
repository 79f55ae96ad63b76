"""Cluster identity: nodes recognise one cluster by what defines it, never act on a frame
of another, and say once, clearly, how another cluster differs (issue 19's "silent split
brain": a 4-node member list against 3, a 4th node added to a running 3-node cluster,
``cluster = "svc"`` in both configs; a node with another secret is still reported by its
failing signatures, ``tests/system/test_rogue.py``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import ringleader
from ringleader.actors.core import ClusterDefinition, describe_difference
from ringleader.cli import main
from ringleader.service import ask_status
from ringleader.topologies import SECRET_ENV
from tests.nodes import Event, NodeProcess, free_ports, running, wait_agreement

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process tests use Linux /proc")

SECRET = "5e0c1f4a9b3d7e2f8a6c4b1d0e9f7a3c2b5d8e1f4a7c0b3d6e9f2a5c8b1d4e7f"
MESH = 'topology = "full_mesh"\n'


def configs(
    tmp_path: Path, mine: Sequence[int], theirs: Sequence[int], extra: str = ""
) -> tuple[Path, Path]:
    """Two configs of the same full mesh but for their member lists: each id at the same
    address in both."""
    ports = dict(zip(sorted({*mine, *theirs}), free_ports(len({*mine, *theirs})), strict=True))
    paths = []
    for name, ids in (("mine", mine), ("theirs", theirs)):
        tables = "".join(
            f'\n[[nodes]]\nid = {i}\naddress = "tcp://127.0.0.1:{ports[i]}"\n' for i in ids
        )
        path = tmp_path / f"{name}.toml"
        path.write_text(MESH + extra + tables)
        paths.append(path)
    return paths[0], paths[1]


def other_cluster(node: NodeProcess, peer: int) -> Event:
    return node.wait_for(lambda e: e["event"] == "other_cluster" and e["peer"] == peer)


# -- what defines a cluster -----------------------------------------------------------------


def definition(tmp_path: Path, body: str, ids: Sequence[int] = (1, 2, 3)) -> ClusterDefinition:
    path = tmp_path / "c.toml"
    tables = "".join(
        f'\n[[nodes]]\nid = {i}\naddress = "tcp://127.0.0.1:{7000 + i}"\n' for i in ids
    )
    path.write_text(body + tables)
    return ringleader.load_config(path).definition


@pytest.mark.parametrize(
    ("body", "ids", "line"),
    [
        (MESH, (1, 2, 3, 4), "node 9 runs another cluster: members 1,2,3,4; mine: members 1,2,3"),
        (
            MESH + 'algorithm = "bully_broadcast"\n',
            (1, 2, 3),
            "node 9 runs another cluster: algorithm bully_broadcast; mine: algorithm bully",
        ),
        (
            MESH + "heartbeat = 0.1\n",
            (1, 2, 3),
            "node 9 runs another cluster: heartbeat 0.1 s, lease 0 s, quorum off; "
            "mine: heartbeat 0.05 s, lease 0.2 s, quorum on",
        ),
        (
            MESH + "lease = 0.1\nquorum = false\n",
            (1, 2, 3),
            "node 9 runs another cluster: lease 0.1 s, quorum off; mine: lease 0.2 s, quorum on",
        ),
        (
            MESH + 'cluster = "svc"\n',
            (1, 2, 3),
            'node 9 runs another cluster: name "svc"; mine: no name',
        ),
        (
            'topology = "unidirectional_ring"\n',
            (1, 2, 3),
            "node 9 runs another cluster: algorithm chang_roberts, topology "
            "unidirectional_ring; mine: algorithm bully, topology full_mesh",
        ),
    ],
)
def test_each_part_of_the_definition_makes_another_cluster_and_is_named(
    tmp_path: Path, body: str, ids: tuple[int, ...], line: str
) -> None:
    mine = definition(tmp_path, MESH)
    theirs = definition(tmp_path, body, ids)
    assert theirs.cluster_id != mine.cluster_id
    assert describe_difference(9, theirs, mine)[0] == line
    assert definition(tmp_path, MESH).cluster_id == mine.cluster_id  # the same: the same id


def test_quorum_is_defined_as_a_node_of_a_service_runs_it(tmp_path: Path) -> None:
    """A config without ``quorum`` runs with one in a service: the same cluster as one
    that says ``quorum = true``, another than one that says ``quorum = false``."""
    left_out = definition(tmp_path, MESH)
    assert left_out.quorum
    assert definition(tmp_path, MESH + "quorum = true\n").cluster_id == left_out.cluster_id
    off = definition(tmp_path, MESH + "quorum = false\n")
    assert off.cluster_id != left_out.cluster_id
    assert describe_difference(9, off, left_out)[0] == (
        "node 9 runs another cluster: quorum off; mine: quorum on"
    )


def test_the_same_name_is_not_the_same_cluster(tmp_path: Path) -> None:
    """``cluster = "svc"`` in two configs whose members differ: two clusters."""
    named = MESH + 'cluster = "svc"\n'
    three, four = definition(tmp_path, named), definition(tmp_path, named, (1, 2, 3, 4))
    assert three.cluster_id != four.cluster_id
    assert describe_difference(4, four, three)[0] == (
        "node 4 runs another cluster: members 1,2,3,4; mine: members 1,2,3"
    )


def test_another_address_or_capacity_is_named_by_node(tmp_path: Path) -> None:
    mine = definition(tmp_path, MESH)
    moved = mine.nodes[1]._replace(address="tcp://127.0.0.1:9999", capacity=7.0)
    theirs = ClusterDefinition(**{**_fields(mine), "nodes": (mine.nodes[0], moved, mine.nodes[2])})
    assert describe_difference(2, theirs, mine)[0] == (
        "node 2 runs another cluster: node 2 at tcp://127.0.0.1:9999, node 2 of capacity 7; "
        "mine: node 2 at tcp://127.0.0.1:7002, node 2 of capacity 2"
    )


def test_another_version_of_the_algorithms_messages_is_named(tmp_path: Path) -> None:
    """The kind bytes index the algorithm's table of messages: nodes whose election
    classes lay their messages out otherwise are two clusters, and told so."""
    mine = definition(tmp_path, MESH)
    assert mine.messages == (
        "election: ElectionCall()",
        "ok: OkAnswer()",
        "coordinator: Coordinator()",
    )
    one_more = ClusterDefinition(**{**_fields(mine), "messages": (*mine.messages, "ping2: X()")})
    other = ClusterDefinition(
        **{**_fields(mine), "messages": ("election: ElectionCall(epoch: int)", *mine.messages[1:])}
    )
    assert len({mine.cluster_id, one_more.cluster_id, other.cluster_id}) == 3
    assert describe_difference(2, one_more, mine)[0] == (
        "node 2 runs another cluster: messages election, ok, coordinator, ping2; "
        "mine: messages election, ok, coordinator"
    )
    assert describe_difference(2, other, mine)[0] == (
        "node 2 runs another cluster: message election: ElectionCall(epoch: int); "
        "mine: message election: ElectionCall()"
    )


def _fields(d: ClusterDefinition) -> dict[str, object]:
    return {name: getattr(d, name) for name in ClusterDefinition.__dataclass_fields__}


# -- node processes ----------------------------------------------------------------------------


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv(SECRET_ENV, SECRET)
    return {SECRET_ENV: SECRET}


def test_a_fourth_node_added_to_a_running_cluster_is_told_and_tells(
    tmp_path: Path, secret: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Nodes 1–3 run a 3-node config; node 4 starts with a config that lists 4 nodes.
    Nobody in the cluster knows node 4's address: its notices (to peers it never hears
    from) reach them, they answer at the address in it.  Each side names the difference
    once: a WARNING, an ``other_cluster`` event, the status; the three never follow node 4."""
    mine, theirs = configs(tmp_path, [1, 2, 3], [1, 2, 3, 4])
    with running(mine, [1, 2, 3], env=secret) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        nodes[4] = NodeProcess(theirs, 4, env=secret)
        for peer in (1, 2, 3):
            event = other_cluster(nodes[peer], 4)
            assert event["detail"] == (
                "node 4 runs another cluster: members 1,2,3,4; mine: members 1,2,3"
            )
            assert event["differences"] == {
                "members": {"theirs": "members 1,2,3,4", "mine": "members 1,2,3"}
            }
            assert event["address"] == ringleader.load_config(theirs).addresses[4]
            told = other_cluster(nodes[4], peer)
            assert told["detail"] == (
                f"node {peer} runs another cluster: members 1,2,3; mine: members 1,2,3,4"
            )
        status = ask_status(ringleader.load_config(mine))
        assert all(
            s is not None and s.other_clusters == {4: event["detail"]} and s.elected == 3
            for s in status.values()
        )
        assert main(["status", str(mine)]) == 0
        out = capsys.readouterr().out
        for peer in (1, 2, 3):
            assert f"node {peer}: node 4 runs another cluster: members 1,2,3,4; mine" in out
        assert main(["status", str(mine), "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["nodes"][0]["other_clusters"] == {"4": event["detail"]}
        assert summary["agreed"] and summary["leader"] == 3
        for node in nodes.values():
            node.stop()
    for peer in (1, 2, 3):
        named = [e for e in nodes[peer].events if e["event"] == "other_cluster"]
        assert len(named) == 1, named  # once per peer and definition
        assert {e["leader"] for e in nodes[peer].events if e["event"] == "leader"} <= {3, None}
        warnings = [line for line in nodes[peer].stderr.splitlines() if "another cluster" in line]
        assert warnings == [
            f"WARNING ringleader.actors.host._node_actor: node {peer}: node 4 runs another "
            f"cluster: members 1,2,3,4; mine: members 1,2,3 (at {event['address']}); its "
            "frames are dropped: give every node the same config"
        ]
    assert sorted(e["peer"] for e in nodes[4].events if e["event"] == "other_cluster") == [1, 2, 3]


@pytest.mark.parametrize("extra", ["", 'cluster = "svc"\n'], ids=["unnamed", "both-svc"])
def test_a_node_whose_config_lists_four_nodes_among_three(
    tmp_path: Path, secret: dict[str, str], extra: str
) -> None:
    """Nodes 1 and 2 run a 3-node config, node 3 one that lists a 4th node (with the same
    ``cluster`` name in both, or none): both sides name the difference, each once."""
    mine, theirs = configs(tmp_path, [1, 2, 3], [1, 2, 3, 4], extra)
    assert ringleader.load_config(mine).cluster_id != ringleader.load_config(theirs).cluster_id
    with running(mine, [1, 2], env=secret) as nodes:
        nodes[3] = NodeProcess(theirs, 3, env=secret)
        for node in (1, 2):
            assert other_cluster(nodes[node], 3)["detail"] == (
                "node 3 runs another cluster: members 1,2,3,4; mine: members 1,2,3"
            )
            assert other_cluster(nodes[3], node)["detail"] == (
                f"node {node} runs another cluster: members 1,2,3; mine: members 1,2,3,4"
            )
        wait_agreement(nodes, [1, 2], 2)  # node 3 is not theirs: 1 and 2 elect among them
        status = ask_status(ringleader.load_config(mine))
        assert status[3] is None  # node 3 does not answer an operator of another cluster
        for node in nodes.values():
            node.stop()
    for node in (1, 2, 3):
        named = [e for e in nodes[node].events if e["event"] == "other_cluster"]
        assert len(named) == (2 if node == 3 else 1), named
    for node in (1, 2):
        leaders = {e["leader"] for e in nodes[node].events if e["event"] == "leader"}
        assert 3 not in leaders, f"node {node} followed node 3"
