"""One lab of a service: a config's cluster as ``ringleader node`` runs it, stepped by hand.

The notes' lab (:class:`~ringleader.lab.Lab`) steps the notes' elections; a service's
nodes run more than the election — the failure detector's heartbeats, the steady rules,
a lease on each node's clock, the state file — and ``explore --service`` has those rules
in a model of their own, :class:`~ringleader.actors.exploration.service.ServiceModel`.
:class:`ServiceLab` steps that model as the notes' lab steps its own, with the same
page: a path of choices from every node's start names a state (the same path, the same
state), and :meth:`ServiceLab.view` tells it in the same shape — each node with its
state, leader and epoch and, as a service keeps them, its lease (the fencing token is
its epoch) and what its state file holds; the frames in flight; every move the model
offers (a frame delivered, dropped or delivered twice, a timer fired, a refused link
told, a tick of true time, a crash, a restart, a split, a pause, as the faults asked
for allow); the service's checks along the run (the token never goes back, no two
leases at one instant, one leader per epoch, one acknowledged leader per round); the run
told in the notes' words and drawn, heartbeats and all.  Moves the model does not have
(an initiator's wake-up: every node of a service starts at once) are not offered.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import Any

from ringleader.actors.exploration import FAILED, PASSED
from ringleader.actors.exploration.service import (
    CHECKS,
    DOWN,
    FAULT_EVENTS,
    FOREVER,
    ServiceExploration,
    ServiceModel,
    Unsettled,
    service_records,
)
from ringleader.topologies import TOPOLOGIES, Config
from ringleader.traces import trace_header

from ._layout import HEIGHT, WIDTH, layout
from ._paths import PathError
from ._stepping import changed, orderings, random_step, round_robin_step
from ._told import marks, told
from ._values import jsonable

__all__ = ["SERVICE_POLICIES", "ServiceLab"]

#: How auto-play picks the next step in a service: a service's run never ends (time goes
#: on), so there is no adversary that sends the most messages: seeded at random, or
#: round-robin over the links (and the timers and ticks when nothing is in flight).
SERVICE_POLICIES = {"random": "seeded random", "round_robin": "round-robin FIFO"}
#: What a step is called on the page, by the model's event.
_MOVE_KINDS = {
    "deliver": "deliver",
    "duplicate": "duplicate",
    "lose": "drop",
    "timer": "timer",
    "dead": "refused",
    "tick": "tick",
    "crash": "crash",
    "restart": "restart",
    "wipe": "wipe",
    "split": "partition",
    "cut": "cut",
    "heal": "heal",
    "pause": "pause",
    "resume": "resume",
}
#: The step the run reached when it settled on its first leader: a run to open.
SETTLED = "settled"


class ServiceLab:
    """``exploration``'s service model of ``config``, stepped by hand (one per server)."""

    policies = SERVICE_POLICIES

    def __init__(self, config: Config, exploration: ServiceExploration) -> None:
        self.config = config
        self.exploration = exploration
        self.model: ServiceModel = exploration.model
        self.algorithm = config.algorithm_class
        self.header = trace_header(config, mode="explored")
        self._lock = threading.Lock()
        self._walked: tuple[list[int], list[tuple[int, ...]], list[int], list[Any]] = (
            [],
            [],
            [],
            [],
        )
        model = self.model
        pairs = {(model.ids[a], model.ids[b]) for a, b in model.links if a != b}
        self.positions = layout(config.topology, model.ids, sorted(pairs))
        self.findings = self._findings()

    # -- what does not change --------------------------------------------------------

    def _findings(self) -> list[dict[str, Any]]:
        """The runs the explorer reported (the shortest to each violation), and the
        fault-free run to the first leader holding its lease, each as a path to open."""
        model, exploration = self.model, self.exploration
        found: list[dict[str, Any]] = []
        try:
            _, settled = model.settle(model.initial()[0])
        except Unsettled:
            settled = None
        runs: list[tuple[str, list[int], str | None]] = []
        if settled is not None:
            runs.append((SETTLED, settled, None))
        details = {f.kind: f.detail for f in exploration.findings}
        runs += [(kind, events, details.get(kind)) for kind, events in exploration.paths.items()]
        for name, events, detail in runs:
            choices = self.choices(events)
            if choices is None:
                continue
            found.append(
                {
                    "name": name,
                    "label": "first leader settled" if name == SETTLED else name,
                    "violation": name != SETTLED,
                    "detail": detail,
                    "check": CHECKS.get(name),
                    "steps": len(choices),
                    "messages": self._sent(events),
                    "path": ".".join(map(str, choices)),
                }
            )
        return found

    def _sent(self, events: Sequence[int]) -> int:
        records = service_records(self.model, events)
        return sum(1 for record in records if record[3] == "send")

    def choices(self, events: Sequence[int]) -> list[int] | None:
        """The path of choices that takes the steps ``events`` (event numbers)."""
        model = self.model
        state = model.initial()[0]
        path = []
        for number in events:
            steps = model.expand(state)
            at = next((k for k, step in enumerate(steps) if step[0] == number), None)
            if at is None:
                return None
            path.append(at)
            state = steps[at][1]
        return path

    def info(self) -> dict[str, Any]:
        """What the page draws once: the network, the rules, the checks, the runs."""
        model, config, exploration = self.model, self.config, self.exploration
        timing, options, settings = model.timing, model.options, model.settings
        quorum = "a majority's lease" if model.needed > 1 else "a lease without a quorum"
        return {
            "title": f"{self.algorithm.title} on a {TOPOLOGIES[config.topology].title} "
            f"of {config.n} nodes, as a service",
            "source": config.source,
            "algorithm": self.header.get("algorithm", self.algorithm.name),
            "topology": config.topology,
            "initiators": [],
            "rules": "service",
            "about": f"as `ringleader node` runs it: heartbeats every "
            f"{settings.heartbeat:g} s, suspected after {settings.suspect_after:g} s, "
            f"{quorum} of {timing.lease:g} s (held {timing.shadow} ticks against the "
            f"others' clocks, drift {timing.drift:.1%}); a tick is {timing.tick:g} s",
            "width": WIDTH,
            "height": HEIGHT,
            "nodes": [
                {
                    "id": node,
                    "capacity": view.capacity,
                    "x": self.positions[node][0],
                    "y": self.positions[node][1],
                }
                for node, view in zip(model.ids, model.views, strict=True)
            ],
            "links": [
                {"index": k, "from": model.ids[a], "to": model.ids[b], "fifo": True}
                for k, (a, b) in enumerate(model.links)
                if a != b
            ],
            "options": {
                "faults": dataclasses.asdict(options),
                "restarts": bool(options.restarts or options.wipes),
            },
            "checks": [{"kind": kind, "words": words} for kind, words in CHECKS.items()],
            "bound": None,
            "explored": {
                "states": exploration.states,
                "complete": exploration.complete,
                "messages": None,
            },
            "findings": self.findings,
            "marks": marks(),
            "policies": [{"name": k, "words": v} for k, v in SERVICE_POLICIES.items()],
        }

    # -- a path's state ---------------------------------------------------------------

    def walk(self, path: Sequence[int]) -> tuple[list[tuple[int, ...]], list[int], list[Any]]:
        """The states along ``path`` (every node's start first), the events taken and
        the checks each step broke; :class:`PathError` where a choice is not enabled."""
        with self._lock:
            return self._walk(path)

    def _walk(self, path: Sequence[int]) -> tuple[list[tuple[int, ...]], list[int], list[Any]]:
        model = self.model
        walked, states, events, broken = self._walked
        same = 0  # the steps shared with the path walked last: not taken again
        while same < min(len(path), len(walked)) and path[same] == walked[same]:
            same += 1
        if states:
            states, events, broken = states[: same + 1], events[:same], broken[: same + 1]
        else:
            initial, first = model.initial()
            states, events, broken, same = [initial], [], [first], 0
        for k in range(same, len(path)):
            choice = path[k]
            steps = model.expand(states[-1])
            if choice >= len(steps):
                self._walked = (list(path[:k]), states, events, broken)
                enabled = f"{len(steps)} enabled" if steps else "none enabled"
                raise PathError(f"step {k + 1} of the path: choice {choice}, {enabled}", valid=k)
            number, successor, checks = steps[choice]
            states.append(successor)
            events.append(number)
            broken.append(checks)
        self._walked = (list(path), states, events, broken)
        return list(states), list(events), list(broken)

    def view(
        self, path: Sequence[int], *, policy: str | None = None, seed: int = 0
    ) -> dict[str, Any]:
        """Everything the page shows of ``path``'s state (see the module's docs)."""
        with self._lock:
            states, events, broken = self._walk(path)
            state = states[-1]
            steps = self.model.expand(state)
            records = service_records(self.model, events, step=0.001)
            shown, _ = told(records, nodes=self.model.n, header=self.header, heartbeats=True)
            violations = self._violations(events, broken)
            shown["diagram"]["marks"] += [
                {"node": v["node"], "step": v["step"], "mark": "violation"} for v in violations
            ]
            view = {
                "path": ".".join(map(str, path)),
                "step": len(path),
                "sent": sum(1 for record in records if record[3] == "send"),
                "end": not steps,
                "nodes": self._nodes(state),
                "links": self._links(state),
                "moves": self._moves(state, steps),
                "changed": self._changed(states),
                "last": self.model.describe(events[-1]) if events else None,
                **shown,
                "checks": self._checks(state, violations),
            }
            if policy is not None:
                view["next"] = self._pick(
                    policy=policy, seed=seed, path=path, events=events, steps=steps
                )
            return view

    def _nodes(self, state: tuple[int, ...]) -> list[dict[str, Any]]:
        model = self.model
        paused = state[model.Z]
        out = []
        for i, node in enumerate(model.ids):
            local = state[i]
            kept = self._kept(state, i)
            if local == DOWN:
                out.append(
                    {"id": node, "state": "crashed", "crashed": True, "variables": {}, "kept": kept}
                )
                continue
            states = model.nodes[i]
            number, timers, _ = states.locals[local]
            member = states.members[number]
            out.append(
                {
                    "id": node,
                    "state": str(member.state),
                    "elected": member.elected,
                    "epoch": member.epoch,
                    "crashed": False,
                    "paused": bool(paused >> i & 1),
                    "asleep": False,
                    "timers": [
                        f"{name} now" if left <= 0 else f"{name} in {left}" for name, left in timers
                    ],
                    "variables": jsonable(member.election.variables()),
                    "lease": self._lease(state, i),
                    "kept": kept,
                }
            )
        return out

    def _lease(self, state: tuple[int, ...], i: int) -> str:
        """Node ``i``'s lease in words: held (its epoch, the fencing token, and the
        ticks it may last against the others' clocks), ended, or none."""
        model = self.model
        shadow = state[model.S + i]
        _, epoch = model.pairs[state[model.P + i]]
        if shadow >= FOREVER:
            return f"held, token {epoch}, no end"
        if shadow > 0:
            return f"held, token {epoch}, ≤ {shadow} ticks"
        if shadow < 0:
            return f"ended on its clock (≤ {-shadow} ticks more)"
        return "none"

    def _kept(self, state: tuple[int, ...], i: int) -> str:
        """What node ``i``'s state file holds: the highest epoch seen, and the round it
        acknowledged last with that round's leader, and a configuration changed live."""
        floor, (acked, leader), configuration = self.model.kept[state[self.model.K + i]]
        if not floor and leader is None:
            return "nothing yet"
        text = f"epoch {floor}" + ("" if leader is None else f", P{leader} acked in {acked}")
        return text if configuration is None else f"{text}; {configuration.describe()}"

    def _links(self, state: tuple[int, ...]) -> list[dict[str, Any]]:
        model = self.model
        items = model.numbering.items
        out = []
        for k, (a, b) in enumerate(model.links):
            content = state[model.n + k]
            if not content:
                continue
            out.append(
                {
                    "index": k,
                    "from": model.ids[a],
                    "to": model.ids[b],
                    "fifo": True,
                    "messages": [
                        {"kind": items[number][0].kind, "text": model.message_text(number)}
                        for number in model.flights.messages(content)
                    ],
                }
            )
        return out

    def _moves(self, state: tuple[int, ...], steps: list[Any]) -> list[dict[str, Any]]:
        model = self.model
        out = []
        for choice, (number, _, _) in enumerate(steps):
            event = model.events[number]
            what = event[0]
            move: dict[str, Any] = {
                "choice": choice,
                "kind": _MOVE_KINDS[what],
                "text": model.describe(number),
                "sends": 0,
                "fault": what in FAULT_EVENTS,
            }
            if what in ("deliver", "duplicate", "lose"):
                move["link"] = event[1]
                move["position"] = 0  # (FIFO: the first frame on its link)
                move["node"] = model.ids[model.links[event[1]][1]]
            elif what in ("timer", "dead", "crash", "restart", "wipe", "pause", "resume"):
                move["node"] = model.ids[event[1]]
            out.append(move)
        return out

    def _changed(self, states: list[tuple[int, ...]]) -> dict[str, list[int]]:
        """The nodes and links the last step changed."""
        return changed(self.model, states)

    def _violations(self, events: list[int], broken: list[Any]) -> list[dict[str, Any]]:
        """Each check a step broke: the step (0: every node's start), the node whose
        step it was, what broke."""
        model = self.model
        out = []
        for step, checks in enumerate(broken):
            if not checks:
                continue
            event = model.events[events[step - 1]] if step else ("start",)
            if event[0] in ("deliver", "duplicate"):
                node = model.ids[model.links[event[1]][1]]
            elif event[0] in ("timer", "dead", "restart", "wipe"):
                node = model.ids[event[1]]
            else:
                node = model.ids[0]
            out += [
                {"step": step, "node": node, "kind": kind, "detail": detail}
                for kind, detail in checks
            ]
        return out

    def _checks(
        self, state: tuple[int, ...], violations: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Each of the service's checks along the run: ``failed`` at the first step
        that broke it, else ``passed``; whether a leader is back (``no_progress``, which
        the search checks over its whole graph) as this state stands."""
        model = self.model
        out: list[dict[str, Any]] = []
        for kind in CHECKS:
            if kind == "no_progress":
                leading = model.leading(state)
                if leading is not None:
                    status, text = (
                        PASSED,
                        f"P{leading[0]} holds its lease in epoch {leading[1]}, named by "
                        "every live node",
                    )
                elif not model.up(state):
                    status, text = "pending", "faults under way: checked once they are over"
                else:
                    status, text = "pending", "no leader holding its lease, named by all, yet"
                out.append({"kind": kind, "status": status, "text": text})
                continue
            first = next((v for v in violations if v["kind"] == kind), None)
            if first is None:
                out.append({"kind": kind, "status": PASSED, "text": None})
            else:
                text = f"at step {first['step']}: {first['detail']}"
                out.append({"kind": kind, "status": FAILED, "text": text})
        return out

    # -- auto-play ----------------------------------------------------------------------

    def _pick(
        self,
        *,
        policy: str,
        seed: int,
        path: Sequence[int],
        events: list[int],
        steps: list[Any],
    ) -> int | None:
        """The step ``policy`` takes next (``None``: no ordering step is left)."""
        model = self.model
        choices = orderings(model, steps, FAULT_EVENTS)
        if not choices:
            return None
        if policy == "random":
            return random_step(seed, path, choices)
        return round_robin_step(model, events, steps, choices)
