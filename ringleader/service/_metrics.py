"""A node's Prometheus metrics: what ``Node(metrics="HOST:PORT")`` and ``ringleader node
--metrics HOST:PORT`` serve over HTTP, at ``/metrics``, beside its health: ``/healthz``
(200 while the node runs, 503 once it stopped or failed) and ``/readyz`` (200 while it
knows a leader holding a lease, or is it; 503 otherwise), each with one line saying why
(``_health.py`` decides), to ``GET`` and ``HEAD`` (405 to any other method).  Any
other path: 404.  A connection silent for :data:`IDLE_TIMEOUT` is closed.

Each node has a registry of its own (two nodes in one process never clash).  What can be
read at any instant is read when scraped: whether the node leads (from its published
:class:`~ringleader.actors.host.Leadership`, so a node that was paused says 0 as soon as its lease
ran out), its epoch, and its message and rejection counters (asked of its actor, which
keeps them).  What happens once is counted as it happens, from the node's events, on its
actor's thread: elections, changes of leader, failover times and suspected peers.

The failover time is what a service sees: from the end of the old leader's last lease to
the start of the new leader's first, measured by the new leader when its lease begins
(one observation per failover, cluster-wide).  The old leader's end is its own lease's
end when the new leader is the same node (a lease regained), the moment it handed over,
or else its last heartbeat heard here plus the lease (after which it could not count
itself leader any more).

======================================  =========  =======================================
``ringleader_is_leader``                gauge      1 while this node leads, else 0
``ringleader_epoch``                    gauge      the epoch (fencing token) it knows
``ringleader_elections_total``          counter    election rounds this node started
``ringleader_leader_changes_total``     counter    times its view of the leader changed
``ringleader_failover_seconds``         histogram  end of the old leader's last lease to the
                                                   start of this node's first, as leader
``ringleader_messages_total{kind}``     counter    messages sent, by kind
``ringleader_rejected_frames_total``    counter    frames dropped, by ``reason``
``ringleader_peers_suspected``          gauge      peers its failure detector suspects now
``ringleader_up``                       gauge      1 while the node runs, 0 once it stopped
                                                   or failed
``ringleader_failed``                   gauge      1 once it stopped by itself (it could not
                                                   keep its state), else 0
``leader_election_master_status{name}`` gauge      client-go's name for ``is_leader``:
                                                   ``name`` is the cluster's
======================================  =========  =======================================
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, make_wsgi_app
from prometheus_client.core import CounterMetricFamily
from prometheus_client.exposition import ThreadingWSGIServer
from prometheus_client.registry import Collector

from ringleader.actors.host import PROCESS_SIGNALS, Leadership, NodeEvent, NodeStatus
from ringleader.errors import UsageError

from ._health import Verdict

__all__ = ["FAILOVER_BUCKETS", "HEALTH_PATHS", "NodeMetrics"]

#: What ``/healthz`` and ``/readyz`` answer to a caller that is not Prometheus.
HEALTH_PATHS = ("/healthz", "/readyz")

#: A WSGI app: (environ, start_response) -> body.
_App = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: Seconds a connection to the metrics server may take to send its request: then closed.
IDLE_TIMEOUT = 10.0

#: The most of an unknown path a 404 repeats (a path may be 64 KiB long).
_SHOWN = 100

#: Failover times (s) the histogram tells apart: detection takes a few heartbeats.
FAILOVER_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class NodeMetrics:
    """The metrics of one node: fed its events by :meth:`observe` (on the actor's
    thread), served by :meth:`serve` until :meth:`close`.

    ``leadership`` is read at scrape time; ``status`` returns the node's
    :class:`~ringleader.actors.host.NodeStatus`, or ``None`` if it cannot answer now;
    ``alive`` and ``ready`` are its verdicts for ``/healthz`` and ``/readyz``, and
    ``failed`` whether it stopped by itself; ``name`` names its cluster (the ``name``
    label of ``leader_election_master_status``).
    """

    def __init__(
        self,
        leadership: Leadership,
        status: Callable[[], NodeStatus | None],
        *,
        alive: Callable[[], Verdict] = lambda: (True, "running"),
        ready: Callable[[], Verdict] = lambda: (True, "ready"),
        failed: Callable[[], bool] = lambda: False,
        name: str = "",
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self._leadership = leadership
        self._alive = alive
        self._ready = ready
        is_leader = Gauge("ringleader_is_leader", "1 while this node leads", registry=registry)
        is_leader.set_function(lambda: 1.0 if leadership.is_leader() else 0.0)
        master = Gauge(
            "leader_election_master_status",
            "client-go's leader gauge: 1 while this node leads (holds the lease), 0 when it "
            "is a backup; name is the cluster's",
            ["name"],
            registry=registry,
        )
        master.labels(name).set_function(lambda: 1.0 if leadership.is_leader() else 0.0)
        up = Gauge(
            "ringleader_up",
            "1 while this node runs, 0 once it stopped or failed",
            registry=registry,
        )
        up.set_function(lambda: 1.0 if alive()[0] else 0.0)
        failure = Gauge(
            "ringleader_failed",
            "1 once this node stopped by itself (it could not keep its state)",
            registry=registry,
        )
        failure.set_function(lambda: 1.0 if failed() else 0.0)
        epoch = Gauge(
            "ringleader_epoch", "The epoch this node knows (the fencing token)", registry=registry
        )
        epoch.set_function(lambda: float(leadership.read()[1]))
        self.elections = Counter(
            "ringleader_elections", "Election rounds this node started", registry=registry
        )
        self.leader_changes = Counter(
            "ringleader_leader_changes",
            "Times this node's view of the leader changed to another node",
            registry=registry,
        )
        self.failover = Histogram(
            "ringleader_failover_seconds",
            "From the end of the old leader's last lease to the new leader's first (observed "
            "by the new leader)",
            buckets=FAILOVER_BUCKETS,
            registry=registry,
        )
        self.suspected = Gauge(
            "ringleader_peers_suspected",
            "Peers this node's failure detector suspects now",
            registry=registry,
        )
        registry.register(_Counters(status))
        self._suspects: set[int] = set()
        self._leader: int | None = None
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int] | None:
        """``(host, port)`` the metrics are served on (``None`` when not serving)."""
        if self._server is None:
            return None
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def serve(self, host: str, port: int) -> tuple[str, int]:
        """Serve the metrics at ``http://host:port/metrics``, and ``/healthz`` and
        ``/readyz`` (port 0: a free one); returns the address bound.  Raises
        :class:`~ringleader.UsageError` if it cannot bind."""
        # The server's thread starts with this thread's signal mask: SIGINT and SIGTERM
        # blocked, so that it leaves them to the main thread (leave_signals_to_main).
        posix = hasattr(signal, "pthread_sigmask")
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, PROCESS_SIGNALS) if posix else None
        try:
            server = _server(host, port, self._app(make_wsgi_app(self.registry)))
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
        except OSError as exc:
            raise UsageError(f"cannot serve metrics on {host}:{port}: {exc.strerror}") from None
        finally:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        thread.name = "ringleader-metrics"
        self._server, self._thread = server, thread
        address = self.address
        assert address is not None
        return address

    def close(self) -> None:
        """Stop serving (safe to call twice, or without :meth:`serve`)."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None

    def _app(self, metrics: _App) -> _App:
        """The WSGI app: ``/metrics`` (Prometheus's own app), the health paths, else 404."""
        verdicts = {"/healthz": self._alive, "/readyz": self._ready}

        def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            path = environ.get("PATH_INFO", "")
            if path == "/metrics":
                return metrics(environ, start_response)
            method = environ.get("REQUEST_METHOD", "GET")
            verdict = verdicts.get(path)
            headers = [("Content-Type", "text/plain; charset=utf-8")]
            if verdict is None:
                status = "404 Not Found"
                shown = path if len(path) <= _SHOWN else path[:_SHOWN] + "…"
                why = f"no such path {shown!r}: /metrics, /healthz or /readyz"
            elif method not in ("GET", "HEAD"):  # a probe reads; it never changes a thing
                status = "405 Method Not Allowed"
                why = f"{path} answers GET and HEAD, not {method}"
                headers.append(("Allow", "GET, HEAD"))
            else:
                ok, why = verdict()
                status = "200 OK" if ok else "503 Service Unavailable"
            body = (why + "\n").encode()
            start_response(status, [*headers, ("Content-Length", str(len(body)))])
            return [] if method == "HEAD" else [body]  # HEAD: the headers alone

        return app

    def observe(self, event: NodeEvent) -> None:
        """Count one event of the node (called on its actor's thread, in order)."""
        kind = event.kind
        if kind == "election":
            self.elections.inc()
        elif kind in ("suspect", "recovered"):
            self._suspected(event)
        elif kind == "lease":
            if event.since is not None:
                self.failover.observe(max(0.0, event.at - event.since))
        elif kind == "state":
            leader = None if event.state == "undecided" else event.elected
            if leader is not None and leader != self._leader:
                self.leader_changes.inc()
            self._leader = leader

    def _suspected(self, event: NodeEvent) -> None:
        peer = event.subject
        if peer is None:
            return
        if event.kind == "suspect":
            self._suspects.add(peer)
        else:
            self._suspects.discard(peer)
        self.suspected.set(len(self._suspects))


