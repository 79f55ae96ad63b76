"""The whole service in one process, for a quick look: the store and three workers (each
a thread with its own :class:`ringleader.Node`).  The leader is stopped after a while;
another takes over and the work goes on in a newer epoch.

    python examples/service/demo.py
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from store import Store, serve_store
from worker import Worker

CONFIG = Path(__file__).with_name("cluster.toml")


def main(seconds: float = 2.0) -> None:
    store = Store()
    server = serve_store(store, "127.0.0.1", 0)
    host, port = server.server_address[:2]
    workers = {i: Worker(CONFIG, i, (str(host), int(port))) for i in (1, 2, 3)}
    threads = [threading.Thread(target=w.run, name=f"worker-{i}") for i, w in workers.items()]
    for thread in threads:
        thread.start()
    try:
        time.sleep(seconds)
        leader = next((i for i, w in workers.items() if w.node.is_leader), None)
        if leader is not None:
            print(f"--- stopping worker {leader}, the leader ---")  # noqa: T201
            workers[leader].stop()
        time.sleep(seconds)
    finally:
        for worker in workers.values():
            worker.stop()
        for thread in threads:
            thread.join(15)
        server.shutdown()
    epochs = [entry["epoch"] for entry in store.dump()["accepted"]]
    print(f"{len(epochs)} entries written, epochs {sorted(set(epochs))}")  # noqa: T201


if __name__ == "__main__":
    main()
