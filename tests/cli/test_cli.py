"""The ``ringleader`` command: reports, exit codes, and one clear line for every bad input."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ringleader.cli import main
from tests.paths import ROOT

EXAMPLES = ROOT / "examples"

HEAD = """
topology = "unidirectional_ring"
initiators = [2]
"""
NODES = """
[[nodes]]
id = 4
[[nodes]]
id = 9
[[nodes]]
id = 2
"""
RING = HEAD + NODES


def ring(top: str = "") -> str:
    """The 3-node ring with ``top`` added to its top-level keys (before any [[nodes]])."""
    return HEAD + top + NODES


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, text: str, name: str = "c.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_run_with_no_config_runs_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "run")
    assert code == 0, err
    assert "Leader: node 8" in out and "all 8 nodes agree" in out
    assert "Chang–Roberts on a unidirectional ring of 8 nodes over tcp" in out


def test_run_json_is_exactly_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "run", str(EXAMPLES / "ring.toml"), "--json")
    assert code == 0, err
    assert out.count("\n") == 1
    report = json.loads(out)
    assert report["leader"] == 9 and report["agreed"] is True
    assert report["messages"] == {
        "total": 20,
        "by_type": {"elected": 7, "election": 13},
        "heartbeats": 0,
        "lost": 0,
    }


EXAMPLE_RUNS = [
    ("ring.toml", 9, 20),
    ("chang_roberts_table.toml", 5, 20),
    ("lelann.toml", 3, 25),
    ("tree.toml", 5, 24),
    ("mesh.toml", 5, 24),
    ("graph.toml", 6, 21),
    ("structured_priority.toml", 4, 24),
    ("two_way_ring.toml", 8, None),
    ("failover.toml", 5, None),  # the first election is counted; more follow the crash
    ("bully_story.toml", 4, None),
]
#: Examples told in virtual time (tests/actors/algorithms/test_scenarios.py): in real time
#: the crash they stage would come after the election it is meant to break.
SIMULATED_EXAMPLES = {"ring_crash.toml"}


@pytest.mark.parametrize(("example", "leader", "total"), EXAMPLE_RUNS)
def test_every_example_gives_the_notes_count(
    capsys: pytest.CaptureFixture[str], example: str, leader: int, total: int | None
) -> None:
    code, out, err = cli(capsys, "run", str(EXAMPLES / example), "--json", "--transport", "inproc")
    assert code == 0, err
    report = json.loads(out)
    assert report["leader"] == leader and report["bound"]["holds"]
    if total is not None:  # an exact count of the notes
        assert report["messages"]["total"] == total and report["bound"]["exact"]


def test_a_run_whose_count_breaks_the_notes_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """P3 paused for a second: Bully elects P3 after 9 messages, the notes give 8 (and
    P2 and P3 led epoch 1 at once on the way: unsafe too, each a problem of its own)."""
    example = str(EXAMPLES / "explore" / "bully_pause.toml")
    code, out, _ = cli(capsys, "run", example, "--simulate", "--json")
    report = json.loads(out)
    assert code == 1 and report["leader"] == 3 and report["agreed"]
    assert report["bound"]["holds"] is False
    assert report["problems"][-1] == "9 messages, but the notes give N^2-1 = 8"
    code, out, _ = cli(capsys, "run", example, "--simulate")
    assert code == 1 and "the notes: N^2-1 = 8 ✗" in out


def test_the_failover_example_reports_elections_faults_and_safety(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, "run", str(EXAMPLES / "failover.toml"), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["safety"] == {"max_leaders_per_epoch": 1, "violations": []}
    assert [f["action"] for f in report["faults"]] == ["crash", "restart"]
    assert report["faults"][0]["node"] == 5
    won = [(e["trigger"], e["leader"]) for e in report["elections"] if e["leader"] is not None]
    assert won[0] == ("start", 5) and 4 in {leader for _, leader in won}
    assert won[-1][1] == 5 and report["epoch"] > 1
    assert report["messages"]["heartbeats"] > 0
    assert report["bound"]["counted"] == "first election" and report["bound"]["holds"]
    code, out, _ = cli(capsys, "run", str(EXAMPLES / "failover.toml"))
    assert code == 0 and "Elections" in out and "no violation" in out


def test_every_example_is_tested() -> None:
    tested = {p[0] for p in EXAMPLE_RUNS} | SIMULATED_EXAMPLES
    assert tested == {p.name for p in EXAMPLES.glob("*.toml")}


def test_overrides_replace_the_config(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys,
        "run",
        str(EXAMPLES / "ring.toml"),
        "--json",
        "--algorithm",
        "lelann",
        "--transport",
        "memory",
        "--initiators",
        "9,4",
    )
    report = json.loads(out)
    assert code == 0
    assert (report["algorithm"], report["transport"], report["messages"]["total"]) == (
        "lelann",
        "memory",
        49,
    )
    code, out, _ = cli(capsys, "run", "--nodes", "3", "--initiators", "3", "--json")
    assert json.loads(out)["messages"]["total"] == 6  # the leader alone: 2n


def test_check_validates_without_running(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "check", str(EXAMPLES / "ring.toml"), "--json")
    summary = json.loads(out)
    assert code == 0
    assert summary["expected_leader"] == 9 and summary["bound"]["value"] == 20
    assert summary["out"]["3"] == [4]
    code, out, _ = cli(capsys, "check", str(EXAMPLES / "ring.toml"))
    assert code == 0 and "leader node 9; messages 3n-1 = 20" in out


@pytest.mark.parametrize(
    ("topology", "algorithm", "total"),
    [
        ("bidirectional_ring", "hirschberg_sinclair", None),
        ("full_mesh", "bully", 48),  # N² − 1 with the lowest (node 1) alone
        ("unidirectional_ring", "chang_roberts", 17),
    ],
)
def test_topology_swaps_on_the_command_line(
    capsys: pytest.CaptureFixture[str], topology: str, algorithm: str, total: int | None
) -> None:
    """A ring config runs on any topology its nodes fit; the config's algorithm yields."""
    path = str(EXAMPLES / "ring.toml")
    code, out, err = cli(capsys, "run", path, "--topology", topology, "--json", "--initiators", "1")
    assert code == 0, err
    report = json.loads(out)
    assert (report["topology"], report["algorithm"], report["leader"]) == (topology, algorithm, 9)
    if total is not None:
        assert report["messages"]["total"] == total


