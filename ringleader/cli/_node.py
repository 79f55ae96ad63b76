"""``ringleader node``: one node of a cluster in the foreground, until Ctrl-C or
SIGTERM (or, ``--supervised``, until its supervisor's pipe closes)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ringleader.errors import UsageError
from ringleader.topologies import load_config

from ._arguments import add_trace_arguments
from ._exits import EXIT_OK

__all__ = ["add_node_command"]


def add_node_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "node",
        help="run one node of CONFIG in the foreground, until Ctrl-C or SIGTERM",
        description="Run node ID of CONFIG: bind its address, link to its peers, join "
        "(or start) the election, watch the leader and elect again when it goes away. "
        "Peers may start in any order. Every node needs a fixed address in CONFIG; a "
        "secret is required when any address is not on this machine.",
        epilog="With --json, one JSON object per line on stdout: listening, ready, "
        "leader (whenever this node's view of the leader changes), election, suspect, "
        "recovered, lease, lost, prevote, handover, rejected_frame, failed, stopped. The "
        "node keeps the highest epoch it saw and its incarnation in a state file (state_dir "
        "in CONFIG, default $XDG_STATE_HOME/ringleader); a missing, corrupt or unwritable "
        "one is an error (exit 2) unless --fresh-state.",
    )
    parser.add_argument("config", metavar="CONFIG", help="the cluster's TOML config")
    parser.add_argument(
        "--id", dest="node_id", type=int, required=True, metavar="N", help="which node to run"
    )
    parser.add_argument("--json", action="store_true", help="print JSON lines on stdout")
    parser.add_argument(
        "--supervised",
        action="store_true",
        help="for a supervisor: take commands on stdin (boot, start, status); exit when "
        "stdin closes or the supervisor dies",
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="with --supervised: a member of a cluster started all at once (election 1, "
        "initiated on the start command) rather than one joining a running cluster",
    )
    parser.add_argument(
        "--fresh-state",
        action="store_true",
        help="start this node's state over: forget the highest epoch it saw (a node "
        "whose state file is missing or corrupt refuses to start without it; see "
        "docs/service-guarantees.md)",
    )
    parser.add_argument(
        "--incarnation",
        type=int,
        metavar="N",
        help="with --supervised: this life's number, from the supervisor (the node then "
        "keeps no state file)",
    )
    parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help="serve Prometheus metrics over HTTP there, at /metrics, with the health probes "
        "/healthz and /readyz (port 0: any free one, shown in the listening line)",
    )
    add_trace_arguments(parser, "this node's events (its part of the run's trace)")
    parser.set_defaults(handler=_node)
    return parser


def _node(args: argparse.Namespace) -> int:
    from ringleader.service import NodeOptions, OptionError, flag, run_node  # noqa: PLC0415

    if args.incarnation is not None and not args.supervised:
        raise UsageError("--incarnation needs --supervised (a node counts its own lives)")
    try:
        # The rules of the node's options, checked once (as for ringleader.Node).
        options = NodeOptions(
            metrics=args.metrics,
            fresh=args.fresh,
            fresh_state=args.fresh_state,
            incarnation=(1 if args.incarnation is None else args.incarnation)
            if args.supervised
            else None,
        )
    except OptionError as exc:
        raise UsageError(exc.spelled(flag)) from None
    config = load_config(args.config)
    run_node(
        config,
        args.node_id,
        out=sys.stdout,
        json_lines=args.json,
        commands=sys.stdin if args.supervised else None,
        options=options,
        trace=args.trace,
        trace_heartbeats=args.trace_heartbeats,
    )
    return EXIT_OK
