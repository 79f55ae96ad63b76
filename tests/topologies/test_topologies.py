"""The other topologies and their elections: builders, the notes' counts, and bad wirings."""

from __future__ import annotations

import math

import pytest

from ringleader.actors import (
    Bully,
    BullyBroadcast,
    ChangRoberts,
    Echo,
    HirschbergSinclair,
    TreeElection,
    simulate,
)
from ringleader.topologies import TOPOLOGIES, NodeSpec, WiringError
from tests.shapes import build, check_outcome

SEEDS = range(6)


def descending(n: int) -> list[int]:
    return list(range(n, 0, -1))


class TestBuilders:
    def test_a_two_way_ring_links_both_neighbours_successor_first(self) -> None:
        wiring = build("bidirectional_ring", [4, 9, 2])
        assert dict(wiring.out) == {4: (9, 2), 9: (2, 4), 2: (4, 9)}
        assert dict(build("bidirectional_ring", [1, 2]).out) == {1: (2,), 2: (1,)}

    def test_a_full_mesh_links_everyone(self) -> None:
        wiring = build("full_mesh", [1, 2, 3, 4])
        assert all(set(wiring.out[i]) == {1, 2, 3, 4} - {i} for i in (1, 2, 3, 4))
        assert wiring.links == 12

    def test_a_tree_from_parents_puts_the_parent_first(self) -> None:
        nodes = [
            NodeSpec(1, 1),
            NodeSpec(2, 2, parent=1),
            NodeSpec(3, 3, parent=1),
            NodeSpec(4, 4, parent=2),
        ]
        wiring = TOPOLOGIES["spanning_tree"].build(nodes, None)
        assert dict(wiring.out) == {1: (2, 3), 2: (1, 4), 3: (1,), 4: (2,)}

    @pytest.mark.parametrize(
        ("topology", "nodes", "edges", "key", "problem"),
        [
            ("graph", [1, 2, 3], [(1, 2)], "edges", "not connected: no path to node(s) 3"),
            ("graph", [1, 2], [(1, 9)], "edges[0]", "node 9 is not in the cluster"),
            ("graph", [1, 2], [(1, 2), (2, 1)], "edges[1]", "listed twice"),
            ("graph", [1, 2], [(1, 1)], "edges[0]", "a loop"),
            ("graph", [1, 2], None, "edges", "missing"),
            ("spanning_tree", [1, 2, 3], [(1, 2), (2, 3), (3, 1)], "edges", "do not make a tree"),
            ("spanning_tree", [1, 2, 3, 4], [(1, 2), (3, 4)], "edges", "do not make a tree"),
            ("spanning_tree", [1, 2, 3], None, "edges", "missing"),
        ],
    )
    def test_bad_wirings_are_refused_with_the_key(
        self,
        topology: str,
        nodes: list[int],
        edges: list[tuple[int, int]] | None,
        key: str,
        problem: str,
    ) -> None:
        with pytest.raises(WiringError) as info:
            TOPOLOGIES[topology].build([NodeSpec(i, i) for i in nodes], edges)
        assert info.value.key == key and problem in info.value.problem

    def test_tree_parents_must_make_one_tree(self) -> None:
        build_tree = TOPOLOGIES["spanning_tree"].build
        two_roots = [NodeSpec(1, 1), NodeSpec(2, 2), NodeSpec(3, 3, parent=1)]
        with pytest.raises(WiringError, match="2 roots"):
            build_tree(two_roots, None)
        cycle = [NodeSpec(1, 1), NodeSpec(2, 2, parent=3), NodeSpec(3, 3, parent=2)]
        with pytest.raises(WiringError, match="cycle"):
            build_tree(cycle, None)
        with pytest.raises(WiringError, match="node 7 is not in the cluster") as info:
            build_tree([NodeSpec(1, 1), NodeSpec(2, 2, parent=7)], None)
        assert info.value.key == "nodes[1].parent"


