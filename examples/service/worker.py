"""One worker of the service: a :class:`ringleader.Node`, and while it leads, a loop that
does a job and writes its result to the store, stamped with the node's epoch.

    python examples/service/worker.py examples/service/cluster.toml --id 1 --store 127.0.0.1:7300

The epoch is taken *before* the job and sent with the write: if this worker was paused
mid-job and another took over meanwhile, the store has seen the newer epoch and refuses
the write; this worker then waits until it leads again, in a newer epoch.  Checking
``node.is_leader`` once more just before writing would not be enough: the pause can fall
between the check and the write.
"""

from __future__ import annotations

import argparse
import signal
import threading
import time
from pathlib import Path

from store import address, request

import ringleader


class Worker:
    """Node ``node_id`` of ``config``; its jobs go to the store at ``store``."""

    def __init__(
        self,
        config: ringleader.Config | Path,
        node_id: int,
        store: tuple[str, int],
        *,
        job_seconds: float = 0.2,
        metrics: str | None = None,
    ) -> None:
        self.id = node_id
        self.store = store
        self.job_seconds = job_seconds
        self.node = ringleader.Node(
            config,
            node_id,
            on_elected=lambda epoch: self.say(f"I lead now (epoch {epoch})"),
            on_lost=lambda epoch, reason: self.say(f"I no longer lead epoch {epoch}: {reason}"),
            on_leader_change=self._leader_changed,
            metrics=metrics,
        )
        self._stop = threading.Event()

    def say(self, text: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} worker {self.id}: {text}\n"
        print(line, end="", flush=True)  # noqa: T201 -- one write: threads never mix lines

    def _leader_changed(self, leader: int | None, epoch: int) -> None:
        if leader is None:
            self.say(f"election {epoch} under way")
        elif leader != self.id:
            self.say(f"node {leader} leads (epoch {epoch})")

    def run(self) -> None:
        """Work while leading, until :meth:`stop`."""
        with self.node:
            fenced = 0  # the epoch the store refused: wait for a newer one
            while not self._stop.is_set():
                node = self.node
                if not node.is_leader or node.epoch <= fenced:
                    self._stop.wait(0.05)
                    continue
                epoch = node.epoch  # the fencing token, taken before the job
                if self._stop.wait(self.job_seconds):  # the job (a pause: what fencing is for)
                    break  # told to stop mid-job: its result is not written
                job = {"op": "write", "epoch": epoch, "node": self.id, "entry": "a job's result"}
                try:
                    answer = request(self.store, job)
                except (OSError, ValueError) as exc:  # the store is down: try again later
                    self.say(f"cannot reach the store: {exc}")
                    self._stop.wait(1.0)
                    continue
                if answer["ok"]:
                    self.say(f"wrote entry {answer['seq']} (epoch {epoch})")
                else:
                    self.say(f"the store refused my write: {answer['refused']}")
                    fenced = epoch

    def stop(self) -> None:
        self._stop.set()


def main() -> None:
    parser = argparse.ArgumentParser(description="One worker: only the leader works.")
    parser.add_argument("config", type=Path)
    parser.add_argument("--id", type=int, required=True)
    parser.add_argument("--store", type=address, default=("127.0.0.1", 7300), metavar="HOST:PORT")
    parser.add_argument("--metrics", metavar="HOST:PORT", help="serve Prometheus metrics there")
    args = parser.parse_args()
    worker = Worker(args.config, args.id, args.store, metrics=args.metrics)
    signal.signal(signal.SIGTERM, lambda signum, frame: worker.stop())
    signal.signal(signal.SIGINT, lambda signum, frame: worker.stop())
    thread = threading.Thread(target=worker.run, name="worker")
    thread.start()
    while thread.is_alive():  # the main thread wakes in slices to run signal handlers
        thread.join(0.1)


if __name__ == "__main__":
    main()
