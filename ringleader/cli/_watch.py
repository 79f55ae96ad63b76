"""``ringleader watch``: follow a running cluster's leader, epoch and lease as they change."""

from __future__ import annotations

import argparse
import signal
import time
from typing import TYPE_CHECKING, Any

from ringleader.topologies import load_config

from ._arguments import positive_float
from ._exits import EXIT_FAILED, EXIT_OK
from ._output import out, print_json

if TYPE_CHECKING:
    from ringleader.service import Watched

__all__ = ["add_watch_command"]


def add_watch_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "watch",
        help="follow CONFIG's leader, epoch and lease as they change",
        description="Watch every node of CONFIG over the cluster's authenticated wire (as "
        "ringleader status does, but subscribed: each node tells of each change of its "
        "leader, epoch or lease as it happens) and print one line per change: who leads, in "
        "which epoch, whether its lease is held, and which nodes answer.  A node down only "
        "leaves the line's 'heard'; the watcher never votes.  Ctrl-C ends it.",
        epilog="Exit status: --once: 0 a leader holds its lease, 1 not (nobody answered, or "
        "no leader holds a lease); otherwise 0 once --timeout ran out, 130 when interrupted "
        "(Ctrl-C, SIGTERM).",
    )
    parser.add_argument("config", metavar="CONFIG", help="the cluster's TOML config")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per line (per change)"
    )
    parser.add_argument(
        "--once",
        action="store_true",
        help="print who leads now (as soon as a leader holding its lease, or every node, "
        "answers) and exit",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=None,
        metavar="S",
        help="stop after S s (with --once: the longest to wait for an answer, default 2)",
    )
    parser.add_argument(
        "--renew",
        type=positive_float,
        default=0.25,
        metavar="S",
        help="renew the watch on each node every S s; a node silent for 3 renewals no "
        "longer counts (default 0.25)",
    )
    parser.add_argument(
        "--key",
        metavar="FILE",
        help="watch with the cluster's read-only watch key in FILE (the nodes' "
        "watch_secret_file) instead of the cluster secret",
    )
    parser.set_defaults(handler=_watch)
    return parser


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM ends a watch as Ctrl-C does


def _watch(args: argparse.Namespace) -> int:
    from ringleader.service import Observer  # noqa: PLC0415

    config = load_config(args.config)
    show = _printer(args.json)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with Observer(config, renew=args.renew, key=args.key) as observer:
            if args.once:
                seen = observer.wait(2.0 if args.timeout is None else args.timeout)
                if seen is not None:
                    show(seen)
                return EXIT_OK if seen is not None and seen.held else EXIT_FAILED
            for change in observer.changes(timeout=args.timeout):
                show(change)
            return EXIT_OK
    finally:
        signal.signal(signal.SIGTERM, previous)


def _printer(as_json: bool) -> Any:
    if as_json:

        def show_json(seen: Watched) -> None:
            print_json(seen.as_dict())

        return show_json
    console = out()

    def show(seen: Watched) -> None:
        console.print(describe_watched(seen))

    return show


def describe_watched(seen: Watched) -> str:
    """One line: ``22:41:03.123  leader 3  epoch 7  lease held  heard 1,2,3``."""
    clock = (
        time.strftime("%H:%M:%S", time.localtime(seen.at)) + f".{int(seen.at * 1000) % 1000:03d}"
    )
    leader = "nobody" if seen.leader is None else str(seen.leader)
    heard = ",".join(str(n) for n in seen.heard) or "none"
    return f"{clock}  leader {leader}  epoch {seen.epoch}  lease {seen.lease}  heard {heard}"
