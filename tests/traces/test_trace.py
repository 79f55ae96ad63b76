"""Traces: what the simulator and real runs write, checked against the report and the
rules of the format (every receive names a send, clocks, heartbeats left out)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

import ringleader
from ringleader.actors import (
    ALGORITHMS,
    Candidate,
    ElectionMessage,
    Fault,
    NodeTrace,
    TraceClock,
    simulate,
    write_trace,
)
from ringleader.cli._render import progress_bar
from ringleader.topologies import Overrides, load_config
from tests.paths import ROOT
from tests.trace_rules import check_trace, events_of

SIM = {"heartbeat": 0.05, "suspect_after": 0.3, "election_timeout": 0.1, "coordinator_timeout": 0.2}


def test_a_simulated_run_traces_every_message_once_and_the_same_seed_the_same_bytes() -> None:
    config = load_config(ROOT / "examples/chang_roberts_table.toml")
    algorithm = ALGORITHMS[config.algorithm]
    texts = []
    for seed in (5, 5, 6):
        result = simulate(
            algorithm, config.wiring.views(), config.initiators, seed=seed, trace=True
        )
        assert result.records is not None
        out = io.StringIO()
        write_trace(result.records, out, nodes=config.n)
        texts.append(out.getvalue())
        check_trace(events_of(out.getvalue()), total=result.total)
        assert result.total == 20  # the notes' table
    assert texts[0] == texts[1]
    assert texts[0] != texts[2]


def test_heartbeats_are_marked_and_left_out_unless_asked_for() -> None:
    config = load_config(ROOT / "examples/mesh.toml")
    result = simulate(
        ALGORITHMS["bully"],
        config.wiring.views(SIM),
        config.initiators,
        faults=[Fault(1.0, "crash", 5)],
        until=2.0,
        trace=True,
    )
    assert result.records is not None
    quiet, loud = io.StringIO(), io.StringIO()
    write_trace(result.records, quiet, nodes=config.n)
    write_trace(result.records, loud, nodes=config.n, heartbeats=True)
    plain, beats = events_of(quiet.getvalue()), events_of(loud.getvalue())
    assert not any(e.get("heartbeat") for e in plain)
    pings = [e for e in beats if e.get("kind") in ("ping", "pong")]
    assert pings and all(e["heartbeat"] for e in pings)
    heartbeat_total = result.messages["ping"] + result.messages["pong"]
    check_trace(beats, total=result.total - heartbeat_total)
    check_trace(plain, total=result.total - heartbeat_total)
    assert any(e["event"] == "crash" and e["node"] == 5 for e in plain)
    assert any(e["event"] == "suspect" and e["peer"] == 5 for e in plain)


@pytest.mark.parametrize("transport", ["memory", "tcp"])
def test_a_real_run_traces_what_its_report_counts(transport: str, tmp_path: Path) -> None:
    config = load_config(ROOT / "examples/chang_roberts_table.toml", Overrides(transport=transport))
    path = tmp_path / "run.jsonl"
    report = ringleader.run(config, trace=path)
    assert report.ok and report.total == 20
    text = path.read_text()
    header = json.loads(text.splitlines()[0])
    assert header["event"] == "header" and header["mode"] == "threads"
    assert header["algorithm"] == "chang_roberts" and header["config"]["transport"] == transport
    events = events_of(text)
    check_trace(events, total=report.total)
    states = [e for e in events if e["event"] == "state"]
    assert {e["node"] for e in states} == {n.id for n in config.nodes}
    # each change of state carries the node's election variables (Chang–Roberts': its
    # participant flag, false once the round is decided)
    assert all(e["vars"]["participant"] is False for e in states)


def test_a_crash_run_traces_the_crash_the_suspicions_and_the_restart(tmp_path: Path) -> None:
    config = load_config(ROOT / "examples/failover.toml", Overrides(transport="inproc"))
    path = tmp_path / "failover.jsonl"
    report = ringleader.run(config, trace=path)
    assert report.ok
    events = events_of(path.read_text())
    check_trace(events, total=report.total)
    kinds = [e["event"] for e in events]
    crash, restart = kinds.index("crash"), kinds.index("restart")
    assert crash < restart
    assert any(e["event"] == "suspect" for e in events[crash:restart])


def test_processes_merge_the_childrens_parts(tmp_path: Path) -> None:
    config_path = tmp_path / "cluster.toml"
    text = (ROOT / "examples/failover.toml").read_text()
    config_path.write_text('mode = "processes"\n' + text)
    path = tmp_path / "merged.jsonl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ringleader",
            "run",
            str(config_path),
            "--json",
            "--trace",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    text = path.read_text()
    header = json.loads(text.splitlines()[0])
    assert header["event"] == "header" and header["mode"] == "processes"
    assert header["algorithm"] == "bully" and [n["id"] for n in header["nodes"]] == [1, 2, 3, 4, 5]
    events = events_of(text)
    check_trace(events, total=report["messages"]["total"])
    assert {"crash", "restart", "suspect", "state"} <= {e["event"] for e in events}
    assert all("vars" in e for e in events if e["event"] == "state")


def test_a_simulated_trace_says_what_ran_in_its_first_line(tmp_path: Path) -> None:
    """The header: algorithm, topology, nodes (ids, capacities), the config as run (after
    the command line's overrides), the seed and the version."""
    path = tmp_path / "table.jsonl"
    code = subprocess.run(
        [
            sys.executable,
            "-m",
            "ringleader",
            "run",
            str(ROOT / "examples/chang_roberts_table.toml"),
            "--simulate",
            "--seed",
            "7",
            "--transport",
            "inproc",
            "--trace",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert code.returncode == 0, code.stderr
    header = json.loads(path.read_text().splitlines()[0])
    assert header["event"] == "header"
    assert header["algorithm"] == "chang_roberts" and header["title"] == "Chang–Roberts"
    assert header["topology"] == "unidirectional_ring" and header["mode"] == "simulated"
    assert [(n["id"], n["capacity"]) for n in header["nodes"]] == [(i, i) for i in (5, 4, 3, 2, 1)]
    assert header["seed"] == 7 and header["ringleader"] == ringleader.__version__
    assert header["config"]["transport"] == "inproc"  # the override, not the file's
    assert header["config"]["initiators"] == [5, 4, 3, 2, 1]


def test_the_explorers_runs_say_what_ran_in_their_first_line(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ringleader",
            "explore",
            str(ROOT / "examples/explore/ring_crash.toml"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    runs = sorted(out.glob("*.jsonl"))
    assert runs
    for run in runs:
        header = json.loads(run.read_text().splitlines()[0])
        assert header["event"] == "header" and header["mode"] == "explored"
        assert header["algorithm"] == "chang_roberts" and len(header["nodes"]) == 5


def test_the_progress_shows_messages_and_their_rate() -> None:

    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    seen: list[tuple[str, int, int, int | None]] = []
    with progress_bar(console) as bar:

        def progress(phase: str, done: int, total: int, messages: int | None = None) -> None:
            seen.append((phase, done, total, messages))
            bar(phase, done, total, messages)

        config = load_config(ROOT / "examples/lelann.toml", Overrides(transport="memory"))
        report = ringleader.run(config, progress=progress)
    electing = [s for s in seen if s[0] == "electing"]
    assert report.ok
    assert electing[-1][1] == config.n and electing[-1][3] is not None
    assert 0 < electing[-1][3] <= report.total  # counted as they were sent
    assert "msg/s" in console.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("extra", [[], ["--simulate"]])
def test_a_trace_that_cannot_be_written_is_one_line_before_the_run(
    extra: list[str], tmp_path: Path
) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ringleader",
            "run",
            "--nodes",
            "3",
            "--trace",
            str(tmp_path),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "--trace: cannot write" in result.stderr
    assert result.stdout == ""  # said before anything ran


def test_a_part_read_while_it_is_written_is_never_half_an_event() -> None:
    trace = NodeTrace(1, TraceClock(time.monotonic))
    message = ElectionMessage(Candidate(1, 1))
    done = threading.Event()

    def record() -> None:
        for seq in range(200_000):
            trace.receive(2, message, 1, incarnation=1, seq=seq)
        done.set()

    writer = threading.Thread(target=record)
    writer.start()
    taken = 0
    while not done.is_set() or taken < len(trace):
        end = len(trace)
        for event in trace.records(taken, end):
            assert event[3] == "receive" and event[5] is message
        taken = end
    writer.join()
    assert taken == 200_000


def test_an_election_gives_its_variables_by_the_notes_names() -> None:
    """What a traced ``state`` event carries: the election's own variables, class
    defaults included, without the event's own fields or the node's plumbing."""
    config = load_config(ROOT / "examples/chang_roberts_table.toml")
    view = config.wiring.views(config.settings)[0]
    chang_roberts = ALGORITHMS["chang_roberts"](view)
    assert chang_roberts.variables() == {"participant": False, "announcement": None}
    chang_roberts.handle_start()
    assert chang_roberts.variables()["participant"] is True
    hirschberg_sinclair = ALGORITHMS["hirschberg_sinclair"](view)
    assert {"phase", "replies", "running"} <= set(hirschberg_sinclair.variables())
    echo = ALGORITHMS["echo"](view, initiator=True)
    echo.handle_start()
    assert {"daddy", "children", "wave"} <= set(echo.variables())
    assert not {"state", "elected", "epoch", "node", "around"} & set(echo.variables())
