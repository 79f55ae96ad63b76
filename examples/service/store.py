"""A fenced store: it appends the entries workers send, and refuses any write stamped with
an older epoch than one it has already accepted.

That refusal is what makes one leader safe to rely on.  A leader can be paused (a long
GC, a stopped VM, SIGSTOP) and resume still believing it leads, after the others have
elected a new one; whatever it then writes carries its old epoch, and the store says no.

    python examples/service/store.py --listen 127.0.0.1:7300

One JSON object per line over TCP, one request per connection:

- ``{"op": "write", "epoch": 5, "node": 3, "entry": "..."}`` →
  ``{"ok": true, "seq": 12}`` or ``{"ok": false, "refused": "epoch 4 < 5"}``;
- ``{"op": "dump"}`` → ``{"epoch": 5, "accepted": [...], "refused": [...]}``.
"""

from __future__ import annotations

import argparse
import json
import socket
import socketserver
import sys
import threading
from typing import Any


class Store:
    """The entries, and the highest epoch accepted so far, behind one lock."""

    def __init__(self) -> None:
        self.epoch = 0
        self.accepted: list[dict[str, Any]] = []
        self.refused: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def write(self, epoch: int, node: int, entry: str) -> dict[str, Any]:
        with self._lock:
            record = {"epoch": epoch, "node": node, "entry": entry}
            if epoch < self.epoch:  # fencing: a deposed leader's late write
                self.refused.append(record)
                return {"ok": False, "refused": f"epoch {epoch} < {self.epoch}"}
            self.epoch = epoch
            self.accepted.append(record)
            return {"ok": True, "seq": len(self.accepted)}

    def dump(self) -> dict[str, Any]:
        with self._lock:
            return {"epoch": self.epoch, "accepted": self.accepted, "refused": self.refused}

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "write":
            return self.write(int(request["epoch"]), int(request["node"]), str(request["entry"]))
        if request.get("op") == "dump":
            return self.dump()
        return {"ok": False, "error": f"unknown request {request!r}"}


def serve_store(store: Store, host: str, port: int) -> socketserver.ThreadingTCPServer:
    """Serve ``store`` at ``host:port`` (0: any free port) on a thread; returns the server
    (``server.server_address``, ``server.shutdown()``)."""

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            try:
                answer = store.answer(json.loads(self.rfile.readline()))
            except (ValueError, KeyError, TypeError) as exc:
                answer = {"ok": False, "error": str(exc)}
            self.wfile.write(json.dumps(answer).encode() + b"\n")

    server = socketserver.ThreadingTCPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="store", daemon=True).start()
    return server


def request(address: tuple[str, int], message: dict[str, Any]) -> dict[str, Any]:
    """Send one request to the store at ``address``; its answer."""
    with socket.create_connection(address, timeout=5.0) as connection:
        connection.sendall(json.dumps(message).encode() + b"\n")
        answer: dict[str, Any] = json.loads(connection.makefile().readline())
        return answer


def address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def main() -> None:
    parser = argparse.ArgumentParser(description="A store that refuses writes from old epochs.")
    parser.add_argument("--listen", type=address, default=("127.0.0.1", 7300), metavar="HOST:PORT")
    args = parser.parse_args()
    server = serve_store(Store(), *args.listen)
    host, port = server.server_address[:2]
    print(f"listening {host}:{port}", flush=True)  # noqa: T201 -- the store's one output
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
        sys.exit(0)


if __name__ == "__main__":
    main()
