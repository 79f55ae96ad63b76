"""Make every picture of the docs (every PNG under docs/) from seeded, deterministic runs.

    python docs/make_pictures.py            # all of them (a few minutes)
    python docs/make_pictures.py bully      # those whose name contains "bully"

Each picture in docs/images/ and docs/faults/ is a run of an example in the deterministic
simulator with a fixed seed (``ringleader run --simulate --seed``), traced; each in
docs/explore/ is a run ``ringleader explore`` wrote (the explorer is deterministic: the
same config, the same runs); each in docs/lab/ is ``ringleader lab``'s page, served in
this process and shown in headless Chromium at a state the explorer found or auto-play
reached.  Each is drawn as ``ringleader diagram`` draws it, at
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
from dataclasses import dataclass, field, replace
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


@dataclass(frozen=True)
class LabShot:
    """``lab/name``.png: ``ringleader lab example`` (with ``overrides`` and the
    explorer's ``options``) in headless Chromium at 1920×1080, at the end of the
    explorer's run ``run`` (a check's name), or after ``steps`` steps of round-robin
    auto-play; ``service``: stepped as a service runs it, with these faults
    (``ServiceOptions``' counts)."""

    name: str
    example: str
    steps: int = 0
    run: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    folder: str = "lab"
    service: dict[str, int] | None = None

    @property
    def out(self) -> Path:
        return DOCS / self.folder / f"{self.name}.png"


#: docs/tutorials/lab.md: the lab on each of the notes' algorithms, and on a student's.
LABS = [
    LabShot("chang-roberts", "chang_roberts_table.toml", steps=8),
    LabShot("lelann", "lelann.toml", steps=8),
    LabShot("hirschberg-sinclair", "explore/hirschberg_sinclair.toml", steps=10),
    LabShot("tree", "tree.toml", steps=8),
    LabShot("echo", "graph.toml", steps=8),
    LabShot("bully", "bully_story.toml", run="crashed_leader", options={"crashes": 1}),
    LabShot(
        "bully-broadcast",
        "explore/bully.toml",
        steps=6,
        overrides={"algorithm": "bully_broadcast"},
    ),
    LabShot("hasty", "your_algorithm/ring.toml", run="two_leaders"),
    LabShot("service", "service/cluster.toml", run="settled", service={"crashes": 1, "losses": 1}),
]

#: The sweep's picture (``benchmarks/sweep.py``).
SWEEP = IMAGES / "sweep.png"


def outputs() -> list[Path]:
    """Every picture this script makes."""
    return [p.out for p in PICTURES] + [e.out for e in EXPLORED] + [s.out for s in LABS] + [SWEEP]


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


def lab(shot: LabShot, folder: Path) -> Path:
    """The lab's page at the shot's state, in headless Chromium (``/usr/bin/chromium``
    and its driver, with selenium: ``tests/browser.py`` says how to install them)."""
    from selenium import webdriver  # noqa: PLC0415 -- only this step needs a browser
    from selenium.webdriver.chrome.service import Service  # noqa: PLC0415

    from ringleader.actors.exploration.service import ServiceOptions, search  # noqa: PLC0415
    from ringleader.cluster import explore_config, explore_options, service_model  # noqa: PLC0415
    from ringleader.lab import Lab, ServiceLab, start  # noqa: PLC0415

    config = load_config(EXAMPLES / shot.example, Overrides(**shot.overrides))
    # The page shows the config as a reader would name it, from the repository's top.
    config = replace(config, source=str((EXAMPLES / shot.example).relative_to(ROOT)))
    session: Lab | ServiceLab
    if shot.service is not None:
        model = service_model(config, ServiceOptions(**shot.service))
        session = ServiceLab(config, search(model, max_states=20_000))
    else:
        options = explore_options(config, **shot.options)
        session = Lab(config, explore_config(config, options, max_states=20_000))
    if shot.run is not None:
        path = next(f["path"] for f in session.findings if f["name"] == shot.run)
    else:
        steps: list[int] = []
        for _ in range(shot.steps):
            following = session.view(steps, policy="round_robin")["next"]
            if following is None:
                break
            steps.append(following)
        path = ".".join(map(str, steps))
    server, thread = start(session)
    chrome = webdriver.ChromeOptions()
    chrome.binary_location = "/usr/bin/chromium"
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--user-data-dir={folder / ('chromium-' + shot.name)}",
    ):
        chrome.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=chrome)
    try:
        width, height = SIZE
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        driver.get(f"{server.url}#path={path}")
        deadline = time.monotonic() + 30
        while driver.execute_script("return document.body.dataset.ready") != path:
            if time.monotonic() > deadline:
                raise SystemExit(f"lab {shot.name}: the page never showed path {path!r}")
            time.sleep(0.05)
        # Two frames more: the story's list scrolls to its last line once laid out.
        driver.execute_async_script(
            "requestAnimationFrame(() => requestAnimationFrame(arguments[0]))"
        )
        out = shot.out
        out.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(out))
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
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
    jobs += [(f"lab-{s.name}", lambda folder, s=s: lab(s, folder)) for s in LABS]
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
