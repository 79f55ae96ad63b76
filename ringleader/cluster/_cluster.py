"""What a cluster is to the code that runs it, in threads (:class:`~ringleader.LocalCluster`)
or in processes (:class:`~ringleader.cluster._processes.ProcessCluster`): the operations the
supervisor drives (:class:`Cluster`), set-up on entering a ``with`` block
(:class:`SetUpOnEnter`), and the progress it reports (:data:`Progress`)."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self

from ringleader.actors.host import NodeStatus
from ringleader.errors import SetupError, TransportError

__all__ = ["Cluster", "Progress", "SetUpOnEnter", "no_progress"]


#: ``progress(phase, done, total)``: phases ``"connecting"``, ``"electing"``, ``"settling"``.
class Progress(Protocol):
    """``progress(phase, done, total, messages)``: phases ``"connecting"``, ``"electing"``,
    ``"settling"``; ``messages``: election messages sent so far, when known."""

    def __call__(self, phase: str, done: int, total: int, messages: int | None = None) -> None: ...


def no_progress(phase: str, done: int, total: int, messages: int | None = None) -> None:
    """A :class:`Progress` that shows nothing."""


class Cluster(Protocol):
    """What the supervisor drives: :class:`~ringleader.LocalCluster` or processes."""

    setup_s: float

    @property
    def live(self) -> list[int]: ...

    def incarnation(self, node: int) -> int: ...

    def start_initiators(self) -> None: ...

    def crash(self, node: int) -> NodeStatus | None: ...

    def restart(self, node: int) -> None: ...

    def statuses(self) -> list[NodeStatus]: ...

    def close(self) -> None: ...


class SetUpOnEnter:
    """A cluster as a context manager: entering sets it up (and closes whatever was set up
    if that fails: a :class:`~ringleader.SetupError`, for any transport error);
    leaving closes it, also after an error or Ctrl-C."""

    def _set_up(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        try:
            self._set_up()
        except BaseException as exc:
            self.close()
            if isinstance(exc, TransportError) and not isinstance(exc, SetupError):
                raise SetupError(None, str(exc)) from exc
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
