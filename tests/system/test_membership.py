"""Members changed live in whole processes (issue 32, item 1): a cluster of three
``ringleader node`` processes grows to four with ``ringleader member add`` (a spare of
the config, started beside them), loses its leader to a SIGKILL, elects among the four,
and shrinks back to three with ``ringleader member remove``: of the dead node, then of
the leader itself (it hands over first, and its process stops with a ``removed``
line).  Every step is checked from the nodes' own events and ``ringleader status``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import ringleader
from ringleader.service import ask_status, status_summary
from ringleader.topologies import SECRET_ENV
from tests.conftest import eventually, let_pass
from tests.nodes import NodeProcess, running, wait_agreement, write_config

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process tests use Linux /proc")

SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
MESH = 'topology = "full_mesh"\nalgorithm = "bully"\ntransport = "tcp"\n'


def member(config: Path, *args: str) -> tuple[int, dict[str, object], str]:
    """``ringleader member ARGS --json``: exit status, its object, its stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "ringleader", "member", args[0], str(config), *args[1:], "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, SECRET_ENV: SECRET},
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def spare(path: Path, node: int) -> None:
    """Mark node ``node`` of the config at ``path`` ``spare = true``."""
    text = path.read_text(encoding="utf-8")
    table = f"\n[[nodes]]\nid = {node}\n"
    at = text.index(table) + len(table)
    path.write_text(text[:at] + "spare = true\n" + text[at:], encoding="utf-8")


def statuses(config: ringleader.Config) -> dict[str, object]:
    return status_summary(config, ask_status(config, timeout=1.0))


def four_with_a_spare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cluster's secret in the environment, and a config of nodes 1 to 4 on a mesh,
    node 4 a spare: its path."""
    monkeypatch.setenv(SECRET_ENV, SECRET)
    path = write_config(tmp_path / "mesh.toml", MESH, [1, 2, 3, 4])
    spare(path, 4)
    return path


def asked_in_background(ask: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """``ask()`` on a thread of its own, started: the thread, and the list its answer (or
    the :class:`~ringleader.MembershipRefused` it raised) is put in."""
    said: list[object] = []

    def run() -> None:
        try:
            said.append(ask())
        except ringleader.MembershipRefused as refused:
            said.append(refused)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, said


def test_three_grow_to_four_lose_the_leader_and_shrink_back_to_three(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = four_with_a_spare(tmp_path, monkeypatch)
    config = ringleader.load_config(path)
    assert config.founding == [1, 2, 3] and config.spares == [4]
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        epoch = wait_agreement(nodes, [1, 2, 3], 3)
        # The spare, started: it listens and takes no part until it is added.
        nodes[4] = NodeProcess(path, 4, env={SECRET_ENV: SECRET})
        nodes[4].wait_for(lambda e: e["event"] == "listening", 60.0)
        summary = statuses(config)
        assert summary["agreed"] and summary["leader"] == 3
        assert [n["member"] for n in summary["nodes"]] == [True, True, True, False]

        # 3 -> 4: a learner first, a voter once it caught up, committed.
        status, added, _ = member(path, "add", "--id", "4")
        assert status == 0 and added["changed"] and added["leader"] == 3, added
        assert added["configuration"]["voters"] == [1, 2, 3, 4]  # type: ignore[index]
        for node in (1, 2, 3, 4):
            nodes[node].wait_for(
                lambda e: e["event"] == "configuration" and "voters 1,2,3,4" in e["configuration"]
            )
        assert nodes[4].leader() == (3, epoch)

        # The leader killed: the four elect among themselves (4, the highest live).
        nodes[3].kill()
        wait_agreement(nodes, [1, 2, 4], 4)
        summary = statuses(config)
        assert summary["leader"] is None  # node 3, a voter, does not answer

        # 4 -> 3: the dead node removed; the remaining three agree, with nobody missing.
        status, removed, _ = member(path, "remove", "--id", "3")
        assert status == 0 and removed["leader"] == 4, removed
        assert removed["configuration"]["voters"] == [1, 2, 4]  # type: ignore[index]
        summary = eventually(lambda: (s := statuses(config))["agreed"] and s, 10.0)
        assert summary and summary["leader"] == 4
        assert [n["member"] for n in summary["nodes"]] == [True, True, False, True]

        # The leader removed: it hands over first, the new leader removes it, and its
        # process stops with a ``removed`` line (exit status 0).
        status, removed, _ = member(path, "remove", "--id", "4")
        assert status == 0 and removed["leader"] == 2, removed
        assert removed["configuration"]["voters"] == [1, 2]  # type: ignore[index]
        line = nodes[4].wait_for(lambda e: e["event"] == "removed")
        assert "voters 1,2" in line["configuration"]
        assert nodes[4].process.wait(20) == 0
        summary = eventually(lambda: (s := statuses(config))["agreed"] and s, 10.0)
        assert summary and summary["leader"] == 2

        # Refused, in one line, changing nothing: node 3 is no member any more.
        status, refused, stderr = member(path, "remove", "--id", "3")
        assert status == 1 and not refused["changed"]
        assert str(refused["refused"]).startswith("node 3 is no member already")
        assert stderr.count("\n") == 1


WARNING = "no secret_file or $RINGLEADER_SECRET"


def tool(
    words: tuple[str, ...], config: Path, *options: str, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``ringleader WORDS CONFIG OPTIONS``, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "ringleader", *words, str(config), *options],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )


@pytest.mark.timeout(180)
def test_without_a_secret_each_operator_command_warns_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no secret_file nor $RINGLEADER_SECRET, the nodes and the tools share this
    user's local secret, and each command says so once, however many times it opens
    its line to the nodes or reads the secret (``member`` warned at each look)."""
    monkeypatch.delenv(SECRET_ENV, raising=False)
    env = dict(os.environ)
    path = write_config(tmp_path / "mesh.toml", MESH, [1, 2, 3, 4])
    spare(path, 4)
    with running(path, [1, 2, 3]) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        nodes[4] = NodeProcess(path, 4)
        nodes[4].wait_for(lambda e: e["event"] == "listening", 60.0)
        commands: list[tuple[tuple[str, ...], tuple[str, ...], int]] = [
            (("member", "add"), ("--id", "4"), 0),
            (("status",), (), 0),
            (("transfer",), ("--to", "4"), 0),
            (("watch",), ("--once",), 0),
            (("member", "remove"), ("--id", "4"), 0),  # the leader: it hands over first
            (("member", "remove"), ("--id", "4"), 1),  # refused: no member already
        ]
        for words, options, status in commands:
            done = tool(words, path, *options, env=env)
            assert done.returncode == status, (words, done.stderr)
            assert done.stderr.count(WARNING) == 1, (words, done.stderr)


