"""The failure detector (notes 002): ping, pong, and suspicion after silence.

Every ``heartbeat`` seconds a node pings the nodes it watches; a watched node that has
sent nothing at all (any message is a sign of life) for ``suspect_after`` seconds is
suspected to have crashed, until it is heard from again.  Who watches whom is not the
detector's business: the node's crash policy says (``_crash_policy.py``).  Like every part
here it is sans-IO: it appends the pings and the timers it needs to an outbox.

The heartbeat also shows the node's own stalls.  The detector knows when its next
heartbeat is due (the time comes with every event, ``now`` on the node's clock); an event
that finds it overdue by more than :attr:`DetectorSettings.standstill` means the node
itself stood still (a ``SIGSTOP``, a starved process), not its peers: past that, a
peer's suspicion timer may have come due during the stall.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ringleader.actors.core import Action, CancelTimer, Message, Send, SetTimer

from ._configuration import Configuration
from ._moments import after

__all__ = [
    "DETECTOR_DEFAULTS",
    "DETECTOR_KINDS",
    "DETECTOR_MESSAGES",
    "HEARTBEAT",
    "SUSPECT",
    "DetectorSettings",
    "FailureDetector",
    "Ping",
    "Pong",
]


@dataclass(frozen=True, slots=True)
class Ping(Message):
    """The failure detector's ``ping``: are you alive?  (The frame's epoch says which
    election round the sender is in.)  ``seq``: a leader's numbered heartbeat, for its
    lease (``_lease.py``); 0 from anyone else.

    A leader's heartbeat carries its configuration's key (``made_in``, ``version``: see
    :attr:`Configuration.key`), and the
    ``configuration`` itself when the follower's last answer showed an older key
    (docs/design/membership.md, rule 3); anyone else's carries 0, 0 and no
    configuration."""

    kind = "ping"
    seq: int = 0
    version: int = 0
    made_in: int = 0
    configuration: Configuration | None = None

    @property
    def configuration_key(self) -> tuple[int, int]:
        """The sender's configuration's key, ``(made_in, version)``."""
        return (self.made_in, self.version)


@dataclass(frozen=True, slots=True)
class Pong(Message):
    """The answer to a ``ping``, with its ``seq``; the answering node's configuration's
    key, and its ``configuration`` when that is newer than the one the ping carried."""

    kind = "pong"
    seq: int = 0
    version: int = 0
    made_in: int = 0
    configuration: Configuration | None = None

    @property
    def configuration_key(self) -> tuple[int, int]:
        """The sender's configuration's key, ``(made_in, version)``."""
        return (self.made_in, self.version)


PING, PONG = Ping(), Pong()

#: Message kinds of the failure detector, which every node understands.
DETECTOR_MESSAGES: tuple[type[Message], ...] = (Ping, Pong)
DETECTOR_KINDS = frozenset(m.kind for m in DETECTOR_MESSAGES)

#: The detector's timers (a name space of their own: no algorithm timer has a colon): the
#: heartbeat, and one suspicion timer per watched peer (``SUSPECT`` + its id).
HEARTBEAT = "detector:heartbeat"
SUSPECT = "detector:suspect:"


@dataclass(frozen=True, slots=True)
class DetectorSettings:
    """The failure detector's tunables, in seconds; the config's keys of the same names.

    ``reelect_after`` is how long an undecided node waits before it starts a round of its
    own (doubling each time), so that no round waits for ever on a message a crashed node
    took with it.  ``fast_failover``: a host that has proof of a peer's death (its
    connection refused) reports it, and the peer is suspected at once
    (``FailureDetector.dead``).
    These defaults are the only ones: the config takes them from here.
    """

    heartbeat: float = 0.05
    suspect_after: float = 0.3
    reelect_after: float = 2.0
    fast_failover: bool = True

    @classmethod
    def of(cls, settings: Mapping[str, float]) -> DetectorSettings | None:
        """The settings of a node whose ``settings`` turn the detector on (a ``heartbeat``
        above zero), the missing ones by default; ``None`` if it is off."""
        heartbeat = float(settings.get("heartbeat", 0.0))
        if heartbeat <= 0:
            return None
        return cls(
            heartbeat,
            float(settings.get("suspect_after", cls.default_suspect_after(heartbeat))),
            float(settings.get("reelect_after", DETECTOR_DEFAULTS.reelect_after)),
            bool(settings.get("fast_failover", DETECTOR_DEFAULTS.fast_failover)),
        )

    @property
    def standstill(self) -> float:
        """How late the heartbeat may be before the node counts as having stood still:
        past this, a peer's suspicion timer may have come due during the stall (its last
        frame came at most a heartbeat before the node's last heartbeat)."""
        return max(self.heartbeat, self.suspect_after - 2 * self.heartbeat)

    @staticmethod
    def default_suspect_after(heartbeat: float) -> float:
        """Without a ``suspect_after``: the default, but at least three heartbeats."""
        return max(DETECTOR_DEFAULTS.suspect_after, 3 * heartbeat)