class TestHirschbergSinclair:
    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 32])
    @pytest.mark.parametrize("arrangement", ["ascending", "descending", "shuffled"])
    def test_within_the_notes_bound(self, n: int, arrangement: str, seed: int) -> None:
        ids = {"ascending": list(range(1, n + 1)), "descending": descending(n)}.get(
            arrangement, [(7 * i) % (n + 1) + 1 for i in range(n)] if n > 1 else [1]
        )
        if len(set(ids)) != n:
            ids = list(range(1, n + 1))
        wiring = build("bidirectional_ring", ids)
        result = simulate(HirschbergSinclair, wiring.views(), ids, seed=seed)
        check_outcome(result, wiring)
        bound = HirschbergSinclair.bound(wiring, ids)
        assert result.total <= bound.value == math.floor(8 * n * (math.log2(n) + 2) + 5 * n)
        assert result.messages["elected"] == n

    @pytest.mark.parametrize("n", [128, 256])
    def test_beats_chang_roberts_on_large_worst_case_rings(self, n: int) -> None:
        ids = descending(n)
        hs = simulate(HirschbergSinclair, build("bidirectional_ring", ids).views(), ids)
        cr = simulate(ChangRoberts, build("unidirectional_ring", ids).views(), ids)
        assert cr.total == n * (n + 1) // 2 + n
        assert hs.total < cr.total


class TestTree:
    #: A 7-node tree: 1 is the root; 2 and 3 its children; 4, 5 under 2; 6, 7 under 3.
    SEVEN = ((1, 2), (1, 3), (2, 4), (2, 5), (3, 6), (3, 7))

    def seven(self, capacities: list[float] | None = None):  # type: ignore[no-untyped-def]
        caps = capacities or [1, 2, 3, 4, 5, 6, 7]
        nodes = [NodeSpec(i, c) for i, c in zip(range(1, 8), caps, strict=True)]
        return TOPOLOGIES["spanning_tree"].build(nodes, self.SEVEN)

    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("initiator", [1, 2, 5, 7])
    def test_one_initiator_costs_4_n_minus_1(self, initiator: int, seed: int) -> None:
        wiring = self.seven([30, 10, 20, 70, 40, 60, 50])
        result = simulate(TreeElection, wiring.views(), [initiator], seed=seed)
        check_outcome(result, wiring)
        assert result.leaders == [4]
        assert result.messages == {"demande": 6, "rep": 6, "elu": 6, "ok": 6}
        assert TreeElection.bound(wiring, [initiator]).as_dict() == {
            "formula": "4(N-1)",
            "value": 24,
            "exact": True,
        }

    @pytest.mark.parametrize("seed", SEEDS)
    def test_several_initiators_still_give_one_leader(self, seed: int) -> None:
        wiring = self.seven()
        result = simulate(TreeElection, wiring.views(), [4, 6, 1], seed=seed)
        check_outcome(result, wiring)
        assert TreeElection.bound(wiring, [4, 6, 1]).holds(result.total)

    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("n", [2, 10, 40])
    def test_random_trees(self, n: int, seed: int) -> None:
        ids = list(range(1, n + 1))
        wiring = build("spanning_tree", ids, seed=seed)
        result = simulate(TreeElection, wiring.views(), [ids[seed % n]], seed=seed)
        check_outcome(result, wiring)
        assert result.total == 4 * (n - 1)


class TestEcho:
    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize(
        ("topology", "n"), [("graph", 9), ("graph", 30), ("full_mesh", 7), ("spanning_tree", 12)]
    )
    def test_one_initiator_costs_m_plus_n_minus_1(self, topology: str, n: int, seed: int) -> None:
        ids = list(range(1, n + 1))
        wiring = build(topology, ids, seed=seed)
        result = simulate(Echo, wiring.views(), [ids[seed % n]], seed=seed)
        check_outcome(result, wiring)
        m = wiring.links
        assert result.total == m + n - 1
        assert result.messages["elu"] == n - 1 and result.messages["rep"] == n - 1
        assert Echo.bound(wiring, [1]).value == m + n - 1

    @pytest.mark.parametrize("seed", SEEDS)
    def test_several_initiators(self, seed: int) -> None:
        ids = list(range(1, 21))
        wiring = build("graph", ids, seed=seed)
        result = simulate(Echo, wiring.views(), [3, 17, 9], seed=seed)
        check_outcome(result, wiring)
        assert Echo.bound(wiring, [3, 17, 9]).holds(result.total)


