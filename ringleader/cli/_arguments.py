"""The arguments several commands share, and the types that read them: a config and
its overrides, a trace, ``--force``; node ids, seconds, counts.  A value that does not
parse is one line and exit status 2 (argparse's ``ArgumentTypeError``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from ringleader.actors import ALGORITHMS
from ringleader.errors import UsageError
from ringleader.topologies import (
    MAX_SETTING,
    TOPOLOGIES,
    TRANSPORT_NAMES,
    Config,
    Overrides,
    load_config,
)

if TYPE_CHECKING:
    from ringleader.actors.exploration import Options

__all__ = [
    "add_config_arguments",
    "add_force_argument",
    "add_happening_arguments",
    "add_trace_arguments",
    "algorithm",
    "count",
    "happenings",
    "initiators",
    "load",
    "node_ids",
    "positive_float",
    "positive_int",
]

#: ``--starts`` and ``--timers``: the explorer's ``START_RULES`` and ``TIMER_RULES``
#: (``actors/exploration/_options.py``), spelt out here so that a command other than
#: ``explore`` and ``lab`` does not import the explorer to build its parser (a tenth of
#: a second of every command's start; tests/cli/test_cli.py checks they agree).
STARTS = ("any", "first")
TIMERS = ("quiet", "any")


def initiators(text: str) -> list[int] | str:
    if text == "all":
        return text
    try:
        ids = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not 'all' or a comma-separated list of node ids, e.g. 3,5"
        ) from None
    if not ids:
        raise argparse.ArgumentTypeError("give at least one node id, e.g. 3,5")
    return ids


def node_ids(text: str) -> list[int]:
    ids = initiators(text)
    if not isinstance(ids, list):
        raise argparse.ArgumentTypeError("give node ids, e.g. 1,2,3")
    return ids


def algorithm(text: str) -> str:
    """One of the notes' algorithms, ``auto``, or ``module:Class`` (checked with the
    config: a class of one's own is imported there)."""
    if text in ("auto", *ALGORITHMS) or ":" in text:
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r} is not auto, one of {', '.join(sorted(ALGORITHMS))}, or module:Class"
    )


def _whole(at_least: int) -> Callable[[str], int]:
    """A reader of a whole number of at least ``at_least``."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = at_least - 1
        if value < at_least:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a whole number of at least {at_least}"
            )
        return value

    return read


#: A count (0 and up): crashes, losses, steps.
count = _whole(0)
#: A number of at least 1: nodes, states.
positive_int = _whole(1)


def positive_float(text: str) -> float:
    """Seconds for a timer or a socket option: at most a day (ZeroMQ takes int milliseconds)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= MAX_SETTING:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds in (0, {MAX_SETTING:g}]"
        )
    return value


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "config",
        nargs="?",
        metavar="CONFIG",
        help="a TOML config file (default: the built-in 8-node unidirectional ring)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    group = parser.add_argument_group("overrides (replace the config's values)")
    group.add_argument("--topology", choices=sorted(TOPOLOGIES), help="the wiring")
    group.add_argument(
        "--algorithm",
        type=algorithm,
        metavar="NAME",
        help=f"the election algorithm: auto (the topology's default), "
        f"{', '.join(sorted(ALGORITHMS))}, or module:Class for your own",
    )
    group.add_argument("--transport", choices=TRANSPORT_NAMES, help="how frames travel")
    group.add_argument(
        "--nodes", type=positive_int, metavar="N", help="N nodes with ids 1..N in ring order"
    )
    group.add_argument(
        "--initiators",
        type=initiators,
        metavar="IDS",
        help="'all' or comma-separated node ids, e.g. 3,5",
    )
    group.add_argument(
        "--timeout", type=positive_float, metavar="S", help="give up after S seconds (exit 1)"
    )


def add_force_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"{what} even when the size estimate (links, messages, memory, open files) "
        "says it cannot fit this machine (default: refuse it, exit 2)",
    )


def add_trace_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--trace",
        metavar="FILE",
        help=f"write {what} to FILE as JSON lines: sends, receives, timers, state changes, "
        "suspicions, crashes, restarts, with Lamport and vector clocks",
    )
    parser.add_argument(
        "--trace-heartbeats",
        action="store_true",
        help="with --trace: the failure detector's pings, pongs and timers too",
    )


def load(args: argparse.Namespace) -> Config:
    overrides = Overrides(
        topology=args.topology,
        algorithm=args.algorithm,
        transport=args.transport,
        nodes=args.nodes,
        initiators=args.initiators,
        timeout=args.timeout,
    )
    return load_config(args.config, overrides)


def add_happening_arguments(
    parser: argparse.ArgumentParser, title: str, *, restarts: bool = False
) -> None:
    """What may happen in an explored run besides the orderings (``explore`` and ``lab``
    alike): FIFO or not, when initiators wake and timers fire, and the faults;
    ``restarts``: also ``--restarts``, crashed nodes may come back (the lab's; ``explore``
    has a ``--restarts K`` of its own, for ``--service``)."""
    what = parser.add_argument_group(title)
    what.add_argument(
        "--unordered",
        action="store_true",
        help="links are not FIFO: any message in flight may be delivered next",
    )
    what.add_argument(
        "--starts",
        choices=STARTS,
        default="any",
        help="when an initiator may wake up: any (default: at any moment, as the notes "
        "let any process start at any time; a message that reaches it first draws it in "
        "and it never starts a run of its own) or first (before it handles anything, as "
        "run and --simulate do)",
    )
    what.add_argument(
        "--timers",
        choices=TIMERS,
        help="when a pending timer may fire: quiet (default: only when no message is in "
        "flight, the shortest first: the notes' synchrony assumption) or any (at any "
        "moment, even before the answer it waits for arrives)",
    )
    what.add_argument(
        "--crashes", type=count, metavar="K", help="up to K nodes crash, at any moment"
    )
    if restarts:
        what.add_argument(
            "--restarts",
            dest="restart_crashed",
            action="store_true",
            help="a crashed node may restart: it comes back as a new member that recovers, as "
            "in ringleader run --simulate, each crash at most once; needs --crashes or a crash "
            "in the config's [[faults]]",
        )
    what.add_argument("--loss", type=count, metavar="K", help="up to K messages in flight are lost")
    what.add_argument(
        "--duplicates", type=count, metavar="K", help="up to K messages are delivered twice"
    )


def happenings(config: Config, args: argparse.Namespace) -> Options:
    """What :func:`add_happening_arguments` read, over what ``config`` lets happen."""
    from ringleader.cluster import explore_options  # noqa: PLC0415

    options = explore_options(
        config,
        unordered=args.unordered,
        starts=args.starts,
        timers=args.timers,
        crashes=args.crashes,
        restarts=getattr(args, "restart_crashed", False),
        losses=args.loss,
        duplicates=args.duplicates,
    )
    if options.restarts and not options.crashes:
        raise UsageError("--restarts needs crashes: add --crashes K (or a crash in [[faults]])")
    return options