def test_a_swap_to_a_topology_the_config_cannot_make_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = cli(capsys, "check", str(EXAMPLES / "ring.toml"), "--topology", "graph")
    assert code == 2
    assert "command line: --topology: the config does not make a graph: edges: missing" in err


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["run", "--help"], ["check", "--help"], ["--version"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 0
    out, _ = capsys.readouterr()
    assert "--initiators" in out and "Exit status" in out


BAD_CONFIGS = {
    "syntax": ('topology = "unidirectional_ring\n', "TOML syntax error"),
    "unknown key": (ring("timout = 3\n"), "timout: unknown key (did you mean 'timeout'?)"),
    "no topology": ("nodes = 3\n", "topology: missing"),
    "unknown topology": (
        'topology = "star"\nnodes = 3\n',
        "unknown topology 'star' (valid: unidirectional_ring",
    ),
    "unknown algorithm": (
        ring('algorithm = "raft"\n'),
        "unknown algorithm 'raft' (valid: auto, chang_roberts, lelann, hirschberg_sinclair, tree",
    ),
    "duplicate id": (RING + "[[nodes]]\nid = 9\n", "nodes[3].id: 9 is used twice (also nodes[1])"),
    "no nodes": ('topology = "unidirectional_ring"\n', "nodes: missing"),
    "zero nodes": ('topology = "unidirectional_ring"\nnodes = 0\n', "nodes: 0 nodes"),
    "node without id": (RING + "[[nodes]]\ncapacity = 3\n", "nodes[3].id: missing"),
    "node unknown key": (RING + "[[nodes]]\nid = 5\nport = 3\n", "nodes[3].port: unknown key"),
    "bad capacity": (
        RING + '[[nodes]]\nid = 5\ncapacity = "big"\n',
        "nodes[3].capacity: 'big' is not a finite number",
    ),
    "address of another transport": (
        RING + '[[nodes]]\nid = 5\naddress = "ipc:///tmp/x"\n',
        "nodes[3].address: 'ipc:///tmp/x' is not a tcp:// address",
    ),
    "address without port": (
        RING + '[[nodes]]\nid = 5\naddress = "tcp://127.0.0.1"\n',
        "needs a host and a port",
    ),
    "duplicate address": (
        RING
        + '[[nodes]]\nid = 5\naddress = "tcp://127.0.0.1:9"\n[[nodes]]\nid = 6\naddress = "tcp://127.0.0.1:9"\n',
        "nodes[4].address: tcp://127.0.0.1:9 is used twice (also nodes[3])",
    ),
    "unknown initiator": (
        RING.replace("[2]", "[2, 77]"),
        "initiators: node 77 is not in the cluster",
    ),
    "bad initiators": (RING.replace("[2]", '"some"'), "initiators: 'some' is not \"all\""),
    "negative timeout": (ring("timeout = -1\n"), "timeout: -1 is not a number of seconds in (0,"),
    "huge timeout": (
        ring("timeout = 3e6\n"),
        "timeout: 3000000.0 is not a number of seconds in (0, 86400]",
    ),
    "missing secret file": (ring('secret_file = "nope.key"\n'), "secret_file: cannot read"),
    "algorithm that does not fit": (
        ring('algorithm = "bully"\n'),
        "algorithm: bully does not fit topology unidirectional_ring (fits: chang_roberts, lelann",
    ),
    "hirschberg-sinclair on a one-way ring": (
        ring('algorithm = "hirschberg_sinclair"\n'),
        "hirschberg_sinclair does not fit topology unidirectional_ring",
    ),
    "bully on a ring": (
        'topology = "bidirectional_ring"\nalgorithm = "bully"\nnodes = 4\n',
        "bully does not fit topology bidirectional_ring (fits: hirschberg_sinclair",
    ),
    "tree with a cycle": (
        'topology = "spanning_tree"\nnodes = 3\nedges = [[1, 2], [2, 3], [3, 1]]\n',
        "edges: 3 edges for 3 nodes do not make a tree",
    ),
    "tree with two roots": (
        'topology = "spanning_tree"\n'
        + "[[nodes]]\nid = 1\n[[nodes]]\nid = 2\n[[nodes]]\nid = 3\nparent = 1\n",
        "nodes: 2 roots (1, 2)",
    ),
    "tree parent unknown": (
        'topology = "spanning_tree"\n[[nodes]]\nid = 1\n[[nodes]]\nid = 2\nparent = 8\n',
        "nodes[1].parent: node 8 is not in the cluster",
    ),
    "disconnected graph": (
        'topology = "graph"\nnodes = 4\nedges = [[1, 2], [3, 4]]\n',
        "edges: the graph is not connected: no path to node(s) 3, 4",
    ),
    "edge to an unknown node": (
        'topology = "graph"\nnodes = 2\nedges = [[1, 5]]\n',
        "edges[0]: node 5 is not in the cluster",
    ),
    "edge that is not a pair": (
        'topology = "graph"\nnodes = 2\nedges = [[1, 2, 3]]\n',
        "edges[0]: [1, 2, 3] is not a pair of node ids",
    ),
    "graph without edges": ('topology = "graph"\nnodes = 3\n', "edges: missing"),
    "huge election timeout": (
        'topology = "full_mesh"\nnodes = 3\nelection_timeout = 1e17\n',
        "election_timeout: 1e+17 is not a number of seconds in (0, 86400]",
    ),
    "bad election timeout": (
        'topology = "full_mesh"\nnodes = 3\nelection_timeout = 0\n',
        "election_timeout: 0 is not a number of seconds in (0, 86400]",
    ),
}


@pytest.mark.parametrize(("text", "message"), BAD_CONFIGS.values(), ids=BAD_CONFIGS.keys())
@pytest.mark.parametrize("command", ["run", "check"])
def test_a_bad_config_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, text: str, message: str
) -> None:
    path = write(tmp_path, text)
    code, out, err = cli(capsys, command, path)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"ringleader {command}: error: {path}: ")
    assert message in err
    assert "Traceback" not in err