class _Counters(Collector):
    """The counters the node's actor keeps (messages sent, frames rejected), read when
    scraped."""

    def __init__(self, status: Callable[[], NodeStatus | None]) -> None:
        self._status = status

    def describe(self) -> Iterator[CounterMetricFamily]:
        yield from self._families(None)

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield from self._families(self._status())

    @staticmethod
    def _families(status: NodeStatus | None) -> Iterator[CounterMetricFamily]:
        messages = CounterMetricFamily(
            "ringleader_messages", "Messages this node sent, by kind", labels=["kind"]
        )
        rejected = CounterMetricFamily(
            "ringleader_rejected_frames", "Frames this node dropped, by reason", labels=["reason"]
        )
        if status is not None:
            for kind, count in sorted(status.sent.items()):
                messages.add_metric([kind], count)
            for reason, count in sorted(status.rejected.items()):
                rejected.add_metric([reason], count)
        yield messages
        yield rejected


class _Quiet(WSGIRequestHandler):
    """No log line per request (a probe every second would fill stderr); a connection
    that sends no whole request within :data:`IDLE_TIMEOUT` is closed (each holds a
    thread: a scanner's or a half-open prober's would pile up)."""

    def handle(self) -> None:
        with contextlib.suppress(TimeoutError):  # it said nothing in time: closed
            super().handle()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _server(host: str, port: int, app: _App) -> WSGIServer:
    """A threading HTTP server bound to ``host:port`` (IPv6 too) serving ``app``."""

    class Server(ThreadingWSGIServer):
        pass

    class Handler(_Quiet):
        timeout = IDLE_TIMEOUT

    family, _, _, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    Server.address_family = family
    return make_server(str(address[0]), port, app, Server, handler_class=Handler)
