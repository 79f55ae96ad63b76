"""Make every picture of the docs (every PNG under docs/) from seeded, deterministic runs.

    python docs/make_pictures.py            # all of them (a few minutes)
    python docs/make_pictures.py bully      # those whose name contains "bully"

Each picture in docs/images/ and docs/faults/ is a run of an example in the deterministic
simulator with a fixed seed (``ringleader run --simulate --seed``), traced; each in
docs/explore/ is a run ``ringleader explore`` wrote (the explorer is deterministic: the
same config, the same runs).  Each is drawn as ``ringleader diagram`` draws it, at
lecture size (1920×1080, for a projector); the sweep is ``benchmarks/sweep.py``'s
picture up to n = 256, as wide.  The same seed gives the same run, so the pictures change
only when the code does.  Pages name a picture with
``<!-- picture: ../images/NAME.png "what it shows" -->`` or ``![what it shows](explore/NAME.png)``;
``tests/traces/test_pictures.py`` checks that this script makes every picture they name.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ringleader
from ringleader.topologies import Overrides, load_config
from ringleader.traces import write_view

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
IMAGES = DOCS / "images"
EXAMPLES = ROOT / "examples"
#: Lecture size: a projector's pixels.
SIZE = (1920, 1080)


@dataclass(frozen=True)
class Picture:
    """``folder/name``.png: ``example`` (with ``overrides``) run in the simulator with
    ``seed``, drawn with ``options`` (``time_axis``, ``size``)."""

    name: str
    example: str | None
    seed: int = 0
    overrides: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    folder: str = "images"

    @property
    def out(self) -> Path:
        return DOCS / self.folder / f"{self.name}.png"


@dataclass(frozen=True)
class Explored:
    """``explore/name``.png: the run ``run`` that ``ringleader explore example *args``
    writes (``max``: the most messages; a check's name: its shortest counterexample)."""

    name: str
    example: str
    run: str
    args: tuple[str, ...] = ()
    folder: str = "explore"

    @property
    def out(self) -> Path:
        return DOCS / self.folder / f"{self.name}.png"


PICTURES = [
    Picture("bully-story", "bully_story.toml"),
    Picture("bully-story-time", "bully_story.toml", options={"time_axis": True}),
    Picture("chang-roberts-table", "chang_roberts_table.toml"),
    Picture("ring-crash", "ring_crash.toml"),
    Picture("lelann", "lelann.toml"),
    Picture("chang-roberts", "ring.toml"),
    Picture("hirschberg-sinclair", "two_way_ring.toml"),
    Picture("tree", "tree.toml"),
    Picture("echo", "graph.toml"),
    Picture("bully", "mesh.toml"),
    Picture("bully-broadcast", "mesh.toml", overrides={"algorithm": "bully_broadcast"}),
    Picture(
        "chang-roberts-200",
        None,
        overrides={"nodes": 200, "topology": "unidirectional_ring", "initiators": "all"},
    ),
    # docs/faults.md
    Picture("partition", "faults/partition.toml", folder="faults"),
    Picture("bully-pause", "explore/bully_pause.toml", folder="faults"),
]

#: docs/explore.md and docs/your-algorithm.md: what ``ringleader explore`` found, run as
#: the pages run it.
EXPLORED = [
    Explored("chang-roberts-max", "chang_roberts_table.toml", "max"),
    Explored("lelann-max", "lelann.toml", "max"),
    Explored("hirschberg-sinclair-max", "explore/hirschberg_sinclair.toml", "max"),
    Explored("tree-max", "tree.toml", "max"),
    Explored("echo-max", "graph.toml", "max"),
    Explored("bully-max", "explore/bully.toml", "max"),
    Explored(
        "bully-two-leaders",
        "explore/bully_early.toml",
        "two_leaders",
        ("--timers", "any", "--max-states", "5000"),
    ),
    Explored("bully-pause-two-leaders", "explore/bully_pause.toml", "two_leaders"),
    Explored("ring-crash-undecided", "explore/ring_crash.toml", "undecided"),
    Explored("hasty-two-leaders", "your_algorithm/ring.toml", "two_leaders"),
]

#: The sweep's picture (``benchmarks/sweep.py``).
SWEEP = IMAGES / "sweep.png"


def outputs() -> list[Path]:
    """Every picture this script makes."""
    return [p.out for p in PICTURES] + [e.out for e in EXPLORED] + [SWEEP]


def draw(picture: Picture, folder: Path) -> Path:
    config = load_config(
        None if picture.example is None else EXAMPLES / picture.example,
        Overrides(**picture.overrides),
    )
    trace = folder / f"{picture.name}.jsonl"
    ringleader.run(config, simulate=True, seed=picture.seed, trace=trace)
    out = picture.out
    out.parent.mkdir(parents=True, exist_ok=True)
    write_view(trace, out, **{"size": SIZE, **picture.options})
    return out


def explore(explored: Explored, folder: Path) -> Path:
    """``ringleader explore`` in a process of its own (it exits 1 when a check fails,
    which is what these pictures show), then its run drawn."""
    runs = folder / explored.name
    command = [sys.executable, "-m", "ringleader", "explore"]
    command += [str(EXAMPLES / explored.example), *explored.args, "--out", str(runs)]
    done = subprocess.run(  # noqa: S603 -- this interpreter, the repository's examples
        command, cwd=ROOT, capture_output=True, text=True, check=False
    )
    trace = runs / f"{explored.run}.jsonl"
    if done.returncode not in (0, 1) or not trace.exists():
        raise SystemExit(f"{' '.join(command)} wrote no {trace.name}:\n{done.stdout}{done.stderr}")
    out = explored.out
    out.parent.mkdir(parents=True, exist_ok=True)
    write_view(trace, out, size=SIZE)
    return out


def sweep() -> Path:
    """``benchmarks/sweep.py --max 256 --plot docs/images/sweep.png``, in this process."""
    script = runpy.run_path(str(ROOT / "benchmarks" / "sweep.py"))
    counts: dict[str, list[Any]] = {}
    for case in script["CASES"]:
        for n in (8, 16, 32, 64, 128, 256):
            total, bound = script["measure"](case, n)
            counts.setdefault(case.algorithm, []).append((n, total, bound))
    script["plot"](counts, str(SWEEP))
    return SWEEP


def main(wanted: list[str]) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    jobs: list[tuple[str, Callable[[Path], Path]]] = [
        (p.name, lambda folder, p=p: draw(p, folder)) for p in PICTURES
    ]
    jobs += [(e.name, lambda folder, e=e: explore(e, folder)) for e in EXPLORED]
    jobs.append(("sweep", lambda folder: sweep()))
    with tempfile.TemporaryDirectory() as folder:
        for name, make in jobs:
            if wanted and not any(w in name for w in wanted):
                continue
            began = time.monotonic()
            out = make(Path(folder))
            sys.stdout.write(f"wrote {out.relative_to(ROOT)} ({time.monotonic() - began:.1f} s)\n")


if __name__ == "__main__":
    main(sys.argv[1:])
