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


def test_a_change_asked_again_on_one_line_is_made_once() -> None:
    made: list[MemberQuery] = []

    def change(query: MemberQuery) -> MemberAnswer:
        made.append(query)
        refused = None if len(made) == 1 else "a change is not committed yet: …"
        return MemberAnswer(refused, None, 3, 7)

    replies = _Replies()
    desk = OperatorDesk(
        3,
        _Session(),  # type: ignore[arg-type]
        replies,  # type: ignore[arg-type]
        status=lambda: None,  # type: ignore[arg-type,return-value]
        transfer=lambda to: None,  # type: ignore[arg-type,return-value]
        change=change,
        epoch=lambda: 7,
        leadership=lambda: None,  # type: ignore[arg-type,return-value]
    )
    query = MemberQuery("add", 4, "tcp://127.0.0.1:7004", "tcp://127.0.0.1:5000")
    for _ in range(3):
        assert desk.answer(OPERATOR, 1, query) is None
    assert len(made) == 1 and replies.sent == [(OPERATOR, "tcp://127.0.0.1:5000")] * 3
    again = MemberQuery("add", 4, "tcp://127.0.0.1:7004", "tcp://127.0.0.1:5001")
    desk.answer(OPERATOR, 1, again)
    assert len(made) == 2  # a new line: a new question


def test_only_the_operator_may_ask_for_a_change() -> None:
    desk = OperatorDesk(
        3,
        _Session(),  # type: ignore[arg-type]
        _Replies(),  # type: ignore[arg-type]
        status=lambda: None,  # type: ignore[arg-type,return-value]
        transfer=lambda to: None,  # type: ignore[arg-type,return-value]
        change=lambda q: (_ for _ in ()).throw(AssertionError("asked")),
        epoch=lambda: 7,
        leadership=lambda: None,  # type: ignore[arg-type,return-value]
    )
    refused = desk.answer(2, 1, MemberQuery("remove", 1, None, "tcp://127.0.0.1:5000"))
    assert refused is not None and refused.reason == "unknown_sender"
