"""``ringleader lab``: a config's run stepped by hand in the browser (the explorer's model)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from ringleader.errors import UsageError

from ._arguments import (
    add_config_arguments,
    add_force_argument,
    add_happening_arguments,
    happenings,
    load,
    positive_int,
)
from ._exits import EXIT_OK

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
        "policy. Ctrl-C stops the lab.",
        epilog="Exit status: 130 stopped with Ctrl-C (or SIGTERM); 2 bad usage or config. "
        "Examples: ringleader lab examples/bully_story.toml --crashes 1; ringleader lab "
        "examples/your_algorithm/ring.toml --no-browser",
    )
    add_config_arguments(parser)
    add_happening_arguments(
        parser, "what may happen (as ringleader explore; each a move to click)", restarts=True
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


def _lab(args: argparse.Namespace) -> int:
    from ringleader.cluster import explore_config, size_up  # noqa: PLC0415
    from ringleader.lab import Lab, start  # noqa: PLC0415

    config = load(args)
    size_up(config, simulate=True, force=args.force)
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
