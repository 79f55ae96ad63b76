"""Where a command writes: rich consoles for people (made when first needed, so that
``--json`` never loads rich) and one JSON object for programs."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["err", "out", "print_json"]

#: Output into a pipe is not wrapped; tables as wide as they need, up to this.
_PIPE_WIDTH = 200


def out() -> Console:
    """The console for human output on stdout (rich is imported only when one is made)."""
    from rich.console import Console  # noqa: PLC0415 -- human output only

    console = Console(highlight=False)
    if not console.is_terminal:  # a pipe or a file: lines as long as they are, never cut
        console = Console(highlight=False, width=_PIPE_WIDTH, soft_wrap=True)
    return console


def err() -> Console:
    from rich.console import Console  # noqa: PLC0415 -- human output only

    return Console(stderr=True, highlight=False)


def print_json(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()
