"""``ringleader transfer CONFIG --to N``: ask the leader, over the authenticated wire, to
hand the leadership over to node N.

Like ``ringleader status`` the tool is an operator, not a member: it asks every node for
its status (:func:`~ringleader.service.ask_status`) to find the leader, sends that node a
:class:`~ringleader.actors.host.TransferQuery`, and waits for its
:class:`~ringleader.actors.host.TransferAnswer` (all on one operator line, open until the
command is done): the leader refuses, saying why (it does
not lead any more, N is not a member, or N has not answered its heartbeat within the
lease), or hands over at once (``Node.resign(to=N)``).  Then it waits until N's own status
says it leads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ringleader.actors.host import TransferAnswer, TransferQuery
from ringleader.errors import TransferRefused
from ringleader.topologies import Config
from ringleader.transport import Deadline

from ._operator import find_leader, status_until
from ._operator_line import OperatorLine, ask_until_answered, operator_line
from ._standalone import check_standalone

__all__ = ["Transfer", "transfer"]


@dataclass(frozen=True)
class Transfer:
    """A hand-over done: from ``previous`` to ``leader``, which leads ``epoch``;
    ``took_s`` from the question to the new leader's own status saying so."""

    previous: int
    leader: int
    epoch: int
    took_s: float


def transfer(config: Config, to: int, *, timeout: float = 5.0) -> Transfer:
    """Have the leader of ``config``'s cluster hand over to node ``to``; raises
    :class:`~ringleader.TransferRefused` saying why if it does not (or no node leads, or
    ``to`` does not lead within ``timeout`` s)."""
    check_standalone(config)
    if to not in config.addresses:
        ids = ", ".join(str(n.id) for n in config.nodes[:12])
        raise TransferRefused(f"node {to} is not a member of the cluster (ids: {ids})")
    began = time.monotonic()
    deadline = Deadline(timeout)
    everyone = [n.id for n in config.nodes]
    # One line for the whole command: finding the leader, the question, and the wait.
    with operator_line(config, everyone, timeout=max(0.1, timeout)) as line:
        leader = _leader(config, line, deadline)
        if leader == to:
            raise TransferRefused(f"node {to} already leads")
        _ask(line, leader, to, deadline)
        led = status_until(line, to, deadline, lambda status: status.state == "leader")
    if led is not None:
        return Transfer(leader, to, led.epoch, time.monotonic() - began)
    raise TransferRefused(f"node {leader} handed over, but node {to} did not lead in {timeout} s")


def _leader(config: Config, line: OperatorLine, deadline: Deadline) -> int:
    found = find_leader(config, deadline, line=line)
    if isinstance(found, str):
        raise TransferRefused(found)
    return found.id


def _ask(line: OperatorLine, leader: int, to: int, deadline: Deadline) -> None:
    """Send the question to ``leader`` until it answers; raise if it refuses."""
    answer = ask_until_answered(
        line, leader, TransferQuery(to, line.address), TransferAnswer, deadline
    )
    if answer is None:
        raise TransferRefused(f"node {leader} did not answer within the time given")
    if answer.refused is not None:
        raise TransferRefused(answer.refused)
