"""One checker (``ringleader.actors.checks``): the explorer, the simulator, threads and
processes check every state of a run with the same functions, and a run that breaks a
check says so — ``safe: false``, the violation with its moment, nodes and epoch, exit
status 1, and a ``violation`` event in its trace that replay and diagram show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ringleader
from ringleader.actors.checks import Stance, end_check, two_leaders
from ringleader.cli import main
from ringleader.cluster import explore_config
from ringleader.topologies import Config, load_config
from ringleader.traces import load_trace, narrate
from tests.paths import ROOT
from tests.trace_rules import check_trace, events_of

PAUSE = ROOT / "examples" / "explore" / "bully_pause.toml"


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, _ = capsys.readouterr()
    return code, out


def _violations(data: dict[str, Any]) -> list[dict[str, Any]]:
    return data["safety"]["violations"]  # type: ignore[no-any-return]


def test_a_simulated_run_with_two_leaders_at_once_is_unsafe_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """bully_pause: P2 leads epoch 1 from 0.5016 s, P3 too from 1.0 s, until P2 learns
    of P3 at 1.0005 s.  The end state is fine; a state on the way was not."""
    trace = tmp_path / "pause.jsonl"
    code, out = _cli(capsys, "run", str(PAUSE), "--simulate", "--json", "--trace", str(trace))
    data = json.loads(out)
    assert code == 1
    assert data["safe"] is False and data["agreed"] is True and data["leader"] == 3
    (violation,) = _violations(data)
    assert violation["kind"] == "two_leaders"
    assert violation["nodes"] == [2, 3] and violation["epoch"] == 1 and violation["node"] == 3
    assert 0.5016 <= violation["at"] <= violation["until"] <= 1.0006
    assert violation["detail"] == "P2 and P3 lead epoch 1"
    assert any(p.startswith("unsafe: two_leaders at 1.0000") for p in data["problems"])
    assert data["safety"]["max_leaders_per_epoch"] == 2
    assert "elections" not in data  # no crash schedule: nothing more than before

    code, out = _cli(capsys, "run", str(PAUSE), "--simulate")
    assert code == 1
    assert "Safety: at most 2 leaders per epoch; 1 violation" in out
    assert "Problem: unsafe: two_leaders at 1.0000–1.0005 s: P2 and P3 lead epoch 1" in out


def test_the_explorer_and_the_run_word_the_same_violation(tmp_path: Path) -> None:
    """One meaning, one wording: the shortest run the explorer finds and the simulated
    run break the same check, in the same words."""
    config = load_config(PAUSE)
    exploration = explore_config(config)
    first = exploration.findings[0]
    assert (first.kind, first.detail) == ("two_leaders", "P2 and P3 lead epoch 1")
    report = ringleader.run(config, simulate=True)
    assert report.safety is not None
    assert [(v.kind, v.detail) for v in report.safety.violations] == [(first.kind, first.detail)]


def test_the_explorers_counterexample_marks_the_step_that_broke_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shortest run to two leaders, as ``explore`` writes it: its trace has the
    violation at the step that made it, so ``replay`` tells it and ``diagram`` marks it."""
    out = tmp_path / "runs"
    code, _ = _cli(capsys, "explore", str(PAUSE), "--out", str(out))
    assert code == 1
    events = events_of((out / "two_leaders.jsonl").read_text())
    (marked,) = [e for e in events if e["event"] == "violation"]
    assert (marked["check"], marked["nodes"], marked["epoch"]) == ("two_leaders", [2, 3], 1)
    last_lead = max(
        i for i, e in enumerate(events) if e["event"] == "state" and e["state"] == "leader"
    )
    assert events.index(marked) == last_lead + 1  # right after the state that broke it
    code, told = _cli(capsys, "replay", str(out / "two_leaders.jsonl"), "--no-step")
    assert code == 0 and "✗ unsafe (two_leaders): P2 and P3 lead epoch 1" in told


def test_a_threaded_run_with_two_leaders_at_once_is_unsafe_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """bully_pause in threads, with a shorter T and a longer pause: a loaded machine's
    slow set-up (the pause counts from P3's boot) still leaves P2's T to run out first
    (a pause of 2 s did not, once, with two suites sharing two cores)."""
    config = tmp_path / "pause.toml"
    text = PAUSE.read_text().replace("until = 1.0", "until = 4.0")
    timeouts = "nodes = 3\nelection_timeout = 0.2\ncoordinator_timeout = 0.4\n"
    config.write_text(text.replace("nodes = 3\n", timeouts))
    trace = tmp_path / "pause.jsonl"
    code, out = _cli(capsys, "run", str(config), "--json", "--trace", str(trace))
    data = json.loads(out)
    assert code == 1 and data["mode"] == "threads" and data["safe"] is False
    (violation,) = _violations(data)
    assert (violation["kind"], violation["nodes"], violation["epoch"]) == ("two_leaders", [2, 3], 1)
    # P3 leads once it resumes, P2 since its T ran out; P2 steps down when it hears of P3.
    assert 0.2 <= violation["at"] <= violation["until"] <= 8.0
    events = events_of(trace.read_text())
    (marked,) = [e for e in events if e["event"] == "violation"]
    assert (marked["check"], marked["nodes"], marked["epoch"]) == ("two_leaders", [2, 3], 1)
    check_trace(events, total=data["messages"]["total"])