@pytest.mark.timeout(120)
def test_a_leader_killed_after_it_made_a_learner_is_said_to_be_silent_not_the_learner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``member add`` whose leader is killed between making node 4 a learner and
    promoting it: the command said "node 4 did not catch up ...: is it running?" while
    node 4 ran and the leader was the one gone (the new leader never heard of the
    learner)."""
    from ringleader.errors import MembershipRefused
    from ringleader.service import add_member

    path = four_with_a_spare(tmp_path, monkeypatch)
    config = ringleader.load_config(path)
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        nodes[4] = NodeProcess(path, 4, env={SECRET_ENV: SECRET})
        nodes[4].wait_for(lambda e: e["event"] == "listening", 60.0)
        asking, said = asked_in_background(lambda: add_member(config, 4, timeout=4.0))
        nodes[3].wait_for(
            lambda e: e["event"] == "configuration" and "learners 4" in e["configuration"], 30.0
        )
        nodes[3].kill()
        asking.join(30)
        assert not asking.is_alive()
        [answer] = said
        if not isinstance(answer, MembershipRefused):
            pytest.skip("node 4 caught up before node 3 was killed")  # (the race lost)
        words = str(answer)
        assert "is it running" not in words, words
        assert words.startswith("node 3 added node 4 as a learner, then stopped answering"), words


@pytest.mark.timeout(120)
def test_removing_the_leader_refused_for_want_of_a_live_majority_leaves_it_leading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Voters 1,2,3, node 1 down, leader 3 asked to remove itself: the voters left (1,2)
    would have no live majority, so it is refused ("changes nothing", the how-to says);
    but node 3 handed the leadership over to node 2 first, which refused: a failover for
    nothing, and the command said refused.  It is refused before any hand-over now."""
    monkeypatch.setenv(SECRET_ENV, SECRET)
    path = write_config(tmp_path / "mesh.toml", MESH, [1, 2, 3])
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        epoch = wait_agreement(nodes, [1, 2, 3], 3)
        nodes[1].kill()
        let_pass(1.0)  # node 1's last answer ages out of leader 3's lease (0.2 s)
        status, refused, _ = member(path, "remove", "--id", "3")
        assert status == 1 and not refused["changed"]
        assert "without a live majority" in str(refused["refused"]), refused
        assert nodes[3].leader() == (3, epoch)
        assert not [e for e in nodes[3].drain() if e["event"] == "handover"]


