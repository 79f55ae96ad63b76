"""Every benchmark of the project, one after another, into one file.

    python benchmarks/all.py             # every benchmark in full: an hour or two, on a
                                         # quiet machine; writes docs/performance-run.txt
                                         # and the figures in docs/design/performance.md
    python benchmarks/all.py --quick     # every benchmark's smoke run (CI): a few minutes
    python benchmarks/all.py --only command processes   # some of them
    python benchmarks/all.py --again ring scale # these again, in the last full run

Each benchmark runs as a child process of its own (``python benchmarks/NAME.py …``), its
output shown as it comes and kept, in this order: hop, ring, processes, command,
simulator, explore (when the script exists), explore_slices, explore_ray, explore_service,
scale, failover, trace, sweep, scale_nodes, fencing (``steady.py`` is not among them: it
needs root, for network namespaces; nor is ``etcd_side.py``: it needs etcd, which CI
does not install).  Nothing else should run on the machine meanwhile: every benchmark
prints the load before and after, and that is the first thing to look at.

The full run writes ``--output`` (default ``docs/performance-run.txt``): a header (when,
which commit, the machine, the load) and each benchmark's command, exit status, time
and whole output.  Then, unless ``--no-page``, it rewrites the part of
``docs/design/performance.md`` between its two ``all.py`` markers: per benchmark, the lines of
its output that state a goal, a ratio or a verdict, quoted as printed.  So the page's
figures are that one run's.  ``--quick`` writes only ``--output`` (if given).  ``--again``
runs some benchmarks again (one fixed after the full run, or run again on a quieter
machine) and puts their outputs in place of theirs in the full run's file and on the page;
the header gets a line saying which, when, at what commit and under what load.

Exit status: 1 if any benchmark failed (its exit status was not 0), else 0.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUTPUT = ROOT / "docs" / "performance-run.txt"
PAGE = ROOT / "docs" / "design" / "performance.md"
BEGIN = "<!-- all.py: begin"
END = "<!-- all.py: end -->"
#: A line of a benchmark's output that the page quotes: a goal, a ratio, a verdict.
KEY_LINE = re.compile(
    r"goal|ratio|median|\bmet\b|noisy|calibration:|PROBLEM|load before", re.IGNORECASE
)


@dataclass(frozen=True)
class Benchmark:
    name: str
    full: tuple[str, ...] = ()
    quick: tuple[str, ...] = ("--quick",)
    #: What it measures, in a line (the page says more).
    what: str = ""
    needs: str | None = None  # a module it needs; without it, ``without`` is added
    without: tuple[str, ...] = ()

    @property
    def script(self) -> Path:
        return HERE / f"{self.name}.py"


BENCHMARKS = (
    Benchmark("hop", quick=("--quick", "--cpus", "one"), what="one hop against bare pyzmq"),
    Benchmark(
        "ring",
        quick=("--quick", "--repeat", "1"),
        what="Chang–Roberts worst case, N = 1000, against a bare token ring",
    ),
    Benchmark("processes", what="50 node processes: set-up, ports, a failed set-up"),
    Benchmark("command", what="the whole ringleader run command against its election"),
    Benchmark(
        "simulator",
        quick=("--quick", "--repeat", "1"),
        what="ringleader run --simulate, the whole command, 10,000 to 1,000,000 nodes",
    ),
    Benchmark("explore", what="the explorer's states per second"),
    Benchmark(
        "explore_slices",
        quick=("--n", "6", "--repeat", "1"),
        what="where two explorer workers' time goes: each call of each worker, per level",
    ),
    Benchmark(
        "explore_ray",
        what="explore --ray on a local Ray cluster against --workers and one worker",
    ),
    Benchmark(
        "explore_service",
        what="the service's rules explored: states, every state or not, states per second",
    ),
    Benchmark("scale", what="memory and set-up of 1,000 to 5,000 nodes in one process"),
    Benchmark(
        "failover",
        quick=("--trials", "2", "--no-raft"),
        what="a leader killed again and again, next to Raft",
        needs="pysyncobj",
        without=("--no-raft",),
    ),
    Benchmark(
        "trace",
        quick=("--nodes", "100", "--repeat", "1"),
        what="what --trace costs the worst-case election",
    ),
    Benchmark("sweep", quick=("--max", "32"), what="every algorithm's count, n = 8 … 1024"),
    Benchmark(
        "scale_nodes",
        quick=("--nodes", "10", "--quiet", "5"),
        what="50 ringleader node processes: agreement, changes at rest, memory, detector traffic",
    ),
    Benchmark(
        "fencing",
        quick=("--only", "restart", "--kills", "2"),
        what="the fencing token through kills, full restarts and a larger cluster",
    ),
)


@dataclass
class Outcome:
    benchmark: Benchmark
    argv: list[str]
    status: int
    seconds: float
    output: list[str] = field(default_factory=list)


def run_one(benchmark: Benchmark, argv: list[str], echo: bool) -> Outcome:
    """Run one benchmark, showing its output as it comes (stderr too) and keeping it."""
    began = time.monotonic()
    process = subprocess.Popen(
        argv,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    output = []
    for line in process.stdout:
        output.append(line.rstrip("\n"))
        if echo:
            print(f"  {line}", end="", flush=True)
    status = process.wait()
    return Outcome(benchmark, argv, status, time.monotonic() - began, output)


def commit() -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return done.stdout.strip()


def header(quick: bool) -> list[str]:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    one, five, fifteen = os.getloadavg()
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return [
        f"benchmarks/all.py{' --quick' if quick else ''}: {when}, commit {commit()}",
        f"machine: {cpus} CPUs, {platform.machine()}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}",
        f"load at the start: {one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min)",
    ]


def write_output(path: Path, head: list[str], outcomes: list[Outcome]) -> None:
    lines = [*head, ""]
    for outcome in outcomes:
        shown = " ".join(["python", *map(_relative, outcome.argv[1:])])
        lines += [
            "=" * 88,
            f"{outcome.benchmark.name}: {shown}",
            f"exit status {outcome.status}, {outcome.seconds:.0f} s",
            "-" * 88,
            *outcome.output,
            "",
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_output(path: Path) -> tuple[list[str], list[Outcome]]:
    """The header and the outcomes of a run that :func:`write_output` wrote."""
    by_name = {b.name: b for b in BENCHMARKS}
    head, *sections = path.read_text(encoding="utf-8").split("=" * 88 + "\n")
    outcomes = []
    for section in sections:
        title, status_line, _rule, *output = section.rstrip("\n").split("\n")
        name, shown = title.split(": ", 1)
        found = re.fullmatch(r"exit status (-?\d+), (\d+) s", status_line)
        if name not in by_name or found is None:
            raise SystemExit(f"{path}: not written by benchmarks/all.py (at {title!r})")
        argv = [
            sys.executable,
            *(str(ROOT / a) if a.endswith(".py") else a for a in shown.split()[1:]),
        ]
        outcomes.append(Outcome(by_name[name], argv, int(found[1]), float(found[2]), list(output)))
    return head.rstrip("\n").split("\n"), outcomes


def _relative(arg: str) -> str:
    try:
        return str(Path(arg).relative_to(ROOT))
    except ValueError:
        return arg


def key_lines(output: list[str]) -> list[str]:
    """The lines that state a goal, a ratio or a verdict (a median too), each after the
    heading it belongs to (the last line above it that starts at the margin)."""
    found: list[str] = []
    heading = None
    for line in output:
        if line.strip() and not line.startswith((" ", "|", "[")):
            heading = line
        if KEY_LINE.search(line):
            if heading is not None and heading not in found and heading != line:
                found.append(heading)
            found.append(line)
    return found


def page_section(head: list[str], outcomes: list[Outcome], output: Path) -> str:
    """The figures part of docs/design/performance.md: each benchmark's key lines, quoted."""
    parts = [
        f"{BEGIN} (written by benchmarks/all.py from {output.name}; do not edit) -->",
        "",
        f"From one run of `python benchmarks/all.py` ({head[0].split(': ', 1)[1]}); "
        f"the whole output is [{output.name}]({os.path.relpath(output, PAGE.parent)}).",
        "",
        "```text",
        *head[1:],
        "```",
    ]
    for outcome in outcomes:
        benchmark = outcome.benchmark
        keys = key_lines(outcome.output)
        status = "" if outcome.status == 0 else f" — **exit status {outcome.status}**"
        parts += [
            "",
            f"### {benchmark.name}: {benchmark.what}{status}",
            "",
            f"`python {' '.join(map(_relative, outcome.argv[1:]))}`, {outcome.seconds:.0f} s",
            "",
            "```text",
            *(keys or ["(no line states a goal or a ratio; see the whole output)"]),
            "```",
        ]
    parts += ["", END]
    return "\n".join(parts)


