"""``ringleader lab``: the explorer's model of a run, stepped by hand in a browser.

- ``_session.py``: :class:`Lab`, a config's explored model and the state a path of
  choices leads to, as the page shows it (nodes, messages in flight, the steps enabled,
  the checks, the run told and drawn), and the auto-play policies;
- ``_service.py``: :class:`ServiceLab`, the same for a service's rules (the service
  explorer's model: heartbeats, the lease on each node's clock, the state file);
- ``_paths.py``: a path of choices as a request names it, and :class:`PathError`;
- ``_layout.py``: where each node is drawn; ``_told.py``: a run's records told and
  drawn; ``_values.py``: a node's variables as JSON;
- ``_server.py``: the web server (the standard library's, on loopback) and its routes;
- ``static/``: the page, its script and its styles (no network needed).
"""

from ._paths import PathError, parse_path
from ._server import LabServer, start
from ._service import ServiceLab
from ._session import FAULTS, POLICIES, Lab

__all__ = [
    "FAULTS",
    "POLICIES",
    "Lab",
    "LabServer",
    "PathError",
    "ServiceLab",
    "parse_path",
    "start",
]
