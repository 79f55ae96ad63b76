"""A trace told as the course notes tell a run: one line per step, in their words.

A *step* is what one node does on one trigger — a message received, a timer, a
suspicion, a crash or a restart (or nothing: an initiator starting) — with the sends and
the change of state that follow it on that node.  A trace's header names the algorithm
that ran: the notes' algorithms are told in the notes' words, any other (``module:Class``)
in neutral ones — what was sent and received, which of its variables changed — never in
another algorithm's.  A trace without a header (written before traces had one) has its
algorithm guessed from its message kinds (:func:`algorithm_of`), and the story says so.
A message of a round older than its receiver's is told as ignored, and a message lost
because its receiver crashed is told with the crash, after it.  :func:`narrate` is pure
(events in, lines out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ._steps import (
    MEMBERSHIP,
    NETWORK,
    RINGS,
    Event,
    Step,
    algorithm_ran,
    candidates,
    carried,
    causal,
    idle,
    steps,
)
from ._trace_file import candidate, label
from ._words import timer_words

__all__ = ["Story", "narrate", "story"]


def _network(trigger: Event, me: str) -> str | None:
    """What a misbehaving network did, in words (``None``: something else)."""
    event = trigger["event"]
    if event in ("partition", "heal"):
        sides = " | ".join(" ".join(label(n) for n in g) for g in trigger.get("groups", []))
        if event == "partition":
            return f"the network splits ({sides} | the rest): messages between them are lost"
        return f"the network heals ({sides} | the rest)"
    if event == "pause":
        seconds = trigger.get("seconds")
        long = f" for {seconds:g} s" if isinstance(seconds, int | float) else ""
        return f"{me} pauses{long} (a GC pause, SIGSTOP): what reaches it waits"
    if event == "resume":
        return f"{me} resumes"
    return None


def _membership(trigger: Event, me: str) -> str:
    """A node's configuration changed, in the words ``ringleader node`` prints."""
    configuration = trigger.get("configuration")
    if trigger["event"] == "removed":
        return f"{me} is removed from the cluster ({configuration}): it takes no part any more"
    return f"{me} counts majorities in configuration {configuration}"


def _change(trigger: Event, me: str) -> str:
    """An operator's request for a membership change, and the node's answer."""
    what = "add (as a learner)" if trigger.get("change") == "add" else "remove"
    asked = f"an operator asks {me} to {what} {label(trigger.get('peer'))}"
    if trigger.get("refused") is not None:
        return f"{asked}: {me} refuses ({trigger['refused']})"
    return f"{asked}: {me} makes configuration {trigger.get('configuration')}"


def _peers(sends: list[Event]) -> str:
    return ", ".join(label(send["peer"]) for send in sends)


