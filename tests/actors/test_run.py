"""Whole elections through actors and a real transport: the notes' counts, end to end."""

from __future__ import annotations

import gc
import json
import threading
import time
from pathlib import Path

import pytest

import ringleader
from ringleader import LocalCluster, Overrides, load_config
from ringleader.actors import Candidate, ChangRoberts, ElectionMessage
from ringleader.topologies import TOPOLOGIES, Config, NodeSpec
from ringleader.transport import Session
from tests.conftest import eventually

NOTES_RING = [4, 9, 2, 7, 5, 1, 3]


def ring_config(transport: str, ids: list[int], algorithm: str, initiators: list[int]) -> Config:
    config = load_config(None, Overrides(transport=transport, algorithm=algorithm, timeout=30))
    return config.replace(nodes=tuple(NodeSpec(i, i) for i in ids), initiators=tuple(initiators))


def make_config(  # noqa: PLR0917 -- a test helper; every caller names the case
    transport: str,
    topology: str,
    algorithm: str,
    ids: list[int],
    initiators: list[int],
    edges: list[tuple[int, int]] | None = None,
) -> Config:
    config = ring_config(transport, ids, "chang_roberts", initiators)
    return config.replace(
        topology=topology, algorithm=algorithm, edges=tuple(edges) if edges else None
    )


SEVEN_TREE = [(1, 2), (1, 3), (2, 4), (2, 5), (3, 6), (3, 7)]
SQUARE_AND_DIAGONAL = [(1, 2), (2, 3), (3, 4), (4, 1), (1, 3)]  # M = 10, N = 4

OTHER_TOPOLOGIES = {
    # name: (topology, algorithm, ids, initiators, edges, expected total)
    "tree-root": ("spanning_tree", "tree", [1, 2, 3, 4, 5, 6, 7], [1], SEVEN_TREE, 24),
    "tree-leaf": ("spanning_tree", "tree", [1, 2, 3, 4, 5, 6, 7], [6], SEVEN_TREE, 24),
    "tree-echo": ("spanning_tree", "echo", [1, 2, 3, 4, 5, 6, 7], [4], SEVEN_TREE, 18),
    "graph-echo": ("graph", "echo", [1, 2, 3, 4], [2], SQUARE_AND_DIAGONAL, 13),
    "mesh-echo": ("full_mesh", "echo", [1, 2, 3, 4], [1], None, 15),
    "bully-lowest": ("full_mesh", "bully", [1, 2, 3, 4, 5], [1], None, 24),
    "bully-top": ("full_mesh", "bully", [1, 2, 3, 4, 5], [5], None, 4),
    "bully-broadcast-top": ("full_mesh", "bully_broadcast", [1, 2, 3, 4], [4], None, 6),
    "cr-two-way-ring": (
        "bidirectional_ring",
        "chang_roberts",
        [4, 9, 2, 7, 5, 1, 3],
        [2],
        None,
        20,
    ),
}


@pytest.mark.parametrize("case", OTHER_TOPOLOGIES.values(), ids=OTHER_TOPOLOGIES.keys())
def test_every_topology_over_every_transport(transport: str, case: tuple) -> None:  # type: ignore[type-arg]
    topology, algorithm, ids, initiators, edges, total = case
    report = ringleader.run(make_config(transport, topology, algorithm, ids, initiators, edges))
    assert report.problems == []
    assert report.ok and report.leader == max(ids)
    assert report.total == total and report.bound.holds(total)


@pytest.mark.parametrize("n", [2, 8, 13])
def test_hirschberg_sinclair_end_to_end(transport: str, n: int) -> None:
    ids = list(range(n, 0, -1))
    report = ringleader.run(
        make_config(transport, "bidirectional_ring", "hirschberg_sinclair", ids, ids)
    )
    assert report.ok and report.leader == n
    assert report.bound.holds(report.total) and report.messages_by_type["elected"] == n


