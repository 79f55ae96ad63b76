"""A lab served in this process for the tests: the config, its exploration, the server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ringleader.actors.exploration.service import ServiceOptions, search
from ringleader.cluster import explore_config, explore_options, service_model
from ringleader.lab import Lab, ServiceLab, start
from ringleader.topologies import Overrides, load_config
from tests.paths import ROOT

#: Chang–Roberts on examples/ring.toml: 7 nodes, P2 starts, P9 wins.
RING = ROOT / "examples" / "ring.toml"
#: A student's election (module:Class) that the explorer catches with two leaders.
HASTY = ROOT / "examples" / "your_algorithm" / "ring.toml"
#: A service: Bully on a full mesh of 3 under heartbeats and a majority's lease.
SERVICE = ROOT / "examples" / "service" / "cluster.toml"


def make_lab(example: Any, **options: Any) -> Lab:
    config = load_config(example, Overrides())
    exploration = explore_config(config, explore_options(config, **options), max_states=50_000)
    return Lab(config, exploration)


def make_service_lab(example: Any, max_states: int = 3_000, **faults: int) -> ServiceLab:
    """``example`` as a service runs it, with ``faults`` (``ServiceOptions``' counts)."""
    config = load_config(example, Overrides())
    model = service_model(config, ServiceOptions(**faults))
    return ServiceLab(config, search(model, max_states=max_states))


@contextmanager
def serving(lab: Lab | ServiceLab) -> Iterator[str]:
    """``lab`` served on a free loopback port, for the block: its URL."""
    server, thread = start(lab)
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def get(url: str, method: str = "GET") -> tuple[int, Any]:
    """The status and the JSON answer of a request (an error's too)."""
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        body = error.read()
        return error.code, json.loads(body) if body else None