class _Teller:
    """How one run's messages and steps are worded."""

    def __init__(
        self,
        algorithm: str | None,
        epochs: bool,
        own: dict[Any, tuple[Any, Any]] | None = None,
    ) -> None:
        self.algorithm = algorithm
        self.epochs = epochs
        self.own = own or {}

    def smaller(self, trigger: Event, node: Any) -> bool | None:
        """Whether the candidate ``trigger`` carries is smaller than ``node`` (capacity,
        then id, as the notes compare them); ``None``: the trace cannot say."""
        mine = self.own.get(node)
        theirs = carried(trigger.get("fields"), candidate(trigger.get("fields")))
        if mine is None or theirs is None:
            return None
        try:
            return bool(theirs < mine)
        except TypeError:
            return None

    def message(self, event: Event) -> str:
        kind, fields = event["kind"], event.get("fields") or {}
        who = candidate(fields)
        name = label(who) if who is not None else ""
        if self.algorithm in ("tree", "echo"):
            shown = {"demande": "Demande()", "rep": f"REP({name})", "elu": f"ELU({name})"}
            return shown.get(kind, "OK!" if kind == "ok" else kind)
        if self.algorithm == "hirschberg_sinclair" and "phase" in fields:
            return f"{kind}({name}, phase {fields['phase']})"
        if self.algorithm == "bully_broadcast" and kind in ("el", "ack"):
            return f"El({name})" if kind == "el" else "Ack"
        return f"{kind}({name})" if name else kind

    def sends(self, sends: list[Event]) -> str:
        """``election to P3, P4; ok to P1`` — sends of one message grouped; those lost
        told apart, with why: ``election to P4 — lost: P4 is down``."""
        grouped: dict[tuple[str, str], list[Event]] = {}
        for send in sends:
            grouped.setdefault((self.message(send), send.get("lost") or ""), []).append(send)
        arrived = [(m, g) for (m, lost), g in grouped.items() if not lost]
        lost = [(m, lost, g) for (m, lost), g in grouped.items() if lost]
        return "; ".join(
            [
                *(f"{m} to {_peers(group)}" for m, group in arrived),
                *(f"{m} to {_peers(group)} — lost: {why}" for m, why, group in lost),
            ]
        )

    def changed(self, step: Step) -> str:
        """Which of the node's election variables this step changed, if the trace
        records them: ``; best: P3 → P4``."""
        last = next(
            (s["vars"] for s in reversed(step.states) if isinstance(s.get("vars"), dict)), None
        )
        if last is None:
            return ""
        before = step.variables or {}
        changes = [
            f"{name}: {_value(before[name])} → {_value(value)}"
            if name in before
            else f"{name} = {_value(value)}"
            for name, value in last.items()
            if name not in before or before[name] != value
        ]
        return f"; its variables: {', '.join(changes)}" if changes else ""

    def state(self, step: Step, said: str) -> str:
        if not step.states:
            return ""
        last = step.states[-1]
        epoch = f" (epoch {last.get('epoch')})" if self.epochs else ""
        me, elected = label(step.node), last.get("elected")
        if last["state"] == "leader":
            return "" if "leader" in said or "proclaims" in said else f"; {me} is the leader{epoch}"
        if elected is not None:
            return f"; elected = {label(elected)}{epoch}"
        return f"; {me} is {last['state'].replace('_', '-')}{epoch}"

    def tell(self, step: Step) -> str:
        trigger = step.trigger
        if trigger is not None and trigger["event"] == "violation":
            return f"✗ unsafe ({trigger.get('check')}): {trigger.get('detail')}"
        said = self._tell(step)
        if trigger is not None and trigger.get("duplicate") and "duplicated" not in said:
            said += " (that was a copy: the network duplicated it)"
        return said

    def _tell(self, step: Step) -> str:
        me, trigger = label(step.node), step.trigger
        if trigger is not None and trigger["event"] in NETWORK | MEMBERSHIP:
            return _network(trigger, me) or _membership(trigger, me)
        kind = trigger["event"] if trigger else "start"
        if trigger is not None and step.stale:
            return (
                f"{me} ignores {self.message(trigger)} from {label(trigger['peer'])}: it is "
                f"of epoch {trigger['epoch']}, an older round than {me}'s (epoch {step.epoch})"
            )
        if trigger is not None and trigger["event"] == "crash":
            if not step.lost:
                return f"{me} crashes (fails): it stops, its messages are lost"
            on_way = ", ".join(
                f"{self.message(send)} from {label(send['node'])}" for send in step.lost
            )
            return f"{me} crashes (fails): it stops; what was on its way to it is lost: {on_way}"
        if self.algorithm == "bully":
            said = self.bully(step, me, trigger)
        elif self.algorithm == "bully_broadcast":
            said = self.broadcast(step, me, trigger)
        elif self.algorithm is not None:
            said = self.passing(step, me, trigger)
        else:
            said = self.neutral(step, me, trigger)
        if not said:  # a trigger with nothing the notes would tell
            said = {
                "start": f"{me} acts",
                "timer": f"{me}: {timer_words(str(trigger and trigger.get('timer')))}",
            }.get(kind, f"{me}: {kind}")
        if self.algorithm is None:  # not the notes': what it changed, in its own names
            return said + self.state(step, said) + self.changed(step)
        return said + self.state(step, said)

    def common(  # noqa: PLR0911 -- one case per trigger
        self, step: Step, me: str, trigger: Event | None
    ) -> str | None:
        """Crashes, restarts, suspicions, timers and an operator's membership change read
        alike in every algorithm."""
        sends = self.sends(step.sends)
        then = f" → {sends}" if sends else ""
        if trigger is None:
            return None
        if trigger["event"] == "crash":
            return f"{me} crashes (fails): it stops, its messages are lost"
        if trigger["event"] == "restart":
            return f"{me} recovers{then}"
        if trigger["event"] == "suspect":
            return f"{me} suspects {label(trigger['peer'])} (no answer within T){then}"
        if trigger["event"] == "change":
            return f"{_change(trigger, me)}{then}"
        if trigger["event"] == "timer":
            name = str(trigger["timer"])
            own = " and starts a round of its own" if ":" in name and step.sends else ""
            return f"{me}: {timer_words(name)}{own}{then}"
        return None

    def bully(  # noqa: PLR0911, PLR0912 — one case per rule of the notes
        self, step: Step, me: str, trigger: Event | None
    ) -> str:
        elections = [s for s in step.sends if s["kind"] in ("election", "el")]
        coordinators = [s for s in step.sends if s["kind"] == "coordinator"]
        oks = [s for s in step.sends if s["kind"] in ("ok", "ack")]
        proclaim = f"proclaims itself: {self.sends(coordinators)}" if coordinators else ""
        run = self.sends(elections) if elections else ""
        if trigger is None:
            if proclaim:
                return f"{me} knows no higher process: {proclaim}"
            return f"{me} starts an election: {run}" if run else ""
        event, kind = trigger["event"], trigger.get("kind")
        sender = label(trigger.get("peer"))
        if event == "timer" and trigger["timer"] == "answer" and proclaim:
            return f"{me} gets no reject within T: {proclaim}"
        if event == "timer" and trigger["timer"] == "answer" and run:
            return (
                f"{me} gets no reject within T, but may proclaim itself only in a round of "
                f"its own: starts one → {run}"
            )
        if event == "timer" and trigger["timer"] == "coordinator":
            again = run or self.sends(step.sends)
            return f"{me} hears no coordinator within T′: starts its round again → {again}"
        if event == "restart" and proclaim and not run:
            return f"{me} recovers and, knowing no higher process, {proclaim} (no election)"
        if event == "restart" and run:
            return f"{me} recovers and starts its election: {run}"
        if event == "receive" and kind in ("election", "el") and oks:
            said = f"{me} rejects {sender}'s election (ok)"
            if proclaim:
                return f"{said} and {proclaim}"
            if run:
                return f"{said} and starts its own round → {run}"
            return f"{said}; its own round is already running"
        if event == "receive" and kind in ("ok", "ack"):
            waits = "" if step.sends else f"; waits T′ for {sender}'s coordinator"
            said = f"{me}'s election is rejected by {sender} (ok): a higher process is alive{waits}"
            return said + (f" → {self.sends(step.sends)}" if step.sends else "")
        if event == "receive" and kind == "coordinator":
            if run:
                return f"{me} gets coordinator from lower {sender}: starts its own round → {run}"
            if step.states and step.states[-1].get("elected") == trigger["peer"]:
                return f"{me} takes {sender} as coordinator"
            epoch = trigger.get("epoch")
            return f"{me} gets coordinator from {sender} (epoch {epoch}) and keeps its view"
        if event == "receive" and kind in ("election", "el") and not step.sends:
            epoch = trigger.get("epoch")
            return f"{me} gets {sender}'s election (epoch {epoch}) and leaves it unanswered"
        return self.common(step, me, trigger) or self.neutral(step, me, trigger)

    def broadcast(self, step: Step, me: str, trigger: Event | None) -> str:
        """Bully with broadcast (notes 003): bids (El), Acks, and the states Peut-être,
        Enquête, Perdu."""
        bids = [s for s in step.sends if s["kind"] == "el"]
        acks = [s for s in step.sends if s["kind"] == "ack"]
        leads = bool(step.states) and step.states[-1]["state"] == "leader"
        if trigger is None:
            return f"{me} broadcasts its bid (Enquête): {self.sends(bids)}" if bids else ""
        kind, sender = trigger.get("kind"), label(trigger.get("peer"))
        if trigger["event"] == "receive" and kind == "el":
            bid = self.message(trigger)
            if bids:
                return (
                    f"{me} gets {bid}, lower than itself: it bids too (Enquête) → "
                    f"{self.sends(bids)}"
                )
            if acks:
                return f"{me} gives way to {bid} (Perdu): {self.sends(acks)}"
            return f"{me} ignores {bid}, lower than its own bid"
        if trigger["event"] == "receive" and kind == "ack":
            won = ": an Ack from every other process, it is the leader" if leads else ""
            return f"{me} gets {sender}'s Ack{won}"
        return self.common(step, me, trigger) or self.neutral(step, me, trigger)

    def passing(self, step: Step, me: str, trigger: Event | None) -> str:
        """The ring and wave algorithms: messages forwarded, swallowed, answered."""
        if trigger is None:
            started = self.sends(step.sends)
            return f"{me} starts its round (participant): {started}" if started else ""
        if trigger["event"] != "receive":
            return self.common(step, me, trigger) or ""
        got, who, kind = self.message(trigger), candidate(trigger.get("fields")), trigger["kind"]
        forwards = [
            s for s in step.sends if s["kind"] == kind and candidate(s.get("fields")) == who
        ]
        mine = [s for s in step.sends if candidate(s.get("fields")) == step.node]
        own = [s for s in mine if s not in forwards] if self.algorithm in RINGS else []
        others = [s for s in step.sends if s not in forwards and s not in own]
        if who == step.node and kind == "election" and (others or own):
            told = self.sends(own + others)
            return f"{me} gets its own election back: it is the leader; {told} round the ring"
        clauses = self.returned(
            me, got, own_id=who == step.node, kind=kind, trigger=trigger, own=own, forwards=forwards
        )
        if own and kind == "election" and who is not None and self.smaller(trigger, step.node):
            clauses.append(
                f"{me} replaces {got} by its own ({label(who)} < {me}, not yet a participant) "
                f"and starts its round: {self.sends(own)}"
            )
        elif own and not (who == step.node and kind == "reply"):
            clauses.append(f"{me} starts its own round: {self.sends(own)}")
        if forwards:
            clauses.append(f"{me} forwards {self.sends(forwards)}")
        if others:
            sender = label(trigger["peer"])
            clauses.append(f"{me} answers {got} from {sender} with {self.sends(others)}")
        if not clauses and not step.states:
            why = ""
            participant = (step.variables or {}).get("participant", True)
            if (
                self.algorithm == "chang_roberts"
                and who is not None
                and participant
                and self.smaller(trigger, step.node)
            ):
                why = f" (extinction: {me} is a participant, {label(who)} < {me})"
            verb = "swallows" if self.algorithm in RINGS else "takes in"
            clauses.append(f"{me} {verb} {got}{why}")
        return "; ".join(clauses) or f"{me} gets {got} from {label(trigger['peer'])}"

    def returned(
        self,
        me: str,
        got: str,
        *,
        own_id: bool,
        kind: str,
        trigger: Event,
        own: list[Event],
        forwards: list[Event],
    ) -> list[str]:
        """What a message coming back (or announcing the leader) means to its node."""
        if own_id and kind == "reply":
            said = f"{me} gets {got} back from {label(trigger['peer'])}"
            if own:
                said += f"; both sides answered: {me} enters the next phase: {self.sends(own)}"
            return [said]
        if own_id and kind in ("elect", "probe"):
            return [f"{me} gets its own {got} back"]
        if kind == "elected" and forwards:
            return [f"{me} learns its leader from {got} (non-participant)"]
        if own_id and kind == "elected":
            return [f"{me} gets {got} back: the whole ring knows its leader"]
        return []

    def neutral(self, step: Step, me: str, trigger: Event | None) -> str:
        sends = self.sends(step.sends)
        then = f" → {sends}" if sends else ""
        if trigger is None:
            return f"{me} sends {sends}" if sends else ""
        if trigger["event"] == "receive":
            copy = " (a copy: the network duplicated it)" if trigger.get("duplicate") else ""
            got = f"{self.message(trigger)} from {label(trigger['peer'])}{copy}"
            return f"{me} receives {got}{then}"
        return self.common(step, me, trigger) or ""


