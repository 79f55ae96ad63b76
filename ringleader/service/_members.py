"""``ringleader member add|remove CONFIG --id N``: ask the leader, over the authenticated
wire, to add a member to the cluster or remove one, live, and wait until the change is
committed.

Like ``ringleader transfer`` the tool is an operator, not a member: it asks every node
for its status (:func:`~ringleader.service.ask_status`) to find the leader and sends it a
:class:`~ringleader.actors.host.MemberQuery`.  The leader makes the change
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

from ._operator import QUICK_STATUS, STATUS_WAIT, ask_status, find_leader
from ._operator_line import ask_once_answered
from ._standalone import check_standalone

__all__ = ["MemberChange", "add_member", "remove_member"]

#: How often the tool looks whether the change is committed (s).
LOOK_AGAIN = 0.05


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
    leader, status = _leader(config, deadline)
    if status.configuration is not None and done(status.configuration) and status.committed:
        what = "a member" if change == "add" else "no member"
        raise MembershipRefused(f"node {node} is {what} already: {status.configuration.describe()}")
    answer = _ask(config, leader, MemberQuery(change, node, address, ""), deadline)
    if answer.refused is not None and change == "remove" and node == leader:
        if answer.leader == leader:  # it still leads: it refused outright
            raise MembershipRefused(answer.refused)
        # It handed over first (rule 7): ask the new leader.
        leader = _new_leader(config, leader, deadline)
        answer = _ask(config, leader, MemberQuery(change, node, address, ""), deadline)
    if answer.refused is not None:
        raise MembershipRefused(answer.refused)
    while (left := deadline.left()) > 0:
        now = ask_status(config, timeout=min(left, STATUS_WAIT), nodes=[leader]).get(leader)
        configuration = None if now is None else now.configuration
        if now is not None and now.committed and configuration is not None and done(configuration):
            return MemberChange(
                change, node, leader, now.epoch, configuration, time.monotonic() - began
            )
        time.sleep(min(LOOK_AGAIN, max(0.0, deadline.left())))
    if change == "add":
        raise MembershipRefused(
            f"node {leader} added node {node} as a learner, but node {node} did not catch "
            f"up and become a voter within {timeout} s: is it running at {address}?"
        )
    raise MembershipRefused(
        f"node {leader} removed node {node}, but the change was not committed within "
        f"{timeout} s: is a majority of the other voters up?"
    )


def _leader(config: Config, deadline: Deadline) -> tuple[int, NodeStatus]:
    found = find_leader(config, deadline)
    if isinstance(found, str):
        raise MembershipRefused(found)
    return found.id, found


def _new_leader(config: Config, previous: int, deadline: Deadline) -> int:
    """The node that leads once ``previous`` handed over."""

    def led(answers: dict[int, NodeStatus | None]) -> bool:
        return any(
            s is not None and s.state == "leader" and n != previous for n, s in answers.items()
        )

    while deadline.left() > 0:
        answers = ask_status(
            config, timeout=max(0.05, min(QUICK_STATUS, deadline.left())), enough=led
        )
        leaders = [
            s for n, s in answers.items() if s is not None and s.state == "leader" and n != previous
        ]
        if leaders:
            return max(leaders, key=lambda s: s.epoch).id
    raise MembershipRefused(f"node {previous} handed over, but no other node led in time")


def _ask(config: Config, leader: int, query: MemberQuery, deadline: Deadline) -> MemberAnswer:
    """Send the question to ``leader`` until it answers (on a line of its own: the node
    answers a line's repeats with its first answer, and makes a change once)."""
    answer = ask_once_answered(
        config,
        leader,
        lambda reply_to: MemberQuery(query.change, query.node, query.address, reply_to),
        MemberAnswer,
        deadline,
    )
    if answer is None:
        raise MembershipRefused(f"node {leader} did not answer within the time given")
    return answer
