"""The command's exit statuses (``docs/reference/cli.md`` lists them)."""

from __future__ import annotations

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_PIPE", "EXIT_USAGE"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: The reader of our output went away (``| head``): 128 + SIGPIPE, as the shell says of
#: any writer stopped by a closed pipe.
EXIT_PIPE = 141