class TestBully:
    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("n", [2, 4, 9])
    def test_the_lowest_alone_costs_n_squared_minus_1(self, n: int, seed: int) -> None:
        ids = list(range(1, n + 1))
        wiring = build("full_mesh", ids)
        result = simulate(Bully, wiring.views(), [1], seed=seed)
        check_outcome(result, wiring)
        pairs = n * (n - 1) // 2
        assert result.messages == {"election": pairs, "ok": pairs, "coordinator": n - 1}
        assert result.total == n * n - 1 == Bully.bound(wiring, [1]).value

    @pytest.mark.parametrize("n", [1, 2, 6])
    def test_the_top_alone_costs_n_minus_1(self, n: int) -> None:
        ids = list(range(1, n + 1))
        wiring = build("full_mesh", ids)
        result = simulate(Bully, wiring.views(), [n])
        check_outcome(result, wiring)
        assert result.messages == ({"coordinator": n - 1} if n > 1 else {})

    def test_priority_is_capacity_then_id(self) -> None:
        wiring = build("full_mesh", [1, 2, 3, 4], [9, 1, 9, 2])
        lowest = 2  # capacity 1
        result = simulate(Bully, wiring.views(), [lowest])
        assert result.leaders == [3]
        assert result.total == 15

    def test_timeouts_come_from_the_settings(self) -> None:
        view = build("full_mesh", [1, 2]).views(
            {"election_timeout": 0.05, "coordinator_timeout": 0.2}
        )[0]
        bully = Bully(view, initiator=True)
        assert (bully.t, bully.t_prime) == (0.05, 0.2)
        actions = bully.handle_start()
        assert any(getattr(a, "name", None) == "answer" and a.delay == 0.05 for a in actions)  # type: ignore[union-attr]

    def test_no_answer_within_t_makes_a_node_coordinator(self) -> None:
        """The timer path: the higher node never answers (it is down), so T expires."""
        views = build("full_mesh", [1, 2, 3]).views()
        node = Bully(views[1], initiator=True)  # node 2; node 3 above it is silent
        node.handle_start()
        actions = node.handle_timer("answer")
        assert node.elected == 2
        assert sorted(a.to for a in actions if hasattr(a, "to")) == [1]  # type: ignore[union-attr]

    def test_an_answer_without_a_coordinator_restarts_after_t_prime(self) -> None:
        views = build("full_mesh", [1, 2, 3]).views()
        node = Bully(views[0], initiator=True)
        node.handle_start()
        node.handle_message(3, Bully.kinds()["ok"]())
        actions = node.handle_timer("coordinator")
        assert sorted(a.to for a in actions if hasattr(a, "to")) == [2, 3]  # type: ignore[union-attr]


class TestBullyBroadcast:
    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("n", [2, 5, 12])
    @pytest.mark.parametrize("who", ["lowest", "all", "top"])
    def test_within_3n_n_minus_1_over_2(self, n: int, who: str, seed: int) -> None:
        ids = list(range(1, n + 1))
        initiators = {"lowest": [1], "all": ids, "top": [n]}[who]
        wiring = build("full_mesh", ids)
        result = simulate(BullyBroadcast, wiring.views(), initiators, seed=seed)
        check_outcome(result, wiring)
        assert result.total <= 3 * n * (n - 1) // 2
        if who == "top":
            assert result.messages == {"el": n - 1, "ack": n - 1}
