"""The figures quoted in the docs' prose, each tied to the command that produces it (for
``tests/docs/test_figures.py``).

A code block's output is checked line by line (``docblocks.py``); a figure in a sentence
("gives 8 to 13 messages", "1,352 states", "about 360 bytes a state") is tied to its
source by a comment in the same paragraph, invisible on the site:

- ``<!-- figure: `COMMAND` "TEMPLATE" "TEMPLATE" … -->``: checked.  ``COMMAND`` runs (by
  bash, from the root of a scratch copy of the repository, like a ``sh`` block); what it
  prints, if it is a JSON object, gives each key as a name (``{messages[min]}``,
  ``{states:,}`` with Python's format rules), and ``{out}`` is the whole output.  Each
  template, filled in, must be found in the paragraph: a change in the program's output
  fails the test until the text follows.
- ``<!-- figure: slow `COMMAND` "TEMPLATE" … -->``: the same, for a command that takes
  more than a few seconds (pytest's ``slow`` mark).
- ``<!-- figure: measured `COMMAND` DATE "TEXT" … -->``: a measurement (a time, a peak
  of memory: it depends on the machine); not checked, but it names how and when it was
  made.  Without a ``"TEXT"`` it stands for every figure of its paragraph.
- ``<!-- figure: cited (SOURCE) "TEXT" … -->``: a figure that is not the program's (the
  notes', a standard's, another project's), and where it comes from.

A paragraph is a run of non-blank lines outside fenced blocks (a table is one), its
comments left out but for a picture's (its caption is shown); a marker may stand on a
line of its own in it or at the end of a line.  Every figure the
paragraph quotes (see :data:`FIGURE`: counts of messages, states, bytes; sizes; a
formula's value) must be covered by one of its markers' texts.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .docblocks import ROOT, environment

KINDS = ("checked", "slow", "measured", "cited")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
#: A marker (not one shown as code: `` <!-- figure: … --> ``).
_MARKER = re.compile(r"(?<!`)(?<!`` )<!--\s*figure:\s*(?P<body>.*?)\s*-->")
_COMMAND = re.compile(r"^`(?P<command>[^`]+)`\s*(?P<rest>.*)$", re.DOTALL)
_QUOTED = re.compile(r'"(?P<text>(?:[^"\\]|\\.)*)"')
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CITED = re.compile(r"^\((?P<source>[^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?P<rest>.*)$", re.DOTALL)
_NUMBER = r"(?<![\w.,−+-])(?<![−+-] )\d[\d,]*(?:\.\d+)?"
#: What counts as a quoted figure: a count of messages, states or bytes (a range too), a
#: size in kB, MB or GB, millions of something, and the value of a formula
#: (``kM + N − 1 = 20``).
FIGURE = re.compile(
    rf"(?:{_NUMBER}\s?(?:to|–|-|or|and)\s?)?{_NUMBER}\s?"
    r"(?:(?:end )?states\b|messages\b|bytes\b|[kMG]B\b|million\b|times the\b)"
    r"|(?<=[−+*·/²]) ?\w*\)? ?= ?\d[\d,]*(?:\.\d+)?"
)
_CODE_SPAN = re.compile(r"`[^`]*`")
#: Comments the site does not show (a picture's comment is shown: its caption).
_HIDDEN = re.compile(r"<!--(?!\s*picture:).*?-->")


class FigureError(ValueError):
    """A ``<!-- figure: … -->`` comment this module cannot read."""


@dataclass(frozen=True)
class Marker:
    page: str
    line: int
    kind: str  #: one of :data:`KINDS`
    command: str  #: empty for cited
    texts: tuple[str, ...]  #: templates (checked, slow) or the figures' texts
    source: str = ""  #: cited: where from; measured: the date

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass(frozen=True)
class Paragraph:
    page: str
    line: int  #: its first line, from 1
    text: str  #: its lines joined by single spaces, markers left out
    markers: tuple[Marker, ...]

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def parse_marker(body: str, page: str, line: int) -> Marker:
    where = f"{page}:{line}"
    kind = "checked"
    for word in ("slow", "measured", "cited"):
        if body.startswith(word + " "):
            kind, body = word, body[len(word) :].strip()
    if kind == "cited":
        cited = _CITED.match(body)
        if cited is None or not cited["source"].strip():
            raise FigureError(f'{where}: write <!-- figure: cited (SOURCE) "TEXT" -->')
        texts = _texts(cited["rest"], where)
        if not texts:
            raise FigureError(f"{where}: cited: quote the figures it stands for")
        return Marker(page, line, kind, "", texts, cited["source"].strip())
    command = _COMMAND.match(body)
    if command is None:
        raise FigureError(f"{where}: a figure names the command that gives it, in `…`")
    rest = command["rest"]
    source = ""
    if kind == "measured":
        date = _DATE.match(rest)
        if date is None:
            raise FigureError(f"{where}: measured: say when, YYYY-MM-DD after the command")
        source, rest = date.group(), rest[date.end() :]
    texts = _texts(rest, where)
    if kind in ("checked", "slow") and not texts:
        raise FigureError(f'{where}: give the figure\'s text as "TEMPLATE"')
    return Marker(page, line, kind, command["command"], texts, source)


def _texts(rest: str, where: str) -> tuple[str, ...]:
    texts = tuple(m["text"].replace('\\"', '"') for m in _QUOTED.finditer(rest))
    if _QUOTED.sub("", rest).strip():
        raise FigureError(f"{where}: unexpected {_QUOTED.sub('', rest).strip()!r}")
    return texts


def read_paragraphs(path: Path) -> list[Paragraph]:
    """``path``'s prose, paragraph by paragraph, each with its figure markers."""
    page = path.relative_to(ROOT).as_posix()
    paragraphs: list[Paragraph] = []
    lines: list[str] = []
    markers: list[Marker] = []
    start = 0
    fence = ""

    def close() -> None:
        if lines or markers:
            text = " ".join(" ".join(lines).split())
            paragraphs.append(Paragraph(page, start, text, tuple(markers)))
        lines.clear()
        markers.clear()

    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        opening = _FENCE.match(line)
        if fence:
            if opening and opening[1][0] == fence[0] and len(opening[1]) >= len(fence):
                fence = ""
            continue
        if opening:
            close()
            fence = opening[1]
            continue
        if not line.strip():
            close()
            continue
        if not lines and not markers:
            start = number
        for found in _MARKER.finditer(line):
            markers.append(parse_marker(found["body"], page, number))
        rest = _HIDDEN.sub("", line)
        if rest.strip():
            lines.append(rest)
    close()
    return paragraphs


