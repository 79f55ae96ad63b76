"""``ringleader lab``: a config's run stepped by hand in the browser (the explorer's model)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from ringleader.errors import UsageError
from ringleader.topologies import Config, ConfigError

from ._arguments import (
    add_config_arguments,
    add_force_argument,
    add_happening_arguments,
    count,
    happenings,
    load,
    positive_int,
)
from ._exits import EXIT_OK

if TYPE_CHECKING:
    from ringleader.actors.exploration.service import ServiceOptions
    from ringleader.lab import ServiceLab

__all__ = ["add_lab_command"]

#: The states the lab's own search finds at most, by default (for the explorer's runs).
LAB_STATES = 50_000


def add_lab_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "lab",
        help="step a run by hand in the browser: deliver, crash, drop, and watch the checks",
        description="Serve a live lab for CONFIG's election on this machine (127.0.0.1, "
        "a free port) and open it in the browser: the network as it is (every node's "
        "state, leader, epoch and variables; the messages in flight on each link, in "
        "delivery order), every step the explorer's model enables in that state (deliver "
        "a message, wake an initiator, fire a timer, and the faults asked for: crash, "
        "drop, duplicate, partition, pause), a space-time diagram of the run so far, "
        "each step told in the notes' words, and the explorer's checks in every state. "
        "Back and forward undo and redo; the page's address holds the path, so a reload "
        "or a shared link shows the same state. The runs the explorer finds (the fewest "
        "and most messages, each violation) open with one click; auto-play steps on by a "
        "policy. A service's config (one that names its cluster, as "
        "examples/service/cluster.toml does) is stepped as `ringleader node` runs it: "
        "heartbeats, the lease on each node's clock, the state file, ticks of time, and "
        "the service's checks, as `ringleader explore --service` explores it. Ctrl-C "
        "stops the lab.",
        epilog="Exit status: 130 stopped with Ctrl-C (or SIGTERM); 2 bad usage or config. "
        "Examples: ringleader lab examples/bully_story.toml --crashes 1; ringleader lab "
        "examples/your_algorithm/ring.toml --no-browser; ringleader lab "
        "examples/service/cluster.toml --partitions 1",
    )
    add_config_arguments(parser)
    add_happening_arguments(
        parser, "what may happen (as ringleader explore; each a move to click)", restarts=True
    )
    service = parser.add_argument_group(
        "as a service runs it",
        "without a fault asked for, a service's lab offers a crash and a lost frame, as "
        "explore --service does; --crashes, --restarts, --loss and --duplicates count "
        "these faults too",
    )
    service.add_argument(
        "--service",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="step CONFIG as `ringleader node` runs it (the service explorer's model: "
        "heartbeats, the lease, the state file), or as the notes' election "
        "(--no-service); default: as a service if the config names its cluster",
    )
    service.add_argument(
        "--partitions",
        type=count,
        metavar="K",
        help="the network splits into two sides up to K times, and heals (a service's)",
    )
    service.add_argument(
        "--pauses",
        type=count,
        metavar="K",
        help="up to K times a node stands still (its clock runs on), then resumes (a service's)",
    )
    lab = parser.add_argument_group("the lab")
    lab.add_argument(
        "--max-states",
        type=positive_int,
        default=LAB_STATES,
        metavar="N",
        help=f"the explorer finds at most N states for the runs it offers (default "
        f"{LAB_STATES:,}); stepping by hand goes anywhere",
    )
    lab.add_argument(
        "--no-browser",
        action="store_true",
        help="do not open the browser: print the address only",
    )
    add_force_argument(parser, "serve the lab")
    parser.set_defaults(handler=_lab)
    return parser


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the lab as Ctrl-C does


def _as_service(config: Config, args: argparse.Namespace) -> bool:
    """Whether to step ``config`` as a service runs it: ``--service``, ``--no-service``,
    or whether it names its ``cluster`` (the name a service's nodes share)."""
    if args.service is not None:
        return bool(args.service)
    return config.cluster is not None


def _service_options(args: argparse.Namespace) -> ServiceOptions:
    """The faults a service's lab offers, as ``explore --service`` counts them."""
    from ringleader.actors.exploration.service import ServiceOptions  # noqa: PLC0415

    for option, value in (
        ("--unordered", args.unordered),
        ("--starts", args.starts != "any"),
        ("--timers", args.timers),
    ):
        if value:
            raise UsageError(
                f"{option} is for the notes' elections: a service's nodes all start at "
                "once and their timers fire on time (leave it out, or give --no-service)"
            )
    counts = {
        "crashes": args.crashes,
        "losses": args.loss,
        "duplicates": args.duplicates,
        "partitions": args.partitions,
        "pauses": args.pauses,
    }
    if all(value is None for value in counts.values()) and not args.restart_crashed:
        counts = {**counts, "crashes": 1, "losses": 1}  # (explore --service's default)
    faults: dict[str, int] = {name: value or 0 for name, value in counts.items()}
    crashes = faults["crashes"] or (1 if args.restart_crashed else 0)
    return ServiceOptions(
        crashes=crashes,
        restarts=crashes if args.restart_crashed else 0,
        losses=faults["losses"],
        duplicates=faults["duplicates"],
        partitions=faults["partitions"],
        pauses=faults["pauses"],
    )


def _service_lab(config: Config, args: argparse.Namespace) -> ServiceLab:
    from ringleader.actors.exploration.service import Unsettled  # noqa: PLC0415
    from ringleader.cluster import service_model  # noqa: PLC0415
    from ringleader.lab import ServiceLab  # noqa: PLC0415

    options = _service_options(args)
    try:
        model = service_model(config, options)
    except ConfigError as exc:
        raise UsageError(f"{exc} (--no-service steps the notes' election instead)") from None
    from ringleader.actors.exploration.service import search  # noqa: PLC0415

    try:
        exploration = search(model, max_states=args.max_states)
    except Unsettled as exc:
        raise UsageError(f"{config.source}: {exc}") from None
    return ServiceLab(config, exploration)


def _lab(args: argparse.Namespace) -> int:
    from ringleader.cluster import explore_config, size_up  # noqa: PLC0415
    from ringleader.lab import Lab, start  # noqa: PLC0415

    config = load(args)
    size_up(config, simulate=True, force=args.force)
    lab: Lab | ServiceLab
    if _as_service(config, args):
        lab = _service_lab(config, args)
        exploration: Any = lab.exploration
    else:
        if args.partitions is not None or args.pauses is not None:
            which = "--partitions" if args.partitions is not None else "--pauses"
            raise UsageError(
                f"{which} counts a service's faults (--service); the notes' election takes "
                "its partitions and pauses from the config's [[faults]]"
            )
        options = happenings(config, args)
        exploration = explore_config(config, options, max_states=args.max_states)
        lab = Lab(config, exploration)
    try:
        server, thread = start(lab)
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1: {exc.strerror or exc}") from None
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    info = lab.info()
    try:
        if args.json:
            import json  # noqa: PLC0415

            line = {
                "url": server.url,
                "title": info["title"],
                "source": info["source"],
                "rules": info["rules"],
                "states": exploration.states,
                "complete": exploration.complete,
                "findings": [found["name"] for found in info["findings"]],
            }
            print(json.dumps(line), flush=True)  # noqa: T201
        else:
            found = [f["label"] for f in info["findings"] if f["violation"]]
            broken = f"; the explorer found {', '.join(found)}" if found else ""
            print(  # noqa: T201
                f"ringleader lab: {info['title']} ({info['source']}){broken}\n"
                f"  {server.url}  (Ctrl-C stops it)",
                flush=True,
            )
        if not args.no_browser:
            import webbrowser  # noqa: PLC0415

            webbrowser.open(server.url)
        thread.join()
    finally:
        server.shutdown()
        server.server_close()
        sys.stdout.flush()
    return EXIT_OK
