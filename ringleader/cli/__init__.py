"""The ``ringleader`` command: :func:`main` parses the command line and runs a command
(``run``, ``check``, ``node``, ``status``, ``keys``, ``diagram``, ``replay``); human output
is rendered with rich (``_render.py``)."""

from ._main import main

__all__ = ["main"]
