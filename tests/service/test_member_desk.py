"""A node's answer to ``ringleader member``: the change is made once, however often the
operator asks again on its line (it asks until it hears), and a new question on a new
line is a new change."""

from __future__ import annotations

from typing import Any

from ringleader.actors.host import MemberAnswer, MemberQuery
from ringleader.actors.host._operator_desk import OperatorDesk
from ringleader.transport import OPERATOR


class _Session:
    def seal(self, *args: Any, **kwargs: Any) -> bytes:
        return b"sealed"


class _Replies:
    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []

    def get(self, to: int, reply_to: str) -> Any:
        self.sent.append((to, reply_to))
        return None  # (the link still connecting: the answer is not sent)


def _desk(replies: _Replies, change: Any, leadership: Any = lambda: None) -> OperatorDesk:
    """Node 3's desk in epoch 7, answering on ``replies``; status and transfer unused."""
    return OperatorDesk(
        3,
        _Session(),  # type: ignore[arg-type]
        replies,  # type: ignore[arg-type]
        status=lambda: None,  # type: ignore[arg-type,return-value]
        transfer=lambda to: None,  # type: ignore[arg-type,return-value]
        change=change,
        epoch=lambda: 7,
        leadership=leadership,
    )


def test_a_change_asked_again_on_one_line_is_made_once() -> None:
    made: list[MemberQuery] = []

    def change(query: MemberQuery) -> MemberAnswer:
        made.append(query)
        refused = None if len(made) == 1 else "a change is not committed yet: …"
        return MemberAnswer(refused, None, 3, 7)

    replies = _Replies()
    desk = _desk(replies, change)
    query = MemberQuery("add", 4, "tcp://127.0.0.1:7004", "tcp://127.0.0.1:5000")
    for _ in range(3):
        assert desk.answer(OPERATOR, 1, query) is None
    assert len(made) == 1 and replies.sent == [(OPERATOR, "tcp://127.0.0.1:5000")] * 3
    again = MemberQuery("add", 4, "tcp://127.0.0.1:7004", "tcp://127.0.0.1:5001")
    desk.answer(OPERATOR, 1, again)
    assert len(made) == 2  # a new line: a new question


def test_only_the_operator_may_ask_for_a_change() -> None:
    desk = _desk(_Replies(), lambda q: (_ for _ in ()).throw(AssertionError("asked")))
    refused = desk.answer(2, 1, MemberQuery("remove", 1, None, "tcp://127.0.0.1:5000"))
    assert refused is not None and refused.reason == "unknown_sender"


def test_status_agrees_among_the_voters_a_silent_learner_or_spare_holds_nothing_back(
    tmp_path: Any,
) -> None:
    from ringleader.actors.crashes import Configuration
    from ringleader.actors.host import NodeStatus
    from ringleader.service import status_summary
    from tests.nodes import write_config

    path = write_config(tmp_path / "c.toml", 'topology = "full_mesh"\n', [1, 2, 3, 4, 5])
    config = __import__("ringleader").load_config(path)
    learning = Configuration(1, 7, frozenset({1, 2, 3}), frozenset({4}))

    def status(node: int, state: str) -> NodeStatus:
        return NodeStatus(node, 1.0, state, 3, 7, 1, None, configuration=learning)

    answers = {1: status(1, "not_leader"), 2: status(2, "not_leader"), 3: status(3, "leader")}
    summary = status_summary(config, {**answers, 4: None, 5: None})
    assert summary["agreed"] and summary["leader"] == 3
    shown = [(n["id"], n["member"], n["voter"]) for n in summary["nodes"]]
    assert shown == [
        (1, True, True),
        (2, True, True),
        (3, True, True),
        (4, True, False),
        (5, False, False),
    ]
    summary = status_summary(config, {**answers, 3: None, 4: None, 5: None})
    assert not summary["agreed"]  # a voter silent: no agreement


def test_status_with_no_answer_at_all_calls_no_node_a_non_member(tmp_path: Any) -> None:
    """Nobody answered (down, or another secret): the config file's spare may have been
    added since, so it is not shown as "no member" on the config's word alone."""
    from rich.console import Console

    from ringleader.cli._render import print_status
    from ringleader.service import status_summary
    from tests.nodes import write_config

    path = write_config(tmp_path / "c.toml", 'topology = "full_mesh"\n', [1, 2, 3, 4])
    text = path.read_text(encoding="utf-8").replace(
        "[[nodes]]\nid = 4", "[[nodes]]\nid = 4\nspare = true"
    )
    path.write_text(text, encoding="utf-8")
    config = __import__("ringleader").load_config(path)
    assert list(config.founding) == [1, 2, 3]
    console = Console(record=True, width=120)
    print_status(console, status_summary(config, dict.fromkeys((1, 2, 3, 4))))
    shown = console.export_text()
    assert "no member" not in shown and shown.count("no answer") == 4, shown


def test_a_leader_tells_its_observers_again_before_the_lease_they_heard_of_runs_out(
    monkeypatch: Any,
) -> None:
    """An observer counts a leader's ``leading`` no longer than the lease it told of: the
    leader, its lease renewed at every heartbeat, tells again each time the lease runs half
    a lease past the end last told of (here every third heartbeat), not at every one."""
    from ringleader.actors.host import LeadershipNotice, WatchQuery, _operator_desk
    from ringleader.transport import WATCHER

    clock = [100.0]
    monkeypatch.setattr(_operator_desk.time, "monotonic", lambda: clock[0])
    word = [LeadershipNotice(3, 7, leading=True, lease_left=0.25)]
    replies = _Replies()
    desk = _desk(replies, lambda q: None, leadership=lambda: word[0])
    assert desk.answer(WATCHER, 1, WatchQuery("tcp://127.0.0.1:5000", 10.0)) is None
    desk.changed()  # it leads: news
    told = [len(replies.sent)]
    for beat in range(1, 9):  # a heartbeat every 0.05 s, each renewing the lease
        clock[0] = 100.0 + 0.05 * beat
        desk.changed()
        told.append(len(replies.sent))
    assert told == [2, 2, 2, 3, 3, 3, 4, 4, 4], told
    clock[0] += 0.5  # paused: its lease ran out, it leads no more
    word[0] = LeadershipNotice(3, 7, leading=False, lease_left=0.0)
    desk.changed()
    desk.changed()
    assert len(replies.sent) == 5  # told once
