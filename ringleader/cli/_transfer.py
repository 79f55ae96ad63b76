"""``ringleader transfer``: the leader of a running cluster asked to hand over."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ringleader.errors import TransferRefused
from ringleader.topologies import load_config

from ._arguments import positive_float
from ._exits import EXIT_FAILED, EXIT_OK
from ._output import out, print_json

__all__ = ["add_transfer_command"]


def add_transfer_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "transfer",
        help="have the leader of CONFIG hand the leadership over to node N",
        description="Find the leader of CONFIG's running cluster (as ringleader status "
        "does) and ask it, over the cluster's authenticated wire, to hand over to node N at "
        "once; wait until N leads.  The leader refuses if N is not a live member (it has "
        "not answered the leader's heartbeat within the lease).",
        epilog="Exit status: 0 node N leads; 1 refused (the reason on stderr), or N did not "
        "lead within the timeout.",
    )
    parser.add_argument("config", metavar="CONFIG", help="the cluster's TOML config")
    parser.add_argument(
        "--to", dest="to", type=int, required=True, metavar="N", help="the node to lead next"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--timeout", type=positive_float, default=5.0, metavar="S", help="give up after S s"
    )
    parser.set_defaults(handler=_transfer)
    return parser


def _transfer(args: argparse.Namespace) -> int:
    from ringleader.service import transfer  # noqa: PLC0415

    config = load_config(args.config)
    try:
        done = transfer(config, args.to, timeout=args.timeout)
    except TransferRefused as refused:
        if args.json:
            print_json({"transferred": False, "to": args.to, "refused": str(refused)})
        sys.stderr.write(f"ringleader transfer: refused: {refused}\n")
        return EXIT_FAILED
    if args.json:
        print_json(
            {
                "transferred": True,
                "from": done.previous,
                "to": done.leader,
                "epoch": done.epoch,
                "took_s": round(done.took_s, 6),
            }
        )
    else:
        out().print(
            f"Node {done.leader} leads (epoch {done.epoch}), handed over by node "
            f"{done.previous} in {done.took_s * 1000:.0f} ms"
        )
    return EXIT_OK
