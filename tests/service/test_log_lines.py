"""A node's INFO lines, as an operator reads them: each says what happened and why,
and ends with who leads and the epoch (``[leader node 3, epoch 2]``)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

import ringleader
from ringleader.actors.core import Notice
from ringleader.actors.host._log import NodeLines
from tests.conftest import eventually
from tests.nodes import write_config

FAST = 'topology = "full_mesh"\nalgorithm = "bully"\nheartbeat = 0.05\nsuspect_after = 0.3\n'
#: What, why, and who leads in which epoch.
LINE = re.compile(r"^node \d+ [^:]+: .+ \[leader (none|node \d+), epoch \d+\]$")


def _node_lines(records: list[logging.LogRecord]) -> list[str]:
    return [
        r.getMessage()
        for r in records
        if r.levelno == logging.INFO
        and r.name.startswith(("ringleader.actors", "ringleader.service"))
    ]


@pytest.mark.timeout(60)
def test_every_info_line_of_a_failover_names_the_leader_the_epoch_and_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = write_config(
        tmp_path / "cluster.toml", FAST + f'state_dir = "{tmp_path}"\n', [1, 2, 3]
    )
    nodes = {i: ringleader.Node(config, i) for i in (1, 2, 3)}
    with caplog.at_level(logging.INFO, logger="ringleader"):
        try:
            for node in reversed(nodes.values()):
                node.start()
            assert {i: n.wait_for_leader(20) for i, n in nodes.items()} == {1: 3, 2: 3, 3: 3}
            nodes[3].stop()  # the leader goes: 2 takes over
            for i in (1, 2):
                _wait_for(nodes[i], 2)
        finally:
            for node in nodes.values():
                node.stop()
    lines = _node_lines(caplog.records)
    assert lines
    assert [line for line in lines if not LINE.match(line)] == []
    # the failover, told as it happened
    assert any(
        re.match(r"node 2 leads: it won the round \(.+\) \[leader node 2, epoch \d+\]$", x)
        for x in lines
    ), lines
    assert any(
        re.match(r"node 1 follows node 2: .+ \[leader node 2, epoch \d+\]$", x) for x in lines
    ), lines
    assert any(re.match(r"node 3 leads: .+ \[leader node 3, epoch \d+\]$", x) for x in lines), lines


def _wait_for(node: ringleader.Node, leader: int) -> None:
    """Wait until ``node`` names ``leader`` (a failover takes a few heartbeats)."""
    assert eventually(lambda: node.leader == leader, 20), node.leader


NOTICES = [
    (Notice("state", None, 4), ("leader", 2, 4)),
    (Notice("state", None, 4), ("follower", 3, 4)),
    (Notice("state", None, 4), ("undecided", None, 4)),
    (Notice("lease", None, 4), ("leader", 2, 4)),
    (Notice("lost", None, 4, "paused"), ("leader", 2, 4)),
    (Notice("lost", None, 4, ""), ("follower", 3, 5)),
    (Notice("election", 3, 5, "crash of 3"), ("follower", 3, 4)),
    (Notice("prevote", 3, 4, "crash of 3"), ("follower", 3, 4)),
    (Notice("handover", 3, 4, "resigned"), ("leader", 2, 4)),
    (Notice("suspect", 3, 4, ""), ("follower", 3, 4)),
    (Notice("suspect", 1, 4, "connection refused"), ("follower", 3, 4)),
    (Notice("recovered", 1, 4), ("follower", 3, 4)),
    (Notice("something new", 1, 4, "detail"), ("follower", 3, 4)),
]


@pytest.mark.parametrize(("notice", "said"), NOTICES, ids=[f"{n.kind}-{s[0]}" for n, s in NOTICES])
def test_each_kind_of_notice_makes_a_line_with_what_why_and_the_view(
    notice: Notice, said: tuple[str, int | None, int]
) -> None:
    made = NodeLines(2).line(notice, said)
    assert made is not None
    level, line = made
    assert level == logging.INFO
    assert LINE.match(line), line


def test_the_line_where_a_round_ends_says_why_it_began() -> None:
    lines = NodeLines(1)
    lines.line(Notice("election", 3, 5, "crash of 3"), ("undecided", None, 5))
    assert lines.line(Notice("state", None, 5), ("undecided", None, 5)) == (
        logging.INFO,
        "node 1 waits for a leader: the round (crash of 3) is under way [leader none, epoch 5]",
    )
    assert lines.line(Notice("state", None, 6), ("follower", 2, 6)) == (
        logging.INFO,
        "node 1 follows node 2: it won the round (crash of 3) [leader node 2, epoch 6]",
    )
    # the next leader it learns of, with no round of its own: it was told
    assert lines.line(Notice("state", None, 7), ("follower", 3, 7)) == (
        logging.INFO,
        "node 1 follows node 3: it says it leads [leader node 3, epoch 7]",
    )
    assert lines.line(Notice("lost", None, 7, "paused"), ("leader", 1, 7)) == (
        logging.INFO,
        "node 1 no longer leads epoch 7: paused [leader none, epoch 7]",
    )


def test_a_restarted_node_s_lines_before_its_first_round_say_the_epoch_it_kept() -> None:
    """Restarted with epoch 9 kept, a node asking its peers for a round said "epoch 0"."""
    made = NodeLines(1, floor=9).line(Notice("prevote", None, 0, "start"), ("undecided", None, 0))
    assert made is not None and made[1].endswith("[leader none, epoch 9]"), made
    made = NodeLines(1, floor=9).line(
        Notice("election", None, 11, "start"), ("undecided", None, 11)
    )
    assert made is not None and made[1].endswith("[leader none, epoch 11]"), made