DETECTOR_DEFAULTS = DetectorSettings()


class FailureDetector:
    """Pings the nodes it is told to; suspects a watched node silent for ``suspect_after``.

    :attr:`watched` are the nodes with a suspicion timer running, :attr:`suspected` those
    whose timer ran out and who have not been heard from since; :attr:`due` is when the
    next heartbeat is due on the node's clock (``None`` before the first, and after a
    stall until the next).
    """

    __slots__ = ("_out", "_timers", "due", "settings", "suspected", "watched")

    def __init__(self, settings: DetectorSettings, outbox: list[Action]) -> None:
        self.settings = settings
        self.watched: set[int] = set()
        self.suspected: set[int] = set()
        self.due: float | None = None
        self._out = outbox
        self._timers: dict[int, str] = {}  # peer → the name of its suspicion timer

    def _timer(self, peer: int) -> str:
        name = self._timers.get(peer)
        if name is None:
            name = self._timers[peer] = f"{SUSPECT}{peer}"
        return name

    def tick(self, ping: set[int], epoch: int, now: float) -> None:
        """A heartbeat ``now``: ping ``ping`` (in id order) and set the next heartbeat."""
        out = self._out
        for peer in sorted(ping):
            out.append(Send(peer, PING, epoch))
        self.next_beat(now)

    def next_beat(self, now: float) -> None:
        """Set the next heartbeat: due a heartbeat after this one was due, if it came
        late by less than a heartbeat; else a heartbeat from ``now``.  (A busy machine
        runs every timer a little late: each heartbeat counted from the last one's
        moment would put all the later ones off, and a lease, which counts its
        followers' answers in heartbeats but ends on the clock, would fall behind it.)"""
        beat = self.settings.heartbeat
        due = self.due
        if due is not None and after(now, due) and now - due < beat:
            self.due = due + beat
            self._out.append(SetTimer(HEARTBEAT, self.due - now))
            return
        self.due = now + beat
        self._out.append(SetTimer(HEARTBEAT, beat))

    def stood_still(self, now: float) -> float | None:
        """How long past its due moment the heartbeat is ``now``, if that much late means
        the node stood still; ``None`` otherwise.  Told once: the next heartbeat is due
        again only once it is set."""
        due = self.due
        if due is None or not after(now, due + self.settings.standstill):
            return None
        self.due = None
        return now - due

    def watch(self, nodes: set[int]) -> None:
        """Watch exactly ``nodes`` (minus the suspected): arm timers for the new ones,
        disarm the others."""
        watched = nodes - self.suspected
        if watched == self.watched:
            return
        for peer in watched - self.watched:
            self._out.append(SetTimer(self._timer(peer), self.settings.suspect_after))
        for peer in self.watched - watched:
            self._out.append(CancelTimer(self._timer(peer)))
        self.watched = watched

    def heard(self, sender: int) -> bool:
        """``sender`` sent something: True if it was suspected (and no longer is)."""
        if sender in self.suspected:
            self.suspected.discard(sender)
            return True
        if sender in self.watched:
            self._out.append(SetTimer(self._timer(sender), self.settings.suspect_after))
        return False

    def expired(self, peer: int) -> bool:
        """``peer``'s suspicion timer ran out: True if it is now suspected."""
        if peer not in self.watched:
            return False
        self.watched.discard(peer)
        self.suspected.add(peer)
        return True

    def forgive_own_stall(self) -> None:
        """This node itself stalled (a pause, not a peer's silence): a fresh window for
        every watched peer, and no suspicion for the pause."""
        for peer in sorted(self.watched):
            self._out.append(SetTimer(self._timer(peer), self.settings.suspect_after))

    def dead(self, peer: int) -> bool:
        """Proof that ``peer`` is dead (its connection was refused): True if it is now
        suspected, at once, as if its suspicion timer had run out."""
        if peer not in self.watched:
            return False
        self._out.append(CancelTimer(self._timer(peer)))
        return self.expired(peer)
