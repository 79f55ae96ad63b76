"""A service's config in the lab: stepped by the service explorer's model (heartbeats,
the lease on each node's clock, the state file, ticks of time), not as the notes' plain
election — each node's lease, token and state file shown, the moves that model offers
(and no others), the service's checks along the run."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from ringleader.actors.exploration.service import CHECKS
from ringleader.cli import main
from ringleader.lab import ServiceLab
from tests.lab.labs import SERVICE, get, make_service_lab, serving
from tests.paths import ROOT


@pytest.fixture(scope="module")
def lab() -> ServiceLab:
    """examples/service/cluster.toml with a crash and a lost frame (explore --service's
    default faults)."""
    return make_service_lab(SERVICE, crashes=1, losses=1)


@pytest.fixture(scope="module")
def url(lab: ServiceLab) -> Iterator[str]:
    with serving(lab) as address:
        yield address


def state(url: str, path: str, **query: Any) -> dict[str, Any]:
    extra = "".join(f"&{k}={v}" for k, v in query.items())
    status, view = get(f"{url}api/state?path={path}{extra}")
    assert status == 200, view
    return view


def node(view: dict[str, Any], ident: int) -> dict[str, Any]:
    return next(n for n in view["nodes"] if n["id"] == ident)


def check(view: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(c for c in view["checks"] if c["kind"] == kind)


def test_the_page_says_it_runs_the_services_rules(url: str) -> None:
    status, info = get(url + "api/lab")
    assert status == 200
    assert info["rules"] == "service"
    assert info["title"] == "Bully on a full mesh of 3 nodes, as a service"
    assert "as `ringleader node` runs it" in info["about"]
    assert "a majority's lease of 0.2 s" in info["about"]
    assert [c["kind"] for c in info["checks"]] == list(CHECKS)
    assert [p["name"] for p in info["policies"]] == ["random", "round_robin"]
    assert info["options"]["faults"]["crashes"] == 1
    # Every node started at once: no wake-up to offer, each node's lease and file shown.
    first = state(url, "")
    kinds = {m["kind"] for m in first["moves"]}
    assert "start" not in kinds and {"crash", "deliver", "drop"} <= kinds
    for shown in first["nodes"]:
        assert shown["lease"] == "none"
        assert "kept" in shown and shown["timers"]


def test_settled_a_leader_holds_its_lease_and_after_its_crash_another_takes_over(
    lab: ServiceLab, url: str
) -> None:
    """The explorer's fault-free run to the first leader opens with its lease shown; crash
    that leader, let time go on (auto-play, round-robin): P2 leads with a newer token."""
    found = {f["name"]: f for f in lab.info()["findings"]}
    settled = found["settled"]
    assert settled["violation"] is False and settled["steps"] > 0
    view = state(url, settled["path"])
    leader = node(view, 3)
    assert leader["state"] == "leader" and leader["lease"].startswith("held, token ")
    token = int(leader["lease"].split("token ")[1].split(",")[0])
    progress = check(view, "no_progress")
    assert progress["status"] == "passed" and progress["text"].startswith("P3 holds its lease")
    # Time goes on in ticks: the heartbeats are in the diagram (the lease is made of them).
    assert any(m["kind"] == "ping" for m in view["diagram"]["messages"])
    crash = next(m for m in view["moves"] if m["kind"] == "crash" and m["node"] == 3)
    path = [*map(int, settled["path"].split(".")), crash["choice"]]
    view = lab.view(path, policy="round_robin")
    assert node(view, 3)["crashed"] is True and view["last"] == "P3 crashes"
    assert "crash" not in {m["kind"] for m in view["moves"]}  # the one crash is spent
    for _ in range(600):
        if node(view, 2)["lease"].startswith("held"):
            break
        assert view["next"] is not None
        path.append(view["next"])
        view = lab.view(path, policy="round_robin")
    else:
        raise AssertionError(f"no new leader after {len(path)} steps: {view['nodes']}")
    newer = int(node(view, 2)["lease"].split("token ")[1].split(",")[0])
    assert newer > token and node(view, 1)["elected"] == 2
    assert {c["kind"]: c["status"] for c in view["checks"]} == {
        "token_back": "passed",
        "two_leases": "passed",
        "two_leaders": "passed",
        "two_acks": "passed",
        "no_progress": "passed",
    }
    _, events, _ = lab.walk(path)
    taken = {lab.model.events[number][0] for number in events}
    assert {"tick", "timer", "deliver"} <= taken  # time went on, the suspicion fired
    # The same path over HTTP is the same state (a shared link).
    assert state(url, ".".join(map(str, path)))["nodes"] == view["nodes"]


def test_a_broken_check_is_shown_at_the_step_that_broke_it() -> None:
    """Without a quorum, a split lets both sides lead: the explorer's run to two leases
    at once opens with that check failed, and marked on the diagram."""
    lab = make_service_lab(
        ROOT / "examples" / "explore" / "service_no_quorum.toml", max_states=40_000, partitions=1
    )
    found = {f["name"]: f for f in lab.info()["findings"]}
    assert "two_leases" in found, sorted(found)
    run = found["two_leases"]
    view = lab.view([int(k) for k in run["path"].split(".")])
    failed = check(view, "two_leases")
    assert failed["status"] == "failed" and "hold a lease at the same instant" in failed["text"]
    assert "violation" in [m["mark"] for m in view["diagram"]["marks"]]
    leaders = [n["id"] for n in view["nodes"] if n.get("lease", "").startswith("held")]
    assert len(leaders) == 2


def test_a_move_the_model_has_not_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """A service's nodes start at once and their timers fire on time: the notes' options
    for those are refused, as --partitions is for the notes' election."""
    assert main(["lab", str(SERVICE), "--unordered", "--no-browser"]) == 2
    assert "--unordered is for the notes' elections" in capsys.readouterr().err
    ring = str(ROOT / "examples" / "ring.toml")
    assert main(["lab", ring, "--partitions", "1", "--no-browser"]) == 2
    assert "--partitions counts a service's faults" in capsys.readouterr().err


def test_the_command_steps_a_service_config_as_a_service() -> None:
    command = [
        *(sys.executable, "-m", "ringleader", "lab", str(SERVICE)),
        *("--no-browser", "--json", "--max-states", "2000"),
    ]
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stdout is not None
            ready, _, _ = select.select([process.stdout], [], [], 60)
            assert ready, "no address printed"
            line = json.loads(process.stdout.readline())
            assert line["title"] == "Bully on a full mesh of 3 nodes, as a service"
            assert line["rules"] == "service"
            assert get(line["url"] + "api/lab")[1]["rules"] == "service"
        finally:
            process.terminate()
            process.wait(timeout=30)
