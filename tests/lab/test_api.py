"""The lab's server, over HTTP: a path of choices names a state, each move does what the
explorer's model says, the checks and the explorer's runs are there, auto-play follows its
policy, and a malformed request is a 4xx after which the lab goes on."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from ringleader.cli import main
from tests.lab.labs import HASTY, RING, get, make_lab, serving
from tests.paths import ROOT


@pytest.fixture(scope="module")
def ring() -> Iterator[str]:
    """Chang–Roberts on 7 nodes where one node may crash and one message be lost."""
    with serving(make_lab(RING, crashes=1, losses=1)) as url:
        yield url


def state(url: str, path: list[int] | str, **query: Any) -> dict[str, Any]:
    text = path if isinstance(path, str) else ".".join(map(str, path))
    extra = "".join(f"&{k}={v}" for k, v in query.items())
    status, view = get(f"{url}api/state?path={text}{extra}")
    assert status == 200, view
    return view


def choice(view: dict[str, Any], kind: str, **match: Any) -> int:
    """The choice of the first move of ``kind`` (with ``match``'s values)."""
    for move in view["moves"]:
        if move["kind"] == kind and all(move.get(k) == v for k, v in match.items()):
            return int(move["choice"])
    raise AssertionError(f"no {kind} {match} among {[m['text'] for m in view['moves']]}")


def node(view: dict[str, Any], ident: int) -> dict[str, Any]:
    return next(n for n in view["nodes"] if n["id"] == ident)


def link(view: dict[str, Any], a: int, b: int) -> list[str]:
    """The messages in flight from ``a`` to ``b``, in delivery order."""
    for entry in view["links"]:
        if (entry["from"], entry["to"]) == (a, b):
            return [m["text"] for m in entry["messages"]]
    return []


def test_the_start_and_a_delivery_move_the_election_on(ring: str) -> None:
    first = state(ring, [])
    assert first["step"] == 0 and first["links"] == [] and first["sent"] == 0
    assert [m["kind"] for m in first["moves"]].count("start") == 1  # P2 alone initiates
    woke = choice(first, "start", node=2)
    after = state(ring, [woke])
    assert link(after, 2, 7) == ["election(P2)"]
    assert node(after, 2)["variables"]["participant"] is True
    deliver = choice(after, "deliver", node=7)
    delivered = state(ring, [woke, deliver])
    # P7 swallows the smaller candidate and sends its own on to P5.
    assert link(delivered, 2, 7) == []
    assert link(delivered, 7, 5) == ["election(P7)"]
    assert delivered["sent"] == 2 and delivered["changed"]["nodes"] == [7]
    assert delivered["narration"][-1]["text"].startswith("P7 replaces election(P2)")
    told = [
        (m["from"], m["to"], m["sent"], m["received"]) for m in delivered["diagram"]["messages"]
    ]
    assert told == [(2, 7, 1, 2), (7, 5, 2, None)]
    labels = [m["label"] for m in delivered["diagram"]["messages"]]
    assert labels == ["election(P2)", "election(P7)"]  # as on the links, not the node's info


def test_a_crash_is_offered_only_while_crashes_are_left_and_stops_the_node(ring: str) -> None:
    woke = choice(state(ring, []), "start", node=2)
    before = state(ring, [woke])
    assert {m["node"] for m in before["moves"] if m["kind"] == "crash"} == {4, 9, 2, 7, 5, 1, 3}
    crash = choice(before, "crash", node=7)
    after = state(ring, [woke, crash])
    assert node(after, 7)["state"] == "crashed"
    assert link(after, 2, 7) == []  # what was on its way to it is lost with it
    assert not [m for m in after["moves"] if m["kind"] == "crash"]  # one crash: spent
    assert after["diagram"]["marks"][-1] == {"node": 7, "step": 2, "mark": "crash"}
    assert all(m["kind"] != "restart" for m in after["moves"])  # restarts not asked for


def test_a_crashed_node_restarts_when_restarts_are_asked_for() -> None:
    """``--restarts``: the crashed node is offered a restart, comes back recovering (as
    the simulator restarts it), drawn and told as a restart."""
    with serving(make_lab(RING, crashes=1, restarts=True)) as url:
        assert get(f"{url}api/lab")[1]["options"]["restarts"] is True
        woke = choice(state(url, []), "start", node=2)
        crash = choice(state(url, [woke]), "crash", node=5)  # the run goes on: P2's election
        crashed = state(url, [woke, crash])
        assert [m["node"] for m in crashed["moves"] if m["kind"] == "restart"] == [5]
        restart = choice(crashed, "restart", node=5)
        back = state(url, [woke, crash, restart])
        assert back["last"] == "P5 restarts"
        assert node(back, 5)["crashed"] is False and node(back, 5)["state"] == "undecided"
        assert back["changed"]["nodes"] == [5]
        assert back["diagram"]["marks"][-1] == {"node": 5, "step": 3, "mark": "restart"}
        assert back["narration"][-1]["text"].startswith("P5 recovers")
        assert not [m for m in back["moves"] if m["kind"] in ("crash", "restart")]


def test_a_pause_and_its_resume_are_moves_that_hold_the_node_still() -> None:
    """examples/explore/bully_pause.toml: P3 may pause, and resume later."""
    with serving(make_lab(ROOT / "examples" / "explore" / "bully_pause.toml")) as url:
        assert get(f"{url}api/lab")[1]["options"]["pauses"] == [3]
        first = state(url, [])
        pause = choice(first, "pause", node=3)
        assert first["moves"][pause]["fault"] is True
        paused = state(url, [pause])
        assert node(paused, 3)["paused"] is True and paused["last"] == "P3 pauses"
        assert not [m for m in paused["moves"] if m["kind"] == "pause"]
        assert paused["diagram"]["marks"][-1]["mark"] == "pause"
        path = [pause, choice(paused, "start", node=1)]
        woke = state(url, path)
        # P1's election reaches P3, which, paused, takes nothing in
        assert link(woke, 1, 3) and not [
            m for m in woke["moves"] if m.get("node") == 3 and m["kind"] == "deliver"
        ]
        resume = choice(woke, "resume", node=3)
        resumed = state(url, [*path, resume])
        assert node(resumed, 3)["paused"] is False and resumed["last"] == "P3 resumes"
        assert [m for m in resumed["moves"] if m["kind"] == "deliver" and m["node"] == 3]
        assert not [m for m in resumed["moves"] if m["kind"] in ("pause", "resume")]


def test_a_partition_and_its_healing_are_moves_that_lose_what_crosses_it() -> None:
    """examples/faults/partition.toml: P1 and P2 apart from the rest, then healed."""
    with serving(make_lab(ROOT / "examples" / "faults" / "partition.toml")) as url:
        assert get(f"{url}api/lab")[1]["options"]["partitions"] == [[[1, 2]]]
        first = state(url, [])
        split = choice(first, "partition")
        assert first["moves"][split]["fault"] is True
        apart = state(url, [split])
        assert apart["last"].startswith("the network splits: P1 P2")
        assert not [m for m in apart["moves"] if m["kind"] == "partition"]
        # P2's election goes to P3 across the split: lost, drawn as lost
        path = [split, choice(apart, "start", node=2)]
        sent = state(url, path)
        assert link(sent, 2, 3) == [] and sent["sent"] == 1
        assert sent["diagram"]["messages"][-1]["lost"] is True
        heal = choice(sent, "heal")
        healed = state(url, [*path, heal])
        assert healed["last"].startswith("the network heals")
        assert not [m for m in healed["moves"] if m["kind"] in ("partition", "heal")]
        # healed: P5's election to P1 (across what was the split) is on its way
        after = state(url, [*path, heal, choice(healed, "start", node=5)])
        assert link(after, 5, 1) == ["election(P5)"]


def test_a_drop_loses_the_message_and_sends_nothing(ring: str) -> None:
    woke = choice(state(ring, []), "start", node=2)
    drop = choice(state(ring, [woke]), "drop", node=7)
    after = state(ring, [woke, drop])
    assert link(after, 2, 7) == [] and after["sent"] == 1
    assert after["last"] == "lose election(P2) from P2 to P7"
    assert after["diagram"]["messages"][0]["lost"] is True
    assert not [m for m in after["moves"] if m["kind"] == "drop"]  # one loss: spent


def test_without_faults_asked_none_is_offered() -> None:
    with serving(make_lab(RING)) as url:
        view = state(url, [0])
        assert {m["kind"] for m in view["moves"]} == {"deliver"}


def test_back_forward_and_a_deep_link_are_the_same_state(ring: str) -> None:
    steps: list[int] = []
    views = [state(ring, steps)]
    for _ in range(6):
        steps.append(choice(views[-1], "deliver") if steps else 0)
        views.append(state(ring, steps))
    # Back: the path one shorter is the state before; forward: the same path again.
    assert state(ring, steps[:-1]) == views[-2]
    assert state(ring, steps) == views[-1]
    assert state(ring, ".".join(map(str, steps)))["nodes"] == views[-1]["nodes"]


def test_each_run_the_explorer_found_opens_and_goes_on() -> None:
    with serving(make_lab(HASTY)) as url:
        status, info = get(url + "api/lab")
        assert status == 200
        assert info["algorithm"] == "hasty:Hasty"  # a student's module:Class
        found = {f["name"]: f for f in info["findings"]}
        assert {"min", "max", "two_leaders"} <= set(found)
        clash = found["two_leaders"]
        assert clash["violation"] and clash["detail"]
        view = state(url, clash["path"])
        assert view["step"] == clash["steps"]
        check = next(c for c in view["checks"] if c["kind"] == "two_leaders")
        assert check["status"] == "failed" and "lead" in check["text"]
        assert [m["mark"] for m in view["diagram"]["marks"]].count("violation") >= 1
        # Step on from it, and back into it.
        on = state(url, f"{clash['path']}.0")
        assert on["step"] == clash["steps"] + 1
        most = state(url, found["max"]["path"])
        assert most["end"] and most["sent"] == found["max"]["messages"]


def test_auto_play_follows_its_policy() -> None:
    lab = make_lab(RING)
    with serving(lab) as url:
        first = state(url, [], policy="random", seed=7)
        assert first == state(url, [], policy="random", seed=7)  # seeded: the same pick
        for policy, expected in (("most_messages", lab.exploration.messages[1]),):
            path: list[int] = []
            view = state(url, path, policy=policy)
            while view["next"] is not None:
                path.append(view["next"])
                view = state(url, path, policy=policy)
            assert view["end"] and view["sent"] == expected  # the adversary: the most
        robin = state(url, [0], policy="round_robin")
        assert robin["moves"][robin["next"]]["kind"] == "deliver"


@pytest.mark.parametrize(
    ("asked", "status", "words"),
    [
        ("api/state?path=x", 400, "step numbers"),
        ("api/state?path=0.99", 400, "step 2 of the path: choice 99"),
        ("api/state?path=-1", 400, "step numbers"),
        ("api/state?path=0&policy=luck", 400, "policy must be one of"),
        ("api/state?path=0&seed=one", 400, "seed"),
        ("api/state?path=0&colour=red", 400, "unknown parameter"),
        ("api/state?path=" + ".".join(["0"] * 6000), 400, "at most"),
        ("api/nothing", 404, "no such page"),
    ],
)
def test_a_malformed_request_is_a_4xx_and_the_lab_goes_on(
    ring: str, asked: str, status: int, words: str
) -> None:
    got, answer = get(ring + asked)
    assert got == status and words in answer["error"]
    assert get(ring + "api/state?path=0")[0] == 200


def test_a_path_past_the_end_says_how_many_of_its_steps_are_valid(ring: str) -> None:
    """A shared link whose path goes on where no step is enabled (or names a choice that
    is not there): the page shows the steps that do name a state."""
    woke = choice(state(ring, []), "start", node=2)
    got, answer = get(f"{ring}api/state?path={woke}.99")
    assert got == 400 and answer["valid"] == 1 and "choice 99" in answer["error"]
    got, answer = get(f"{ring}api/state?path=x")
    assert got == 400 and answer.get("valid", 0) == 0


def test_only_get_is_answered(ring: str) -> None:
    assert get(ring + "api/state?path=0", method="POST")[0] == 405
    assert get(ring + "api/lab")[0] == 200


def test_every_asset_is_in_the_package_and_no_page_names_another_host(ring: str) -> None:
    import urllib.request

    for name in ("", "lab.js", "lab.css"):
        with urllib.request.urlopen(ring + name, timeout=30) as answer:
            text = answer.read().decode()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text


def test_the_command_prints_its_address_serves_and_stops_on_ctrl_c() -> None:
    command = [sys.executable, "-m", "ringleader", "lab", str(RING), "--no-browser", "--json"]
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stdout is not None and process.stderr is not None
            ready, _, _ = select.select([process.stdout], [], [], 60)
            assert ready, "no address printed"
            line = json.loads(process.stdout.readline())
            assert line["url"].startswith("http://127.0.0.1:")
            assert line["title"] == "Chang–Roberts on a unidirectional ring of 7 nodes"
            assert get(line["url"] + "api/state?path=0")[0] == 200
            os.kill(process.pid, signal.SIGINT)
            assert process.wait(timeout=30) == 130
            assert "ringleader lab: interrupted" in process.stderr.read()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_restarts_without_crashes_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lab", str(RING), "--restarts", "--no-browser"]) == 2
    assert "--restarts needs crashes" in capsys.readouterr().err
