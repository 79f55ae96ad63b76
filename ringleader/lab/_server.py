"""The lab's web server: the standard library's ``http.server``, on loopback only.

Why the standard library and not a web framework: the lab serves one page, three files
beside it and two read-only JSON answers to one person's browser on the same machine —
a framework would add dependencies (and their updates) to every install of ringleader for
nothing this needs.  ``http.server.ThreadingHTTPServer`` answers each request in a
thread of its own, so a slow browser never stalls another tab; the lab's model is
guarded by a lock (:class:`~ringleader.lab.Lab`).

- ``GET /``: the page (``static/lab.html``), and ``/lab.js``, ``/lab.css`` beside it —
  every asset ships in the package: the lab works offline;
- ``GET /api/lab``: what does not change (the network, the checks, the explorer's runs);
- ``GET /api/state?path=3.0.5[&policy=random&seed=1]``: that path's state (with the
  step the auto-play policy takes next); a path that goes where no step is enabled is a
  400 that says how many of its first steps are ``valid``.

Anything else is a 4xx with a one-line JSON ``{"error": ...}``, and the lab goes on.
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ._paths import PathError, parse_path
from ._service import ServiceLab
from ._session import Lab

__all__ = ["LabServer", "start"]

#: The files the page is made of, by the path they are served at.
ASSETS = {
    "/": ("lab.html", "text/html; charset=utf-8"),
    "/lab.html": ("lab.html", "text/html; charset=utf-8"),
    "/lab.js": ("lab.js", "text/javascript; charset=utf-8"),
    "/lab.css": ("lab.css", "text/css; charset=utf-8"),
}
#: The longest query a request may carry (a path of many steps fits).
MAX_QUERY = 40_000


def _asset(name: str) -> bytes:
    return resources.files("ringleader.lab").joinpath("static", name).read_bytes()


class LabServer(ThreadingHTTPServer):
    """One lab, served on ``host`` (loopback) at a free port."""

    daemon_threads = True

    def __init__(self, lab: Lab | ServiceLab, host: str = "127.0.0.1", port: int = 0) -> None:
        self.lab = lab
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"


class _Handler(BaseHTTPRequestHandler):
    server: LabServer
    server_version = "ringleader-lab"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the URL, not every request."""

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        body = json.dumps(value, separators=(",", ":")).encode()
        self._send(status, body, "application/json")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if len(parts.query) > MAX_QUERY:
            self._error(HTTPStatus.REQUEST_URI_TOO_LONG, "query too long")
            return
        asset = ASSETS.get(parts.path)
        if asset is not None:
            self._send(HTTPStatus.OK, _asset(asset[0]), asset[1])
            return
        if parts.path == "/favicon.ico":  # none: say so without an error in the console
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
            return
        if parts.path == "/api/lab":
            self._json(HTTPStatus.OK, self.server.lab.info())
            return
        if parts.path == "/api/state":
            self._state(parts.query)
            return
        self._error(HTTPStatus.NOT_FOUND, f"no such page: {parts.path[:80]}")

    do_HEAD = do_GET

    def _state(self, query: str) -> None:
        try:
            asked = parse_qs(query, keep_blank_values=True, strict_parsing=bool(query))
        except ValueError:
            self._error(HTTPStatus.BAD_REQUEST, "a query of name=value pairs")
            return
        unknown = sorted(set(asked) - {"path", "policy", "seed"})
        if unknown:
            self._error(HTTPStatus.BAD_REQUEST, f"unknown parameter {unknown[0][:40]!r}")
            return
        policy = asked.get("policy", [None])[-1]
        policies = self.server.lab.policies
        if policy is not None and policy not in policies:
            self._error(HTTPStatus.BAD_REQUEST, f"policy must be one of {', '.join(policies)}")
            return
        try:
            seed = int(asked.get("seed", ["0"])[-1])
        except ValueError:
            self._error(HTTPStatus.BAD_REQUEST, "seed must be a whole number")
            return
        try:
            path = parse_path(asked.get("path", [""])[-1])
            view = self.server.lab.view(path, policy=policy, seed=seed)
        except PathError as exc:  # with how many of its first steps do name a state
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc), "valid": exc.valid})
            return
        self._json(HTTPStatus.OK, view)

    def _not_allowed(self) -> None:
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        body = b'{"error":"the lab only answers GET"}'
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_PUT = do_DELETE = do_PATCH = _not_allowed


def start(
    lab: Lab | ServiceLab, host: str = "127.0.0.1", port: int = 0
) -> tuple[LabServer, threading.Thread]:
    """Serve ``lab`` in a thread of its own; stop it with ``server.shutdown()`` then
    ``server.server_close()``."""
    server = LabServer(lab, host, port)
    thread = threading.Thread(target=server.serve_forever, name="ringleader-lab", daemon=True)
    thread.start()
    return server, thread
