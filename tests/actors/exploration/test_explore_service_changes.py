"""A membership change explored in the service model (``explore --service --changes``):
the real members asked by an operator for a change at any moment, under the service's
clocks and faults, with the configuration kept in each node's state file as
``ringleader node`` keeps it (``docs/design/membership.md``, "Where it stands")."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ringleader.actors import read_trace, write_trace
from ringleader.actors.crashes import Add, Configuration, Member, Remove
from ringleader.actors.exploration.service import (
    FAULT_EVENTS,
    Finding,
    ServiceModel,
    ServiceOptions,
    WalkResult,
    search,
    service_records,
)
from ringleader.actors.tracing import Event
from ringleader.cli import main
from ringleader.cluster import service_model
from ringleader.topologies import load_config
from ringleader.traces import narrate, trace_header, write_service_runs
from tests.actors.exploration.test_explore_service import SERVICE, ringleader

FOUNDING = Configuration.founding([1, 2, 3])
SPARE = SERVICE.with_name("spare.toml")


def _model(**options: int) -> ServiceModel:
    return service_model(load_config(SERVICE), ServiceOptions(**options))


def test_one_change_at_any_moment_is_explored_completely_and_breaks_nothing() -> None:
    model = _model(changes=1)
    found = search(model)
    assert found.complete and found.progress_checked and not found.findings
    assert (found.states, found.depth) == (29_004, 154)
    # The settled leader, P3, is asked to remove each member (itself: it hands over).
    events = enumerate(model.events)
    asked = sorted(model.describe(e) for e, event in events if event[0] == "change")
    assert asked == [f"an operator asks P3 to remove P{n}" for n in (1, 2, 3)]
    # A removal of a follower is kept by the leader and the voter left.
    kept = {k[2] for k in model.kept}
    # (And, first, the founding configuration re-issued in round 5: rule 5.)
    assert kept == {None, FOUNDING.reissued(5), FOUNDING.remove(1, 5), FOUNDING.remove(2, 5)}


def _run_until(
    model: ServiceModel,
    state: tuple[int, ...],
    done: Callable[[tuple[int, ...]], bool],
    path: list[int],
) -> tuple[int, ...]:
    """Fault-free steps, the first enabled each time, until ``done(state)``; their
    events onto ``path``."""
    for _ in range(2_000):
        if done(state):
            return state
        steps = [s for s in model.expand(state) if model.events[s[0]][0] not in FAULT_EVENTS]
        number, state, broken = steps[0]
        assert not broken
        path.append(number)
    raise AssertionError("not reached")


def test_a_restarted_node_comes_back_with_the_configuration_its_state_file_kept() -> None:
    model = _model(changes=1, crashes=1, restarts=1)
    state, path = model.settle(model.initial()[0])
    assert model.leading(state) == (3, 5)
    change = ("change", 2, model.menu.index(Remove(1)))
    assert change in model.enabled(state)
    number, state, broken = model.take(state, change)
    assert not broken
    path.append(number)
    without = FOUNDING.remove(1, 5)
    K = model.K
    state = _run_until(model, state, lambda s: model.kept[s[K + 1]][2] == without, path)
    assert model.leading(state) is None or model.leading(state) == (3, 5)
    # P2 crashes and restarts: its state file gives it voters 2,3, not the founding list.
    _, crashed, _ = model.take(state, ("crash", 1))
    _, restarted, _ = model.take(crashed, ("restart", 1))
    assert model.nodes[1].configuration(restarted[1]) == without
    # A node whose state was lost comes back with the founding configuration.
    _, wiped, _ = model._restart(crashed, 1, wipe=True)
    assert model.nodes[1].configuration(wiped[1]) == FOUNDING
    assert model.kept[wiped[K + 1]][2] is None
    # The run replays on fresh members, the operator's request included.
    assert service_records(model, path)


def test_no_change_is_offered_once_the_budget_is_spent_nor_to_a_follower() -> None:
    model = _model(changes=1)
    state, _ = model.settle(model.initial()[0])
    offered = [c for c in model.enabled(state) if c[0] == "change"]
    assert offered and {c[1] for c in offered} == {2}  # the leader alone
    _, after, _ = model.take(state, offered[0])
    assert not [c for c in model.enabled(after) if c[0] == "change"]
    # Without --changes no change is ever offered, and the state says none is left.
    plain = _model()
    settled, _ = plain.settle(plain.initial()[0])
    assert not [c for c in plain.enabled(settled) if c[0] == "change"]
    assert settled[plain.C] == 0


def test_explore_service_changes_option_in_json_and_words(tmp_path: Path) -> None:
    args = ["explore", str(SERVICE), "--service", "--faults", "0", "--changes", "1"]
    done = ringleader(*args, "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["changes"] == 1 and summary["states"] == 29_004 and summary["complete"]
    words = ringleader(*args, cwd=tmp_path)
    assert "faults: none; membership changes 1; quorum on" in words.stdout


def test_once_a_change_is_made_the_faults_are_over_only_with_its_voters_majority_up() -> None:
    model = _model(changes=1, crashes=1)
    state, _ = model.settle(model.initial()[0])
    _, crashed, _ = model.take(state, ("crash", 1))
    assert model.up(crashed)  # voters 1,2,3: 1 and 3 are a majority
    number, changed, _ = model.take(state, ("change", 2, model.menu.index(Remove(1))))
    without = FOUNDING.remove(1, 5)  # (made once the re-issue is committed: rule 5)
    K = model.K
    changed = _run_until(model, changed, lambda s: model.kept[s[K + 1]][2] == without, [number])
    _, crashed, _ = model.take(changed, ("crash", 1))
    assert not model.up(crashed)  # voters 2,3 with 2 down: nobody can be elected


def _changed(model: ServiceModel, node: int) -> list[int]:
    """The settled cluster (P3 leads round 5), P3 asked to remove ``node``, and the
    fault-free steps after it until P2 and P3 keep a configuration in their state files
    (asked to remove itself, P3 hands over: no step after it)."""
    state, path = model.settle(model.initial()[0])
    number, state, _ = model.take(state, ("change", 2, model.menu.index(Remove(node))))
    path.append(number)
    if node != 3:
        K = model.K
        # (Until both hold the change: the re-issue of rule 5 comes first.)
        _run_until(
            model,
            state,
            lambda s: {getattr(model.kept[s[K + i]][2], "version", None) for i in (1, 2)} == {1},
            path,
        )
    return path


def _trace(model: ServiceModel, path: list[int]) -> list[Event]:
    buffer = io.StringIO()
    write_trace(service_records(model, path), buffer, nodes=model.n, heartbeats=True)
    return list(read_trace(buffer.getvalue().splitlines()))


def _membership(events: list[Event]) -> list[dict[str, object]]:
    keys = ("event", "node", "change", "peer", "configuration", "refused", "epoch")
    shown = [e for e in events if e["event"] in ("change", "configuration", "removed")]
    return [{k: e[k] for k in keys if k in e} for e in shown]


def test_a_run_with_a_change_tells_who_asked_whom_for_what_and_the_answer() -> None:
    """The operator's request is an event of the trace (``change``), with the answer;
    each node's new configuration follows, in ``ringleader node``'s words."""
    model = _model(changes=1)
    path = _changed(model, 1)
    events = _trace(model, path)
    without = "version 1 (round 5): voters 2,3"
    # The leader re-issues its configuration in its round first (rule 5), and makes the
    # change once a majority holds that.
    reissued = (
        "version 0 (round 5): voters 1,2,3 (re-issued in its round first: the change"
        " follows once a majority holds it)"
    )
    assert _membership(events) == [
        {"event": "change", "node": 3, "change": "remove", "peer": 1, "configuration": reissued,
         "epoch": 5},
        {"event": "configuration", "node": 3, "configuration": without, "epoch": 5},
        {"event": "configuration", "node": 1, "configuration": without, "epoch": 5},
        {"event": "removed", "node": 1, "configuration": without, "epoch": 5},
        {"event": "configuration", "node": 2, "configuration": without, "epoch": 5},
    ]  # fmt: skip
    told = narrate(events)
    assert f"an operator asks P3 to remove P1: P3 makes configuration {reissued}" in "\n".join(told)
    assert any(line.endswith(f"P3 counts majorities in configuration {without}") for line in told)
    assert any(line.endswith(f"P2 counts majorities in configuration {without}") for line in told)
    assert any(f"P1 is removed from the cluster ({without})" in line for line in told)


def test_the_leader_asked_to_remove_itself_answers_that_it_hands_over_first() -> None:
    model = _model(changes=1)
    path = _changed(model, 3)
    (change,) = [e for e in _trace(model, path) if e["event"] == "change"]
    assert change["node"] == 3 and change["peer"] == 3 and "configuration" not in change
    assert change["refused"] == (
        "node 3 leads: it hands over to node 2 first; ask node 2 to remove node 3"
    )


def test_the_trace_of_a_found_path_with_a_change_is_replayed_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What ``ringleader explore --service --changes`` writes for a finding, and what
    ``ringleader replay`` then says: the change is in both.  (The path is taken step by
    step from the model: the rules as they are have no finding with a change that a
    test can find in seconds.)"""
    config = load_config(SERVICE)
    model = _model(changes=1)
    path = _changed(model, 2)
    found = WalkResult(model, 1, len(path), len(path), 0.0, 0)
    found.findings = [Finding("no_progress", "(a stand-in)", -1)]
    found.paths = {"no_progress": path}
    files = write_service_runs(found, tmp_path, header=trace_header(config, mode="explored"))
    text = files["no_progress"].read_text(encoding="utf-8")
    assert '"event":"change","t":0.3,"node":3,"change":"remove","peer":2,' in text
    assert main(["replay", str(files["no_progress"]), "--no-step"]) == 0
    replayed = capsys.readouterr().out
    assert (
        "t=0.300 an operator asks P3 to remove P2: P3 makes configuration "
        "version 0 (round 5): voters 1,2,3 (re-issued in its round first" in replayed
    )
    assert "P3 counts majorities in configuration version 1 (round 5): voters 1,3" in replayed
    assert "P2 is removed from the cluster (version 1 (round 5): voters 1,3)" in replayed


