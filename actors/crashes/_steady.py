"""The steady rules of the service modes: a leader stays until it is really gone.

``ringleader node`` and :class:`ringleader.Node` run a :class:`~ringleader.actors.Member`
with these rules on (``ringleader run``'s teaching runs never do: there the notes'
algorithms behave, and count, as the slides say).  With the failure detector and a lease:

1. **Ask first** (``_prevote.py``).  A node never starts a round by itself: whatever
   made it want one (its leader went silent, it restarted, its round stalled, it fell
   behind) it asks the others, and a majority must say yes; a member that hears from a
   live leader says no.
2. **Do not join a round against a live leader.**  A node that follows a leader whose
   heartbeat reached it within ``suspect_after`` less a heartbeat (on its own clock: a
   pause of its own counts), or that leads with its lease, drops the messages of a newer
   round (and a newer leader's heartbeat) unless they come from its leader, or its
   leader handed over to their sender.  With a quorum, this is what makes the lease
   safe: nobody who acknowledged the leader's heartbeat ``k`` helps elect another before
   ``send(k) + lease``, even if its clock runs a little fast.
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
7. **A restarted node keeps its last life's promise** (rule 2 made to a leader whose
   heartbeat it acknowledged just before it went down): for
   :attr:`SteadySettings.vouch` from its start it grants no pre-vote, acknowledges no
   leader but the round and leader its state file says it acknowledged last (it leaves
   another leader's heartbeat unanswered), and no lease of its own runs from a
   heartbeat it sent meanwhile — unless, with a quorum, its state file says it led
   that round.  The wait counts from its first event.

:class:`SteadySettings` are their settings; ``_steady_rules.py`` holds the part of a
:class:`~ringleader.actors.Member` that applies them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ringleader.actors.core import Message

from ._detector import DetectorSettings
from ._handover import HandOver, HandOverRequest
from ._lease import LeaseSettings
from ._prevote import PreVote, PreVoteReply

__all__ = ["STEADY_KINDS", "STEADY_MESSAGES", "SteadySettings"]

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
    def vouch(self) -> float:
        """How long, on a follower's clock, it stands by its leader after that leader's
        last heartbeat arrived (rule 2): ``suspect_after`` less a heartbeat, the margin
        the config leaves above the lease for clocks that run apart (never below the
        lease itself)."""
        return max(self.lease, self.suspect_after - self.heartbeat)
