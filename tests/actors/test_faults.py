"""A network that misbehaves on purpose: ``[[faults]]`` partition, loss, delay, duplicate,
reorder and pause, read the same way by the simulator, threads, processes and explore;
and what the network did, in traces, replay and pictures."""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ringleader.actors import simulate, trace_events
from ringleader.actors.faults import (
    Delay,
    Distribution,
    Duplicate,
    Loss,
    Misbehaving,
    Partition,
    Pause,
    Reorder,
)
from ringleader.cli import main
from ringleader.cluster import explore_config, explore_options
from ringleader.topologies import ConfigError, load_config
from ringleader.traces import load_trace, narrate, write_view
from tests.paths import ROOT

RING = 'topology = "unidirectional_ring"\nnodes = 4\ntransport = "inproc"\n'


def config_file(tmp_path: Path, *faults: str, head: str = RING) -> Path:
    path = tmp_path / "c.toml"
    path.write_text(head + "".join(f"\n[[faults]]\n{entry}\n" for entry in faults))
    return path


def events(path: Path) -> list[dict[str, Any]]:
    return load_trace(path).events


# -- the entries -------------------------------------------------------------------------


def test_every_kind_is_read_and_written_back(tmp_path: Path) -> None:
    path = config_file(
        tmp_path,
        "partition = [[1, 2]]\nfrom = 0.1\nuntil = 0.3",
        "loss = 0.2\nlink = [1, 2]",
        "delay = [0.001, 0.01]",
        "delay = {mean = 0.002}\nuntil = 1",
        "duplicate = 0.1",
        "reorder = 0.005",
        "pause = 3\nfrom = 0.1\nuntil = 0.4",
        "at = 0.1\ncrash = 2",
    )
    config = load_config(path)
    assert [type(e) for e in config.network] == [
        Partition,
        Loss,
        Delay,
        Delay,
        Duplicate,
        Reorder,
        Pause,
    ]
    assert config.network[0] == Partition(0.1, 0.3, (frozenset({1, 2}),))
    assert config.network[1] == Loss(0.0, math.inf, (1, 2), 0.2)
    assert config.network[3] == Delay(0.0, 1.0, None, Distribution("exponential", 0.002))
    assert len(config.faults) == 1  # the crash entry stays a crash entry
    again = tmp_path / "again.toml"
    again.write_text(config.to_toml())
    assert load_config(again).network == config.network


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("loss = 1.5", "faults[0].loss: 1.5 is not a probability in [0, 1]"),
        ("loss = 0.1\nduplicate = 0.1", "faults[0]: has loss and duplicate"),
        ("loss = 0.1\ncrash = 2", "faults[0]: has loss and crash"),
        ("loss = 0.1\nlink = [1, 9]", "faults[0].link: [1, 9] is not [sender, receiver]"),
        ("pause = 2\nfrom = 0.1", "faults[0].until: missing"),
        ("pause = 7\nuntil = 1", "faults[0].pause: 7 is not a node of the cluster"),
        ("partition = [[1, 2], [2, 3]]", "faults[0].partition: node 2 is in two groups"),
        ("partition = [[1, 2, 3, 4]]", "one group of every node splits nothing"),
        ("delay = -1", "faults[0].delay: -1 is not a delay in seconds"),
        ("delay = 0.1\nfrom = 0.5\nuntil = 0.2", "faults[0].until: 0.2 is not after from"),
        ("reorder = 0", "faults[0].reorder: 0 is not a number of seconds in (0, 60]"),
        ("pause = 2\nuntil = 1\nlink = [1, 2]", "faults[0].link: a pause entry has no link"),
        ("loss = 0.1\nseed = 3", "faults[0].seed: is not a key of a loss entry"),
        ("los = 0.1", "faults[0].los: unknown key (did you mean 'loss'?)"),
    ],
)
def test_a_bad_entry_is_one_line(tmp_path: Path, entry: str, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(config_file(tmp_path, entry))
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_network_keeps_links_fifo_unless_reordered() -> None:
    delay = Delay(0.0, math.inf, None, Distribution("uniform", 0.0, 0.05))
    fifo = Misbehaving([delay], random.Random(1))
    arrivals = [t + fifo.fate(1, 2, t).copies[0] for t in (i * 0.001 for i in range(200))]
    assert all(b >= a - 1e-12 for a, b in itertools.pairwise(arrivals))
    loose = Misbehaving([Reorder(0.0, math.inf, None, 0.05)], random.Random(1))
    arrivals = [t + loose.fate(1, 2, t).copies[0] for t in (i * 0.001 for i in range(200))]
    assert any(b < a - 1e-6 for a, b in itertools.pairwise(arrivals))
    assert not loose.fate(1, 2, 0.0).fifo


def test_windows_links_and_chances() -> None:
    network = Misbehaving(
        [
            Partition(1.0, 2.0, (frozenset({1}),)),
            Loss(0.0, math.inf, (3, 4), 1.0),
            Duplicate(0.0, math.inf, (4, 1), 1.0),
        ],
        random.Random(0),
    )
    assert network.fate(1, 2, 0.5).copies == (0.0,)
    assert network.fate(1, 2, 1.5).lost == "the network is partitioned"
    assert network.fate(2, 3, 1.5).copies == (0.0,)  # same side
    assert network.fate(3, 4, 0.0).lost == "lost by the network"
    assert network.fate(4, 3, 0.0).copies == (0.0,)
    assert len(network.fate(4, 1, 0.0).copies) == 2


# -- the simulator -------------------------------------------------------------------------


def simulated(path: Path, seed: int = 0, until: float | None = None) -> Any:
    config = load_config(path)
    return simulate(
        config.algorithm_class,
        config.wiring.views(config.settings),
        config.initiators,
        seed=seed,
        network=config.network,
        trace=True,
        until=until,
    )


def test_simulated_loss_on_a_link_leaves_the_ring_undecided(tmp_path: Path) -> None:
    result = simulated(config_file(tmp_path, "loss = 1.0\nlink = [4, 1]"))
    assert all(elected is None for elected in result.elected.values())
    lost = [e for e in trace_events(result.records) if e.get("lost")]
    assert lost and all(e["node"] == 4 and e["peer"] == 1 for e in lost)
    assert any(
        "lost: lost by the network" in line for line in narrate(trace_events(result.records))
    )


def test_simulated_partition_loses_what_crosses_it_and_heals(tmp_path: Path) -> None:
    result = simulated(config_file(tmp_path, "partition = [[1, 2]]\nuntil = 0.0004"))
    told = trace_events(result.records)
    kinds = [e["event"] for e in told]
    assert kinds[0] == "partition" and "heal" in kinds
    crossed = [e for e in told if e["event"] == "send" and e.get("lost")]
    assert all(e["lost"] == "the network is partitioned" for e in crossed)
    assert all((e["node"] in (1, 2)) != (e["peer"] in (1, 2)) for e in crossed)


def test_simulated_pause_holds_what_reaches_the_node(tmp_path: Path) -> None:
    result = simulated(config_file(tmp_path, "pause = 4\nuntil = 0.05"))
    assert set(result.elected.values()) == {4}  # the election still ends
    told = trace_events(result.records)
    resumed = next(e["t"] for e in told if e["event"] == "resume")
    assert resumed == pytest.approx(0.05)
    assert all(e["t"] >= resumed for e in told if e["node"] == 4 and e["event"] == "receive")


def test_simulated_duplicates_are_received_twice(tmp_path: Path) -> None:
    path = config_file(tmp_path, "duplicate = 1.0\nlink = [1, 2]")
    result = simulated(path)
    told = list(trace_events(result.records))
    copies = [e for e in told if e["event"] == "send" and e.get("copies") == 2]
    assert copies and all(e["node"] == 1 for e in copies)
    twice = [e for e in told if e["event"] == "receive" and e.get("duplicate")]
    assert len(twice) == len(copies)


def test_simulated_faults_are_one_run_per_seed(tmp_path: Path) -> None:
    path = config_file(tmp_path, "loss = 0.3", "delay = [0.0, 0.01]", "duplicate = 0.2")
    a, b = simulated(path, seed=7), simulated(path, seed=7)
    assert list(trace_events(a.records)) == list(trace_events(b.records))


def test_simulated_reorder_can_break_lelann(tmp_path: Path) -> None:
    """LeLann needs FIFO links (notes 000): reordering can make it elect wrongly."""
    head = RING.replace("nodes = 4", 'algorithm = "lelann"\nnodes = 4')
    path = config_file(tmp_path, "reorder = 0.01", head=head)
    outcomes = {tuple(sorted(simulated(path, seed).elected.items())) for seed in range(40)}
    assert any(any(e != 4 for _, e in outcome) for outcome in outcomes)


# -- threads and processes --------------------------------------------------------------


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def test_threads_lose_what_a_lossy_link_carries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_file(tmp_path, "loss = 1.0\nlink = [2, 3]", head=RING + "timeout = 1\n")
    trace = tmp_path / "t.jsonl"
    code, report = run_cli(capsys, "run", str(path), "--json", "--trace", str(trace))
    assert code == 1 and not report["finished"]  # the ring never closes
    assert report["network"] == ["loss 1 on P2 → P3"]
    lost = [e for e in events(trace) if e["event"] == "send" and e.get("lost")]
    assert lost and all((e["node"], e["peer"]) == (2, 3) for e in lost)


def test_threads_pause_delay_and_duplicate_still_elect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_file(
        tmp_path,
        "pause = 2\nuntil = 0.1",
        "delay = [0.001, 0.005]",
        "duplicate = 1.0\nlink = [4, 1]",
    )
    trace = tmp_path / "t.jsonl"
    code, report = run_cli(capsys, "run", str(path), "--json", "--trace", str(trace))
    assert report["leader"] == 4 and report["agreed"] and report["safe"], report
    # What P4 sends P1 arrives twice, and P1 acts on each copy: more messages than the
    # notes count, a problem (exit status 1) even when the network misbehaves on purpose.
    assert code == 1 and report["bound"]["holds"] is False
    assert [p.split(",")[0] for p in report["problems"]] == [
        f"{report['messages']['total']} messages"
    ]
    told = events(trace)
    pause = next(e for e in told if e["event"] == "pause")
    resume = next(e for e in told if e["event"] == "resume")
    assert pause["node"] == resume["node"] == 2 and pause["seconds"] == 0.1
    assert resume["t"] - pause["t"] >= 0.09
    assert all(e["t"] >= resume["t"] for e in told if e["node"] == 2 and e["event"] == "receive")
    copies = [e for e in told if e["event"] == "send" and e.get("duplicate")]
    assert copies and all((e["node"], e["peer"]) == (4, 1) for e in copies)
    assert report["elapsed_s"] >= 0.1  # the pause held the election up


def test_threads_partition_shows_in_the_trace_and_the_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = config_file(tmp_path, "partition = [[1, 2]]\nuntil = 0.05", head=RING + "timeout = 2\n")
    trace = tmp_path / "t.jsonl"
    main(["run", str(path), "--json", "--trace", str(trace)])
    capsys.readouterr()
    told = events(trace)
    assert told[0]["event"] == "partition" and told[0]["groups"] == [[1, 2]]
    crossed = [e for e in told if e["event"] == "send" and e.get("lost")]
    assert all(e["lost"] == "the network is partitioned" for e in crossed)
    svg = tmp_path / "t.svg"
    write_view(trace, svg)
    text = svg.read_text()
    assert "network splits" in text
    page = tmp_path / "t.html"
    write_view(trace, page)
    assert "the network is partitioned" in page.read_text()


def test_processes_play_the_same_entries(tmp_path: Path) -> None:
    head = (
        'topology = "unidirectional_ring"\nnodes = 4\ntransport = "ipc"\n'
        'mode = "processes"\nrun_for = 0.2\n'
    )
    path = config_file(tmp_path, "pause = 3\nuntil = 0.05", "loss = 1.0\nlink = [1, 2]", head=head)
    trace = tmp_path / "t.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "ringleader", "run", str(path), "--json", "--trace", str(trace)],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    report = json.loads(done.stdout)
    assert report["network"] == ["pause P3 from 0 s to 0.05 s", "loss 1 on P1 → P2"]
    told = events(trace)
    assert any(e["event"] == "pause" and e["node"] == 3 for e in told)
    lost = [e for e in told if e["event"] == "send" and e.get("lost")]
    assert lost and all((e["node"], e["peer"]) == (1, 2) for e in lost)


# -- explore ---------------------------------------------------------------------------


def test_explore_reads_the_entries_as_what_may_happen(tmp_path: Path) -> None:
    path = config_file(
        tmp_path,
        "loss = 0.1\nlink = [1, 2]",
        "duplicate = 0.1",
        "reorder = 0.01\nlink = [2, 3]",
        "partition = [[1, 2]]",
        "pause = 3\nuntil = 1",
    )
    options = explore_options(load_config(path))
    assert options.losses == 1 and options.lossy_links == frozenset({(1, 2)})
    assert options.duplicates == 1 and options.duplicating_links is None
    assert options.unordered_links == frozenset({(2, 3)}) and not options.unordered
    assert options.partitions == ((frozenset({1, 2}),),)
    assert options.pauses == (3,)
    assert options.timers == "quiet"


def test_explore_a_delay_longer_than_t_lets_timers_fire_early(tmp_path: Path) -> None:
    head = 'topology = "full_mesh"\nalgorithm = "bully"\nnodes = 3\ninitiators = [1]\n'
    short = explore_options(load_config(config_file(tmp_path, "delay = 0.1", head=head)))
    assert short.timers == "quiet"  # T is 0.5 s: every answer is in time
    slow = load_config(config_file(tmp_path, "delay = [0.1, 0.6]", head=head))
    assert explore_options(slow).timers == "any"
    exploration = explore_config(slow, max_states=3_000)
    assert exploration.findings[0].kind == "two_leaders"


def test_explore_finds_the_paused_bully_leader(tmp_path: Path) -> None:
    """A GC pause makes T fire at the others: two leaders, as a SIGSTOP would."""
    head = 'topology = "full_mesh"\nalgorithm = "bully"\nnodes = 3\ninitiators = [1]\n'
    exploration = explore_config(
        load_config(config_file(tmp_path, "pause = 3\nuntil = 1", head=head)), max_states=5_000
    )
    assert exploration.findings[0].kind == "two_leaders"
    steps = [exploration.model.describe(e) for e in exploration.paths["two_leaders"].events]
    assert "P3 pauses" in steps and "P3 resumes" in steps


def test_the_partition_example_heals_and_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    example = ROOT / "examples" / "faults" / "partition.toml"
    code, report = run_cli(capsys, "run", str(example), "--simulate", "--json")
    assert code == 0 and report["leader"] == 5 and report["finished"]
    assert report["safety"]["violations"] == []
    assert report["network"] == ["partition P1 P2 | the rest from 0.05 s to 0.45 s"]