def _member(model: ServiceModel, state: tuple[int, ...], i: int) -> Member:
    node = model.nodes[i]
    return node.members[node.locals[state[i]][0]]


def _removed_twice(*, guarded: bool) -> tuple[ServiceModel, tuple[int, ...], list[object]]:
    """spare.toml: node 2 removed while cut off from every other node (it holds voters
    1,2,3 still: nobody can tell it, not even by a pre-vote's answer), node 4 added and
    promoted, node 1 removed (told: it retires, voters 3,4); then the network splits
    into nodes 1,2 and nodes 3,4, and node 1 crashes.  ``guarded``: the wipes the
    guarantee allows (else any)."""
    options = ServiceOptions(crashes=1, wipes=1, partitions=2, changes=3)
    model = service_model(load_config(SPARE), options)
    if not guarded:
        model._outvoted = lambda state, i: True  # type: ignore[method-assign]
    found: list[object] = []

    def reach(state: tuple[int, ...], done: Callable[[tuple[int, ...]], bool]) -> tuple[int, ...]:
        for _ in range(2_000):
            if done(state):
                return state
            choices = [c for c in model.enabled(state) if c[0] not in FAULT_EVENTS]
            _, state, broken = model.take(state, choices[0])
            if broken:
                found.extend(broken)
                return state
        raise AssertionError("not reached")

    state, _ = model.settle(model.initial()[0])
    assert model.leading(state) == (3, 6)
    _, state, _ = model.take(state, ("split", model.splits.index(frozenset({0, 2, 3}))))
    for change in (Remove(2), Add(4), Remove(1)):
        ask = ("change", 2, model.menu.index(change))
        state = reach(state, lambda s, ask=ask: ask in model.enabled(s))  # type: ignore[misc]
        _, state, _ = model.take(state, ask)
        if change == Add(4):
            state = reach(state, lambda s: 4 in _member(model, s, 2).configuration.voters)
    state = reach(state, lambda s: _member(model, s, 0).retired and _member(model, s, 2).committed)
    held = [_member(model, state, i).configuration for i in range(4)]
    assert [c.describe() if c else None for c in held] == [
        "version 4 (round 6): voters 3,4",
        "version 0 (round 0): voters 1,2,3",
        "version 4 (round 6): voters 3,4",
        "version 4 (round 6): voters 3,4",
    ]
    assert not found
    _, state, _ = model.take(state, ("heal",))
    _, state, _ = model.take(state, ("split", model.splits.index(frozenset({0, 1}))))
    _, state, _ = model.take(state, ("crash", 0))
    if ("wipe", 0) in model.enabled(state):
        _, state, _ = model.take(state, ("wipe", 0))
        reach(state, lambda s: False)
    return model, state, found


def test_a_node_whose_wipe_would_free_an_older_configuration_keeps_its_state() -> None:
    # Node 1 is the only node of voters 1,2,3 but 3 that holds a newer configuration:
    # wiped, it comes back with 1,2,3, and with node 2 is a majority of them that knows
    # nothing newer.  With that wipe allowed the first fault-free steps find two leases
    # (node 2 leads with node 1 while 3 holds its lease with 4); the guarantee's
    # minority does not allow it (``ServiceModel._outvoted``).
    _, _, found = _removed_twice(guarded=False)
    assert found == [("two_leases", "P2 and P3 hold a lease at the same instant")]
    model, crashed, found = _removed_twice(guarded=True)
    assert ("wipe", 0) not in model.enabled(crashed) and not found