@pytest.mark.timeout(120)
def test_a_leader_whose_lease_starts_over_in_a_new_configuration_does_not_say_it_expired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each change of the members starts the leader's lease over (rule L2): its ``lost``
    line said ``lease expired`` (``no longer leads epoch 1: lease expired`` for people)
    although nothing expired and no heartbeat was missed; it says ``reconfigured``."""
    path = four_with_a_spare(tmp_path, monkeypatch)
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        nodes[4] = NodeProcess(path, 4, env={SECRET_ENV: SECRET})
        nodes[4].wait_for(lambda e: e["event"] == "listening", 60.0)
        status, _, _ = member(path, "add", "--id", "4")
        assert status == 0
        changed = nodes[3].wait_for(lambda e: e["event"] == "configuration")
        lost = nodes[3].wait_for(lambda e: e["event"] == "lost" and e["t"] >= changed["t"])
        assert lost["reason"] == "reconfigured", lost


@pytest.mark.timeout(120)
def test_with_another_secret_the_command_does_not_say_that_no_node_leads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``member`` run with a secret other than the nodes': every node drops its frames
    unread, so none answers; the command said "no node leads now", while node 3 led."""
    monkeypatch.setenv(SECRET_ENV, SECRET)
    path = write_config(tmp_path / "mesh.toml", MESH, [1, 2, 3])
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        done = subprocess.run(
            [sys.executable, "-m", "ringleader", "member", "remove", str(path), "--id", "1"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={**os.environ, SECRET_ENV: "ab" * 32},
        )
        assert done.returncode == 1
        assert "no node leads" not in done.stderr, done.stderr
        assert "no node answered (1, 2, 3): are they running, with this secret?" in done.stderr
        assert nodes[3].leader() == nodes[1].leader()


@pytest.mark.timeout(120)
def test_member_add_follows_the_leadership_when_the_leader_hands_over_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``member add 4`` waits for node 4 (not started yet) to catch up; meanwhile the
    leader hands over (``ringleader transfer``, or another command removing it).  The
    command kept asking the old leader, which never says committed again, and ended with
    "node 4 did not catch up ...: is it running?" while the new leader had promoted it."""
    from ringleader.service import add_member, transfer

    path = four_with_a_spare(tmp_path, monkeypatch)
    config = ringleader.load_config(path)
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        asking, said = asked_in_background(lambda: add_member(config, 4, timeout=30.0))
        for node in (1, 2, 3):
            nodes[node].wait_for(
                lambda e: e["event"] == "configuration" and "learners 4" in e["configuration"]
            )
        transfer(config, 2)
        wait_agreement(nodes, [1, 2, 3], 2)
        nodes[4] = NodeProcess(path, 4, env={SECRET_ENV: SECRET})
        asking.join(60)
        assert not asking.is_alive()
        [answer] = said
        assert not isinstance(answer, Exception), answer
        assert answer.leader == 2  # type: ignore[attr-defined]
        assert answer.configuration.voters == {1, 2, 3, 4}  # type: ignore[attr-defined]


@pytest.mark.timeout(120)
def test_a_learner_not_running_is_promoted_once_started_as_the_refusal_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``member add 4`` with node 4 not running ends refused after ``--timeout``, node 4 a
    learner.  The how-to said "start it and ask again", and asking again was refused
    ("node 4 is a member already", exit 1): once started, the leader promotes it by
    itself.  The refusal says so."""
    path = four_with_a_spare(tmp_path, monkeypatch)
    config = ringleader.load_config(path)
    with running(path, [1, 2, 3], env={SECRET_ENV: SECRET}) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        status, refused, _ = member(path, "add", "--id", "4", "--timeout", "2")
        assert status == 1
        assert str(refused["refused"]).endswith(
            "If not: start it, and node 3 makes it a voter once it catches up"
        ), refused
        nodes[4] = NodeProcess(path, 4, env={SECRET_ENV: SECRET})
        summary = eventually(
            lambda: (s := statuses(config))["agreed"] and 4 in s["configuration"]["voters"] and s,
            20.0,
        )
        assert summary
