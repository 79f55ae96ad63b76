"""The command line's parser: ``ringleader`` and its commands, each added by its own
module (``_run.py``, ``_check.py``, ``_explore.py``, ``_lab.py``, ``_node.py``,
``_status.py``, ``_transfer.py``, ``_watch.py``, ``_keys.py``, ``_views.py``), which also names the
function that runs it (``handler``)."""

from __future__ import annotations

import argparse
from typing import NoReturn

from ringleader.transport import __version__

from ._check import add_check_command
from ._exits import EXIT_USAGE
from ._explore import add_explore_command
from ._keys import add_keys_command
from ._lab import add_lab_command
from ._member import add_member_command
from ._node import add_node_command
from ._run import add_run_command
from ._status import add_status_command
from ._transfer import add_transfer_command
from ._views import add_view_commands
from ._watch import add_watch_command

__all__ = ["build_parser"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ringleader",
        description="Leader election on the actor model: Pykka actors over ZeroMQ.",
        epilog="Exit status: 0 elected and safe, in the notes' message count (explore: "
        "nothing violated, and everything checked); 1 not finished in time, unsafe, a "
        "message count the notes do not give, or the cluster could not be set up (explore: "
        "a violation found); 2 bad usage or config; 3 explore: nothing broken in the states "
        "explored, but not every state explored (a limit stopped it) or a check left "
        "without anything to check; 141 the reader of the output went away (| head).",
    )
    parser.add_argument("--version", action="version", version=f"ringleader {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="log more to stderr (-vv: debug)"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    subs = [
        add_run_command(commands),
        add_check_command(commands),
        add_node_command(commands),
        add_status_command(commands),
        add_transfer_command(commands),
        add_member_command(commands),
        add_watch_command(commands),
        add_keys_command(commands),
        add_explore_command(commands),
        add_lab_command(commands),
        *add_view_commands(commands),
    ]
    for sub in subs:
        # SUPPRESS: a -v before the command is not reset by the subcommand's default.
        sub.add_argument(
            "-v",
            "--verbose",
            action="count",
            default=argparse.SUPPRESS,
            help="log more to stderr (-vv: debug)",
        )
    return parser
