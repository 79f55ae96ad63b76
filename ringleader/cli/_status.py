"""``ringleader status``: every node of a running cluster asked who it thinks leads."""

from __future__ import annotations

import argparse
from typing import Any

from ringleader.topologies import load_config

from ._arguments import positive_float
from ._exits import EXIT_FAILED, EXIT_OK
from ._output import out, print_json

__all__ = ["add_status_command"]


def add_status_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "status",
        help="ask every node of CONFIG who it thinks leads",
        description="Ask every node of CONFIG over the cluster's authenticated wire for its "
        "view (state, leader, epoch, incarnation, counters) and print a table.",
        epilog="Exit status: 0 every node answered and all agree on one live leader; 1 not.",
    )
    parser.add_argument("config", metavar="CONFIG", help="the cluster's TOML config")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--timeout", type=positive_float, default=2.0, metavar="S", help="wait S s for answers"
    )
    parser.set_defaults(handler=_status)
    return parser


def _status(args: argparse.Namespace) -> int:
    from ringleader.service import ask_status, status_summary  # noqa: PLC0415

    config = load_config(args.config)
    answers = ask_status(config, timeout=args.timeout)
    summary = status_summary(config, answers)
    if args.json:
        print_json(summary)
    else:
        from ._render import print_status  # noqa: PLC0415

        print_status(out(), summary)
    return EXIT_OK if summary["agreed"] else EXIT_FAILED
