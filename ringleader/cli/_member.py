"""``ringleader member add|remove``: the members of a running cluster changed, live."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ringleader.errors import MembershipRefused
from ringleader.topologies import load_config

from ._arguments import positive_float
from ._exits import EXIT_FAILED, EXIT_OK
from ._output import out, print_json

__all__ = ["add_member_command"]


def add_member_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "member",
        help="add a member to CONFIG's running cluster, or remove one, live",
        description="Find the leader of CONFIG's running cluster (as ringleader status "
        "does) and ask it, over the cluster's authenticated wire, to add or remove one "
        "member; wait until the change is committed (a majority of the new voters "
        "acknowledged it).  One member at a time: every majority of the configuration "
        "before and every majority after share a node.",
        epilog="Exit status: 0 the change is committed; 1 refused (the reason on stderr: "
        "no node leads, a change is pending, the removal would leave no live majority, ...) "
        "or not committed within the timeout.  See docs/how-to/membership.md.",
    )
    changes = parser.add_subparsers(dest="change", metavar="CHANGE", required=True)
    add = changes.add_parser(
        "add",
        help="add node N: a learner first, a voter once it has caught up",
        description="Add node N, listed in CONFIG (spare = true if the cluster did not "
        "begin with it) and running (ringleader node CONFIG --id N): the leader adds it "
        "as a learner, promotes it to a voter once it has acknowledged a few heartbeats, "
        "and the command returns once that is committed.",
        epilog="Exit status: 0 node N votes; 1 refused, or N did not catch up in time.",
    )
    remove = changes.add_parser(
        "remove",
        help="remove node N (the leader: it hands over first)",
        description="Remove node N: the leader makes the configuration without it and "
        "the command returns once that is committed.  Asked to remove itself, the leader "
        "hands over to another live voter first, and the command asks the new leader.  "
        "The removed node stops (ringleader node exits with a removed line).",
        epilog="Exit status: 0 node N is no member; 1 refused, or not committed in time.",
    )
    for sub in (add, remove):
        sub.add_argument("config", metavar="CONFIG", help="the cluster's TOML config")
        sub.add_argument("--id", dest="node", type=int, required=True, metavar="N", help="the node")
        sub.add_argument("--json", action="store_true", help="print one JSON object")
        sub.add_argument(
            "--timeout",
            type=positive_float,
            default=10.0,
            metavar="S",
            help="give up after S s (default 10)",
        )
        sub.set_defaults(handler=_member)
    return parser


def _member(args: argparse.Namespace) -> int:
    from ringleader.service import add_member, remove_member  # noqa: PLC0415

    config = load_config(args.config)
    try:
        if args.change == "add":
            done = add_member(config, args.node, timeout=args.timeout)
        else:
            done = remove_member(config, args.node, timeout=args.timeout)
    except MembershipRefused as refused:
        if args.json:
            print_json(
                {"changed": False, "change": args.change, "id": args.node, "refused": str(refused)}
            )
        sys.stderr.write(f"ringleader member {args.change}: refused: {refused}\n")
        return EXIT_FAILED
    if args.json:
        print_json(
            {
                "changed": True,
                "change": done.change,
                "id": done.node,
                "leader": done.leader,
                "epoch": done.epoch,
                "configuration": done.configuration.to_json(),
                "took_s": round(done.took_s, 6),
            }
        )
    else:
        did = "added: it votes" if done.change == "add" else "removed"
        out().print(
            f"Node {done.node} {did} (configuration {done.configuration.describe()}, "
            f"committed by node {done.leader} in {done.took_s * 1000:.0f} ms)"
        )
    return EXIT_OK
