"""One lab: a config's explored model, stepped by hand along a path of choices.

The lab's state is a *path*: from the initial state, the index of the step taken among
those :meth:`~ringleader.actors.exploration.Model.expand` enables, one per step
(``3.0.5``).  Nothing else is kept between requests: the same path gives the same state,
so undo, redo, a reload and a shared link are the page's business, not the server's.
:meth:`Lab.view` tells a path's state as the page draws it — every node with its state,
leader, epoch and the election's variables, what is in flight on each link in delivery
order, every step enabled, the checks in that state, the run so far told in the notes'
words (the narration of ``replay``, from the very records the explorer's traces are made
of) and what the space-time diagram needs.  The model, the checks and the narration are
the explorer's own objects; nothing is modelled again here.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from ringleader.actors.exploration import (
    CHECK_WORDS,
    CRASHED,
    FAILED,
    NOT_CHECKED,
    PASSED,
    Exploration,
    end_verdicts,
    leaders_clash,
    records,
)
from ringleader.actors.exploration._model import NewLink
from ringleader.topologies import TOPOLOGIES, Config
from ringleader.traces import trace_header

from ._layout import HEIGHT, WIDTH, layout
from ._paths import PathError
from ._stepping import changed, orderings, random_step, round_robin_step
from ._told import marks, told
from ._values import jsonable

__all__ = ["FAULTS", "POLICIES", "Lab"]

#: How auto-play picks the next step: seeded at random, round-robin over the links
#: (FIFO: each link's first message), or the adversary that makes the run send the most
#: messages.  Auto-play picks among the orderings only (deliveries, wake-ups, timers):
#: the faults are the teacher's to inject by hand.
POLICIES = {
    "random": "seeded random",
    "round_robin": "round-robin FIFO",
    "most_messages": "most messages (adversary)",
}
#: The steps that are faults, not orderings.
FAULTS = ("crash", "restart", "lose", "duplicate", "partition", "heal", "pause", "resume")
#: What a step is called on the page, by the model's event.
_MOVE_KINDS = {
    "deliver": "deliver",
    "duplicate": "duplicate",
    "lose": "drop",
    "start": "start",
    "timer": "timer",
    "crash": "crash",
    "restart": "restart",
    "partition": "partition",
    "heal": "heal",
    "pause": "pause",
    "resume": "resume",
}
_FINDING_NAMES = {"min": "fewest messages", "max": "most messages"}


class Lab:
    """``exploration``'s model of ``config``, stepped by hand (one per server)."""

    policies = POLICIES

    def __init__(self, config: Config, exploration: Exploration) -> None:
        self.config = config
        self.exploration = exploration
        self.model = exploration.model
        self.algorithm = config.algorithm_class
        self.bound = exploration.bound
        self.header = trace_header(config, mode="explored")
        self._lock = threading.Lock()
        self._most: dict[int, int] | None = None
        self._index: dict[tuple[int, ...], int] | None = None
        self.positions = self._layout()
        self.findings = self._findings()

    # -- what does not change --------------------------------------------------------

    def _layout(self) -> dict[int, tuple[float, float]]:
        """Where each node is drawn (:func:`~ringleader.lab._layout.layout`)."""
        return layout(self.config.topology, self.model.ids, self.model.links)

    def _findings(self) -> list[dict[str, Any]]:
        """The runs the explorer reported, each as a path of choices to open."""
        exploration = self.exploration
        details = {f.kind: f.detail for f in exploration.findings}
        found = []
        for name, path in exploration.paths.items():
            choices = self.choices(path.events)
            if choices is None:
                continue
            label = _FINDING_NAMES.get(name) or name
            found.append(
                {
                    "name": name,
                    "label": label,
                    "violation": name not in _FINDING_NAMES,
                    "detail": details.get(name),
                    "check": CHECK_WORDS.get(name),
                    "steps": len(choices),
                    "messages": path.messages,
                    "path": ".".join(map(str, choices)),
                }
            )
        return found

    def choices(self, events: Sequence[int]) -> list[int] | None:
        """The path of choices that takes the steps ``events`` (event numbers)."""
        model = self.model
        state = model.initial()
        path = []
        for number in events:
            steps, _ = model.expand(state)
            at = next((k for k, step in enumerate(steps) if step[0] == number), None)
            if at is None:
                return None
            path.append(at)
            state = steps[at][1]
        return path

    def info(self) -> dict[str, Any]:
        """What the page draws once: the network, the checks, the explorer's runs."""
        model, config, exploration = self.model, self.config, self.exploration
        options = model.options
        bound = self.bound
        return {
            "title": f"{self.algorithm.title} on a {TOPOLOGIES[config.topology].title} "
            f"of {config.n} nodes",
            "source": config.source,
            "algorithm": self.header.get("algorithm", self.algorithm.name),
            "topology": config.topology,
            "initiators": list(config.initiators),
            "rules": "election",
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
                {"index": k, "from": a, "to": b, "fifo": not model.unordered[k]}
                for k, (a, b) in enumerate(model.links)
            ],
            "options": {**options.as_dict(), "restarts": model.restarts},
            "checks": [{"kind": kind, "words": words} for kind, words in CHECK_WORDS.items()],
            "bound": None if bound is None else bound.as_dict(),
            "explored": {
                "states": exploration.states,
                "complete": exploration.complete,
                "messages": None
                if exploration.messages is None
                else {"min": exploration.messages[0], "max": exploration.messages[1]},
            },
            "findings": self.findings,
            "marks": marks(),
            "policies": [{"name": k, "words": v} for k, v in POLICIES.items()],
        }

    # -- a path's state ---------------------------------------------------------------

    def walk(self, path: Sequence[int]) -> tuple[list[tuple[int, ...]], list[int], list[int]]:
        """The states along ``path`` (the initial one first), the events taken and the
        messages each step sent; :class:`PathError` where a choice is not enabled."""
        with self._lock:
            return self._walk(path)

    def _walk(self, path: Sequence[int]) -> tuple[list[tuple[int, ...]], list[int], list[int]]:
        model = self.model
        states = [model.initial()]
        events: list[int] = []
        sent: list[int] = []
        for k, choice in enumerate(path):
            try:
                steps = self._expand(states[-1])[0]
            except PathError as exc:
                raise PathError(str(exc), valid=k) from None
            if choice >= len(steps):
                enabled = f"{len(steps)} enabled" if steps else "none enabled: the run is over"
                raise PathError(f"step {k + 1} of the path: choice {choice}, {enabled}", valid=k)
            number, successor, messages, _ = steps[choice]
            states.append(successor)
            events.append(number)
            sent.append(messages)
        return states, events, sent

    def _expand(self, state: tuple[int, ...]) -> tuple[list[Any], bool]:
        try:
            return self.model.expand(state)
        except NewLink as new:  # a link the search stopped before finding: add it
            raise PathError(
                f"P{new.link[0]} sends to P{new.link[1]}, outside the wiring the explorer "
                "found; run the lab with a larger --max-states"
            ) from None

    def view(
        self, path: Sequence[int], *, policy: str | None = None, seed: int = 0
    ) -> dict[str, Any]:
        """Everything the page shows of ``path``'s state (see the module's docs)."""
        with self._lock:
            states, events, sent = self._walk(path)
            state = states[-1]
            steps, end = self._expand(state)
            view = {
                "path": ".".join(map(str, path)),
                "step": len(path),
                "sent": sum(sent),
                "end": end,
                "nodes": self._nodes(state),
                "links": self._links(state),
                "moves": self._moves(state, steps),
                "changed": self._changed(states),
                "last": self.model.describe(events[-1]) if events else None,
                **self._run(events, state, end, sum(sent)),
            }
            if policy is not None:
                view["next"] = self._pick(
                    policy=policy, seed=seed, path=path, events=events, steps=steps
                )
            return view

    def _nodes(self, state: tuple[int, ...]) -> list[dict[str, Any]]:
        model = self.model
        paused = model.paused(state) if model.paused_nodes else set()
        out = []
        for i, node in enumerate(model.ids):
            local = state[i]
            if local == CRASHED:
                out.append({"id": node, "state": "crashed", "crashed": True, "variables": {}})
                continue
            states = model.nodes[i]
            status, elected, epoch = states.stance[local]
            election = states.templates[local].election
            out.append(
                {
                    "id": node,
                    "state": str(status),
                    "elected": elected,
                    "epoch": epoch,
                    "crashed": False,
                    "paused": i in paused,
                    "asleep": states.can_start[local],
                    "timers": list(states.timers[local]),
                    "variables": jsonable(election.variables()),
                }
            )
        return out

    def _links(self, state: tuple[int, ...]) -> list[dict[str, Any]]:
        model = self.model
        out = []
        for k, (a, b) in enumerate(model.links):
            contents = model.channels.contents[state[model.n + k]]
            if not contents:
                continue
            out.append(
                {
                    "index": k,
                    "from": a,
                    "to": b,
                    "fifo": not model.unordered[k],
                    "messages": [
                        {
                            "kind": model.messages.items[number][0].kind,
                            "text": model.message_text(number),
                        }
                        for number in contents
                    ],
                }
            )
        return out

    def _moves(self, state: tuple[int, ...], steps: list[Any]) -> list[dict[str, Any]]:
        model = self.model
        out = []
        for choice, (number, _, messages, _) in enumerate(steps):
            event = model.events[number]
            what = event[0]
            move: dict[str, Any] = {
                "choice": choice,
                "kind": _MOVE_KINDS[what],
                "text": model.describe(number),
                "sends": messages,
                "fault": what in FAULTS,
            }
            if what in ("deliver", "duplicate", "lose"):
                link, message = event[1], event[2]
                contents = model.channels.contents[state[model.n + link]]
                move["link"] = link
                move["position"] = contents.index(message)
                move["node"] = model.links[link][1]
            elif what in ("start", "timer", "crash", "restart"):
                move["node"] = model.ids[event[1]]
            elif what in ("pause", "resume"):
                move["node"] = model.ids[model.paused_nodes[event[1]]]
            out.append(move)
        return out

    def _changed(self, states: list[tuple[int, ...]]) -> dict[str, list[int]]:
        """The nodes and links the last step changed."""
        return changed(self.model, states)

    def _run(
        self, events: list[int], state: tuple[int, ...], end: bool, sent: int
    ) -> dict[str, Any]:
        """The run so far: told, drawn, and checked."""
        model = self.model
        shown, violations = told(records(model, events), nodes=model.n, header=self.header)
        return {**shown, "checks": self._checks(state, end, sent, violations)}

    def _checks(
        self, state: tuple[int, ...], end: bool, sent: int, violations: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Each check in this state: ``passed``, ``failed`` (with what is wrong),
        ``pending`` (it is checked at the end of the run) or ``not_checked`` (why)."""
        model = self.model
        out: list[dict[str, Any]] = []
        clash = leaders_clash(model, state)
        earlier = [v for v in violations if v["kind"] in ("two_leaders", "reused_epoch")]
        if clash:
            out.append({"kind": "two_leaders", "status": FAILED, "text": clash})
        elif earlier:
            first = earlier[0]
            out.append(
                {
                    "kind": "two_leaders",
                    "status": FAILED,
                    "text": f"at step {first['step']}: {first['detail']}",
                }
            )
        else:
            out.append({"kind": "two_leaders", "status": PASSED, "text": None})
        verdicts = {kind: (status, text) for kind, status, text in end_verdicts(model, state)}
        for kind in ("undecided", "disagreement", "crashed_leader", "wrong_leader"):
            if not end:
                out.append(
                    {"kind": kind, "status": "pending", "text": "checked when the run is over"}
                )
                continue
            status, text = verdicts.get(kind, (NOT_CHECKED, "not asked"))
            out.append({"kind": kind, "status": status, "text": text})
        bound = self.bound
        if bound is not None:
            if not end:
                status, text = "pending", "checked when the run is over"
            elif not model.faultless(state):
                status, text = NOT_CHECKED, "a fault struck in this run"
            elif bound.holds(sent) or (
                bound.exact and model.options.starts == "any" and sent <= bound.value
            ):
                status, text = (
                    PASSED,
                    f"{sent} messages; the notes say {bound.formula} = {bound.value}",
                )
            else:
                status = FAILED
                text = f"{sent} messages; the notes say {bound.formula} = {bound.value}"
            out.append({"kind": "bound", "status": status, "text": text})
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
        choices = orderings(model, steps, FAULTS)
        if not choices:
            return None
        if policy == "random":
            return random_step(seed, path, choices)
        if policy == "round_robin":
            return round_robin_step(model, events, steps, choices)
        # most messages: along the explored graph where it is known, else greedily
        most = self._most_to_end()
        index = self._index or {}

        def worth(k: int) -> tuple[int, int]:
            _, successor, messages, _ = steps[k]
            rest = most.get(index.get(successor, -1), -1) if most else -1
            return (messages + rest if rest >= 0 else messages, -k)

        return max(choices, key=worth)

    def _most_to_end(self) -> dict[int, int]:
        """The most messages from each explored state to the end of its run, over the
        orderings (faults aside); empty where the graph has a cycle or is incomplete."""
        if self._most is not None:
            return self._most
        exploration, model = self.exploration, self.model
        graph = exploration.graph
        self._most = {}
        found = exploration.found
        if graph is None or not isinstance(found, Sequence):
            return self._most  # (a lean search keeps no graph: the lab asks for whole states)
        if not exploration.complete or exploration.cyclic:
            return self._most
        self._index = {state: k for k, state in enumerate(found)}
        most: dict[int, int] = {}
        for root in range(exploration.states):
            if root in most:
                continue
            stack = [(root, False)]
            while stack:
                s, ready = stack.pop()
                if s in most:
                    continue
                edges = range(graph.start[s], graph.start[s + 1]) if s < graph.expanded else ()
                kept = [e for e in edges if model.events[graph.event[e]][0] not in FAULTS]
                if not ready:
                    stack.append((s, True))
                    stack.extend(
                        (graph.target[e], False) for e in kept if graph.target[e] not in most
                    )
                    continue
                most[s] = max(
                    (graph.sent[e] + most.get(graph.target[e], 0) for e in kept), default=0
                )
        self._most = most
        return most
