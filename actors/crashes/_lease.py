"""The leader's lease: it leads only while its followers have heard from it lately.

A leader numbers its heartbeats (``ping`` carries ``seq``); a follower answers each with a
``pong`` carrying the same ``seq`` and, as every frame does, its own epoch.  A pong in
the leader's epoch is an *acknowledgement*: that follower received heartbeat ``seq``, and
so restarted its suspicion window for the leader, after the leader sent it.  No follower
that acknowledged heartbeat ``k`` can suspect the leader (and start a round without it)
before ``send(k) + suspect_after``, so the leader may count itself leader until
``send(k) + lease`` when ``lease < suspect_after`` by a margin: heartbeat ``k`` is the
lease's *basis*.  The lease keeps the moment it sent each heartbeat, on the node's own
clock (the ``now`` its host gives with every event), so :attr:`Lease.until`, the end of
the lease, is ``send(basis) + lease``; the member publishes it and, under the steady
rules, sets a timer for it.

Which acknowledgements the basis needs:

- every follower that is still answering (it ponged, in any epoch, within the last
  ``lease`` worth of heartbeats, and the failure detector does not suspect it): a
  crashed follower stops counting (at once on proof of death; under the steady rules,
  where a leader watches no follower, at once only if its newest answer acknowledged
  this leadership, :meth:`Lease.gone`), a follower still in
  another epoch (a stale leader's, or the previous leader that has not heard of this
  round yet) holds the lease back;
- with ``quorum``, also a majority of the whole cluster (the leader counts itself), so
  that a partitioned minority, or a node alone, never holds a lease.  The majority is
  one of the cluster's *voters* (:attr:`Lease.voting`; every member unless the
  configuration has learners, ``docs/design/membership.md``): a learner's answer holds
  the lease back like any follower's, but counts in no majority (rule L1).  A change of
  configuration (:meth:`Lease.reconfigure`) starts the lease over, as when it lapses
  (rule L2).

Both with a quorum: a majority alone would let a node that starts a round while the
leader lives (a restarted node, Bully's top node taking over) gather its lease from the
others before the old leader hears of the round, while the old leader's lease still
runs; the old leader still answers, so it holds the new lease back until it has joined.
With a quorum, a pong in epoch 0 acknowledges no round and holds nothing back: it comes
from a node still recovering after a restart (in the teaching runs), or, under the steady
rules, from a node in this very round that does not acknowledge this leader
(``Member._answer``: it follows another leader of the round, or acknowledged one); the
majority is counted without it.

A leader whose basis is more than ``lease`` old (in heartbeats, plus one for the wait on
the answers) has lost its followers: the member demotes it ("lease expired"); under the
steady rules its leadership lapses instead and it keeps its round, leading again once a
majority answers — unless it lacks one while a follower refuses it
(:attr:`Lease.refused`: it answers from a newer round, or in epoch 0): with a quorum
that one never acknowledges this round again, so the member demotes it and a round above
follows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass

from ._detector import DetectorSettings
from ._moments import reached

__all__ = ["Lease", "LeaseSettings"]


@dataclass(frozen=True, slots=True)
class LeaseSettings:
    """``lease`` seconds (measured from a heartbeat's send time), the detector's
    ``heartbeat`` and ``suspect_after``, and whether a ``quorum`` is required."""

    lease: float
    heartbeat: float
    suspect_after: float
    quorum: bool = False

    @staticmethod
    def default_lease(heartbeat: float, suspect_after: float) -> float:
        """Without a ``lease`` key: two heartbeats below ``suspect_after``, if that still
        leaves at least two heartbeats to renew it in; else 0 (no lease)."""
        lease = suspect_after - 2 * heartbeat
        return lease if lease >= 2 * heartbeat else 0.0

    @classmethod
    def of(cls, settings: Mapping[str, float]) -> LeaseSettings | None:
        """The lease of a node with these settings; ``None`` without a failure detector
        (no ``heartbeat``) or with ``lease = 0``."""
        heartbeat = float(settings.get("heartbeat", 0.0))
        if heartbeat <= 0:
            return None
        suspect_after = float(
            settings.get("suspect_after", DetectorSettings.default_suspect_after(heartbeat))
        )
        lease = float(settings.get("lease", cls.default_lease(heartbeat, suspect_after)))
        if lease <= 0:
            return None
        return cls(lease, heartbeat, suspect_after, bool(settings.get("quorum", 0.0)))

    @property
    def beats(self) -> int:
        """Heartbeats in one lease (rounded down)."""
        return max(1, math.floor(self.lease / self.heartbeat + 1e-9))

    @property
    def silent_beats(self) -> int:
        """Heartbeats after which an unanswering follower stops counting: two fewer than
        a lease's, so that a crashed follower is left out (at the heartbeat before the
        one that would end the lease) before the lease would run out: the leader's lease
        goes on without a gap."""
        return max(1, self.beats - 2)


class Lease:
    """One node's lease on leadership, counted in heartbeats.

    :attr:`seq` numbers the heartbeats it sent as leader (never reset in one life);
    :attr:`epoch` is the round it leads (``None`` while it leads nothing); :attr:`basis`
    the heartbeat the lease runs from (``None`` until granted in this epoch);
    :attr:`until` the moment, on this node's clock, the lease ends (0 while it holds
    none): the send time of the basis plus ``lease``.
    """

    __slots__ = (
        "_absent",
        "_acked",
        "_answered",
        "_dead",
        "_from",
        "_joined",
        "_lapsed",
        "_sent",
        "_start",
        "basis",
        "epoch",
        "not_before",
        "peers",
        "seq",
        "settings",
        "until",
        "voting",
    )

    def __init__(
        self,
        settings: LeaseSettings,
        peers: Sequence[int],
        dead: Set[int] = frozenset(),
        voters: Iterable[int] | None = None,
    ) -> None:
        self.settings = settings
        self.peers = tuple(peers)  # every other member of the cluster
        #: The peers whose acknowledgements count in a majority: the configuration's
        #: voters but this node (``voters``; every peer when not given).
        self.voting = self._voting(voters)
        self._dead = dead  # the failure detector's suspects, read live: not answering
        self.seq = 0
        self.epoch: int | None = None
        self.basis: int | None = None
        self._start = 0  # the last heartbeat before this leadership
        self._acked: dict[int, int] = {}  # follower → last heartbeat acknowledged
        self._answered: dict[int, int] = {}  # follower → last heartbeat answered at all
        self._joined: dict[int, int] = {}  # follower → first heartbeat of its answers now
        self._lapsed = False  # its host saw it run out (see lapse)
        self._from: dict[int, int] = {}  # follower → the epoch of its newest answer
        self._absent: frozenset[int] = frozenset()  # left out until they answer (begin)
        self._sent: dict[int, float] = {}  # heartbeat → when it left (the lease's window)
        self.until = 0.0
        #: No heartbeat sent before this moment (on this node's clock) is a lease's basis:
        #: a restarted node's previous life may have promised another leader until then
        #: (``SteadyRules.restarted``).
        self.not_before = 0.0

    def _voting(self, voters: Iterable[int] | None) -> tuple[int, ...]:
        if voters is None:
            return self.peers
        counted = set(voters)
        return tuple(p for p in self.peers if p in counted)

    @property
    def majority(self) -> int:
        """How many voters make a majority of the cluster (the leader included)."""
        return (len(self.voting) + 1) // 2 + 1

    def reconfigure(self, peers: Sequence[int], voters: Iterable[int]) -> None:
        """The cluster's configuration changed: heartbeats go to ``peers`` (every other
        member, learners included) and a majority is counted among ``voters``.  A
        leader's lease starts over, as when it lapses (:meth:`lapse`): it holds none
        until heartbeats sent from now on are acknowledged under the new configuration
        (rule L2) — but a leadership never granted a lease stays one that never was.
        What it knew of a member that left is forgotten."""
        self.peers = tuple(peers)
        self.voting = self._voting(voters)
        kept = set(self.peers)
        for numbers in (self._acked, self._answered, self._joined, self._from):
            for peer in [p for p in numbers if p not in kept]:
                del numbers[peer]
        granted = self.granted
        self.lapse()
        self._lapsed = granted and self.epoch is not None

    @property
    def horizon(self) -> int:
        """How far back, in heartbeats, this lease remembers: an answer to an older
        heartbeat can neither renew a lease nor tell anything a newer one does not, so it
        is ignored, and older numbers are kept as this old."""
        return self.settings.beats + self.settings.silent_beats + 3

    def begin(self, epoch: int, absent: Iterable[int] = ()) -> None:
        """This node leads round ``epoch`` from now on: no lease yet.  ``absent``: peers
        known to be down (suspected) now, which hold no lease back until they answer."""
        self.epoch = epoch
        self._absent = frozenset(absent)
        self.basis = None
        self.until = 0.0
        self._start = self.seq
        self._lapsed = False
        self._sent.clear()
        self._acked.clear()  # (who answered at all, and when, is kept: a dead follower
        # stays out of the next leadership's count)

    def key(self, now: float) -> tuple[object, ...]:
        """The lease's state as a hashable value (see ``Member.key``): its heartbeat
        numbers counted back from the newest, its times from ``now``."""
        seq = self.seq

        def back(numbers: dict[int, int]) -> frozenset[tuple[int, int]]:
            return frozenset((peer, seq - n) for peer, n in numbers.items())

        return (
            min(seq, self.horizon + 1),  # (a young lease has no answers from far back)
            self.epoch,
            None if self.basis is None else seq - self.basis,
            seq - self._start,
            self._lapsed,
            self._absent,
            back(self._acked),
            back(self._answered),
            self._joined_order(),
            frozenset(self._from.items()),
            frozenset((seq - n, round(at - now, 9)) for n, at in self._sent.items()),
            0.0 if reached(now, self.until) else round(self.until - now, 9),
            0.0 if reached(now, self.not_before) else round(self.not_before - now, 9),
        )

    def _joined_order(self) -> tuple[frozenset[int], ...]:
        """Who joined when, as far as it matters (only the order is ever compared): the
        peers in the order they joined, those that joined together in one set."""
        groups: dict[int, set[int]] = {}
        for peer, n in self._joined.items():
            groups.setdefault(n, set()).add(peer)
        return tuple(frozenset(groups[n]) for n in sorted(groups))

    def end(self) -> None:
        """This node leads nothing (any more)."""
        self.epoch = None
        self.basis = None
        self.until = 0.0
        self._sent.clear()

    def beat(self, now: float) -> int:
        """The number of the heartbeat the leader sends ``now``."""
        self.seq += 1
        self._sent[self.seq] = now
        if self.epoch is not None and not reached(now, self.not_before):
            # Sent while a promise of its previous life may still run: no basis, and the
            # wait for a first lease counts from the next one.
            self._start = self.seq
            self._acked.clear()
        self._forget()
        return self.seq

    def _forget(self) -> None:
        """Keep no heartbeat number older than the horizon (as that old, if it was)."""
        floor = self.seq - self.horizon
        for numbers in (self._acked, self._answered):
            for peer, n in numbers.items():
                if n < floor:
                    numbers[peer] = floor
        self._start = max(self._start, floor)
        if self.basis is not None and self.basis < floor:
            self.basis = floor
        keep = floor if self.basis is None else max(floor, self.basis)
        for n in [n for n in self._sent if n < keep]:
            del self._sent[n]

    def answer(self, peer: int, seq: int, epoch: int, now: float, *, current: bool = True) -> bool:
        """``peer`` answered heartbeat ``seq`` from round ``epoch`` (it arrived ``now``):
        True if the basis moved.  ``current``: the answer carried this leader's
        configuration key; one that did not acknowledges nothing (rule L1: a lease is
        counted in one configuration), though its sender is still answering."""
        if seq > self.seq or seq <= self.seq - self.horizon:
            return False  # not one of ours, or beyond the horizon
        last = self._answered.get(peer)
        if last is None or seq - last > self.settings.silent_beats:
            self._joined[peer] = seq  # answering (again) from here: it (re)joined
        if seq >= (last or 0):  # its newest answer (a duplicate too: same seq, same epoch)
            self._answered[peer] = seq
            self._from[peer] = epoch
        if self.epoch is None or seq <= self._start:
            return False
        if epoch == self.epoch and current and seq > self._acked.get(peer, 0):
            self._acked[peer] = seq
        return self._move(now)

    def _move(self, now: float) -> bool:
        """Move the basis up to what the answers allow; True if it moved."""
        basis = self._basis()
        if basis is None or (self.basis is not None and basis <= self.basis):
            return False
        at = self._sent.get(basis)
        if at is None and basis == self.seq:  # none sent yet: a node with nobody to ask
            at = now
        if at is not None and not reached(at, self.not_before):
            return False  # (sent while a promise of its previous life may still run)
        self.basis = basis
        self._lapsed = False
        self.until = 0.0 if at is None else at + self.settings.lease
        return True

    def lapse(self) -> None:
        """The lease ran out on this node's clock (the steady rules: the leader goes on
        sending its heartbeat): not held again until a heartbeat sent from now on is
        acknowledged."""
        if self.epoch is None:
            return
        self.basis = None
        self.until = 0.0
        self._start = self.seq
        self._lapsed = True
        self._acked.clear()

    def _basis(self) -> int | None:
        answering = self._answering()
        if not self.settings.quorum or answering is None:
            return answering
        needed = self.majority - 1
        if needed == 0:
            return answering
        acked = self._acked
        if len(self.voting) == len(self.peers):
            counted = list(acked.values())
        else:  # learners: their acknowledgements count in no majority
            counted = [acked[p] for p in self.voting if p in acked]
        if len(counted) < needed:
            return None
        return min(answering, sorted(counted, reverse=True)[needed - 1])

    def _answering(self) -> int | None:
        """The newest heartbeat every follower still answering acknowledged."""
        acked = self._acked
        # Followers not heard from in a while stop counting; one never heard from counts
        # as heard at the start of this leadership.
        horizon = self.seq - self.settings.silent_beats
        start = self._start
        basis: int | None = self.seq
        absent = self._absent
        dead = self._dead
        answers_from = self._from
        quorum = self.settings.quorum
        for peer in self.peers:
            start_or_never = -1 if peer in absent else start
            if self._answered.get(peer, start_or_never) < horizon or peer in dead:
                continue
            if quorum and answers_from.get(peer) == 0:
                continue  # it acknowledges no round (see the module's docstring)
            seq = acked.get(peer)
            if seq is None:
                return None
            basis = min(seq, basis) if basis is not None else seq
        return basis

    def gone(self, peer: int, now: float) -> bool:
        """``peer``'s process is gone (its connection was refused): if its newest answer
        acknowledged this leadership, it holds the lease back no longer, nor counts as
        live or in a majority, until it answers again.  True if the basis moved.

        Only then: its acknowledgements promised this leader alone, and a restarted node
        keeps its last life's promise (``SteadyRules.restarted``), so it helps elect
        nobody else meanwhile.  A follower that answered from another round vouched for
        another leader, whose lease may rest on that acknowledgement after it died: the
        refusal proves the process gone now, not that lease ended, so it holds this
        lease back until it has been silent for long enough, as any follower does."""
        if peer not in self.peers or self.epoch is None:
            return False
        if self._from.get(peer) != self.epoch or peer not in self._acked:
            return False
        self._answered[peer] = min(self._answered.get(peer, 0), self.seq - self.horizon)
        self._acked.pop(peer, None)
        return self._move(now)

    def refresh(self, now: float) -> bool:
        """At a heartbeat: followers silent for too long stop holding the lease back.
        True if the basis moved."""
        if self.epoch is None:
            return False
        return self._move(now)

    def live(self, peer: int) -> bool:
        """Whether ``peer`` acknowledged a heartbeat of this leadership within the last
        lease (it is up, linked, and in this round)."""
        if self.epoch is None:
            return False
        acked = self._acked.get(peer)
        return acked is not None and self.seq - acked <= self.settings.silent_beats

    def elsewhere(self, peer: int) -> bool:
        """Whether ``peer`` answers this leader's heartbeat lately, but from another round
        (it follows another leader)."""
        answered = self._answered.get(peer)
        return (
            answered is not None
            and self.seq - answered <= self.settings.silent_beats
            and not self.live(peer)
        )

    @property
    def refused(self) -> bool:
        """Whether this leadership holds no lease while a follower still answering
        refuses it: it answers from a newer round, or (under the steady rules, where a
        recovering node never does) in epoch 0.  With a quorum that follower never
        acknowledges this round again, so the lease may never come back."""
        epoch = self.epoch
        if epoch is None or self.held:
            return False
        # (An answer to a heartbeat of this leadership, or of this try at a lease.)
        since = max(self.seq - self.settings.silent_beats - 1, self._start)
        answered = self._answered
        return any((e > epoch or e == 0) and answered[p] > since for p, e in self._from.items())

    def joined(self, peer: int) -> int:
        """The heartbeat from which ``peer`` has been answering without a break (the
        larger, the later it joined or came back)."""
        return self._joined.get(peer, 0)

    @property
    def held(self) -> bool:
        """Whether this node holds its lease, counted in heartbeats (granted, and not run
        out yet)."""
        return self.basis is not None and not self.expired

    def holds(self, now: float) -> bool:
        """Whether this node holds its lease at ``now`` on its clock."""
        return self.held and not reached(now, self.until)

    @property
    def lapsed(self) -> bool:
        """Whether this leadership's lease ran out (:meth:`lapse`) and has not been
        granted again."""
        return self.epoch is not None and self.basis is None and self._lapsed

    @property
    def granted(self) -> bool:
        """Whether this leadership was granted a lease in its round (it may have lapsed
        since)."""
        return self.basis is not None or self._lapsed

    @property
    def expired(self) -> bool:
        """Whether the lease (or the wait for a first one) has run out."""
        if self.epoch is None:
            return False
        since = self._start if self.basis is None else self.basis
        return self.seq - since > self.settings.beats + 1
