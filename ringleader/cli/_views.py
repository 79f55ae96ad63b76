"""``ringleader diagram`` and ``ringleader replay``: a trace (JSON lines) drawn as a
picture, a page or a log, or told step by step in the notes' words."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._exits import EXIT_OK
from ._output import out

__all__ = ["add_view_commands"]


def add_view_commands(commands: Any) -> list[argparse.ArgumentParser]:
    """``diagram`` and ``replay``: a trace (JSON lines) as a picture, a page, or a story."""
    diagram = commands.add_parser(
        "diagram",
        help="draw a trace: space-time diagram (svg/png/pdf), step-through page, ShiViz log",
        description="Draw TRACE (the JSON lines a traced run writes) into OUT; the format "
        "comes from OUT's suffix: .svg, .png or .pdf a space-time diagram (a line per "
        "node, an arrow per message); .html one self-contained page stepping through the "
        "run event by event (buttons, arrow keys, slider); .log a ShiViz log "
        "(https://bestchai.bitbucket.io/shiviz/).",
        epilog="Example: ringleader diagram run.jsonl -o run.svg",
    )
    diagram.add_argument("trace", metavar="TRACE", help="a trace file (JSON lines)")
    diagram.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the file to write: .svg .png .pdf .html .log",
    )
    diagram.add_argument(
        "--time",
        action="store_true",
        help="a picture: the events at their time in seconds (real, or virtual in the "
        "simulator) along the x axis, rather than one step each in the order they happened",
    )
    diagram.add_argument(
        "--size",
        type=_size,
        metavar="WxH",
        help="a picture: its width and height in pixels; fonts grow with the height "
        "(default 1920x1080, a projector's)",
    )
    replay = commands.add_parser(
        "replay",
        help="tell a traced run step by step, in the course notes' words",
        description="Tell the run in TRACE one step per line, as the notes tell it (who "
        "sends election to whom, who rejects, who proclaims itself). On a terminal it waits "
        "for Enter between steps (q then Enter to quit); into a pipe it prints everything.",
        epilog="Example: ringleader replay run.jsonl --no-step | less",
    )
    replay.add_argument("trace", metavar="TRACE", help="a trace file (JSON lines)")
    replay.add_argument(
        "--no-step", action="store_true", help="print every step at once, without waiting"
    )
    diagram.set_defaults(handler=_diagram)
    replay.set_defaults(handler=_replay)
    return [diagram, replay]


def _size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT in pixels, e.g. 1920x1080")
    size = int(width), int(height)
    if not (320 <= size[0] <= 10000 and 240 <= size[1] <= 10000):
        raise argparse.ArgumentTypeError(f"{text!r}: from 320x240 to 10000x10000 pixels")
    return size


def _diagram(args: argparse.Namespace) -> int:
    from ringleader.traces import write_view  # noqa: PLC0415

    write_view(args.trace, args.output, time_axis=args.time, size=args.size)
    out().print(f"wrote {args.output}")
    return EXIT_OK


def _replay(args: argparse.Namespace) -> int:
    from ringleader.traces import replay  # noqa: PLC0415

    step = not args.no_step and sys.stdin.isatty() and sys.stdout.isatty()
    replay(args.trace, step=step)
    return EXIT_OK
