"""One OS process per node: ``mode = "processes"`` and ``ringleader node``."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import ringleader
import ringleader.cluster._processes as processes_module
from ringleader.cli import main
from ringleader.cluster import ProcessCluster
from ringleader.errors import SetupError, TransportError
from ringleader.service import EventWriter
from ringleader.topologies import make_keys
from tests.conftest import eventually, let_pass
from tests.nodes import (
    NodeProcess,
    descendants_of,
    free_ports,
    running,
    wait_agreement,
    write_config,
)
from tests.paths import ROOT

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process tests use Linux /proc")


def _config(tmp_path: Path, body: str) -> ringleader.Config:
    path = tmp_path / "processes.toml"
    path.write_text(body, encoding="utf-8")
    return ringleader.load_config(path)


# -- mode = "processes" -----------------------------------------------------------------


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_first_election_in_processes_sends_what_the_notes_count(
    tmp_path: Path, transport: str
) -> None:
    config = _config(
        tmp_path,
        f'topology = "unidirectional_ring"\nalgorithm = "chang_roberts"\nnodes = 6\n'
        f'transport = "{transport}"\nmode = "processes"\n',
    )
    report = ringleader.run(config)
    assert report.ok, report.problems
    assert report.leader == 6 and report.agreed
    assert report.as_dict()["mode"] == "processes"
    first = report.elections[0]
    assert first.trigger == "start" and first.leader == 6
    assert report.bound_holds  # the same count as threads mode: an exact formula


@pytest.mark.parametrize(
    ("topology", "algorithm"),
    [("full_mesh", "bully"), ("unidirectional_ring", "chang_roberts")],
)
def test_sigkill_of_the_leader_in_processes_mode_elects_the_next(
    tmp_path: Path, topology: str, algorithm: str
) -> None:
    config = _config(
        tmp_path,
        f'topology = "{topology}"\nalgorithm = "{algorithm}"\nnodes = 5\n'
        'transport = "ipc"\nmode = "processes"\nheartbeat = 0.05\nsuspect_after = 0.3\n'
        '[[faults]]\nat = 0.2\ncrash = "leader"\n',
    )
    report = ringleader.run(config)
    assert report.ok, report.problems
    assert report.leader == 4 and report.agreed
    assert [n.state for n in report.nodes if n.id == 5] == ["crashed"]
    crash = report.faults[0]
    assert crash.node == 5 and crash.detection_s is not None and crash.failover_s is not None
    assert 0 < crash.detection_s <= crash.failover_s
    assert report.safety.violations == []


def test_bully_restart_in_processes_mode_brings_the_top_node_back(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        'topology = "full_mesh"\nnodes = 4\ntransport = "tcp"\nmode = "processes"\n'
        '[[faults]]\nat = 0.1\ncrash = "leader"\nrestart_after = 0.6\n',
    )
    report = ringleader.run(config)
    assert report.ok, report.problems
    assert report.leader == 4
    assert [e.trigger for e in report.elections if e.leader == 4][-1] == "recovery of 4"
    assert {e.leader for e in report.elections} >= {3, 4}


def _taken_port() -> socket.socket:
    """A loopback socket listening on a free port: an address no node can bind."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    return taken