def test_replay_and_diagram_show_the_violation_where_it_happened(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trace = tmp_path / "pause.jsonl"
    assert _cli(capsys, "run", str(PAUSE), "--simulate", "--trace", str(trace))[0] == 1
    events = events_of(trace.read_text())
    check_trace(events, total=9)
    (marked,) = [e for e in events if e["event"] == "violation"]
    assert marked["t"] == 1.0 and marked["node"] == 3
    assert marked["detail"] == "P2 and P3 lead epoch 1" and marked["check"] == "two_leaders"
    # Right after the state that broke it: P3 coming to lead epoch 1.
    before = events[events.index(marked) - 1]
    assert (before["event"], before["node"], before["state"]) == ("state", 3, "leader")

    lines = narrate(load_trace(trace).events)
    told = [line for line in lines if "✗" in line]
    assert told == ["t=1.000 ✗ unsafe (two_leaders): P2 and P3 lead epoch 1"]
    proclaims = next(i for i, line in enumerate(lines) if "P3 rejects P1's election" in line)
    assert lines[proclaims + 1] == told[0]
    code, out = _cli(capsys, "replay", str(trace), "--no-step")
    assert code == 0 and told[0] in out

    svg = tmp_path / "pause.svg"
    assert _cli(capsys, "diagram", str(trace), "-o", str(svg))[0] == 0
    picture = svg.read_text()
    assert "✗ two_leaders: P2 and P3 lead epoch 1" in picture
    assert "unsafe: a check broken" in picture  # in the legend too
    page = tmp_path / "pause.html"
    assert _cli(capsys, "diagram", str(trace), "-o", str(page))[0] == 0
    assert '"check":"two_leaders"' in page.read_text()  # the page steps onto it


# -- the run's verdict and the checks, over the same states ----------------------------


def _pause_config(tmp_path: Path, n: int, until: float, name: str) -> Config:
    path = tmp_path / name
    path.write_text(
        'topology = "full_mesh"\nalgorithm = "bully"\ninitiators = [1]\n'
        f"nodes = {n}\n\n[[faults]]\npause = {n}\nuntil = {until}\n"
    )
    return load_config(path)


def _states(events: list[dict[str, Any]]) -> list[tuple[float, dict[int, Stance]]]:
    """Every state the traced run passed through: the live nodes' stances after each
    change of one (a state change, a crash, a restart)."""
    stances: dict[int, Stance] = {}
    states = []
    for event in events:
        kind, node = event["event"], event["node"]
        if kind == "state":
            stances[node] = (event["state"], event["elected"], event["epoch"])
        elif kind in ("crash", "restart"):
            stances.pop(node, None)
        else:
            continue
        states.append((event["t"], dict(stances)))
    return states


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(3, 4),
    until=st.sampled_from([0.2, 0.45, 0.6, 1.0, 1.3]),
)
def test_the_runs_verdict_is_the_checks_over_its_every_state(
    tmp_path_factory: pytest.TempPathFactory, seed: int, n: int, until: float
) -> None:
    """A seeded simulated run (P{n} paused from the start, the others' T is 0.5 s): the
    run is unsafe exactly when one of the states its trace shows has two leaders at once
    (:func:`two_leaders`, which the explorer asks of its states), at the first such
    state, naming its leaders; its end-state verdict is :func:`end_check`'s."""
    tmp_path = tmp_path_factory.mktemp("seeded")
    config = _pause_config(tmp_path, n, until, "pause.toml")
    trace = tmp_path / "run.jsonl"
    report = ringleader.run(config, simulate=True, seed=seed, trace=trace)
    assert report.safety is not None
    events = events_of(trace.read_text())
    states = _states(events)
    clashes = [(t, two_leaders(stances)) for t, stances in states]
    unsafe = [(t, found) for t, found in clashes if found]
    reported = [v for v in report.safety.violations if v.kind == "two_leaders"]
    assert bool(reported) == bool(unsafe)
    assert report.safe == (not report.safety.violations)
    if unsafe:
        t, [(epoch, nodes)] = unsafe[0]
        first = reported[0].as_dict()  # its times rounded as the trace's are
        assert (first["at"], first["epoch"], first["nodes"]) == (t, epoch, list(nodes))
        marked = [e for e in events if e["event"] == "violation"]
        assert [(e["t"], e["nodes"]) for e in marked][:1] == [(t, list(nodes))]
        # It lasts until the first state after it without two leaders in that epoch.
        after = [s for s, found in clashes if s > t and all(e != epoch for e, _ in found)]
        assert first["until"] == (after[0] if after else None)
    if report.finished:
        _, last = states[-1]
        best = max(spec.candidate for spec in config.nodes).id
        found = end_check(last, expected=best)
        final = [v for v in report.safety.violations if v.at is None]
        assert [v.kind for v in final] == ([] if found is None else [found.kind])
    if until < 0.5:  # P{n} resumes before anyone's T runs out: nobody leads before it
        assert report.ok, report.problems


@pytest.mark.parametrize(
    ("topology", "algorithm", "n"),
    [("unidirectional_ring", "chang_roberts", 4), ("full_mesh", "bully", 3)],
)
def test_where_the_explorer_finds_every_state_safe_every_seeded_run_is(
    tmp_path: Path, topology: str, algorithm: str, n: int
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        f'topology = "{topology}"\nalgorithm = "{algorithm}"\nnodes = {n}\ninitiators = "all"\n'
    )
    config = load_config(path)
    exploration = explore_config(config)
    assert exploration.stopped is None and not exploration.findings
    for seed in range(20):
        report = ringleader.run(config, simulate=True, seed=seed)
        assert report.safety is not None and report.safety.violations == [], seed
        assert report.ok and report.safety.max_leaders_per_epoch == 1