CASES = {
    # name: (algorithm, ids, initiators, expected total, formula)
    "cr-leader-alone": ("chang_roberts", NOTES_RING, [9], 14, "2n"),
    "cr-successor": ("chang_roberts", NOTES_RING, [2], 20, "3n-1"),
    "cr-notes-table": ("chang_roberts", [5, 4, 3, 2, 1], [5, 4, 3, 2, 1], 20, "n(n+1)/2+n"),
    "lelann-all": ("lelann", NOTES_RING, NOTES_RING, 49, "n^2"),
    "lelann-one": ("lelann", [3, 1, 2], [1], 9, "n^2"),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_exact_counts_over_every_transport(transport: str, case: tuple) -> None:  # type: ignore[type-arg]
    algorithm, ids, initiators, total, formula = case
    report = ringleader.run(ring_config(transport, ids, algorithm, initiators))
    assert report.problems == []
    assert report.ok and report.finished and report.safe and report.agreed
    assert report.leader == max(ids)
    assert report.total == total
    assert report.bound.formula == formula and report.bound.value == total and report.bound.exact
    states = {n.id: n.state for n in report.nodes}
    assert states == {i: "leader" if i == max(ids) else "not_leader" for i in ids}
    assert all(n.elected == max(ids) for n in report.nodes)
    assert report.rejected_frames == {} and report.send_failures == 0 and report.errors == 0


def test_capacity_outranks_id(transport: str, algorithm: str) -> None:
    topology = next(t for t, spec in TOPOLOGIES.items() if algorithm in spec.algorithms)
    config = make_config(transport, topology, algorithm, [1, 2, 3], [1, 2, 3], [(1, 2), (2, 3)])
    config = config.replace(nodes=(NodeSpec(1, 10), NodeSpec(2, 50.5), NodeSpec(3, 50.5)))
    report = ringleader.run(config)
    assert report.ok and report.leader == 3
    config = config.replace(nodes=(NodeSpec(1, 10), NodeSpec(2, 99), NodeSpec(3, 50.5)))
    assert ringleader.run(config).leader == 2


def test_the_report_is_the_documented_json(transport: str) -> None:
    report = ringleader.run(ring_config(transport, NOTES_RING, "chang_roberts", [2]))
    data = json.loads(json.dumps(report.as_dict()))
    assert {
        "topology",
        "algorithm",
        "transport",
        "n",
        "leader",
        "agreed",
        "epoch",
        "nodes",
        "messages",
        "bound",
        "elapsed_s",
    } <= set(data)
    assert data["nodes"][0] == {"id": 4, "state": "not_leader", "elected": 9, "capacity": 4}
    assert data["messages"] == {
        "total": 20,
        "by_type": {"election": 13, "elected": 7},
        "heartbeats": 0,
        "lost": 0,
    }
    assert data["bound"]["formula"] == "3n-1" and data["bound"]["value"] == 20
    assert data["transport"] == transport and data["n"] == 7 and data["epoch"] == 1


def test_a_run_leaves_no_thread_or_actor_behind(transport: str) -> None:
    before = set(threading.enumerate())
    report = ringleader.run(ring_config(transport, [1, 2, 3, 4], "chang_roberts", [1]))
    assert report.ok
    deadline = time.monotonic() + 5
    while (extra := set(threading.enumerate()) - before) and time.monotonic() < deadline:
        next(iter(extra)).join(0.05)
    assert set(threading.enumerate()) - before == set()
    assert ringleader_actors() == []


def ringleader_actors() -> list[object]:
    import pykka

    return pykka.ActorRegistry.get_all()


def test_a_run_that_cannot_finish_says_so() -> None:
    """One node's links never come up: set-up fails with the reason, nothing is left."""

    class Silent(ChangRoberts):
        name = "silent"

        def start(self) -> None:  # never sends anything
            return None

    config = ring_config("memory", [1, 2, 3], "chang_roberts", [1]).replace(timeout=0.5)
    report = ringleader.run(config, algorithm=Silent)
    assert not report.ok and not report.finished
    assert any("did not finish" in p for p in report.problems)
    assert {n.state for n in report.nodes} == {"undecided"}


def test_rogue_frames_are_dropped_counted_and_the_election_still_exact(transport: str) -> None:
    config = ring_config(transport, NOTES_RING, "chang_roberts", [2])
    with LocalCluster(config) as cluster:
        codec = cluster.codec
        target = 2  # node 2's in-neighbour is node 9
        links = cluster.network.connect({target: cluster.addresses[target]})
        try:
            assert links.wait_ready(5) == []

            def forged(sender: int, to: int) -> bytes:
                message = ElectionMessage(Candidate(sender, sender))
                return Session(codec, sender, 1).seal(to, "election", 1, message)

            good = forged(9, target)
            rogue = {
                b"": "truncated",
                b"hello world, not a frame at all" * 4: "bad_magic",
                good[:-1] + bytes([good[-1] ^ 1]): "bad_signature",
                forged(99, target): "unknown_sender",  # not a member of the cluster
                forged(9, 7): "wrong_receiver",
            }
            for frame in rogue:
                assert links.send(target, frame)
        finally:
            links.close()
        expected = {reason: 1 for reason in rogue.values()}

        def node_2_rejected() -> dict[str, int]:
            status = next(s for s in cluster.statuses() if s.id == target)
            assert status.received == 0 and status.errors == 0
            return status.rejected if status.rejected == expected else {}

        assert eventually(node_2_rejected) == expected
        report = cluster.elect()
    assert report.ok and report.total == 20 and report.leader == 9
    assert report.rejected_frames == expected


def _open_fds() -> int:
    return sum(1 for _ in Path("/proc/self/fd").iterdir())


def test_a_run_leaves_no_socket_or_descriptor_open(
    transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    ringleader.run(ring_config(transport, [1, 2, 3], "lelann", [1]))  # warm imports and caches
    gc.collect()
    before = _open_fds()
    for _ in range(3):
        assert ringleader.run(ring_config(transport, [1, 2, 3, 4], "chang_roberts", [2])).ok
    gc.collect()
    assert _open_fds() == before
    assert "left open" not in caplog.text


def test_an_unsafe_report_says_what_the_algorithm_assumes() -> None:
    from ringleader import NodeReport, Report
    from ringleader.actors import Bound, Bully

    nodes = [NodeReport(i, "not_leader", 2, i) for i in range(1, 13)] + [
        NodeReport(13, "leader", 13, 13)
    ]
    report = Report(
        topology="full_mesh",
        algorithm="bully",
        transport="memory",
        n=13,
        nodes=nodes,
        messages_by_type={},
        bound=Bound("N^2-1", 168, exact=False),
        expected_leader=13,
        finished=True,
        assumption=Bully.assumption,
    )
    assert not report.ok
    assert (
        "nodes 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more elected someone other" in report.problems[0]
    )
    assert report.problems[1].startswith("Bully is only safe if every answer arrives within")


def test_the_nodes_of_a_cluster_share_one_set_of_allowed_senders() -> None:
    """One set per cluster, not one per node: n² entries would be 1.6 GB at n = 5,000."""
    from ringleader.actors import NodeView
    from ringleader.actors.host import OPERATOR
    from ringleader.actors.host._senders import senders as _senders
    from ringleader.transport import WATCHER

    views = ring_config("inproc", [3, 1, 2], "chang_roberts", [3]).wiring.views()
    allowed = [_senders(v) for v in views]
    assert allowed[0] == {1, 2, 3, OPERATOR, WATCHER}  # (a watcher's codec: watch kinds only)
    assert all(a is allowed[0] for a in allowed)
    lone = NodeView(7, 7, out=(8,), inbound=(6,))  # no members: its in-neighbours only
    assert _senders(lone) == {6, OPERATOR, WATCHER}


def test_a_count_the_notes_do_not_give_is_a_problem_and_not_ok() -> None:
    """Safe and agreed, but 60 messages where the notes give at most 20: exit status 1."""
    from ringleader import NodeReport, Report
    from ringleader.actors import Bound

    report = Report(
        topology="unidirectional_ring",
        algorithm="chang_roberts",
        transport="memory",
        n=4,
        nodes=[NodeReport(i, "leader" if i == 4 else "not_leader", 4, i) for i in range(1, 5)],
        messages_by_type={"election": 56, "elected": 4},
        bound=Bound("n(n+1)/2+n", 14, exact=False),
        expected_leader=4,
        finished=True,
    )
    assert report.safe and report.agreed and not report.ok
    assert report.problems == ["60 messages, but the notes give n(n+1)/2+n ≤ 14"]
    assert report.bound_broken
    unfinished = Report(**{**report.__dict__, "finished": False})
    assert not unfinished.bound_broken  # a run cut short proves nothing about the count
