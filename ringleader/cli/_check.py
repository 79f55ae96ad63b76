"""``ringleader check``: a config validated and sized, and what it would run."""

from __future__ import annotations

import argparse
from typing import Any

from ._arguments import add_config_arguments, add_force_argument, load
from ._exits import EXIT_OK
from ._output import out, print_json

__all__ = ["add_check_command"]


def add_check_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "check",
        help="validate a config and show what it would run",
        description="Validate CONFIG (and the overrides) without starting anything; "
        "show the wiring, the algorithm, the expected leader and message count.",
    )
    add_config_arguments(parser)
    add_force_argument(parser, "show the wiring")
    parser.set_defaults(handler=_check)
    return parser


def _check(args: argparse.Namespace) -> int:
    from ringleader.cluster import size_up  # noqa: PLC0415

    from ._render import check_summary, print_check  # noqa: PLC0415

    config = load(args)
    size = size_up(config, force=args.force)
    summary = check_summary(config, size)
    if args.json:
        print_json(summary)
    else:
        print_check(out(), summary)
    return EXIT_OK
