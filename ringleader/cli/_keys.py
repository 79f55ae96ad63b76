"""``ringleader keys``: a cluster secret, and CURVE key pairs, to copy to every machine."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ringleader.errors import UsageError

from ._arguments import node_ids
from ._exits import EXIT_OK
from ._output import out

__all__ = ["add_keys_command"]


def add_keys_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "keys",
        help="make a cluster secret (and CURVE key pairs) to copy to every machine",
        description="Write DIR/secret, a new random cluster secret (mode 0600); with --ids, "
        "also a CURVE key pair per node (DIR/node-ID.key, DIR/node-ID.key_secret) for "
        'security = "curve".  Existing files are never overwritten.',
    )
    parser.add_argument("directory", metavar="DIR", help="where to write the files")
    parser.add_argument(
        "--ids", type=node_ids, metavar="IDS", help="node ids for CURVE key pairs, e.g. 1,2,3"
    )
    parser.set_defaults(handler=_keys)
    return parser


def _keys(args: argparse.Namespace) -> int:
    from ringleader.topologies import make_keys  # noqa: PLC0415

    console = out()
    try:
        made = make_keys(Path(args.directory), args.ids or [])
    except OSError as exc:
        raise UsageError(str(exc)) from None
    for path, written in made:
        console.print(f"wrote {path}" if written else f"kept {path} (it exists)")
    console.print(
        f"Copy {Path(args.directory) / 'secret'} to every machine and point secret_file at it"
        + (
            "; give each machine its node's .key_secret, every .key, and operator.key_secret "
            "only where ringleader status runs."
            if args.ids
            else "."
        )
    )
    return EXIT_OK
