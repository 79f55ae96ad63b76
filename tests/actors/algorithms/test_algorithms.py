"""The sans-IO algorithms against the course notes' counts, in the simulator.

No threads, no sockets: these run the very objects the actors host, over many seeded
interleavings, so the exact counts are shown to hold whatever order messages arrive in.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ringleader.actors import ALGORITHMS, ChangRoberts, LeLann, Send, simulate
from ringleader.topologies import NodeSpec, unidirectional_ring
from tests.shapes import PAIRS, build, check_outcome

SEEDS = range(8)


def ring(ids: list[int], capacities: list[float] | None = None):  # type: ignore[no-untyped-def]
    caps = capacities or ids
    return unidirectional_ring([NodeSpec(i, c) for i, c in zip(ids, caps, strict=True)])


ARRANGEMENTS = {
    "ascending": [1, 2, 3, 4, 5, 6, 7],
    "descending": [7, 6, 5, 4, 3, 2, 1],
    "notes": [4, 9, 2, 7, 5, 1, 3],
    "pair": [2, 1],
    "single": [42],
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ids", ARRANGEMENTS.values(), ids=ARRANGEMENTS.keys())
class TestChangRoberts:
    def test_leader_alone_initiating_costs_2n(self, ids: list[int], seed: int) -> None:
        wiring = ring(ids)
        leader = max(ids)
        result = simulate(ChangRoberts, wiring.views(), [leader], seed=seed)
        check_outcome(result, wiring)
        n = len(ids)
        assert result.total == 2 * n
        assert result.messages == {"election": n, "elected": n}
        assert ChangRoberts.bound(wiring, [leader]).as_dict() == {
            "formula": "2n",
            "value": 2 * n,
            "exact": True,
        }

    def test_leaders_successor_initiating_costs_3n_minus_1(self, ids: list[int], seed: int) -> None:
        if len(ids) < 2:
            pytest.skip("a single node is its own successor")
        wiring = ring(ids)
        successor = wiring.out[max(ids)][0]
        result = simulate(ChangRoberts, wiring.views(), [successor], seed=seed)
        check_outcome(result, wiring)
        n = len(ids)
        assert result.total == 3 * n - 1
        bound = ChangRoberts.bound(wiring, [successor])
        assert (bound.formula, bound.value, bound.exact) == ("3n-1", 3 * n - 1, True)

    def test_everyone_initiating_stays_within_the_worst_case(
        self, ids: list[int], seed: int
    ) -> None:
        wiring = ring(ids)
        result = simulate(ChangRoberts, wiring.views(), ids, seed=seed)
        check_outcome(result, wiring)
        n = len(ids)
        bound = ChangRoberts.bound(wiring, ids)
        assert bound.holds(result.total)
        assert bound.value == n * (n + 1) // 2 + n


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [1, 2, 5, 9, 30])
def test_chang_roberts_descending_all_initiating_is_the_notes_table(n: int, seed: int) -> None:
    """Notes 000's table: ids descending along the ring, everyone initiates: n(n+1)/2 + n."""
    ids = list(range(n, 0, -1))
    wiring = ring(ids)
    result = simulate(ChangRoberts, wiring.views(), ids, seed=seed)
    check_outcome(result, wiring)
    assert result.total == n * (n + 1) // 2 + n
    assert result.messages["elected"] == n
    assert ChangRoberts.bound(wiring, ids).exact
    if n == 5:
        assert result.total == 20


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ids", ARRANGEMENTS.values(), ids=ARRANGEMENTS.keys())
@pytest.mark.parametrize("who", ["all", "one", "leader"])
def test_lelann_always_costs_n_squared(ids: list[int], who: str, seed: int) -> None:
    wiring = ring(ids)
    initiators = {"all": ids, "one": ids[:1], "leader": [max(ids)]}[who]
    result = simulate(LeLann, wiring.views(), initiators, seed=seed)
    check_outcome(result, wiring)
    n = len(ids)
    assert result.total == n * n
    assert result.messages == {"elect": n * n}
    assert LeLann.bound(wiring, initiators).as_dict() == {
        "formula": "n^2",
        "value": n * n,
        "exact": True,
    }


@pytest.mark.parametrize(("topology", "name"), PAIRS)
def test_capacity_decides_and_ties_go_to_the_larger_id(topology: str, name: str) -> None:
    algorithm = ALGORITHMS[name]
    wiring = build(topology, [10, 20, 30, 40], [5.0, 9.5, 9.5, 1.0])
    result = simulate(algorithm, wiring.views(), [10, 40])
    assert result.leaders == [30]  # capacity 9.5 twice: the larger id wins
    assert set(result.elected.values()) == {30}


@pytest.mark.parametrize(("topology", "name"), PAIRS)
def test_an_initiator_that_receives_before_it_starts_still_sends_its_own_first(
    topology: str, name: str
) -> None:
    """The determinism rule: handle_message on an unstarted initiator starts it first."""
    algorithm = ALGORITHMS[name]
    wiring = build(topology, [1, 2, 3])
    views = {v.id: v for v in wiring.views()}
    first = [
        (i, a)
        for i in (1, 3)
        for a in algorithm(views[i], initiator=True).handle_start()
        if isinstance(a, Send) and a.to == 2
    ]
    sender, message = first[0][0], first[0][1].message
    node = algorithm(views[2], initiator=True)
    own = [a for a in algorithm(views[2], initiator=True).handle_start() if isinstance(a, Send)]
    actions = node.handle_message(sender, message)
    assert node.started
    sends = [a for a in actions if isinstance(a, Send)]
    assert sends[: len(own)] == own  # its own messages went first
    assert node.handle_start() == []  # starting twice does nothing


@pytest.mark.parametrize(("topology", "name"), PAIRS)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_tiny_clusters_elect(topology: str, name: str, n: int) -> None:
    ids = list(range(1, n + 1))
    wiring = build(topology, ids)
    result = simulate(ALGORITHMS[name], wiring.views(), ids[:1])
    check_outcome(result, wiring)


ids_lists = st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=40, unique=True)


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(),
    ids=ids_lists,
    pair=st.sampled_from(PAIRS),
    seed=st.integers(0, 2**32),
)
def test_any_topology_any_initiators_elects_the_max_within_the_bound(
    data: st.DataObject, ids: list[int], pair: tuple[str, str], seed: int
) -> None:
    topology, name = pair
    capacities = data.draw(
        st.one_of(
            st.none(),
            st.lists(st.integers(0, 5), min_size=len(ids), max_size=len(ids)),
        )
    )
    initiators = data.draw(
        st.lists(st.sampled_from(ids), min_size=1, max_size=len(ids), unique=True)
    )
    wiring = build(topology, ids, capacities, seed=seed)
    algorithm = ALGORITHMS[name]
    result = simulate(algorithm, wiring.views(), initiators, seed=seed)
    check_outcome(result, wiring)
    assert algorithm.bound(wiring, initiators).holds(result.total)
