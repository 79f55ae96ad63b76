"""The steady rules of the service modes: a leader stays until it is really gone.

``ringleader node`` and :class:`ringleader.Node` run a :class:`~ringleader.actors.Member`
with these rules on (``ringleader run``'s teaching runs never do: there the notes'
algorithms behave, and count, as the slides say).  With the failure detector and a lease:

1. **Ask first** (``_prevote.py``).  A node never starts a round by itself: whatever
   made it want one (its leader went silent, it restarted, its round stalled, it fell
   behind) it asks the others, and a majority must say yes; a member that hears from a
   live leader says no.
2. **Do not join a round against a live leader.**  A node that follows a leader whose
   heartbeat reached it within the lease, or that leads with its lease, drops the
   messages of a newer round (and a newer leader's heartbeat) unless they come from its
   leader, or its leader handed over to their sender.  With a quorum, this is what makes
   the lease safe: nobody who acknowledged the leader's heartbeat ``k`` helps elect
   another before ``send(k) + lease``.
3. **A restarted node follows** the leader whose heartbeat reaches it (every member gets
   it), without a round; it asks for one only if none comes within ``suspect_after``.
4. **No preemption** by priority, unless ``preempt = true``: then a node above the leader
   asks for the leadership and gets it in one hand-over (``_handover.py``).
5. **The leader's lease ends on its own**: a leader whose followers' acknowledgements stop
   coming loses its lease (its host says so at the lease's deadline) but keeps sending
   its heartbeat in its round; if a majority answers again, it leads again in the same
   epoch, and nobody else had to notice.
6. **Heartbeats from the leader only** once one leads: it pings every member each
   heartbeat, each answers, and nobody else pings anyone (a ring keeps its neighbours:
   its repair needs them), so a node sends O(1) frames per heartbeat on average instead of
   O(n).  A follower that hears no heartbeat from its leader for ``suspect_after``
   suspects it, as before.

:class:`Steady` is one node's state for these rules; :class:`~ringleader.actors.Member`
applies them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ringleader.actors.core import Message

from ._detector import DetectorSettings
from ._handover import HandOver, HandOverRequest
from ._lease import LeaseSettings
from ._prevote import PreVote, PreVoteReply, PreVoting

__all__ = ["STEADY_KINDS", "STEADY_MESSAGES", "Steady", "SteadySettings"]

#: The steady rules' messages (not the notes': never counted as election messages).
STEADY_MESSAGES: tuple[type[Message], ...] = (PreVote, PreVoteReply, HandOver, HandOverRequest)
STEADY_KINDS = frozenset(m.kind for m in STEADY_MESSAGES)


@dataclass(frozen=True, slots=True)
class SteadySettings:
    """What the steady rules need, in seconds: the detector's and the lease's settings,
    and ``preempt`` (the config key: a node above the leader takes over, by hand-over)."""

    heartbeat: float
    suspect_after: float
    reelect_after: float
    lease: float
    quorum: bool = False
    preempt: bool = False

    @classmethod
    def of(cls, settings: Mapping[str, float]) -> SteadySettings | None:
        """The steady rules' settings for a node with these ``settings``; ``None`` without
        a failure detector or a lease (the rules lean on the leader's numbered heartbeat)."""
        detector = DetectorSettings.of(settings)
        lease = LeaseSettings.of(settings)
        if detector is None or lease is None:
            return None
        return cls(
            detector.heartbeat,
            detector.suspect_after,
            detector.reelect_after,
            lease.lease,
            lease.quorum,
            bool(settings.get("preempt", 0.0)),
        )

    def beats(self, seconds: float) -> int:
        """Heartbeats that take at least ``seconds`` (rounded up)."""
        return max(1, math.ceil(seconds / self.heartbeat - 1e-9))

    @property
    def live_beats(self) -> int:
        """A leader heard from fewer than this many heartbeats (of the follower's own) ago
        is live: after that many, more than ``lease`` has passed since its last heartbeat
        arrived, so its lease has run out (rule 2's bound)."""
        return self.beats(self.lease) + 1

    @property
    def suspect_beats(self) -> int:
        """Heartbeats without the leader's after which a follower suspects it: more than
        ``suspect_after`` has passed since the last one arrived (as the detector's own
        suspicion, which any frame from the leader would hold off)."""
        return max(self.live_beats, self.beats(self.suspect_after) + 1)


class Steady:
    """One node's state under the steady rules.

    :attr:`quiet` counts this node's heartbeats since the leader it follows was last heard
    as leader (its numbered heartbeat in this round), or since it began to follow it;
    :attr:`vouched`: that heartbeat came at all (a leader just elected is not defended
    before it has said so itself); :attr:`handed_to` is the node its
    leader handed over to (followed as soon as its heartbeat comes); :attr:`idle`: no round
    is under way here (the node waits for a leader, or for its pre-vote);
    :attr:`waiting` is a newer leader's heartbeat dropped while the old one was live, to
    follow at once if the old one hands over to it.
    """

    __slots__ = (
        "following",
        "handed_over_by",
        "handed_to",
        "idle",
        "prevoting",
        "quiet",
        "refused",
        "resigned",
        "settings",
        "vouched",
        "waiting",
    )

    def __init__(self, settings: SteadySettings, members: int) -> None:
        self.settings = settings
        self.prevoting = PreVoting(
            majority=members // 2 + 1,
            quorum=settings.quorum,
            retry=settings.beats(settings.suspect_after),
            patience=settings.beats(settings.reelect_after),
        )
        self.quiet = settings.live_beats  # nobody heard yet
        self.following: tuple[int | None, int] = (None, 0)  # (leader, epoch) counted for
        self.vouched = False
        self.handed_to: int | None = None
        self.waiting: tuple[int, int, int] | None = None  # (leader, epoch, heartbeat)
        self.idle = True
        #: Set when this node's leader handed over (for its host: the old lease ended
        #: then); the host reads it and sets it back to ``None``.
        self.handed_over_by: int | None = None
        self.resigned = False  # this node handed over: it asks for nothing back
        #: Askers told no since the leader was last heard: asker → its attempt.
        self.refused: dict[int, int] = {}

    @property
    def leader_live(self) -> bool:
        return self.vouched and self.quiet < self.settings.live_beats

    @property
    def leader_silent(self) -> bool:
        """The followed leader's heartbeat has not come for ``suspect_after``."""
        return self.quiet >= self.settings.suspect_beats

    def follows(self, leader: int | None, epoch: int) -> None:
        """This node follows ``leader`` in ``epoch`` now: counted from here if new."""
        if (leader, epoch) != self.following:
            self.following = (leader, epoch)
            self.quiet = 0
            self.vouched = False

    def heard_leader(self, leader: int, epoch: int) -> None:
        """The heartbeat of the leader it follows came."""
        self.follows(leader, epoch)
        self.quiet = 0
        self.vouched = True
        self.prevoting.drop()
        self.refused.clear()

    def forget_leader(self) -> None:
        """The followed leader can no longer be vouched for (this node stood still, or
        its leader handed over)."""
        self.vouched = False
