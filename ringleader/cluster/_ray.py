"""The explorer's partitioned search on a Ray cluster: one Ray actor a part.

``ringleader explore CONFIG --ray ADDRESS`` shares the lean search out as ``--workers``
does (:func:`~ringleader.actors.exploration.explore_parts`), to actors of the Ray
cluster at ``ADDRESS`` instead of processes of this machine.  Each actor builds its
:class:`~ringleader.actors.exploration.Part` from the same ``build`` callable (Ray
pickles it, config and all, with cloudpickle) and answers the driver's calls;
:class:`RayPool` sends every part's call at once and gathers the answers — a level's
batches of successors travel as bytes through Ray's object store.

Ray is an optional extra (``pip install 'ringleader[ray]'``), imported here only, when
asked for.  Every machine of the cluster needs ringleader installed with the same
Python version: the parts share out states by Python's hash of their numbers, the same
in every process of one version.
"""

from __future__ import annotations

import contextlib
import gc
import socket
import traceback
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ringleader.actors.exploration import NewLink, Part, WorkerFailed
from ringleader.errors import UsageError

__all__ = ["RayPool", "ray_cluster"]

#: Seconds the cluster has to start every part's actor (it may have too few CPUs free).
START_TIMEOUT = 120.0
#: Seconds to wait for the address to answer before Ray is asked to join it.
ANSWER_TIMEOUT = 5.0


def _ray() -> Any:
    try:
        import ray  # noqa: PLC0415
    except ImportError:
        raise UsageError("--ray needs Ray: pip install 'ringleader[ray]'") from None
    return ray


class _Holder:
    """A Ray actor holding one part; it answers ``(status, value)`` as a worker process
    of :class:`~ringleader.actors.exploration.Processes` does, so the driver raises
    what it would raise there (``NewLink``, or one line of what went wrong)."""

    def __init__(
        self,
        build: Callable[[], Any],
        index: int,
        parts: int,
        links: list[tuple[int, int]],
    ) -> None:
        gc.disable()  # millions of small objects, in no cycle: as a worker process
        self.part: Part | None = None
        self.failed: str | None = None
        try:
            self.part = Part(build, index, parts, links)
        except Exception as exc:  # noqa: BLE001 — told to the driver by start()
            self.failed = _told(exc)

    def start(self) -> tuple[str, Any]:
        return ("ok", None) if self.failed is None else ("error", self.failed)

    def call(self, method: str, arguments: tuple[Any, ...]) -> tuple[str, Any]:
        try:
            return "ok", getattr(self.part, method)(*arguments)
        except NewLink as new:
            return "new_link", new.link
        except Exception as exc:  # noqa: BLE001
            return "error", _told(exc)


def _told(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:]
    where = f" ({last[0].filename}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


class RayPool:
    """``parts`` Ray actors of the cluster this process joined (:func:`ray_cluster`), each
    holding a part: a :class:`~ringleader.actors.exploration.Pool`."""

    def __init__(
        self, build: Callable[[], Any], parts: int, links: Collection[tuple[int, int]]
    ) -> None:
        ray = self.ray = _ray()
        self.parts = parts
        self.actors: list[Any] = []
        cpus = ray.cluster_resources().get("CPU", 0)
        if parts > cpus:  # an actor takes a CPU: the others would wait for one forever
            raise WorkerFailed(
                f"--workers {parts}: the Ray cluster has {cpus:g} CPUs (an explore worker "
                "takes one)"
            )
        holder = ray.remote(num_cpus=1, max_restarts=0, max_concurrency=1)(_Holder)
        self.actors = [holder.remote(build, index, parts, list(links)) for index in range(parts)]
        try:
            starts = [actor.start.remote() for actor in self.actors]
            ready, _ = ray.wait(starts, num_returns=parts, timeout=START_TIMEOUT)
            if len(ready) < parts:  # its CPUs busy with other work
                raise WorkerFailed(
                    f"the Ray cluster did not start {parts} explore workers in "
                    f"{START_TIMEOUT:.0f} s (each takes a CPU, and its {cpus:g} are busy): "
                    "ask for fewer with --workers"
                )
            self._answers(starts)
        except BaseException:
            self.close()
            raise

    def call(self, method: str, args: Sequence[tuple[Any, ...]]) -> list[Any]:
        return self._answers(
            [
                actor.call.remote(method, arguments)
                for actor, arguments in zip(self.actors, args, strict=True)
            ]
        )

    def _answers(self, refs: list[Any]) -> list[Any]:
        ray, values = self.ray, []
        for index, ref in enumerate(refs):
            try:
                status, value = ray.get(ref)
            except ray.exceptions.RayError as exc:  # the actor died, or its node did
                first = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
                raise WorkerFailed(f"explore worker {index} (Ray) stopped: {first[0]}") from None
            if status == "new_link":
                raise NewLink(value)
            if status == "error":
                raise WorkerFailed(f"explore worker {index} (Ray) failed: {value}")
            values.append(value)
        return values

    def close(self) -> None:
        """Kill every actor (their parts' temporary files go with their processes)."""
        for actor in self.actors:
            with contextlib.suppress(Exception):
                self.ray.kill(actor, no_restart=True)
        self.actors.clear()


@contextmanager
def ray_cluster(address: str) -> Iterator[int]:
    """Join the Ray cluster at ``address`` (what ``ray.init`` takes: ``auto``, or the
    head's ``HOST:PORT``) for the ``with`` block, and leave it after; its number of
    CPUs.  An address that does not answer is one line
    (:class:`~ringleader.errors.UsageError`).  A process that has joined a cluster
    already (``ray.init``) stays in that one, and in it after the block."""
    ray = _ray()
    if ray.is_initialized():
        yield max(1, int(ray.cluster_resources().get("CPU", 1)))
        return
    if address != "auto":
        _answers(address)
    import logging  # noqa: PLC0415

    try:
        ray.init(
            address=address,
            log_to_driver=False,
            configure_logging=True,
            logging_level=logging.ERROR,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[:1] or [type(exc).__name__]
        raise UsageError(f"--ray {address}: {first[0]}") from None
    try:
        yield max(1, int(ray.cluster_resources().get("CPU", 1)))
    finally:
        ray.shutdown()


def _answers(address: str) -> None:
    """Raise :class:`~ringleader.errors.UsageError` unless something listens at
    ``address`` (Ray itself would retry for minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--ray {address}: give the head's HOST:PORT (or auto)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=ANSWER_TIMEOUT):
            pass
    except OSError as exc:
        raise UsageError(
            f"--ray {address}: no Ray cluster answers there ({exc.strerror or exc})"
        ) from None
