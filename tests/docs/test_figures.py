"""The figures the docs' prose quotes are the program's: each names the command that gives
it, which runs here, and the text must show what it prints (``tests/docfigures.py`` says
how the comments are written).  Every figure must be tied so, or say it is a measurement
(how, when) or cited (from where).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.docblocks import ROOT, copy_repository, pages
from tests.docfigures import (
    FigureError,
    Marker,
    Paragraph,
    figures,
    fill,
    parse_marker,
    read_paragraphs,
    run_command,
    spans,
    uncovered,
)

#: How long one figure's command may run.
COMMAND_TIMEOUT = 300.0


def _paragraphs() -> Iterator[Paragraph]:
    for path in pages():
        yield from read_paragraphs(path)


def _collect() -> Iterator[Any]:
    for path in pages():
        name = path.relative_to(ROOT).as_posix()
        try:
            paragraphs = read_paragraphs(path)
        except FigureError as exc:
            yield pytest.param(None, str(exc), id=f"{name}:figures")
            continue
        for paragraph in paragraphs:
            if any(m.kind in ("checked", "slow") for m in paragraph.markers):
                slow = any(m.kind == "slow" for m in paragraph.markers)
                marks = [pytest.mark.slow] if slow else []
                yield pytest.param(paragraph, "", id=paragraph.where, marks=marks)


class Outputs:
    """Each command's output, run once a session in one scratch copy of the repository
    (several figures often come from one command)."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.seen: dict[str, str] = {}

    def __call__(self, command: str) -> str:
        if command not in self.seen:
            self.seen[command] = run_command(command, self.scratch, COMMAND_TIMEOUT)
        return self.seen[command]


@pytest.fixture(scope="session")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Outputs]:
    scratch = copy_repository(tmp_path_factory.mktemp("figures"))
    yield Outputs(scratch)
    shutil.rmtree(scratch, ignore_errors=True)


def _filled(paragraph: Paragraph, outputs: Outputs) -> dict[Marker, tuple[str, ...]]:
    return {
        marker: tuple(fill(template, outputs(marker.command)) for template in marker.texts)
        for marker in paragraph.markers
        if marker.kind in ("checked", "slow")
    }


@pytest.mark.timeout(900)
@pytest.mark.parametrize(("paragraph", "error"), list(_collect()))
def test_figure(paragraph: Paragraph | None, error: str, outputs: Outputs) -> None:
    """Each checked figure, filled in from its command's output, is in its paragraph."""
    assert paragraph is not None, error
    filled = _filled(paragraph, outputs)
    for marker, texts in filled.items():
        for template, text in zip(marker.texts, texts, strict=True):
            assert spans(paragraph.text, text), (
                f"{marker.where}: `{marker.command}` now gives {text!r} ({template!r}); "
                f"the paragraph says:\n{paragraph.text}"
            )
    missing = uncovered(paragraph, filled)
    assert not missing, f"{paragraph.where}: figures no marker stands for: {missing}"


def test_every_figure_names_its_source() -> None:
    """A figure in the prose with no marker at all: say which command gives it (or that it
    is measured, or cited)."""
    problems = []
    for path in pages():
        try:
            paragraphs = read_paragraphs(path)
        except FigureError:
            continue  # test_figure reports it
        for paragraph in paragraphs:
            if any(m.kind in ("checked", "slow") for m in paragraph.markers):
                continue  # test_figure checks it with its templates filled in
            missing = uncovered(paragraph, {})
            if missing:
                problems.append(f"{paragraph.where}: {missing}")
    assert not problems, "figures with no <!-- figure: … --> marker:\n" + "\n".join(problems)


# --- the checker itself -------------------------------------------------------------------


def _paragraph(text: str, *markers: Marker) -> Paragraph:
    return Paragraph("x.md", 1, " ".join(text.split()), markers)


def test_figures_are_found_in_prose() -> None:
    found = [
        text
        for _, _, text in figures(
            _paragraph(
                "It gives 12 to 13 messages, under kM + N − 1 = 20; 3n − 1 messages; "
                "1,352 states, 248 end states, 650 bytes and about 600 MB; `--nodes 3 states`"
            )
        )
    ]
    assert found == [
        "12 to 13 messages",
        "1 = 20",
        "1,352 states",
        "248 end states",
        "650 bytes",
        "600 MB",
    ]


def test_a_marker_covers_only_what_it_fills_in() -> None:
    marker = parse_marker(
        '`ringleader x --json` "{messages[min]} to {messages[max]} messages"', "x", 1
    )
    assert marker.kind == "checked" and marker.command == "ringleader x --json"
    text = fill(marker.texts[0], '{"messages": {"min": 8, "max": 13}}')
    assert text == "8 to 13 messages"
    assert fill("{states:,} states", '{"states": 1352}') == "1,352 states"
    assert fill("{out} bytes", "98\n") == "98 bytes"
    said = _paragraph("It gives 12 to 13 messages.", marker)
    assert uncovered(said, {marker: (text,)}) == ["12 to 13 messages"]
    right = _paragraph("It gives 8 to 13 messages.", marker)
    assert uncovered(right, {marker: (text,)}) == []
    assert uncovered(_paragraph("It gives 8 to 13 messages.")) == ["8 to 13 messages"]


def test_markers_say_where_a_figure_comes_from() -> None:
    measured = parse_marker('measured `python benchmarks/explore.py` 2026-11-27 "600 MB"', "x", 1)
    assert measured.kind == "measured" and measured.source == "2026-11-27"
    cited = parse_marker('cited (the issue (its model)) "1,442 states"', "x", 1)
    assert cited.source == "the issue (its model)" and cited.texts == ("1,442 states",)
    assert parse_marker('slow `ringleader explore a.toml --json` "{states}"', "x", 1).kind == "slow"
    for wrong in (
        '"8 to 13 messages"',  # no command
        "`ringleader x`",  # no template
        'measured `python b.py` "600 MB"',  # no date
        'cited "1,442 states"',  # no source
        "cited (the issue)",  # no figure
        '`ringleader x` "a" stray',
    ):
        with pytest.raises(FigureError):
            parse_marker(wrong, "x", 1)
