"""Size before work: ``check``, ``run`` and ``explore`` estimate a run from arithmetic and
refuse, in one line, what cannot fit the machine, before building anything."""

from __future__ import annotations

import io
import json
import re
import resource
import subprocess
import sys
import time
from typing import Any

import pytest

from ringleader.cli import main
from ringleader.cluster import _fits
from ringleader.topologies import (
    Limits,
    Overrides,
    Size,
    estimate_size,
    load_config,
    size_refusal,
)

#: Address space for a command that must refuse before it builds anything: a mesh of
#: 100,000 nodes built anyway would hit this at once, not the machine's memory.
_SPACE = 1_500_000_000


def _config(**overrides: Any) -> Any:
    return load_config(None, Overrides(**overrides))


def _ringleader(*argv: str, files: int | None = None) -> subprocess.CompletedProcess[str]:
    """``ringleader ARGV`` in a process of its own, with little address space (and at
    most ``files`` open files)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (_SPACE, _SPACE))
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    return subprocess.run(
        [sys.executable, "-m", "ringleader", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit,
        check=False,
    )


def _refusal(result: subprocess.CompletedProcess[str], command: str) -> str:
    """The one line a refused command printed, without its ``ringleader COMMAND`` prefix."""
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    prefix = f"ringleader {command}: error: "
    assert lines[0].startswith(prefix), lines[0]
    # The memory available is read at the moment, and other programs change it.
    return re.sub(r"has [\d.,]+ [kMGT]?B available", "has … available", lines[0][len(prefix) :])


class TestEstimate:
    @pytest.mark.parametrize(
        ("topology", "n", "links"),
        [
            ("unidirectional_ring", 7, 7),
            ("bidirectional_ring", 7, 14),
            ("bidirectional_ring", 2, 2),
            ("full_mesh", 7, 42),
            ("full_mesh", 1, 0),
            ("unidirectional_ring", 1, 1),
            ("bidirectional_ring", 1, 1),
        ],
    )
    def test_links_and_messages_are_the_wirings_and_the_bounds(
        self, topology: str, n: int, links: int
    ) -> None:
        config = _config(topology=topology, nodes=n)
        size = estimate_size(config)
        assert size.links == links == config.wiring.links
        assert size.messages == config.bound.value
        assert size.nodes == n

    @pytest.mark.parametrize("path", ["examples/tree.toml", "examples/graph.toml"])
    def test_a_tree_or_graph_counts_its_edges_both_ways(self, path: str) -> None:
        config = load_config(path)
        size = estimate_size(config)
        assert size.links == config.wiring.links
        assert size.messages == config.bound.value

    def test_a_100000_node_mesh_is_estimated_without_its_wiring(self) -> None:
        config = _config(topology="full_mesh", nodes=100_000, algorithm="bully")
        began = time.monotonic()
        size = estimate_size(config, simulate=True)
        assert time.monotonic() - began < 10
        assert "wiring" not in vars(config)  # never built: 10^10 links
        assert size.links == 100_000 * 99_999
        assert size.messages == 100_000**2 - 1  # Bully's N^2-1 with all initiators
        assert size.memory > 10**12  # a terabyte and more
        assert size.files == 0  # the simulator opens none

    def test_echo_bound_reads_the_mesh_sketch(self) -> None:
        config = _config(topology="full_mesh", nodes=2_000, algorithm="echo", initiators=[1])
        assert estimate_size(config).messages == 2_000 * 1_999 + 2_000 - 1  # M+N-1

    def test_tcp_needs_more_files_and_memory_than_inproc(self) -> None:
        tcp = estimate_size(_config(nodes=100, transport="tcp"))
        inproc = estimate_size(_config(nodes=100, transport="inproc"))
        memory = estimate_size(_config(nodes=100, transport="memory"))
        assert tcp.files > inproc.files > memory.files == 0
        assert tcp.memory > inproc.memory
        assert tcp.sockets == inproc.sockets == 300  # 2 per mailbox, 1 per link

    def test_processes_count_the_busiest_process_files(self) -> None:
        config = _config(topology="full_mesh", nodes=50).replace(mode="processes")
        size = estimate_size(config)
        assert size.files > 3 * 49  # the node with 49 links, 49 accepted
        assert size.memory > 50 * 5_000_000  # an interpreter each


class TestRefusal:
    SIZE = Size("a test run", 10, 20, 30, memory=5_000_000_000, files=3_000, sockets=2_000)

    def test_what_fits_is_not_refused(self) -> None:
        assert size_refusal(self.SIZE, Limits()) is None
        assert size_refusal(self.SIZE, Limits(10**10, 3_000, 2_000)) is None

    @pytest.mark.parametrize(
        ("limits", "named"),
        [
            (Limits(memory=4_000_000_000), "4.0 GB available"),
            (Limits(sockets=1_023), "at most 1,023"),
            (Limits(files=1_024), "at most 1,024 more (its hard limit"),
        ],
    )
    def test_a_refusal_is_one_line_naming_the_estimate_and_the_limit(
        self, limits: Limits, named: str
    ) -> None:
        why = size_refusal(self.SIZE, limits)
        assert why is not None
        assert "\n" not in why
        assert named in why
        assert "5.0 GB" in why and "3,000 open files" in why
        assert "--force" in why


class TestCommands:
    def test_check_refuses_the_100000_node_mesh_at_once(self) -> None:
        began = time.monotonic()
        result = _ringleader("check", "--nodes", "100000", "--topology", "full_mesh")
        why = _refusal(result, "check")
        assert time.monotonic() - began < 30
        assert "9,999,900,000 links" in why and "available" in why

    def test_run_refuses_it_with_the_same_line(self) -> None:
        argv = ("--nodes", "100000", "--topology", "full_mesh")
        check = _refusal(_ringleader("check", *argv), "check")
        run = _refusal(_ringleader("run", *argv), "run")
        assert run == check

    def test_the_simulator_refuses_it_too(self) -> None:
        argv = ("--nodes", "100000", "--topology", "full_mesh")
        why = _refusal(_ringleader("run", "--simulate", *argv), "run")
        assert why.startswith("a simulated 100,000-node full_mesh: 9,999,900,000 links")
        assert _refusal(_ringleader("explore", *argv), "explore") == why

    def test_check_refuses_what_run_refuses_for_want_of_files(self) -> None:
        argv = ("--nodes", "200", "--transport", "tcp")
        check = _refusal(_ringleader("check", *argv, files=256), "check")
        run = _refusal(_ringleader("run", *argv, files=256), "run")
        assert run == check
        assert "open files" in check and "(its hard limit, less those open)" in check
        assert "simulate it (ringleader run --simulate), which opens none" in check

    def test_force_goes_past_the_refusal(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr(_fits, "machine_limits", lambda size: Limits(memory=1_000))
        assert main(["check", "--nodes", "4"]) == 2
        refused = capsys.readouterr()
        assert "open files; this machine has 1 kB available" in refused.err
        assert main(["check", "--nodes", "4", "--force"]) == 0
        forced = capsys.readouterr()
        assert "OK" in forced.out
        assert forced.err.startswith("warning: ") and "going on" in forced.err
        assert main(["run", "--simulate", "--nodes", "4", "--force", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["leader"] == 4

    def test_a_large_run_says_what_it_is_doing(self, monkeypatch: pytest.MonkeyPatch) -> None:
        class Terminal(io.StringIO):
            def isatty(self) -> bool:
                return True

        err = Terminal()
        monkeypatch.setattr(sys, "stderr", err)
        monkeypatch.setattr(_fits, "machine_limits", lambda size: Limits())
        _fits.size_up(_config(nodes=_fits.LARGE, transport="inproc"))
        assert err.getvalue() == (
            f"a {_fits.LARGE:,}-node unidirectional_ring over inproc: {_fits.LARGE:,} links, "
            f"up to {_fits.LARGE * (_fits.LARGE + 1) // 2 + _fits.LARGE:,} messages, "
            f"about {err.getvalue().split('about ')[1].split(' of')[0]} of memory and "
            f"{4 * _fits.LARGE + 32:,} open files: setting it up…\n"
        )
        quiet = Terminal()
        monkeypatch.setattr(sys, "stderr", quiet)
        _fits.size_up(_config(nodes=8))
        assert quiet.getvalue() == ""