def test_a_file_that_is_not_utf8_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'topology = "unidirectional_ring"\nnodes = 3 # caf\xe9\n')
    code, _, err = cli(capsys, "check", str(path))
    assert code == 2 and "is not UTF-8 text (byte 48) (save it as UTF-8)" in err


def test_a_short_secret_file_says_how_to_make_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "c.key").write_text("short")
    (tmp_path / "c.key").chmod(0o600)
    code, _, err = cli(capsys, "check", write(tmp_path, ring('secret_file = "c.key"\n')))
    assert code == 2 and "holds 5 bytes, at least 16" in err and "secrets.token_hex" in err


def test_the_secret_file_is_read_relative_to_the_config(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "c.key").write_text("0123456789abcdef0123456789abcdef\n")
    (tmp_path / "c.key").chmod(0o600)
    code, out, err = cli(capsys, "run", write(tmp_path, ring('secret_file = "c.key"\n')), "--json")
    assert code == 0, err
    assert json.loads(out)["leader"] == 9


def test_a_short_environment_secret_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RINGLEADER_SECRET", "tiny")
    code, _, err = cli(capsys, "run")
    assert code == 2 and "$RINGLEADER_SECRET" in err and "at least 16" in err
    monkeypatch.setenv("RINGLEADER_SECRET", "a" * 32)
    assert cli(capsys, "run", "--nodes", "3")[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--nodes", "0"], "--nodes"),
        (["run", "--initiators", "x"], "--initiators"),
        (["run", "--timeout", "-3"], "--timeout"),
        (["run", "--timeout", "3e6"], "--timeout: '3e6' is not a number of seconds in (0, 86400]"),
        (
            ["check", "--timeout", "inf"],
            "--timeout: 'inf' is not a number of seconds in (0, 86400]",
        ),
        (["status", "c.toml", "--timeout", "3e6"], "--timeout: '3e6' is not a number of seconds"),
        (
            ["run", "--initiators", "42"],
            "command line: --initiators: node 42 is not in the cluster",
        ),
        (["run", "--topology", "star"], "argument --topology: invalid choice: 'star'"),
        (["run", "--transport", "udp"], "--transport"),
        (["check", "/nonexistent/ring.toml"], "/nonexistent/ring.toml: no such file"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_usage_is_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code  # type: ignore[assignment]
    _, err = capsys.readouterr()
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_a_taken_address_is_exit_1_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        text = RING + f'[[nodes]]\nid = 5\naddress = "tcp://127.0.0.1:{port}"\n'
        code, out, err = cli(capsys, "run", write(tmp_path, text))
    assert code == 1
    assert f"node 5: cannot bind tcp://127.0.0.1:{port}" in err
    assert err.count("\n") == 1
    # The report still prints: nothing ran, and why.
    assert "The cluster could not be set up" in out
    assert f"Problem: set-up failed: node 5: cannot bind tcp://127.0.0.1:{port}" in out


def test_the_installed_command_runs(tmp_path: Path) -> None:
    """The entry point as a user runs it, in a child process."""
    result = subprocess.run(
        [sys.executable, "-m", "ringleader", "run", "--nodes", "4", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["leader"] == 4


@pytest.fixture(autouse=True)
def _restore_affinity() -> Iterator[None]:
    """``ringleader run`` pins its process to one CPU; give the test process its CPUs back."""
    cpus = os.sched_getaffinity(0)
    yield
    os.sched_setaffinity(0, cpus)


def test_run_uses_one_cpu_unless_told_otherwise(capsys: pytest.CaptureFixture[str]) -> None:
    everything = os.sched_getaffinity(0)
    assert cli(capsys, "run", "--nodes", "3", "--all-cpus", "--json")[0] == 0
    assert os.sched_getaffinity(0) == everything
    assert cli(capsys, "run", "--nodes", "3", "--json")[0] == 0
    assert os.sched_getaffinity(0) == {min(everything)}


def test_ctrl_c_stops_a_long_run_cleanly(tmp_path: Path) -> None:
    """SIGINT in the middle of an election: exit 130, one line, no traceback, no leftovers."""
    import signal

    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ringleader",
            "-v",
            "run",
            "--nodes",
            "300",
            "--algorithm",
            "lelann",
            "--transport",
            "inproc",
            "--timeout",
            "120",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert child.stderr is not None
        for line in child.stderr:  # wait until the election is under way
            if "electing:" in line:
                break
        child.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        out, err = child.communicate(timeout=30)
        took = time.monotonic() - interrupted
    finally:
        child.kill()
        child.wait(timeout=10)
    assert child.returncode == 130
    assert took < 5, f"{took:.1f} s from Ctrl-C to exit (the whole run takes ~15 s)"
    assert "ringleader run: interrupted" in err
    assert "Traceback" not in err
    assert out == ""


def test_a_seed_without_the_simulator_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--seed needs --simulate" in err


def test_the_explorer_rules_the_parser_spells_out_are_the_explorer_s() -> None:
    from ringleader.actors.exploration import START_RULES, TIMER_RULES
    from ringleader.cli._arguments import STARTS, TIMERS

    assert (STARTS, TIMERS) == (START_RULES, TIMER_RULES)


@pytest.mark.timeout(60)
def test_a_command_other_than_explore_starts_without_importing_the_explorer() -> None:
    """Building the parser (every command does) loads no explorer: a tenth of a second of
    ``ringleader status``'s, ``member``'s and ``node``'s start."""
    code = (
        "import sys, ringleader.cli._main as m; m.build_parser(); "
        "print(sorted(n for n in sys.modules if n.startswith('ringleader.actors.exploration')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=50, check=True
    )
    assert done.stdout.strip() == "[]"


#: The command's entry point (``.venv/bin/ringleader``: ``from ringleader.cli import
#: main``), with Ctrl-C arriving while it still loads: at an import (a SIGINT in the
#: first half second of any command lands in one), or while it builds its parser.
_CTRL_C_AT = """
import sys

where = sys.argv.pop(1)


class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == where:
            raise KeyboardInterrupt
        return None


if where == "parser":
    import ringleader.cli._main

    def build_parser():
        raise KeyboardInterrupt

    ringleader.cli._main.build_parser = build_parser
else:
    sys.meta_path.insert(0, CtrlC())
from ringleader.cli import main

sys.exit(main())
"""


@pytest.mark.timeout(60)
@pytest.mark.parametrize("where", ["ringleader.topologies", "ringleader.cli._main", "parser"])
def test_ctrl_c_while_the_command_loads_is_one_line_not_a_traceback(
    tmp_path: Path, where: str
) -> None:
    """``ringleader watch CONFIG`` and Ctrl-C at once: exit 130 and one line, as later."""
    child = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AT, where, "watch", "cluster.toml"],
        check=False,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=30,
    )
    assert "Traceback" not in child.stderr, child.stderr
    assert child.returncode == 130, (child.returncode, child.stderr)
    assert child.stderr.strip().endswith("interrupted"), child.stderr
