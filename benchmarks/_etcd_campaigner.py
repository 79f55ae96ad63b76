"""One campaigner in etcd's election, for ``benchmarks/etcd_side.py``.

    python benchmarks/_etcd_campaigner.py http://127.0.0.1:2379 ELECTION VALUE TTL

What etcd's own election client (``concurrency.NewSession`` + ``Election.Campaign``)
does, over etcd's JSON gateway (``/v3/...``, on by default) with the standard library
only: grant a lease of ``TTL`` s (the session), keep it alive every ``TTL / 3`` s, and
campaign for ``ELECTION`` with that lease; ``Campaign`` returns once this campaigner's
key is the oldest under the election's prefix: it is then the leader, until its lease
ends.  ``etcdctl elect`` does the same, but with a session of 60 s that it offers no
flag to shorten: a killed leader would be replaced a minute later.

Prints one JSON line per step, each with ``mono`` (this machine's monotonic clock,
comparable between its processes): ``campaigning`` (lease granted, campaign sent),
``elected`` (``Campaign`` returned), ``lost`` (a keep-alive found the lease gone: a
campaigner paused past its TTL) and then exits 1.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import threading
import time
import urllib.request
from typing import Any


def post(url: str, body: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        result: dict[str, Any] = json.loads(answer.read())
    return result


def say(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, "mono": time.monotonic(), **fields}), flush=True)


def keep_alive(endpoint: str, lease: str, ttl: int) -> None:
    """Renew the lease every TTL / 3 s; once etcd says it is gone (TTL 0 or no answer
    naming it), say ``lost`` and exit."""
    while True:
        time.sleep(ttl / 3)
        try:
            answer = post(f"{endpoint}/v3/lease/keepalive", {"ID": lease}, timeout=ttl)
        except OSError:
            continue  # a member not answering: the lease runs out unless one answers
        if int(answer.get("result", {}).get("TTL", 0)) <= 0:
            say("lost", lease=lease)
            # The campaign's request may still be blocked: leave without waiting for it.
            os._exit(1)


def main() -> int:
    endpoint, election, value, ttl_text = sys.argv[1:5]
    ttl = int(ttl_text)
    lease = post(f"{endpoint}/v3/lease/grant", {"TTL": ttl})["ID"]
    threading.Thread(target=keep_alive, args=(endpoint, lease, ttl), daemon=True).start()
    say("campaigning", lease=lease, value=value)
    name = base64.b64encode(election.encode()).decode()
    answer = post(
        f"{endpoint}/v3/election/campaign",
        {"name": name, "lease": lease, "value": base64.b64encode(value.encode()).decode()},
    )
    say("elected", value=value, key=answer["leader"]["key"], rev=answer["leader"]["rev"])
    threading.Event().wait()  # lead until killed (or the lease is lost)
    return 0


if __name__ == "__main__":
    sys.exit(main())
