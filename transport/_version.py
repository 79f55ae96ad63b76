"""The version of ringleader: its one source.

At the bottom of the layers because every frame carries it (see ``_frame.py``); the
build reads it from here (``setup.cfg``: ``version = attr: transport._version.__version__``)
and ``ringleader.__version__`` re-exports it.
"""

__version__ = "0.1.0"
