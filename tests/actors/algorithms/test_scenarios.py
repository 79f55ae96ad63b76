"""The notes' own walk-throughs as examples, each checked event by event in its trace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ringleader
from ringleader.topologies import load_config
from ringleader.traces import narrate
from tests.paths import ROOT
from tests.trace_rules import check_trace, events_of

EXAMPLES = ROOT / "examples"


def _run(example: str, tmp_path: Path) -> tuple[ringleader.Report, list[dict[str, Any]]]:
    path = tmp_path / "trace.jsonl"
    report = ringleader.run(load_config(EXAMPLES / example), simulate=True, trace=path)
    events = events_of(path.read_text())
    check_trace(events, total=report.total)
    return report, events


class Story:
    """Finds the story's events in order: each ``next`` looks after the last one found."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events
        self.at = 0

    def next(self, **match: Any) -> dict[str, Any]:
        for index in range(self.at, len(self.events)):
            event = self.events[index]
            if all(event.get(k) == v for k, v in match.items()):
                self.at = index + 1
                return event
        raise AssertionError(f"no {match} after event {self.at}")

    def sends(self, node: int, kind: str) -> set[int]:
        """The peers ``node`` sends ``kind`` to at once (its next step of that kind)."""
        first = self.next(event="send", node=node, kind=kind)
        peers = {first["peer"]}
        for event in self.events[self.at :]:
            if event["node"] == node and event["event"] == "send" and event["kind"] == kind:
                if event["t"] != first["t"] and event["t"] - first["t"] > 0.0001:
                    break
                peers.add(event["peer"])
                self.at = self.events.index(event) + 1
            elif event["node"] == node and event["event"] != "send":
                break
        return peers


def test_the_bully_walk_through_of_notes_000(tmp_path: Path) -> None:
    report, events = _run("bully_story.toml", tmp_path)
    assert report.ok and report.leader == 4
    story = Story(events)
    # 1. P4 is the coordinator.
    assert story.sends(4, "coordinator") == {1, 2, 3}
    # 2. P1 and P4 fail; P2 notices (P3 does not) and sends its election to P3.
    assert {story.next(event="crash")["node"], story.next(event="crash")["node"]} == {1, 4}
    suspicion = story.next(event="suspect", peer=4)
    assert suspicion["node"] == 2
    assert story.sends(2, "election") == {3}
    # 3. P3 rejects (ok) and sends its own election to P4.
    assert story.next(event="send", node=3, kind="ok")["peer"] == 2
    assert story.sends(3, "election") == {4}
    # 5. P4 silent; P3 proclaims itself to everyone (P1 is down, but it is told too).
    assert story.sends(3, "coordinator") == {1, 2}
    # 6. P1 recovers and sends its election to P2, P3 and P4.
    assert story.next(event="restart")["node"] == 1
    assert story.sends(1, "election") == {2, 3, 4}
    # 7. P2 and P3 reject it and run their own; P3 wins again.
    oks = {story.next(event="send", kind="ok", peer=1)["node"] for _ in range(2)}
    assert oks == {2, 3}
    assert story.sends(3, "coordinator") == {1, 2}
    # 8. P4 recovers and announces itself without an election.
    restart = story.next(event="restart")
    assert restart["node"] == 4
    assert story.sends(4, "coordinator") == {1, 2, 3}
    after = events[events.index(restart) :]
    assert not any(
        e["event"] == "send" and e["node"] == 4 and e["kind"] == "election" for e in after
    )
    assert not any(e["event"] == "suspect" and e["node"] == 3 and e["peer"] == 4 for e in events)


#: The walk-through of notes 000 (steps 1–8) message for message, step by step: each
#: step's messages as (sender, kind, receiver, epoch, lost), in any order within the step.
#: The epochs are ringleader's (the notes have none): every round after the first start
#: is started by one process, P_r's rounds being the epochs r − 1 modulo 4 (P1: 4, 8 …;
#: P2: 5, 9 …; P3: 6, 10 …; P4: 3, 7, 11 …), and a new round takes its starter's first
#: epoch above every one it has seen.
NOTES_000_BULLY = [
    # 1. P4 is the coordinator.
    {
        (4, "coordinator", 1, 1, False),
        (4, "coordinator", 2, 1, False),
        (4, "coordinator", 3, 1, False),
    },
    # 2. P1 and P4 fail; P2 hears nothing from P4 within T: its election to P3.
    {(2, "election", 3, 5, False)},
    # 3. P3 rejects it and sends its own election to P4 (down: lost).
    {(3, "ok", 2, 5, False), (3, "election", 4, 6, True)},
    # 4–5. P2 waits T′; P4 does not reject P3 within T: P3 proclaims itself to all.
    {(3, "coordinator", 1, 6, True), (3, "coordinator", 2, 6, False)},
    # 6. P1 recovers: its election to P2, P3 and P4.
    {(1, "election", 2, 8, False), (1, "election", 3, 8, False), (1, "election", 4, 8, True)},
    # 7. P2 and P3 reject P1 and run their own (P3 rejects P2's too) …
    {
        (2, "ok", 1, 8, False),
        (2, "election", 3, 9, False),
        (3, "ok", 1, 8, False),
        (3, "election", 4, 10, True),
        (3, "ok", 2, 10, False),
    },
    # … and P3 proclaims itself again the same way.
    {(3, "coordinator", 1, 10, False), (3, "coordinator", 2, 10, False)},
    # 8. P4 recovers and tells P1, P2 and P3, without an election.
    {
        (4, "coordinator", 1, 11, False),
        (4, "coordinator", 2, 11, False),
        (4, "coordinator", 3, 11, False),
    },
]


