"""One ``ringleader.Node`` as a service would run it, for ``benchmarks/steady.py``.

    python benchmarks/_steady_node.py CONFIG ID

Prints one JSON line per thing a service sees, each with ``mono`` (this machine's
monotonic clock, comparable between its processes): the callbacks (``elected``,
``lost``, ``leader``), ``is_leader`` turning true or false (polled every millisecond, as
a service that asks before each write would see it), and answers to its commands, read
on stdin one per line: ``resign``, ``resign N`` (hand over to node N), ``metrics`` (the
failover histogram's sum and count), ``stop``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ringleader

POLL = 0.001


def _failover(node: ringleader.Node) -> dict[str, float]:
    """The failover histogram's count and sum, read from the node's registry."""
    metrics = getattr(node, "_metrics", None)
    count = total = 0.0
    if metrics is not None:
        for metric in metrics.failover.collect():
            for sample in metric.samples:
                if sample.name.endswith("_count"):
                    count = sample.value
                elif sample.name.endswith("_sum"):
                    total = sample.value
    return {"count": count, "sum": total}


def main() -> None:
    config, node_id = sys.argv[1], int(sys.argv[2])
    lock = threading.Lock()

    def say(**fields: object) -> None:
        with lock:
            print(json.dumps({"node": node_id, "mono": time.monotonic(), **fields}), flush=True)

    node = ringleader.Node(
        config,
        node_id,
        on_elected=lambda epoch: say(cb="elected", epoch=epoch),
        on_lost=lambda epoch, reason: say(cb="lost", epoch=epoch, reason=reason),
        on_leader_change=lambda leader, epoch: say(cb="leader", leader=leader, epoch=epoch),
        metrics="127.0.0.1:0",
    )
    done = threading.Event()

    def poll() -> None:
        leading = False
        while not done.is_set():
            now = node.is_leader
            if now != leading:
                leading = now
                say(cb="is_leader", value=now, epoch=node.epoch)
            time.sleep(POLL)

    node.start()
    say(cb="ready")
    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        for line in sys.stdin:
            command, _, argument = line.strip().partition(" ")
            if command == "resign":
                try:
                    if argument:
                        node.resign(to=int(argument))  # type: ignore[call-arg]
                    else:
                        node.resign()
                    say(cb="resigned", to=argument or None)
                except Exception as exc:  # noqa: BLE001 -- reported to the harness
                    say(cb="refused", reason=str(exc))
            elif command == "metrics":
                say(cb="metrics", **_failover(node))
            elif command == "stop":
                break
    finally:
        done.set()
        node.stop()
        say(cb="stopped")


if __name__ == "__main__":
    main()
