"""``ringleader member add|remove CONFIG --id N``: ask the leader, over the authenticated
wire, to add a member to the cluster or remove one, live, and wait until the change is
committed.

Like ``ringleader transfer`` the tool is an operator, not a member: it asks every node
for its status (:func:`~ringleader.service.ask_status`) to find the leader and sends it a
:class:`~ringleader.actors.host.MemberQuery`, all on one operator line
(``_operator_line.py``) that stays open until the command is done.  The leader makes the change
(``Member.request``: single-server changes, docs/design/membership.md) or refuses,
saying why in one line.  Then the tool waits until the leader's configuration is the one
asked for and committed: a majority of its voters acknowledged a heartbeat carrying it.

- **add**: the node joins as a learner; once it has acknowledged a few heartbeats
  carrying the configuration the leader promotes it to a voter by itself, and the tool
  returns when that is committed.  The node must be listed in the config (as
  ``spare = true`` if the cluster did not begin with it), so that every node knows its
  address, and be running (``ringleader node CONFIG --id N``).
- **remove**: asked to remove itself, the leader first hands over to another live voter,
  and the tool asks the new leader.  The removed node sees the configuration without
  itself and stops (``ringleader node`` exits with a ``removed`` line).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ringleader.actors.crashes import Configuration
from ringleader.actors.host import MemberAnswer, MemberQuery, NodeStatus
from ringleader.errors import MembershipRefused
from ringleader.topologies import Config
from ringleader.transport import Deadline

from ._operator import LOOK_AGAIN, QUICK_STATUS, ask_status_on, find_leader, status_until
from ._operator_line import OperatorLine, ask_until_answered, operator_line
from ._standalone import check_standalone

__all__ = ["MemberChange", "add_member", "remove_member"]


@dataclass(frozen=True)
class MemberChange:
    """A change made and committed: ``change`` (``"add"`` or ``"remove"``) of ``node``,
    by ``leader`` in round ``epoch``; ``configuration`` the committed one; ``took_s``
    from the question to the leader's own status saying it is committed."""

    change: str
    node: int
    leader: int
    epoch: int
    configuration: Configuration
    took_s: float


def add_member(config: Config, node: int, *, timeout: float = 10.0) -> MemberChange:
    """Have the leader of ``config``'s cluster add node ``node`` (where ``config`` lists
    it: every node links to the nodes it lists) and wait until it is a voter in a
    committed configuration; raises :class:`~ringleader.MembershipRefused` saying why if
    it is not within ``timeout`` s."""
    check_standalone(config)
    address = config.addresses.get(node)
    if address is None:
        raise MembershipRefused(
            f"node {node} is not listed in {config.source or 'the config'}: add it there "
            "with spare = true (every node must know its address), then add it"
        )
    return _change(config, "add", node, address, timeout=timeout, done=lambda c: node in c.voters)


def remove_member(config: Config, node: int, *, timeout: float = 10.0) -> MemberChange:
    """Have the leader of ``config``'s cluster remove node ``node`` (the leader itself:
    it hands over first) and wait until the configuration without it is committed;
    raises :class:`~ringleader.MembershipRefused` saying why if it is not within
    ``timeout`` s."""
    check_standalone(config)
    if node not in config.addresses:
        raise MembershipRefused(
            f"node {node} is not listed in {config.source or 'the config'}: it is no member"
        )
    return _change(
        config, "remove", node, None, timeout=timeout, done=lambda c: node not in c.members
    )