def _summary(events: list[Event], teller: _Teller) -> list[str]:
    sends = [e for e in events if e["event"] == "send"]
    kinds = Counter(e["kind"] for e in sends)
    gone = sum(1 for e in sends if e.get("lost"))
    lost = f"; {gone} of them lost" if gone else ""
    lines = [
        f"Messages: {len(sends)} ("
        + ", ".join(f"{kind} {count}" for kind, count in kinds.items())
        + f"){lost}"
    ]
    if teller.algorithm in ("chang_roberts", "lelann"):
        ring_kind = "election" if teller.algorithm == "chang_roberts" else "elect"
        carried = Counter(candidate(e.get("fields")) for e in sends if e["kind"] == ring_kind)
        per = ", ".join(
            f"{ring_kind}({label(who)}) {count}"
            for who, count in sorted(carried.items(), key=lambda x: _numeric(x[0]))
        )
        lines.append(f"Per initiator, how far its {ring_kind} travelled: {per}")
    return lines


def _value(value: Any) -> str:
    """An election variable's value, short: a candidate as ``P4``, a set of them as
    ``{P1, P4}``."""
    if (
        isinstance(value, dict)
        and isinstance(value.get("id"), int)
        and set(value) <= {"id", "capacity"}
    ):
        return label(value["id"])
    if isinstance(value, dict) and isinstance(value.get("kind"), str):  # a message
        who = candidate({k: v for k, v in value.items() if k != "kind"})
        return f"{value['kind']}({label(who)})" if who is not None else value["kind"]
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if value is None:
        return "⊥"
    return str(value)