def test_the_bully_walk_through_runs_round_for_round_as_the_notes_tell_it(tmp_path: Path) -> None:
    report, events = _run("bully_story.toml", tmp_path)
    sent = [
        (e["node"], e["kind"], e["peer"], e["epoch"], "lost" in e)
        for e in events
        if e["event"] == "send" and e["kind"] in ("election", "ok", "coordinator")
    ]
    at = 0
    for step, messages in enumerate(NOTES_000_BULLY):
        got = sent[at : at + len(messages)]
        assert set(got) == messages and len(got) == len(messages), (step, got)
        at += len(messages)
    assert at == len(sent), sent[at:]
    # Every round after the first is started by one process, and each one's leader is
    # P3 (epochs 6 and 10) or P4 (1 and 11): no round of P3's own beyond the notes'.
    leaders = {
        (e["epoch"], e["node"]) for e in events if e["event"] == "state" and e["state"] == "leader"
    }
    assert leaders == {(1, 4), (6, 3), (10, 3), (11, 4)}
    assert report.total == 21 and report.lost == 4


def test_notes_002_the_would_be_leader_crashes_while_its_election_travels(tmp_path: Path) -> None:
    report, events = _run("ring_crash.toml", tmp_path)
    assert report.ok and report.leader == 4
    story = Story(events)
    bid = story.next(event="send", node=5, kind="election")
    assert bid["fields"]["candidate"]["id"] == 5
    story.next(event="crash", node=5)
    # Its ELECTION goes on round the ring, to P4, which passes it to P5: lost.
    lost = story.next(event="send", node=4, peer=5, kind="election")
    assert lost["fields"]["candidate"]["id"] == 5
    assert not any(e["event"] == "receive" and e["msg"] == lost["msg"] for e in events)
    # P4 watches its successor: it suspects P5, repairs the ring (P4 → P1), and wins.
    assert story.next(event="suspect", node=4)["peer"] == 5
    assert story.next(event="send", node=4, kind="election")["peer"] == 1
    assert story.next(event="send", node=4, kind="elected")["peer"] == 1
    assert all(e.get("elected") in (None, 4) for e in events if e["event"] == "state")


def test_the_chang_roberts_table_of_notes_000_told_per_initiator(tmp_path: Path) -> None:
    report, events = _run("chang_roberts_table.toml", tmp_path)
    assert report.ok and report.total == 20
    lines = narrate(events)
    assert lines[-1].startswith("Per initiator, how far its election travelled:")
    assert "election(P5) 5" in lines[-1]  # the notes' table: 5, then 1 for each other
    assert any("gets its own election back: it is the leader" in line for line in lines)


#: The steps of the Bully walk-through that no race can reorder, as the replay tells them.
STORY = [
    "P4 knows no higher process: proclaims itself: coordinator to P1, P2, P3",
    "P2 suspects P4 (no answer within T) → election to P3",
    "P3 rejects P2's election (ok) and starts its own round → election to P4 — lost: P4 is down",
    "P2's election is rejected by P3 (ok): a higher process is alive; waits T′ for P3's "
    "coordinator",
    "P3 gets no reject within T: proclaims itself: coordinator to P2; coordinator to P1 — "
    "lost: P1 is down",
    "P2 takes P3 as coordinator",
    "P1 recovers and starts its election: election to P2, P3; election to P4 — lost: P4 is down",
    "P3 gets no reject within T: proclaims itself: coordinator to P1, P2",
    "P4 recovers and, knowing no higher process, proclaims itself: coordinator to P1, P2, P3 "
    "(no election)",
]


def _told(events: list[dict[str, Any]]) -> list[str]:
    """The replay's sentences, without their times."""
    return [line.split(" ", 1)[1] for line in narrate(events) if line.startswith("t=")]


def test_the_bully_walk_through_reads_the_same_in_threads_and_simulated(tmp_path: Path) -> None:
    # Over tcp, as the example says (over inproc a frame for a crashed node waits for its
    # next life at the same address instead of being refused).
    config = load_config(EXAMPLES / "bully_story.toml")
    stories, counts, lost = [], [], []
    for simulate in (True, False):
        path = tmp_path / f"{simulate}.jsonl"
        report = ringleader.run(config, simulate=simulate, trace=path)
        assert report.ok, report.problems
        events = events_of(path.read_text())
        check_trace(events, total=report.total)
        told = _told(events)
        at = 0
        for sentence in STORY:  # each step, in the notes' order
            found = [i for i, line in enumerate(told) if i >= at and line.startswith(sentence)]
            assert found, f"{sentence!r} not told after step {at}:\n" + "\n".join(told)
            at = found[0] + 1
        stories.append(sorted(told))
        counts.append((report.total, report.lost, report.messages_by_type))
        lost.append(
            sorted((e["node"], e["peer"], e["kind"]) for e in events if e["event"] == "lost")
        )
    simulated, threads = counts
    # The notes' count: 21 messages, the 4 sent to a crashed process lost.
    assert simulated == (21, 4, {"coordinator": 10, "election": 7, "ok": 4})
    # Threads over tcp send the same messages and lose the same 4; under load, one more
    # may be lost: P2's ok to P1 just after P1 recovers, if P2's link to P1's new life
    # has not reconnected yet (a send waits for a link a heartbeat at most).
    assert (threads[0], threads[2]) == (simulated[0], simulated[2])
    assert threads[1] >= simulated[1]
    assert lost[0] == lost[1]
