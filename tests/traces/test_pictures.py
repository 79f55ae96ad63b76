"""Pictures that need no colour, and every picture of the docs made by one script at
lecture size.

The palette is checked as a colour-blind viewer sees it: each colour is passed through
Machado, Oliveira & Fernandes (2009)'s simulation of protanopia, deuteranopia and
tritanopia (severity 1, on linear RGB), and any two colours a picture may show together
must stay at least :data:`MIN_DELTA_E` apart in CIELAB (ΔE*ab, CIE 1976).
"""

from __future__ import annotations

import itertools
import math
import re
import runpy
import struct
from pathlib import Path
from typing import Any

import pytest

from ringleader.traces import write_view
from ringleader.traces._palette import KIND_COLOURS, KIND_LINES, OTHER_COLOURS
from ringleader.traces._words import message_label
from tests.paths import ROOT
from tests.sample_traces import example_trace, run_trace

#: Machado et al. (2009), "A Physiologically-based Model for Simulation of Color Vision
#: Deficiency", IEEE TVCG 15(6), table of matrices at severity 1.0.
CVD = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
#: The least ΔE*ab between two colours shown together, for every viewer.  About 2.3 is
#: just noticeable; 20 is two colours nobody takes for one.
MIN_DELTA_E = 20.0


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _lab(rgb: list[float]) -> tuple[float, float, float]:
    """Linear sRGB (D65) → CIELAB."""
    r, g, b = (min(1.0, max(0.0, c)) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def seen(colour: str, viewer: str) -> tuple[float, float, float]:
    """``colour`` (``#rrggbb``) as ``viewer`` sees it, in CIELAB."""
    rgb = [_linear(int(colour[i : i + 2], 16)) for i in (1, 3, 5)]
    matrix = CVD[viewer]
    return _lab([sum(matrix[i][j] * rgb[j] for j in range(3)) for i in range(3)])


def too_close(colours: dict[str, str]) -> list[str]:
    """Every two of ``colours`` (name → colour) closer than :data:`MIN_DELTA_E` for some
    viewer, and how close, closest first."""
    pairs = [
        (math.dist(seen(colours[a], viewer), seen(colours[b], viewer)), a, b, viewer)
        for viewer in CVD
        for a, b in itertools.combinations(colours, 2)
    ]
    return [
        f"{a}/{b} ({viewer}): ΔE {d:.1f}" for d, a, b, viewer in sorted(pairs) if d < MIN_DELTA_E
    ]


def test_the_message_colours_stay_apart_for_the_colour_blind() -> None:
    # The simulation first, on what it is known to do: pure red as a protanope sees it
    # is a dark olive; a tritanope can hardly tell Okabe–Ito's blue from its bluish green.
    assert seen("#ff0000", "normal") == pytest.approx((53.24, 80.09, 67.20), abs=0.05)
    protan = seen("#ff0000", "protanopia")
    assert protan[0] < 45 and abs(protan[1]) < 10
    blue_green = math.dist(seen("#0072B2", "tritanopia"), seen("#009E73", "tritanopia"))
    assert blue_green < math.dist(seen("#0072B2", "normal"), seen("#009E73", "normal")) / 3
    # Every colour the notes' kinds have, and the first one for a kind of your own (it
    # is drawn beside the notes' elected: examples/your_algorithm/).
    shown: dict[str, str] = {}
    for kind, colour in KIND_COLOURS.items():
        if colour not in shown.values():
            shown[kind] = colour
    shown["(your own kind)"] = OTHER_COLOURS[0]
    assert not too_close(shown)


def test_kinds_that_share_a_colour_share_their_part_and_no_two_parts_a_line() -> None:
    by_colour: dict[str, set[tuple[tuple[float, ...], float]]] = {}
    for kind, colour in KIND_COLOURS.items():
        by_colour.setdefault(colour, set()).add(KIND_LINES[kind])
    assert all(len(lines) == 1 for lines in by_colour.values())
    lines = [next(iter(v)) for v in by_colour.values()]
    assert len(set(lines)) == len(lines)  # told apart without any colour at all


def test_an_arrow_says_its_kind_and_what_it_carries() -> None:
    def send(kind: str, **fields: object) -> dict[str, object]:
        return {"event": "send", "kind": kind, "fields": fields}

    p5 = {"id": 5, "capacity": 5}
    assert message_label(send("election", candidate=p5)) == "election(P5)"
    assert message_label(send("elected", leader=p5)) == "elected(P5)"
    probe = send("probe", candidate=p5, phase=1, hop=2, direction=-1)
    assert message_label(probe) == "probe(P5 φ1 d2)"
    assert message_label(send("reply", candidate=p5, phase=1, direction=1)) == "reply(P5 φ1)"
    assert message_label(send("rep", wave={"id": 3}, best=p5)) == "rep(P5 wave P3)"
    assert message_label(send("ok")) == "ok"


def _svg(tmp_path: Path, text: str, name: str) -> str:
    trace = tmp_path / f"{name}.jsonl"
    trace.write_text(text, encoding="utf-8")
    out = tmp_path / f"{name}.svg"
    write_view(trace, out)
    return out.read_text(encoding="utf-8")


def test_election_and_elected_differ_by_line_and_label_not_only_colour(tmp_path: Path) -> None:
    svg = _svg(tmp_path, example_trace("chang_roberts_table"), "table")
    assert ">election(P5)<" in svg and ">elected(P5)<" in svg
    # The arrows' lines: the candidacies solid, the announcement dashed.
    dashes: dict[str, set[str]] = {}
    for style in re.findall(r'style="(fill: none;[^"]*)"', svg):
        stroke = re.search(r"stroke: (#[0-9a-f]{6})", style)
        if stroke:
            dash = re.search(r"stroke-dasharray: ([^;]*)", style)
            dashes.setdefault(stroke.group(1), set()).add(dash.group(1) if dash else "solid")
    assert dashes[KIND_COLOURS["election"].lower()] == {"solid"}
    assert "solid" not in dashes[KIND_COLOURS["elected"].lower()]


def test_hirschberg_sinclair_arrows_carry_candidate_and_phase(tmp_path: Path) -> None:
    svg = _svg(tmp_path, example_trace("two_way_ring"), "hs")
    assert re.search(r">probe\(P\d φ\d d\d\)<", svg)
    assert re.search(r">reply\(P\d φ\d\)<", svg)


def test_no_leader_yet_and_an_extinction_have_different_marks(tmp_path: Path) -> None:
    svg = _svg(tmp_path, run_trace("ring_crash"), "crash")
    assert "extinction: a candidacy swallowed here" in svg
    assert "no leader yet (elected = ⊥)" in svg


# --- every picture of the docs, from docs/make_pictures.py, at lecture size ----------

DOCS = ROOT / "docs"
#: Wide enough to read when projected (a projector's 1920 and most in between).
LECTURE_WIDTH = 1600
_NAMED = re.compile(
    r"!\[[^\]]*\]\((?P<image>[^)\s]+\.png)\)|<!--\s*picture:\s*(?P<picture>\S+\.png)\s"
)


_CODE = re.compile(r"^```.*?^```|`[^`\n]*`", re.S | re.M)


def _script() -> dict[str, Any]:
    return runpy.run_path(str(DOCS / "make_pictures.py"), run_name="make_pictures")


def _named() -> dict[Path, str]:
    """Every PNG a page of the docs (or the README) shows, and the page."""
    named: dict[Path, str] = {}
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        text = _CODE.sub("", page.read_text(encoding="utf-8"))  # code shows, not pictures
        for match in _NAMED.finditer(text):
            path = match["image"] or match["picture"]
            if "://" not in path:
                named[(page.parent / path).resolve()] = str(page.relative_to(ROOT))
    return named


def _width(png: Path) -> int:
    header = png.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", png
    return int(struct.unpack(">I", header[16:20])[0])


def test_the_script_makes_every_picture_the_docs_show() -> None:
    made = {path.resolve() for path in _script()["outputs"]()}
    named = _named()
    assert named, "no pictures found in the docs"
    missing = sorted(
        f"{path.relative_to(ROOT)} ({page})" for path, page in named.items() if path not in made
    )
    assert not missing, f"shown but not made by docs/make_pictures.py: {missing}"
    stale = sorted(str(p.relative_to(ROOT)) for p in DOCS.rglob("*.png") if p.resolve() not in made)
    assert not stale, f"PNGs under docs/ that docs/make_pictures.py does not make: {stale}"


def test_every_picture_of_the_docs_is_lecture_size() -> None:
    narrow = sorted(
        f"{png.relative_to(ROOT)}: {_width(png)} px"
        for png in DOCS.rglob("*.png")
        if _width(png) < LECTURE_WIDTH
    )
    assert not narrow, f"narrower than {LECTURE_WIDTH} px: {narrow}"
