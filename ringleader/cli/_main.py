"""The ``ringleader`` command: parse the command line, run the command, and turn what
went wrong into one line and an exit status.

Each command imports what it needs when it runs (``run --json`` never loads rich, the
Prometheus client or the trace views), so that the command starts quickly.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import Sequence

from ringleader.errors import ConfigError, TransportError, UsageError

from ._exits import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_PIPE, EXIT_USAGE
from ._parser import build_parser

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C before the command runs: as while it runs
        sys.stderr.write("ringleader: interrupted\n")
        return EXIT_INTERRUPTED
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    prog = f"ringleader {args.command}"
    try:
        return int(args.handler(args))
    except (ConfigError, UsageError) as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return EXIT_USAGE
    except TransportError as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return EXIT_FAILED
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``| head -1``): stop quietly, as a pipe writer does, and
        # leave nothing for the interpreter to fail to flush on its way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_PIPE
    finally:
        if argv is None:  # this process's own command: it ends now
            # Whatever it made (a thousand nodes' objects) is garbage only to the
            # interpreter's last collection, which would walk all of it on the way out.
            gc.freeze()


if __name__ == "__main__":
    sys.exit(main())