def figures(paragraph: Paragraph) -> list[tuple[int, int, str]]:
    """Where ``paragraph`` quotes a figure (code spans aside): (start, end, text)."""
    text = _CODE_SPAN.sub(lambda m: " " * len(m.group()), paragraph.text)
    found = []
    for m in FIGURE.finditer(text):
        lead = len(m.group()) - len(m.group().lstrip())
        found.append((m.start() + lead, m.end(), m.group().strip()))
    return found


def fill(template: str, output: str) -> str:
    """``template`` with the names a command's ``output`` gives (see the module)."""
    names: dict[str, Any] = {}
    try:
        value = json.loads(output)
    except json.JSONDecodeError:
        value = None
    if isinstance(value, dict):
        names.update(value)
    names["out"] = output.strip()
    try:
        return template.format_map(names)
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise FigureError(f"{template!r}: cannot fill it from the output: {exc!r}") from None


def spans(text: str, wanted: str) -> list[tuple[int, int]]:
    """Where ``wanted`` (spaces normalised) occurs in ``text``."""
    needle = " ".join(wanted.split())
    found, at = [], text.find(needle)
    while needle and at >= 0:
        found.append((at, at + len(needle)))
        at = text.find(needle, at + 1)
    return found


def run_command(command: str, scratch: Path, timeout: float) -> str:
    """What ``command`` prints on stdout, run as a ``sh`` block is (its exit status aside:
    ``explore`` exits 1 when it finds what the page tells of); whatever it started is
    killed when it ends."""
    process = subprocess.Popen(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=scratch,
        env=environment(scratch),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{command!r}: still running after {timeout:g} s") from None
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
    if process.returncode not in (0, 1):
        raise AssertionError(
            f"{command!r} exited {process.returncode}:\n{out.decode()}{err.decode()}"
        )
    return out.decode()


def uncovered(
    paragraph: Paragraph, filled: dict[Marker, tuple[str, ...]] | None = None
) -> list[str]:
    """The figures of ``paragraph`` that none of its markers stands for; ``filled`` gives
    each checked marker's templates filled in."""
    covered: list[tuple[int, int]] = []
    whole = False
    for marker in paragraph.markers:
        texts = (filled or {}).get(marker, marker.texts)
        if marker.kind == "measured" and not texts:
            whole = True
        for text in texts:
            covered += spans(paragraph.text, text)
    if whole:
        return []
    return [
        text
        for start, end, text in figures(paragraph)
        if not any(a <= start and end <= b for a, b in covered)
    ]
