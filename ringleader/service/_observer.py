"""An observer: follows a cluster's leader, epoch and lease as they change, from outside.

``ringleader watch`` and :class:`Observer` watch every member of a config over the
cluster's authenticated wire, as the operator's tools do (``_operator_line.py``): frames
signed with the cluster secret by the reserved sender ``OPERATOR``, which a member admits
only for its questions (status, transfer, watch) and never hands to its election, so an
observer never counts in a majority.  It sends each member a
:class:`~ringleader.actors.host.WatchQuery` for ``4 × renew`` seconds and renews it every
``renew`` seconds; the member answers with its
:class:`~ringleader.actors.host.LeadershipNotice` at once, at each renewal and at each
change of its leader, epoch or lease (a push, not a poll of the election): an observer
that dies is forgotten when its watch runs out.  What the members say adds up to one
:class:`~._sightings.Watched` (``_sightings.py``), from the members that answer: one
member down changes nothing but ``heard``.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from types import TracebackType

from ringleader.actors.host import LeadershipNotice, WatchQuery
from ringleader.errors import ConfigError
from ringleader.topologies import Config, load_config, read_secret
from ringleader.transport import Deadline, TransportError

from ._operator_line import operator_line
from ._sightings import Sightings, Watched
from ._standalone import check_standalone

__all__ = ["FIRST_AGAIN", "RENEW", "Observer"]

#: Seconds between an observer's renewals of its watch on each member.
RENEW = 0.25
#: Seconds between watches sent to a member that has not answered yet: its first answer
#: is lost while its link back to the observer is still connecting (tens of ms), and the
#: next one, on the connected link, is the first answer seen.
FIRST_AGAIN = 0.05
#: The longest a reader of :meth:`Observer.changes` waits at a time (s).
_TICK = 0.1

_Consumer = Callable[[Watched | None], None]

log = logging.getLogger(__name__)


class Observer:
    """Follows ``config``'s leader (a :class:`~ringleader.Config` or a path to one).

    ``renew``: seconds between renewals of the watch on each member (a member silent for
    three renewals no longer counts); ``key``: a file holding the cluster's read-only
    watch key (the members' ``watch_secret_file``), to watch without the cluster secret;
    ``on_change``: called with each new :class:`Watched`, on the observer's thread.
    ``with Observer(config) as observer:`` starts and stops it; :meth:`wait` for the
    first answer, :meth:`changes` to follow.
    """

    def __init__(
        self,
        config: Config | str | Path,
        *,
        renew: float = RENEW,
        key: str | Path | None = None,
        on_change: Callable[[Watched], None] | None = None,
    ) -> None:
        if not renew > 0:
            raise ValueError(f"renew must be positive, not {renew}")
        self.config = config if isinstance(config, Config) else load_config(config)
        check_standalone(self.config)
        self._key = None if key is None else _watch_key(self.config, Path(key))
        self.renew = renew
        self._sightings = Sightings([n.id for n in self.config.nodes], silence=3 * renew)
        self._on_change = on_change
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._current: Watched | None = None
        self._settled = False
        self._consumers: list[_Consumer] = []
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._opened = threading.Event()
        self._since = 0.0

    # -- running ----------------------------------------------------------------------------

    def start(self) -> Observer:
        """Open the line to the members and start watching; returns the observer."""
        if self._thread is not None:
            raise TransportError("this observer was already started: make a new one")
        self._thread = threading.Thread(target=self._run, name="ringleader-observer", daemon=True)
        self._thread.start()
        self._opened.wait()
        if self._error is not None:
            self._thread.join()
            raise self._error
        return self

    def stop(self) -> None:
        """Stop watching and close the line (its watches run out on the members)."""
        self._stopping.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()

    def __enter__(self) -> Observer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- reading ----------------------------------------------------------------------------

    @property
    def current(self) -> Watched | None:
        """The last thing seen (``None`` before any member answered)."""
        return self._current

    def wait(self, timeout: float) -> Watched | None:
        """The first answer: as soon as a leader holding its lease answers, or every
        member did, or else what was seen once the members that have not answered had
        three renewals to (``None``: nobody answered within ``timeout`` s)."""
        deadline = Deadline(timeout)
        with self._changed:
            while not self._settled and self.running and deadline.left() > 0:
                self._changed.wait(min(deadline.left(), 0.1))
            return self._current

    def changes(self, timeout: float | None = None) -> Iterator[Watched]:
        """Each change, in order, from what is seen now (if anything) until the observer
        stops, or until ``timeout`` s have passed (``None``: no end)."""
        inbox: queue.SimpleQueue[Watched | None] = queue.SimpleQueue()
        deadline = None if timeout is None else Deadline(timeout)
        with self._lock:
            if self._current is not None:
                inbox.put(self._current)
            self._consumers.append(inbox.put)
        try:
            while deadline is None or deadline.left() > 0:
                # A short wait at a time: Ctrl-C reaches the reader between two.
                wait = _TICK if deadline is None else min(_TICK, deadline.left())
                try:
                    change = inbox.get(timeout=max(wait, 0.0))
                except queue.Empty:
                    if not self.running:
                        return
                    continue
                if change is None:
                    return
                yield change
        finally:
            with self._lock:
                self._consumers.remove(inbox.put)

    async def async_changes(self) -> AsyncIterator[Watched]:
        """:meth:`changes` for ``async for`` in asyncio (never blocks the loop)."""
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[Watched | None] = asyncio.Queue()

        def put(change: Watched | None) -> None:
            loop.call_soon_threadsafe(inbox.put_nowait, change)

        with self._lock:
            if self._current is not None:
                inbox.put_nowait(self._current)
            self._consumers.append(put)
        try:
            while (change := await inbox.get()) is not None:
                yield change
        finally:
            with self._lock:
                self._consumers.remove(put)

    # -- the observer's thread ---------------------------------------------------------------

    def _run(self) -> None:
        members = list(self._sightings.members)
        try:
            with operator_line(
                self.config, members, timeout=self.renew, watch_key=self._key
            ) as line:
                self._opened.set()
                query = WatchQuery(line.address, 4 * self.renew)
                asked: dict[int, float] = {}
                answered: set[int] = set()
                self._since = time.monotonic()
                while not self._stopping.is_set():
                    now = time.monotonic()
                    for node in members:
                        # Until a member answers, ask again every FIRST_AGAIN s.
                        again = self.renew if node in answered else min(FIRST_AGAIN, self.renew)
                        if now - asked.get(node, -again) >= again and line.ask(node, query):
                            asked[node] = now
                    for sender, message in line.answers(Deadline(self.renew)):
                        if type(message) is LeadershipNotice:
                            self._sightings.heard(sender, message, time.monotonic())
                            answered.add(sender)
                    self._look(time.monotonic())
        except BaseException as exc:
            if not self._opened.is_set():
                self._error = exc
            else:
                log.exception("the observer stopped")
        finally:
            self._opened.set()
            with self._changed:
                for consumer in self._consumers:
                    consumer(None)
                self._changed.notify_all()

    def _look(self, now: float) -> None:
        """Publish the view at ``now`` if it says something new: the first once it is an
        answer (a leader holding its lease, or every member heard) or once the members
        that have not answered had as long as a member may be silent."""
        settled = self._sightings.settled(now)
        if self._current is None and not settled and now - self._since < self._sightings.silence:
            return  # the first answers are coming in: no half-told first line
        view = self._sightings.view(now)
        with self._changed:
            news = not view.same(self._current)
            if news:
                self._current = view
                for consumer in self._consumers:
                    consumer(view)
            self._settled = True
            if news:
                self._changed.notify_all()
        if news and self._on_change is not None:
            self._on_change(view)


def _watch_key(config: Config, path: Path) -> bytes:
    """The read-only watch key in ``path``, for watching ``config``'s cluster."""
    if config.security == "curve":
        raise ConfigError(
            config.source,
            "security",
            'a read-only watch key does not work with security = "curve" yet',
            "watch with the cluster secret and operator.key_secret, as ringleader status does",
        )
    return read_secret(path.expanduser(), str(path), "watch key")
