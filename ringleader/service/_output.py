"""What ``ringleader node`` prints: its events written from a thread of their own
(:class:`EventWriter`), as JSON lines or as lines for people (:func:`describe`)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from ringleader.actors.host import leave_signals_to_main

__all__ = ["EventWriter", "describe"]


class EventWriter:
    """Writes a node's events to ``stream`` from a thread of its own.

    The node's actor hands each event over without waiting (:meth:`emit`), so a reader
    that stops reading (``ringleader node | less``, paused) can never stall the node and
    make its peers think it crashed: past ``capacity`` waiting events, events are dropped
    and a ``dropped_output`` event says how many, once the stream takes lines again.
    ``on_closed`` is called if the stream goes away (a closed pipe).
    """

    def __init__(
        self,
        stream: Any,
        render: Callable[[dict[str, Any]], str],
        *,
        on_closed: Callable[[], None],
        capacity: int = 10_000,
    ) -> None:
        self._stream = stream
        self._render = render
        self._on_closed = on_closed
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(capacity)
        self._dropped = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._write, name="ringleader-output", daemon=True)
        self._thread.start()

    def emit(self, data: dict[str, Any]) -> None:
        try:
            self._queue.put_nowait(data)
        except queue.Full:
            with self._lock:
                self._dropped += 1

    def close(self, timeout: float = 5.0) -> None:
        """Write what is waiting (for up to ``timeout`` s), then stop the thread."""
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(timeout)

    def _write(self) -> None:
        leave_signals_to_main()
        last: dict[str, Any] = {}
        while True:
            data = self._queue.get()
            with self._lock:
                dropped, self._dropped = self._dropped, 0
            lines = [] if data is None else [data]
            if dropped:
                when = (data or last).get("t", time.time())
                note = {"event": "dropped_output", "count": dropped, "t": when}
                lines.insert(0, {**note, "node": (data or last).get("node")})
            if not lines:
                return
            last = lines[-1]
            try:
                for line in lines:
                    self._stream.write(self._render(line) + "\n")
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):  # nobody reads us any more
                self._on_closed()
                return
            if data is None:
                return


def describe(data: dict[str, Any]) -> str:  # noqa: PLR0911, PLR0912 -- one case per event
    """One ``--json`` event as a line for people."""
    event = data["event"]
    stamp = (
        time.strftime("%H:%M:%S", time.localtime(data["t"])) + f".{int(data['t'] % 1 * 1000):03d}"
    )
    head = f"{stamp}  node {data['node']}"
    if event == "leader":
        if data["leader"] is None:
            return f"{head}  no leader known (in epoch {data['epoch']})"
        who = "this node leads" if data["state"] == "leader" else f"leader is node {data['leader']}"
        return f"{head}  {who} (epoch {data['epoch']})"
    if event in ("suspect", "recovered"):
        verb = "suspects" if event == "suspect" else "hears again from"
        return f"{head}  {verb} node {data['peer']}"
    if event == "lost":
        return f"{head}  no longer leads epoch {data['epoch']}: {data['reason']}"
    if event == "lease":
        gap = data.get("failover_s")
        after = "" if gap is None else f" ({gap * 1000:.0f} ms after the last one ended)"
        return f"{head}  holds the leader's lease of epoch {data['epoch']}{after}"
    if event == "prevote":
        return f"{head}  asks the others for a round: {data['reason']}"
    if event == "handover":
        return f"{head}  hands the leadership over to node {data['peer']}: {data['reason']}"
    if event == "election":
        return f"{head}  starts election {data['epoch']}: {data['trigger']}"
    if event == "rejected_frame" and data["reason"] == "bad_signature":
        if data.get("address_count", 1) == 1:
            return (
                f"{head}  frames from {data['address']} fail the signature: does its secret differ?"
            )
        return f"{head}  {data['address_count']} frames from {data['address']} failed the signature"
    if event == "rejected_frame":
        return f"{head}  dropped a frame: {data['reason']} {data['detail']}".rstrip()
    if event == "other_cluster":
        return f"{head}  {data['detail']} (at {data['address']}): its frames are dropped"
    if event == "listening":
        served = f", metrics on http://{data['metrics']}/metrics" if data.get("metrics") else ""
        kept = _state_words(data)
        bound = f" (bound to {data['bound']})" if data.get("bound") else ""
        return (
            f"{head}  listening on {data['address']}{bound} (incarnation "
            f"{data['incarnation']}{kept}){served}"
        )
    if event == "failed":
        return f"{head}  stops: it cannot keep its state: {data['reason']}"
    if event == "stopped":
        return f"{head}  stopped"
    if event == "configuration":
        return f"{head}  members now: {data['configuration']}"
    if event == "removed":
        return (
            f"{head}  removed from the cluster ({data['configuration']}): it takes no part any more"
        )
    if event == "dropped_output":
        return f"{head}  {data['count']} events not shown: output was not being read"
    return f"{head}  {event}"


def _state_words(data: dict[str, Any]) -> str:
    """How a node's state began this life, for its ``listening`` line."""
    state, path = data.get("state"), data.get("state_file")
    if state == "new":
        return f"; first start here, no state yet: kept from now on in {path}"
    if state == "restored":
        return f"; state restored from {path}: epochs above {data['epoch_floor']}"
    if state == "fresh":
        return f"; state started over (--fresh-state) in {path}"
    return ""
