"""Make every picture of the docs, into docs/images/, from seeded simulator runs.

    python docs/make_pictures.py            # all of them (about half a minute)
    python docs/make_pictures.py bully      # those whose name contains "bully"

Each picture is a run of an example in the deterministic simulator with a fixed seed,
traced, then drawn as ``ringleader diagram`` draws it (1920×1080, for a projector); the
sweep is ``benchmarks/sweep.py``'s picture up to n = 256.  The same seed gives the same
run, so the pictures change only when the code does.  Pages name a picture with
``<!-- picture: ../images/NAME.png "what it shows" -->``.
"""

from __future__ import annotations

import runpy
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
IMAGES = ROOT / "docs" / "images"
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Picture:
    """``name``.png: ``example`` (with ``overrides``) run in the simulator with ``seed``,
    drawn with ``options`` (``time_axis``, ``size``)."""

    name: str
    example: str | None
    seed: int = 0
    overrides: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)


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
]


def draw(picture: Picture, folder: Path) -> Path:
    config = load_config(
        None if picture.example is None else EXAMPLES / picture.example,
        Overrides(**picture.overrides),
    )
    trace = folder / f"{picture.name}.jsonl"
    ringleader.run(config, simulate=True, seed=picture.seed, trace=trace)
    out = IMAGES / f"{picture.name}.png"
    write_view(trace, out, **picture.options)
    return out


def sweep() -> Path:
    """``benchmarks/sweep.py --max 256 --plot docs/images/sweep.png``, in this process."""
    script = runpy.run_path(str(ROOT / "benchmarks" / "sweep.py"))
    counts: dict[str, list[Any]] = {}
    for case in script["CASES"]:
        for n in (8, 16, 32, 64, 128, 256):
            total, bound = script["measure"](case, n)
            counts.setdefault(case.algorithm, []).append((n, total, bound))
    out = IMAGES / "sweep.png"
    script["plot"](counts, str(out))
    return out


def main(wanted: list[str]) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    jobs: list[tuple[str, Callable[[Path], Path]]] = [
        (p.name, lambda folder, p=p: draw(p, folder)) for p in PICTURES
    ]
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