@pytest.mark.parametrize("json_output", [True, False], ids=["json", "human"])
def test_a_failed_set_up_still_prints_its_report(tmp_path: Path, json_output: bool) -> None:
    with _taken_port() as taken:
        port = taken.getsockname()[1]
        path = tmp_path / "taken.toml"
        path.write_text(
            'topology = "unidirectional_ring"\ntransport = "tcp"\nmode = "processes"\n'
            f'[[nodes]]\nid = 1\n[[nodes]]\nid = 2\naddress = "tcp://127.0.0.1:{port}"\n'
            "[[nodes]]\nid = 3\n"
        )
        result = subprocess.run(
            [sys.executable, "-m", "ringleader", "run", str(path)]
            + (["--json"] if json_output else []),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f"node 2: cannot bind tcp://127.0.0.1:{port}" in result.stderr
    if json_output:
        report = json.loads(result.stdout)
        assert report["setup_failed"]["node"] == 2
        assert "Address already in use" in report["setup_failed"]["reason"]
        assert report["problems"] == [f"set-up failed: node 2: {report['setup_failed']['reason']}"]
        assert [n["state"] for n in report["nodes"]] == ["not_started"] * 3
        assert report["finished"] is False and report["leader"] is None
    else:
        assert "The cluster could not be set up" in result.stdout
        assert f"Problem: set-up failed: node 2: cannot bind tcp://127.0.0.1:{port}" in (
            result.stdout.replace("\n", " ")
        )


def test_a_launcher_that_cannot_start_fails_the_set_up_with_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(processes_module, "_LAUNCHER", "ringleader.service._not_a_module")
    config = _config(tmp_path, 'topology = "full_mesh"\nnodes = 3\nmode = "processes"\n')
    with pytest.raises(SetupError) as raised:
        ringleader.run(config)
    assert raised.value.node is None
    assert "the process that starts the nodes exited (status 1)" in raised.value.reason
    assert main(["run", str(config.source), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["setup_failed"]["node"] is None
    assert "exited (status 1) before every node was listening" in report["setup_failed"]["reason"]


def test_ports_are_never_handed_out_twice_under_load(tmp_path: Path) -> None:
    """Three processes-mode runs at once, while another thread keeps taking and releasing
    free ports: every node binds its own port (the kernel's choice), so no run can be
    handed a port another holds, and all three elect with the notes' exact count."""
    stop = threading.Event()

    def churn() -> None:  # what other programs on a busy machine do
        held: list[socket.socket] = []
        while not stop.is_set():
            probe = socket.socket()
            probe.bind(("127.0.0.1", 0))
            held.append(probe)
            if len(held) > 200:
                held.pop(0).close()
        for probe in held:
            probe.close()

    churner = threading.Thread(target=churn, name="ringleader-test-churn")
    churner.start()
    reports: dict[int, ringleader.Report] = {}
    errors: list[BaseException] = []

    def one(k: int) -> None:
        ids = "".join(f"[[nodes]]\nid = {i}\n" for i in range(12, 0, -1))  # the worst case
        path = tmp_path / f"load-{k}.toml"
        path.write_text(  # a detector patient enough for a loaded machine: ports only
            'topology = "unidirectional_ring"\ntransport = "tcp"\nmode = "processes"\n'
            f"timeout = 60\nheartbeat = 0.2\nsuspect_after = 2.0\n{ids}"
        )
        try:
            reports[k] = ringleader.run(ringleader.load_config(path))
        except BaseException as exc:  # noqa: BLE001 -- reported below
            errors.append(exc)

    runs = [threading.Thread(target=one, args=(k,), name=f"ringleader-test-{k}") for k in range(3)]
    try:
        for run in runs:
            run.start()
        for run in runs:
            run.join(120)
    finally:
        stop.set()
        churner.join(10)
    assert errors == []
    for report in reports.values():
        assert report.ok, report.problems
        assert report.elections[0].messages == 12 * 13 // 2 + 12


def test_nodes_without_an_address_bind_distinct_ports_of_their_own(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        'topology = "unidirectional_ring"\ntransport = "tcp"\nmode = "processes"\nnodes = 8\n',
    )
    with ProcessCluster(config, events=lambda event: None) as cluster:
        addresses = cluster.addresses
        # What the cluster's nodes were given is what each bound: none twice, no wildcard.
        assert len(set(addresses.values())) == 8
        assert all(re.fullmatch(r"tcp://127\.0\.0\.1:\d+", a) for a in addresses.values())
        assert [s.id for s in cluster.statuses()] == list(range(1, 9))


def test_fresh_nodes_with_ports_left_to_them_link_once_given_the_addresses(
    tmp_path: Path,
) -> None:
    """What a supervisor does with ``tcp://127.0.0.1:*`` nodes: open (each binds a free
    port), then ``link`` with everyone's, then boot; booting before is refused."""
    config = _config(
        tmp_path,
        'topology = "full_mesh"\n'
        '[[nodes]]\nid = 1\naddress = "tcp://127.0.0.1:*"\n'
        '[[nodes]]\nid = 2\naddress = "tcp://127.0.0.1:*"\n',
    )
    nodes = [ringleader.Node(config, i, fresh=True, incarnation=1) for i in (1, 2)]
    try:
        for node in nodes:
            node.open()
        with pytest.raises(TransportError, match=r"addresses of nodes \[2\] are not known"):
            nodes[0].boot()
        addresses = {node.id: node.address for node in nodes}
        assert all(re.fullmatch(r"tcp://127\.0\.0\.1:\d+", a) for a in addresses.values())
        for node in nodes:
            node.link(addresses)
        for node in nodes:
            node.boot(5.0)
        for node in nodes:
            node.initiate()
        assert [node.wait_for_leader(10.0) for node in nodes] == [2, 2]
    finally:
        for node in nodes:
            node.stop()


def _wait_children(pid: int, count: int, timeout: float = 30.0) -> list[int]:
    """``pid``'s processes once there are ``count`` of them: the nodes' launcher, and
    the nodes it forked."""
    found = eventually(lambda: len(descendants_of(pid)) >= count, timeout) and descendants_of(pid)
    assert found, f"{count} processes did not start: {descendants_of(pid)}"
    return found


def _wait_gone(pids: list[int], timeout: float = 10.0) -> None:
    def alive() -> list[int]:
        return [p for p in pids if Path(f"/proc/{p}").exists() and _not_zombie(p)]

    assert eventually(lambda: not alive(), timeout), f"orphans left behind: {alive()}"


def _not_zombie(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", ["sigint", "sigterm", "sigkill"])
def test_no_node_process_outlives_an_interrupted_or_killed_run(tmp_path: Path, how: str) -> None:
    path = tmp_path / "long.toml"
    path.write_text(
        'topology = "full_mesh"\nnodes = 3\ntransport = "ipc"\nmode = "processes"\n'
        "run_for = 60\ntimeout = 120\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-m", "ringleader", "run", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},  # what a killed run leaves, pytest cleans
    )
    try:
        children = _wait_children(parent.pid, 1 + 3)  # the launcher, three nodes
        parent.send_signal(getattr(signal, how.upper()))
        _, err = parent.communicate(timeout=30)
        _wait_gone(children)
        if how != "sigkill":
            assert parent.returncode == 130
            assert "interrupted" in err
            assert not list(tmp_path.glob("ringleader-processes-*"))  # its directory went too
    finally:
        if parent.poll() is None:
            parent.kill()
        parent.communicate()


# -- ringleader node ----------------------------------------------------------------------

TOPOLOGIES = {
    # body, ids, whose crash to survive → who leads next
    "unidirectional_ring": ('topology = "unidirectional_ring"\n', [1, 2, 3, 4], 4, 3),
    "bidirectional_ring": ('topology = "bidirectional_ring"\n', [1, 2, 3, 4], 4, 3),
    "spanning_tree": (
        'topology = "spanning_tree"\nedges = [[1, 2], [1, 3], [2, 4]]\n',
        [1, 2, 3, 4],
        4,
        3,
    ),
    "full_mesh": ('topology = "full_mesh"\n', [1, 2, 3, 4], 4, 3),
    "bully_broadcast": ('topology = "full_mesh"\nalgorithm = "bully_broadcast"\n', [1, 2, 3], 3, 2),
    "graph": ('topology = "graph"\nedges = [[1, 2], [2, 3], [3, 1], [3, 4]]\n', [1, 2, 3, 4], 4, 3),
}


@pytest.mark.parametrize("name", sorted(TOPOLOGIES))
def test_node_processes_elect_and_fail_over(tmp_path: Path, name: str) -> None:
    body, ids, top, next_top = TOPOLOGIES[name]
    # The top node is up first (see running), but away from a full mesh the first round
    # may not reach it through nodes still starting: with preempt it takes over then.
    config = write_config(tmp_path / f"{name}.toml", body + "preempt = true\n", ids)
    with running(config, ids) as nodes:
        wait_agreement(nodes, ids, top)
        nodes[top].kill()
        live = [i for i in ids if i != top]
        epoch = wait_agreement(nodes, live, next_top)
        assert epoch > 1
        suspects = [e for i in live for e in nodes[i].drain() if e["event"] == "suspect"]
        assert any(e["peer"] == top for e in suspects)
        for node in live:
            assert nodes[node].stop() == 0
            assert nodes[node].drain()[-1]["event"] == "stopped"


@pytest.mark.parametrize("preempt", [False, True], ids=["sticky", "preempt"])
def test_nodes_started_one_by_one_keep_their_leader_unless_preempt(
    tmp_path: Path, preempt: bool
) -> None:
    ids = [1, 2, 3, 4]
    body = f'topology = "full_mesh"\npreempt = {str(preempt).lower()}\n'
    config = write_config(tmp_path / "mesh.toml", body, ids)
    top = 4 if preempt else 3  # sticky: the first leader stays; preempt: the top takes over
    with running(config, [1, 2, 3]) as nodes:  # a majority, with or without a quorum
        first = wait_agreement(nodes, [1, 2, 3], 3)
        joined = time.monotonic()
        nodes[4] = NodeProcess(config, 4)
        epoch = wait_agreement(nodes, ids, top)
        # The late node 4 joined without a second leader in any epoch.
        leaders = {
            (e["epoch"], e["node"])
            for n in nodes.values()
            for e in n.drain()
            if e["event"] == "leader" and e["state"] == "leader"
        }
        by_epoch: dict[int, set[int]] = {}
        for e, node in leaders:
            by_epoch.setdefault(e, set()).add(node)
        assert all(len(v) == 1 for v in by_epoch.values()), by_epoch
        if preempt:  # one hand-over, no election race: 3 lost once, 4 was elected once
            assert epoch > first
        lost = [
            (e["node"], e["reason"])
            for n in nodes.values()
            for e in n.drain()
            if e["event"] == "lost" and e["mono"] > joined
        ]
        if preempt:  # one hand-over, no election race: 3 lost once, 4 took over
            assert epoch > first
            assert lost == [(3, "preempted")]
        else:  # the late node followed the leader it found: nothing changed
            assert epoch == first
            assert lost == []


@pytest.mark.parametrize("preempt", [False, True], ids=["sticky", "preempt"])
def test_a_restarted_leader_comes_back_with_a_new_incarnation(
    tmp_path: Path, preempt: bool
) -> None:
    ids = [1, 2, 3]
    body = f'topology = "full_mesh"\npreempt = {str(preempt).lower()}\n'
    config = write_config(tmp_path / "mesh.toml", body, ids)
    with running(config, ids) as nodes:
        wait_agreement(nodes, ids, 3)
        first = nodes[3].events[0]["incarnation"]
        nodes[3].kill()
        epoch = wait_agreement(nodes, [1, 2], 2)
        nodes[3] = NodeProcess(config, 3)
        # Sticky: it follows node 2, which stays; preempt: node 2 hands over to it.
        again = wait_agreement(nodes, ids, 3 if preempt else 2)
        assert (again > epoch) if preempt else (again == epoch)
        assert nodes[3].events[0]["incarnation"] > first


def test_node_human_output_and_clean_exit_on_sigterm(tmp_path: Path) -> None:
    config = write_config(tmp_path / "one.toml", 'topology = "full_mesh"\n', [1])
    process = subprocess.Popen(
        [sys.executable, "-m", "ringleader", "node", str(config), "--id", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            lines.append(line)
            if "this node leads" in line:
                break
        process.send_signal(signal.SIGTERM)
        rest, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0
    assert "listening on tcp://127.0.0.1:" in lines[0]
    assert "this node leads (epoch 1)" in lines[-1]
    assert rest.strip().endswith("stopped")
    # No secret on loopback: a warning, and a random secret only this user can read.
    assert "using this user's secret for the cluster" in err
    (secret,) = (Path(os.environ["XDG_RUNTIME_DIR"]) / "ringleader").glob("*.secret")
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert stat.S_IMODE(secret.parent.stat().st_mode) == 0o700
    assert len(bytes.fromhex(secret.read_text().strip())) == 32


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def _threads(pid: int) -> list[tuple[str, ...]]:
    """Each thread of ``pid``: name, state, kernel wait channel, pending signals."""
    found = []
    for task in sorted(Path(f"/proc/{pid}/task").iterdir()):
        status = dict(
            line.split(":", 1) for line in (task / "status").read_text().splitlines() if ":" in line
        )
        name, state, pending = status["Name"], status["State"], status["SigPnd"]
        found.append(
            (name.strip(), state.strip()[:1], (task / "wchan").read_text(), pending.strip())
        )
    return found


def test_sigterm_right_after_sigcont_ends_a_node_within_two_seconds(tmp_path: Path) -> None:
    """The kernel may hand a SIGTERM sent just after SIGCONT to a thread other than the
    main one; the node must still stop (it used to sleep on in a futex wait, 1 try in 4)."""
    config = write_config(tmp_path / "one.toml", 'topology = "full_mesh"\n', [1])
    for attempt in range(8):
        node = NodeProcess(config, 1)
        try:
            node.wait_for(lambda e: e["event"] == "leader" and e["leader"] == 1)
            pid = node.process.pid
            os.kill(pid, signal.SIGSTOP)
            assert eventually(lambda: _state(pid) == "T", 5.0), _state(pid)  # noqa: B023
            let_pass(0.8)  # the pause is the scenario: a node stopped for a while
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGTERM)
            try:
                status = node.process.wait(2.0)
            except subprocess.TimeoutExpired:
                threads = _threads(pid)
                began = time.monotonic()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    node.process.wait(10.0)
                pytest.fail(
                    f"try {attempt + 1}: node alive 2 s after SIGCONT + SIGTERM (then "
                    f"{node.process.poll()} after {time.monotonic() - began:.1f} s more); "
                    f"threads (name, state, wait channel, pending): {threads}"
                )
            assert status == 0, node.stderr
            assert node.wait_for(lambda e: e["event"] == "stopped", 5.0)
        finally:
            node.kill()


def test_node_refuses_to_start_without_a_secret_across_machines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RINGLEADER_SECRET", raising=False)
    path = tmp_path / "lan.toml"
    path.write_text(
        'topology = "full_mesh"\n[[nodes]]\nid = 1\naddress = "tcp://127.0.0.1:7001"\n'
        '[[nodes]]\nid = 2\naddress = "tcp://192.0.2.7:7001"\n'
    )
    assert main(["node", str(path), "--id", "1"]) == 2
    err = capsys.readouterr().err
    assert "lan.toml: secret_file: a secret is required" in err
    assert "node 2 is at tcp://192.0.2.7:7001" in err and "ringleader keys DIR" in err


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('topology = "full_mesh"\nnodes = 3\n', "every node needs a fixed address"),
        (
            'topology = "full_mesh"\n[[nodes]]\nid = 1\naddress = "tcp://127.0.0.1:*"\n',
            "every node needs a fixed address",
        ),
        (
            'topology = "full_mesh"\n[[nodes]]\nid = 1\naddress = "tcp://127.0.0.1:7001"\n',
            "there is no node 9",
        ),
    ],
)
def test_node_config_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, words: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(body)
    assert main(["node", str(path), "--id", "9" if "no node" in words else "1"]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and words in err


def test_keys_writes_a_private_secret_and_curve_pairs_and_never_overwrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys"
    assert main(["keys", str(keys), "--ids", "1,2"]) == 0
    secret = (keys / "secret").read_text().strip()
    assert len(bytes.fromhex(secret)) == 32
    assert stat.S_IMODE((keys / "secret").stat().st_mode) == 0o600
    for node in (1, 2):
        assert (keys / f"node-{node}.key").exists()
        assert stat.S_IMODE((keys / f"node-{node}.key_secret").stat().st_mode) == 0o600
    assert main(["keys", str(keys), "--ids", "1,3"]) == 0
    out = capsys.readouterr().out
    assert (keys / "secret").read_text().strip() == secret
    assert "kept" in out and (keys / "node-3.key").exists()


def test_gitignore_covers_every_secret_file_keys_writes(tmp_path: Path) -> None:
    """Whatever ``make_keys`` writes with mode 0600 must never reach a commit."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    ignore = ROOT / ".gitignore"
    (repo / ".gitignore").write_text(ignore.read_text(encoding="utf-8"), encoding="utf-8")
    made = make_keys(repo / "keys", [1, 2])
    secrets = [p for p, _ in made if stat.S_IMODE(p.stat().st_mode) == 0o600]
    assert {p.name for p in secrets} >= {"secret", "node-1.key_secret", "operator.key_secret"}
    names = [str(p.relative_to(repo)) for p in secrets]
    checked = subprocess.run(
        ["git", "-C", str(repo), "check-ignore", "--no-index", *names],
        capture_output=True,
        text=True,
        check=False,
    )
    assert sorted(checked.stdout.split()) == sorted(names), checked.stderr


def test_run_json_in_processes_mode_reports_faults(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        'topology = "full_mesh"\nnodes = 3\ntransport = "ipc"\nmode = "processes"\n'
        '[[faults]]\nat = 0.1\ncrash = "leader"\n'
    )
    result = subprocess.run(
        [sys.executable, "-m", "ringleader", "run", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["mode"] == "processes" and report["leader"] == 2
    assert report["faults"][0]["failover_s"] >= report["faults"][0]["detection_s"] > 0


def test_status_asks_every_node_over_the_wire(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RINGLEADER_SECRET", "0123456789abcdef" * 2)
    ids = [1, 2, 3]
    config = write_config(tmp_path / "mesh.toml", 'topology = "full_mesh"\n', ids)
    with running(config, ids) as nodes:
        epoch = wait_agreement(nodes, ids, 3)
        assert main(["status", str(config), "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert (summary["agreed"], summary["leader"], summary["epoch"]) == (True, 3, epoch)
        assert [n["state"] for n in summary["nodes"]] == ["not_leader", "not_leader", "leader"]
        assert main(["status", str(config)]) == 0
        out = capsys.readouterr().out
        assert f"Leader: node 3, epoch {epoch}; all agree" in out
        # The wrong secret gets no answer at all.
        monkeypatch.setenv("RINGLEADER_SECRET", "f" * 32)
        assert main(["status", str(config), "--json", "--timeout", "0.5"]) == 1
        assert not any(n["answered"] for n in json.loads(capsys.readouterr().out)["nodes"])
        monkeypatch.setenv("RINGLEADER_SECRET", "0123456789abcdef" * 2)
        nodes[3].kill()
        wait_agreement(nodes, [1, 2], 2)
        assert main(["status", str(config), "--json", "--timeout", "0.5"]) == 1
        summary = json.loads(capsys.readouterr().out)
        assert [n["answered"] for n in summary["nodes"]] == [True, True, False]
        assert summary["agreed"] is False
        # The operator's questions are not election traffic: nobody counted them.
        assert all(n["rejected"].get("unknown_sender", 0) == 0 for n in summary["nodes"][:2])


@pytest.mark.parametrize("curve", [False, True], ids=["hmac", "curve"])
def test_the_multi_machine_example_as_its_readme_says_on_loopback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], curve: bool
) -> None:
    example = ROOT / "examples" / "multi-machine" / "cluster.toml"
    text = example.read_text()
    ports = free_ports(3)
    for host, port in zip(("192.0.2.11", "192.0.2.12", "192.0.2.13"), ports, strict=True):
        assert f"tcp://{host}:7001" in text
        text = text.replace(f"tcp://{host}:7001", f"tcp://127.0.0.1:{port}")
    if curve:
        text = text.replace('# security = "curve"', 'security = "curve"')
        text = text.replace('# keys = "keys"', 'keys = "keys"')
    config = tmp_path / "cluster.toml"
    config.write_text(text)
    assert main(["keys", str(tmp_path / "keys"), *(["--ids", "1,2,3"] if curve else [])]) == 0
    assert main(["check", str(config)]) == 0
    capsys.readouterr()
    with running(config, [1, 2, 3]) as nodes:
        wait_agreement(nodes, [1, 2, 3], 3)
        nodes[3].kill()
        wait_agreement(nodes, [1, 2], 2)
        nodes[3] = NodeProcess(config, 3)
        wait_agreement(nodes, [1, 2, 3], 2)  # it follows node 2: leadership is sticky
        assert main(["status", str(config)]) == 0
        assert "Leader: node 2" in capsys.readouterr().out


def test_to_toml_reads_back_the_same_config_with_awkward_strings(tmp_path: Path) -> None:
    odd = 'del\x7f tab\t quote" back\\ nul\x00 é 🎉 \u2028'
    source = tmp_path / "odd.toml"
    source.write_text(
        'topology = "spanning_tree"\n'
        'cluster = "del\\u007f tab\\t quote\\" back\\\\ nul\\u0000 é 🎉 \\u2028"\n'
        'transport = "ipc"\n'
        'mode = "processes"\nrun_for = 1.5\nedges = [[1, 2], [1, 3]]\n'
        '[[nodes]]\nid = 1\ncapacity = 2.5\naddress = "ipc:///tmp/a b/\\"q\\".sock"\n'
        "[[nodes]]\nid = 2\n[[nodes]]\nid = 3\n"
        '[[faults]]\nat = 0.1\ncrash = "leader"\nrestart_after = 0.2\n'
    )
    config = ringleader.load_config(source)
    again = tmp_path / "again.toml"
    again.write_text(config.to_toml(), encoding="utf-8")
    copy = ringleader.load_config(again)
    assert copy.replace(source=config.source) == config
    assert copy.cluster == odd and copy.cluster_id == config.cluster_id


@pytest.mark.parametrize("transport", ["inproc", "memory"])
def test_node_and_status_refuse_a_transport_inside_one_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], transport: str
) -> None:
    path = tmp_path / "local.toml"
    path.write_text(
        f'topology = "full_mesh"\ntransport = "{transport}"\n'
        f'[[nodes]]\nid = 1\naddress = "{transport}://one"\n'
    )
    for command in (["node", str(path), "--id", "1"], ["status", str(path)]):
        assert main(command) == 2
        assert f"transport: {transport} cannot reach another process" in capsys.readouterr().err


def test_processes_mode_picks_addresses_for_wildcard_ports(tmp_path: Path) -> None:
    config = _config(
        tmp_path,
        'topology = "full_mesh"\nmode = "processes"\n'
        '[[nodes]]\nid = 1\naddress = "tcp://127.0.0.1:*"\n[[nodes]]\nid = 2\n',
    )
    report = ringleader.run(config)
    assert report.ok and report.leader == 2


def test_a_reader_that_stops_reading_never_stalls_the_node() -> None:
    """The node's events go through a bounded queue to a writer thread: while the output
    blocks, events beyond the queue are dropped (and said to be), and emit never waits."""
    release = threading.Event()
    lines: list[str] = []

    class Stuck:
        def write(self, text: str) -> None:
            release.wait(10)
            lines.append(text)

        def flush(self) -> None:
            pass

    writer = EventWriter(Stuck(), json.dumps, on_closed=lambda: None, capacity=5)
    began = time.monotonic()
    for k in range(50):
        writer.emit({"event": "leader", "node": 1, "k": k, "t": time.time()})
    assert time.monotonic() - began < 1.0  # never waited on the stuck stream
    release.set()
    writer.close()  # writes what waits; a drop is reported with the next event written
    events = [json.loads(line) for line in lines]
    dropped = [e["count"] for e in events if e["event"] == "dropped_output"]
    shown = [e["k"] for e in events if e["event"] == "leader"]
    assert sum(dropped) + len(shown) == 50 and sum(dropped) >= 40
    assert shown == sorted(shown) and shown[0] == 0


def test_sigterm_right_after_sigcont_ends_a_local_run_at_once(tmp_path: Path) -> None:
    """``ringleader run`` waits on its cluster for ``run_for`` (30 s here); a SIGTERM the
    kernel hands to a node's thread after a SIGCONT used to wait for the end of it.  The
    threads that host nodes leave the signals to the main thread, whose wait they cut."""
    config = tmp_path / "long.toml"
    config.write_text(
        'topology = "full_mesh"\ntransport = "inproc"\nrun_for = 30\ntimeout = 60\n'
        "heartbeat = 0.05\nsuspect_after = 0.3\nnodes = [{ id = 1 }, { id = 2 }, { id = 3 }]\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "ringleader", "run", str(config)]
    for attempt in range(3):
        run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            pid = run.pid
            # Its nodes' threads (three nodes, the supervisor) are up: the run is under way.
            assert eventually(lambda: len(_threads(pid)) >= 5, 20.0), _threads(pid)  # noqa: B023
            os.kill(pid, signal.SIGSTOP)
            assert eventually(lambda: _state(pid) == "T", 5.0), _state(pid)  # noqa: B023
            os.kill(pid, signal.SIGCONT)
            os.kill(pid, signal.SIGTERM)
            try:
                _, err = run.communicate(timeout=3.0)
            except subprocess.TimeoutExpired:
                pytest.fail(f"try {attempt + 1}: still running 3 s after SIGCONT + SIGTERM")
            assert run.returncode == 130, err
            assert "interrupted" in err and "Traceback" not in err
        finally:
            if run.poll() is None:
                run.kill()
            run.communicate()
