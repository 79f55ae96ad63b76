"""The ``diagram`` and ``replay`` commands: a trace file as a picture, a page, a log or a
story.  The pictures need matplotlib, imported only when one is drawn."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ringleader.errors import UsageError

from ._html import html_page
from ._narration import narrate
from ._shiviz import shiviz_log
from ._trace_file import Trace, load_trace

__all__ = ["PICTURES", "SUFFIXES", "replay", "write_view"]

SUFFIXES = (".svg", ".png", ".pdf", ".html", ".log")


PICTURES = (".svg", ".png", ".pdf")


def _draw(trace: Trace, out: Path, **options: Any) -> None:
    from ._diagram import draw_diagram  # noqa: PLC0415 — matplotlib is slow to import

    draw_diagram(trace, out, **options)


def _text(make: Callable[[Trace], str]) -> Callable[..., None]:
    def write(trace: Trace, out: Path) -> None:
        out.write_text(make(trace), encoding="utf-8")

    return write


_WRITERS: dict[str, Callable[..., None]] = {
    ".svg": _draw,
    ".png": _draw,
    ".pdf": _draw,
    ".html": _text(html_page),
    ".log": _text(shiviz_log),
}


def write_view(
    trace_file: str | Path | Trace,
    out: str | Path,
    *,
    time_axis: bool = False,
    size: tuple[int, int] | None = None,
) -> None:
    """Write ``trace_file`` (a trace file, or a :class:`Trace` already read, e.g. by
    :func:`parse_trace` from a run's lines) as ``out``, in the format ``out``'s suffix
    names.

    For a picture (svg, png, pdf): ``time_axis`` puts the events at their time in
    seconds rather than one step each; ``size`` is its width and height in pixels
    (default 1920×1080, a projector's).
    """
    out = Path(out)
    suffix = out.suffix.lower()
    writer = _WRITERS.get(suffix)
    if writer is None:
        raise UsageError(
            f"{out}: unknown format {out.suffix or '(no suffix)'!r}; "
            f"use one of {', '.join(SUFFIXES)}"
        )
    options: dict[str, Any] = {}
    if time_axis:
        options["time_axis"] = True
    if size is not None:
        options["size"] = size
    if options and suffix not in PICTURES:
        given = " and ".join(f"--{'time' if k == 'time_axis' else k}" for k in options)
        raise UsageError(f"{given}: only for a picture ({', '.join(PICTURES)}), not {suffix}")
    trace = trace_file if isinstance(trace_file, Trace) else load_trace(trace_file)
    try:
        writer(trace, out, **options)
    except OSError as exc:
        raise UsageError(f"{out}: cannot write it ({exc.strerror})") from None


def replay(
    trace_file: str | Path,
    *,
    step: bool,
    out: TextIO | None = None,
    ask: Callable[[], str] = input,
) -> None:
    """Tell the run in ``trace_file``; with ``step``, wait for ``ask`` (Enter) after each
    step, and stop when it answers ``q``."""
    out = out or sys.stdout
    trace = load_trace(trace_file)
    lines = narrate(trace.events, trace.header)
    if step:
        out.write("(Enter: the next step; q then Enter: stop)\n")
    for number, line in enumerate(lines):
        out.write(line + "\n")
        out.flush()
        if step and 0 < number < len(lines) - 1:
            try:
                if ask().strip().lower() == "q":
                    return
            except EOFError:
                step = False
