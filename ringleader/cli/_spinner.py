"""A spinner on stderr while a long search runs, its line saying how far it got."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["spinner"]


@contextmanager
def spinner(
    console: Console, describe: Callable[[float, tuple[int, ...]], str]
) -> Iterator[Callable[..., None]]:
    """A transient spinner on ``console``; yields ``update(*counts)``, which sets its line
    to ``describe(seconds since it began, counts)``."""
    from rich.progress import (  # noqa: PLC0415
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("exploring", total=None)
        began = time.monotonic()

        def update(*counts: int) -> None:
            bar.update(task, description=describe(time.monotonic() - began, counts))

        yield update