def _change(
    config: Config,
    change: str,
    node: int,
    address: str | None,
    *,
    timeout: float,
    done: Callable[[Configuration], bool],
) -> MemberChange:
    began = time.monotonic()
    deadline = Deadline(timeout)
    everyone = [n.id for n in config.nodes]
    # One line for the whole command: finding the leader, the question, and the wait,
    # each status asked again on it (no new sockets, connections and identity each time).
    with operator_line(config, everyone, timeout=max(0.1, timeout)) as line:
        leader, status = _leader(config, line, deadline)
        if status.configuration is not None and done(status.configuration) and status.committed:
            what = "a member" if change == "add" else "no member"
            raise MembershipRefused(
                f"node {node} is {what} already: {status.configuration.describe()}"
            )
        answer = _ask(line, leader, MemberQuery(change, node, address, line.address), deadline)
        if answer.refused is not None and change == "remove" and node == leader:
            if answer.leader == leader:  # it still leads: it refused outright
                raise MembershipRefused(answer.refused)
            # It handed over first (rule 7): ask the new leader (another node: the line's
            # one question that changes something, to it).
            leader = _new_leader(line, everyone, leader, deadline)
            answer = _ask(line, leader, MemberQuery(change, node, address, line.address), deadline)
        if answer.refused is not None:
            raise MembershipRefused(answer.refused)
        committed, last = _committed(line, leader, deadline, done)
    if committed is not None:
        return MemberChange(
            change, node, leader, committed.epoch, committed.configuration, time.monotonic() - began
        )
    did = f"added node {node} as a learner" if change == "add" else f"removed node {node}"
    if last is None or time.monotonic() - last[0] > SILENT:
        raise MembershipRefused(
            f"node {leader} {did}, then stopped answering: the change is not committed and "
            "may be lost with its leadership: see ringleader status, and ask again"
        )
    if last[1].state != "leader":
        raise MembershipRefused(
            f"node {leader} {did}, then stopped leading before the change was committed: "
            "see ringleader status, and ask again"
        )
    if change == "add":
        raise MembershipRefused(
            f"node {leader} added node {node} as a learner, but node {node} did not catch "
            f"up and become a voter within {timeout} s: is it running at {address}?"
        )
    raise MembershipRefused(
        f"node {leader} removed node {node}, but the change was not committed within "
        f"{timeout} s: is a majority of the other voters up?"
    )


@dataclass(frozen=True)
class _Committed:
    epoch: int
    configuration: Configuration


#: A leader that has not answered the tool's status questions (asked every LOOK_AGAIN s)
#: for this long, when the wait ends, stopped answering.
SILENT = 1.0


def _committed(
    line: OperatorLine,
    leader: int,
    deadline: Deadline,
    done: Callable[[Configuration], bool],
) -> tuple[_Committed | None, tuple[float, NodeStatus] | None]:
    """Wait until ``leader`` says its configuration is the one asked for (``done``) and
    committed; ``None`` if ``deadline`` passes first.  Also the leader's last answer and
    when it came (``None``: it never answered), which says why not.  (A late answer to an
    earlier question of the line can only say not yet: the leader's configuration was not
    done when the tool began.)"""
    last: tuple[float, NodeStatus] | None = None

    def committed(status: NodeStatus) -> bool:
        nonlocal last
        last = (time.monotonic(), status)
        configuration = status.configuration
        return status.committed and configuration is not None and done(configuration)

    status = status_until(line, leader, deadline, committed)
    if status is None or status.configuration is None:
        return None, last
    return _Committed(status.epoch, status.configuration), last


def _leader(config: Config, line: OperatorLine, deadline: Deadline) -> tuple[int, NodeStatus]:
    found = find_leader(config, deadline, line=line)
    if isinstance(found, str):
        raise MembershipRefused(found)
    return found.id, found


def _new_leader(line: OperatorLine, everyone: list[int], previous: int, deadline: Deadline) -> int:
    """The node that leads once ``previous`` handed over, once its configuration is
    committed in its round (until then it would refuse the change: Raft's rule since
    2015), asked of every node on ``line`` every :data:`LOOK_AGAIN` s at most."""

    def ready(status: NodeStatus | None) -> bool:
        return (
            status is not None
            and status.state == "leader"
            and status.committed
            and status.id != previous
        )

    def led(answers: dict[int, NodeStatus | None]) -> bool:
        return any(ready(s) for s in answers.values())

    while (left := deadline.left()) > 0:
        began = time.monotonic()
        answers = ask_status_on(
            line, everyone, timeout=max(0.05, min(QUICK_STATUS, left)), enough=led
        )
        leaders = [s for s in answers.values() if s is not None and ready(s)]
        if leaders:
            return max(leaders, key=lambda s: s.epoch).id
        time.sleep(min(max(0.0, began + LOOK_AGAIN - time.monotonic()), deadline.left()))
    raise MembershipRefused(
        f"node {previous} handed over, but no other node led (its configuration committed) in time"
    )


def _ask(line: OperatorLine, leader: int, query: MemberQuery, deadline: Deadline) -> MemberAnswer:
    """Send the question to ``leader`` until it answers (the node answers a line's
    repeats with its first answer, and makes a change once)."""
    answer = ask_until_answered(line, leader, query, MemberAnswer, deadline)
    if answer is None:
        raise MembershipRefused(f"node {leader} did not answer within the time given")
    return answer
