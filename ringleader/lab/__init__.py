"""``ringleader lab``: the explorer's model of a run, stepped by hand in a browser.

- ``_session.py``: :class:`Lab`, a config's explored model and the state a path of
  choices leads to, as the page shows it (nodes, messages in flight, the steps enabled,
  the checks, the run told and drawn), and the auto-play policies;
- ``_server.py``: the web server (the standard library's, on loopback) and its routes;
- ``static/``: the page, its script and its styles (no network needed).
"""

from ._server import LabServer, start
from ._session import FAULTS, POLICIES, Lab, PathError, parse_path

__all__ = ["FAULTS", "POLICIES", "Lab", "LabServer", "PathError", "parse_path", "start"]
