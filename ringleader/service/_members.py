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
        asked = leader
        committed, leader, gone = _committed(config, line, leader, deadline, done)
    if committed is not None:
        return MemberChange(
            change, node, leader, committed.epoch, committed.configuration, time.monotonic() - began
        )
    if gone is not None:
        did = f"added node {node} as a learner" if change == "add" else f"removed node {node}"
        now = "" if leader == asked else f": node {leader} leads now and has not committed it"
        raise MembershipRefused(
            f"node {asked} {did}, then {gone} before the change was committed{now}: see "
            "ringleader status, and ask again"
        )
    if change == "add":
        raise MembershipRefused(
            f"node {leader} added node {node} as a learner, but node {node} did not catch "
            f"up and become a voter within {timeout} s: is it running at {address}? "
            f"If not: start it, and node {leader} makes it a voter once it catches up"
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
#: for this long stopped answering: the tool looks for whoever leads now.
SILENT = 1.0


def _committed(
    config: Config,
    line: OperatorLine,
    leader: int,
    deadline: Deadline,
    done: Callable[[Configuration], bool],
) -> tuple[_Committed | None, int, str | None]:
    """Wait until the leader says its configuration is the one asked for (``done``) and
    committed (``None`` if ``deadline`` passes first), following the leadership: if
    ``leader`` stops answering for :data:`SILENT` s or stops leading (it handed over,
    or was removed by a change asked at the same time), whoever leads now is asked,
    which may hold the change committed.  Also the leader last asked, and what became
    of ``leader`` if it did not see the change through (``None``: it still leads).  (A
    late answer to an earlier question of the line can only say not yet: the leader's
    configuration was not done when the tool began.)"""
    heard, leading = time.monotonic(), True
    gone: str | None = None

    def finished(status: NodeStatus) -> bool:
        configuration = status.configuration
        return status.committed and configuration is not None and done(configuration)

    def wanted(status: NodeStatus) -> bool:
        nonlocal heard, leading
        heard, leading = time.monotonic(), status.state == "leader"
        return finished(status) or not leading

    while deadline.left() > 0:
        status = status_until(line, leader, Deadline(min(SILENT, deadline.left())), wanted)
        if status is not None and finished(status) and status.configuration is not None:
            return _Committed(status.epoch, status.configuration), leader, gone
        if status is None and time.monotonic() - heard < SILENT:
            continue  # it answers: not done yet
        if gone is None:
            gone = "stopped answering" if status is None else "stopped leading"
        found = find_leader(config, deadline, line=line)
        if isinstance(found, NodeStatus):
            leader, heard, leading = found.id, time.monotonic(), True
            if finished(found) and found.configuration is not None:
                return _Committed(found.epoch, found.configuration), leader, gone
    return None, leader, gone


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