def update_page(page: Path, section: str) -> None:
    text = page.read_text(encoding="utf-8")
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{page}: no {BEGIN} … {END} markers: the figures were not written")
    page.write_text(text[:begin] + section + text[end + len(END) :], encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="each benchmark's smoke run")
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=[b.name for b in BENCHMARKS])
    parser.add_argument(
        "--output",
        type=Path,
        help=f"where the whole output goes (default: {OUTPUT.relative_to(ROOT)}; with --quick, "
        "nowhere)",
    )
    parser.add_argument(
        "--no-page", action="store_true", help="leave docs/design/performance.md as it is"
    )
    parser.add_argument("--quiet", action="store_true", help="do not echo each output")
    parser.add_argument(
        "--again",
        nargs="+",
        metavar="NAME",
        choices=[b.name for b in BENCHMARKS],
        help="run these again and put their outputs in place of theirs in --output's "
        "earlier full run (its header says which, when and at what commit)",
    )
    args = parser.parse_args()
    if args.again and (args.quick or args.only):
        parser.error("--again reruns part of a full run: not with --quick or --only")
    output = args.output if args.output is not None else (None if args.quick else OUTPUT)
    head = header(args.quick)
    for line in head:
        print(line)
    earlier: list[Outcome] = []
    if args.again:
        assert output is not None
        if not output.exists():
            parser.error(f"--again: {_relative(str(output))} does not exist: run them all first")
        first, earlier = read_output(output)
        again = ", ".join(args.again)
        head = [*first, f"again: {again}, {head[0].split(': ', 1)[1]}; {head[2]}"]
    outcomes: list[Outcome] = []
    for benchmark in BENCHMARKS:
        if args.only and benchmark.name not in args.only:
            continue
        if args.again and benchmark.name not in args.again:
            outcomes += [o for o in earlier if o.benchmark.name == benchmark.name]
            continue
        if not benchmark.script.exists():
            print(f"\n{benchmark.name}: no {_relative(str(benchmark.script))} here, skipped")
            continue
        extra = list(benchmark.quick if args.quick else benchmark.full)
        if benchmark.needs and importlib.util.find_spec(benchmark.needs) is None:
            extra += [a for a in benchmark.without if a not in extra]
        argv = [sys.executable, str(benchmark.script), *extra]
        print(f"\n== {benchmark.name}: python {' '.join(map(_relative, argv[1:]))}", flush=True)
        outcome = run_one(benchmark, argv, echo=not args.quiet)
        outcomes.append(outcome)
        print(f"== {benchmark.name}: exit status {outcome.status}, {outcome.seconds:.0f} s")
    failed = [o.benchmark.name for o in outcomes if o.status != 0]
    if output is not None:
        write_output(output, head, outcomes)
        print(f"\nwrote {output}")
        if not args.quick and not args.no_page:
            update_page(PAGE, page_section(head, outcomes, output))
            print(f"wrote the figures into {_relative(str(PAGE))}")
    print(
        f"\n{len(outcomes)} benchmarks, {len(failed)} failed{': ' if failed else ''}"
        + ", ".join(failed)
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
