"""The ``ringleader`` command: :func:`main` parses the command line (``_parser.py``) and
runs a command, each in a module of its own (``_run.py``, ``_check.py``, ``_explore.py``,
``_node.py``, ``_status.py``, ``_transfer.py``, ``_keys.py``, ``_views.py`` for
``diagram`` and ``replay``); the arguments they share are in ``_arguments.py``, human
output is rendered with rich (``_render.py``)."""

import sys

try:
    from ._main import main
except KeyboardInterrupt:  # Ctrl-C while the command still loads: as later, one line
    sys.stderr.write("ringleader: interrupted\n")
    raise SystemExit(130) from None

__all__ = ["main"]
