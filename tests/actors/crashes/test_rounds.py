"""Election rounds alone: epochs dealt out by rank, fencing, one acknowledged leader per
round."""

from __future__ import annotations

from ringleader.actors.core import NodeView
from ringleader.actors.crashes._rounds import Rounds


def _view(node: int, members: tuple[int, ...]) -> NodeView:
    return NodeView(id=node, capacity=1, out=(), inbound=(), members=members)


def test_each_node_starts_only_epochs_of_its_rank() -> None:
    members = (1, 2, 3, 4)
    for rank, node in enumerate(members):
        rounds = Rounds(_view(node, members), epoch=1)
        epoch = rounds.next_epoch()
        assert epoch > 1 and epoch % len(members) == rank


def test_two_nodes_starting_at_once_never_share_an_epoch() -> None:
    members = (1, 2, 3)
    for seen in range(1, 20):
        epochs = set()
        for node in members:
            rounds = Rounds(_view(node, members), epoch=1)
            rounds.heard_of(seen)
            epochs.add(rounds.next_epoch())
        assert len(epochs) == len(members)
        assert min(epochs) > seen


def test_a_node_alone_or_unlisted_counts_up_by_one() -> None:
    assert Rounds(_view(5, (5,)), epoch=3).next_epoch() == 4
    assert Rounds(_view(9, (1, 2)), epoch=3).next_epoch() == 4


def test_entering_a_round_raises_what_it_has_seen() -> None:
    rounds = Rounds(_view(1, (1, 2)), epoch=1)
    rounds.enter(7)
    assert (rounds.epoch, rounds.seen) == (7, 7)
    rounds.heard_of(5)  # an older round: seen stays
    assert rounds.seen == 7


def test_one_acknowledged_leader_per_round() -> None:
    rounds = Rounds(_view(1, (1, 2, 3)), epoch=1)
    assert rounds.may_acknowledge(4, 3)
    rounds.acknowledge(4, 3)
    assert rounds.may_acknowledge(4, 3)  # the same leader again
    assert not rounds.may_acknowledge(4, 2)  # another leader of that round: never
    assert rounds.may_acknowledge(5, 2)  # a newer round is free
    rounds.acknowledge(3, 2)  # an older acknowledgement changes nothing
    assert (rounds.acked, rounds.acked_leader) == (4, 3)
