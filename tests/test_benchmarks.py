"""The benchmarks' own machinery: every benchmark is in ``benchmarks/all.py``, the
performance page's figures are written where its markers say, and ``_compare``'s verdicts
(met, noisy) say what they claim.  The benchmarks themselves run in CI (``.ci/run``)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
#: Benchmarks all.py does not run, and why.
NOT_IN_ALL = {
    "chaos": "a fault-injection harness with pass/fail checks; its CI test runs it",
    "steady": "root only (network namespaces); tests/test_multihost.py runs its scenarios",
}


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


@pytest.fixture
def benchmarks_on_path() -> Iterator[None]:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield
    finally:
        sys.path.remove(str(BENCHMARKS))
        sys.modules.pop("_compare", None)


def test_all_runs_every_benchmark(benchmarks_on_path: None) -> None:
    every = {p.stem for p in BENCHMARKS.glob("*.py") if not p.stem.startswith("_")}
    listed = {b.name for b in _load("all").BENCHMARKS}
    assert every - listed - {"all"} == set(NOT_IN_ALL)
    # A benchmark listed but not (yet) here is skipped, saying so: explore may come later.
    assert listed - every <= {"explore"}


def test_the_figures_go_between_the_pages_markers(benchmarks_on_path: None, tmp_path: Path) -> None:
    all_ = _load("all")
    page = tmp_path / "performance.md"
    text = (ROOT / "docs" / "design" / "performance.md").read_text(encoding="utf-8")
    page.write_text(text, encoding="utf-8")
    command = next(b for b in all_.BENCHMARKS if b.name == "command")
    output = [
        "1. The goal",
        "  [1/3] election: 9.1 s, whole command: 9.6 s (×1.055)",
        "whole command / its election time, N = 1000",
        "  ratio whole command/election: median 1.05× (min 1.04, max 1.06)  goal ≤ 1.1×: met",
        "  run 1: set-up 0.4 s",
    ]
    outcome = all_.Outcome(command, [sys.executable, str(command.script)], 0, 61.0, output)
    head = ["benchmarks/all.py: 2026-11-24 12:00 UTC, commit abc", "machine: …", "load: …"]
    all_.update_page(page, all_.page_section(head, [outcome], all_.OUTPUT))
    written = page.read_text(encoding="utf-8")
    before, _, rest = text.partition(all_.BEGIN)
    _, _, after = rest.partition(all_.END)
    assert written.startswith(before) and written.endswith(after)  # the rest untouched
    assert "[performance-run.txt](../performance-run.txt)" in written  # from docs/design/
    quoted = written[written.index("### command") :]
    assert "whole command / its election time, N = 1000\n" in quoted  # the heading
    assert "goal ≤ 1.1×: met" in quoted
    assert "set-up 0.4 s" not in quoted and "[1/3]" not in quoted  # only the key lines
    # Written again, it replaces its own figures rather than adding to them.
    all_.update_page(page, all_.page_section(head, [outcome], all_.OUTPUT))
    assert page.read_text(encoding="utf-8") == written


def test_compare_paired_takes_each_runs_ratio_with_itself(benchmarks_on_path: None) -> None:
    compare = _load("_compare")
    runs = iter([(10.0, 10.5), (20.0, 21.0), (10.0, 10.6)])  # the machine slowed down
    result = compare.paired(
        "whole / election", ("election", "whole"), lambda: next(runs), goal=1.1, echo=None
    )
    assert result.ratios == pytest.approx([1.05, 1.05, 1.06])
    assert result.met is True and not result.noisy


def test_compare_series_is_noisy_when_its_spread_straddles_the_goal(
    benchmarks_on_path: None,
) -> None:
    compare = _load("_compare")
    values = iter([1.5, 1.7, 2.4])
    result = compare.series("set-up", lambda: next(values), goal=2.0, echo=None)
    assert result.median == 1.7
    assert result.met is False and result.noisy
    assert "NOT met" in "\n".join(result.lines())
    values = iter([1.5, 1.7, 1.9])
    result = compare.series("set-up", lambda: next(values), goal=2.0, echo=None)
    assert result.met is True and not result.noisy