def _numeric(node: object) -> tuple[int, Any]:
    """Node ids in their numeric order (P2 before P10), anything else after, as text."""
    if isinstance(node, int) and not isinstance(node, bool):
        return (0, node)
    return (1, str(node))


@dataclass(frozen=True)
class Story:
    """A run told: its ``heading``, its ``steps`` — ``(t, sentence, events)``, the
    places in the run (heartbeats left out) of the events each step tells — and its
    ``summary``."""

    heading: str
    steps: list[tuple[float, str, list[int]]]
    summary: list[str]

    def lines(self) -> list[str]:
        span = max((t for t, _, _ in self.steps), default=0.0)
        places = 3 if span >= 0.1 else 6
        told = [f"t={t:.{places}f} {sentence}" for t, sentence, _ in self.steps]
        return [self.heading, *told, *self.summary]


def story(events: Iterable[Event], header: Event | None = None) -> Story:
    """The run in ``events`` (heartbeats are left out) told step by step; ``header``:
    the trace's header (what ran), if it has one."""
    shown = [e for e in events if not e.get("heartbeat")]
    kinds = {e["kind"] for e in shown if e["event"] == "send"}
    algorithm, name = algorithm_ran(shown, header)
    epochs = len({e.get("epoch") for e in shown if "epoch" in e}) > 1
    teller = _Teller(algorithm, epochs, candidates(shown, header))
    nodes = {e["node"] for e in shown}
    if header is not None and isinstance(header.get("nodes"), list):
        nodes |= {n.get("id") for n in header["nodes"] if isinstance(n, dict)}
    heading = f"{name} ({', '.join(sorted(kinds)) or 'no messages'}) among {len(nodes)} processes"
    if header is None:
        heading += " — guessed from its messages: the trace does not say what ran (no header)"
    told, lost = causal(shown)
    sentences: list[tuple[float, str, list[int]]] = []
    for step in steps(told):
        if idle(step):  # a crash-handling timer that changed nothing: nothing to tell
            continue
        if step.trigger is not None and step.trigger["event"] == "crash":
            step.lost = lost.get(step.events[0], [])
        sentences.append((step.t, teller.tell(step), step.events))
    return Story(heading, sentences, _summary(shown, teller))


def narrate(events: Iterable[Event], header: Event | None = None) -> list[str]:
    """The run in ``events`` told step by step: a heading, one line per step, a summary
    (``header``: the trace's, if it has one)."""
    return story(events, header).lines()
