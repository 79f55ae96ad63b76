"""``ringleader status``: ask every node of a config, over the authenticated wire, what
it thinks.

The tool is an operator, not a member: over its line to the nodes
(``_operator_line.py``) it sends each node
a :class:`~ringleader.actors.host.StatusQuery`; each node answers with its
:class:`~ringleader.actors.host.NodeStatus`.
Nodes answer only the operator, and only that question.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from ringleader.actors import agreement
from ringleader.actors.crashes import Configuration
from ringleader.actors.host import NodeStatus, StatusAnswer, StatusQuery
from ringleader.topologies import Config
from ringleader.transport import Deadline

from ._operator_line import ASK_AGAIN, OperatorLine, ask_again_after, operator_line
from ._standalone import check_standalone

__all__ = ["ask_status", "ask_status_on", "find_leader", "status_summary"]

#: How long finding the leader waits for the nodes at first (s): live nodes answer within
#: milliseconds, and one that is down must not hold the question up...
QUICK_STATUS = 0.3
#: ... and, if no leader answered by then, the second time.
STATUS_WAIT = 1.0


def ask_status(
    config: Config,
    *,
    timeout: float = 2.0,
    nodes: Iterable[int] | None = None,
    enough: Callable[[dict[int, NodeStatus | None]], bool] | None = None,
) -> dict[int, NodeStatus | None]:
    """Every node's status (``nodes``: those nodes' only), or ``None`` for a node that did
    not answer within ``timeout`` (or before the answers were ``enough``, if given).

    The nodes answer by connecting back to this machine, on a free port of the address
    it uses to reach the first node: a firewall between them must let that through.
    """
    check_standalone(config)
    asked = [n.id for n in config.nodes] if nodes is None else list(nodes)
    with operator_line(config, asked, timeout=timeout) as line:
        return ask_status_on(line, asked, timeout=timeout, enough=enough)


def ask_status_on(
    line: OperatorLine,
    nodes: Iterable[int],
    *,
    timeout: float,
    enough: Callable[[dict[int, NodeStatus | None]], bool] | None = None,
) -> dict[int, NodeStatus | None]:
    """:func:`ask_status` on a line already open to ``nodes`` (a tool that asks more
    than once keeps one line: no new sockets, connections and identity each time).  An
    answer to an earlier question on the line that comes late counts as this one's: a
    status is a snapshot either way."""
    answers: dict[int, NodeStatus | None] = dict.fromkeys(nodes)
    _ask(line, answers, Deadline(timeout), enough)
    return answers


def find_leader(
    config: Config, deadline: Deadline, *, line: OperatorLine | None = None
) -> NodeStatus | str:
    """The leader's status, asked of every node (briefly first, then for longer), or the
    line saying that no node leads.  It stops asking once a majority of the founding
    voters answered with a leader among them: the nodes that have not answered yet (down,
    or spares not started) need not hold the question up.  ``line``: asked on that line
    (open to every node of ``config``), else on lines of its own."""
    majority = len(config.founding) // 2 + 1
    everyone = [n.id for n in config.nodes]

    def enough(answers: dict[int, NodeStatus | None]) -> bool:
        heard = [s for s in answers.values() if s is not None]
        return len(heard) >= majority and any(s.state == "leader" for s in heard)

    wait = QUICK_STATUS
    while True:
        timeout = max(0.05, min(wait, deadline.left()))
        if line is None:
            answers = ask_status(config, timeout=timeout, enough=enough)
        else:
            answers = ask_status_on(line, everyone, timeout=timeout, enough=enough)
        leaders = [s for s in answers.values() if s is not None and s.state == "leader"]
        if leaders:
            # Two self-proclaimed leaders (a stale one, before it learns of the newer
            # round): the one of the newer epoch leads.
            return max(leaders, key=lambda s: s.epoch)
        if deadline.left() <= 0 or wait >= STATUS_WAIT:
            silent = sorted(n for n, s in answers.items() if s is None)
            if len(silent) == len(answers):  # (a node with another secret drops it unread)
                names = ", ".join(map(str, silent))
                return f"no node answered ({names}): are they running, with this secret?"
            also = f" (no answer from {', '.join(map(str, silent))})" if silent else ""
            return f"no node leads now{also}: try again once one does"
        wait = STATUS_WAIT


def _ask(
    line: OperatorLine,
    answers: dict[int, NodeStatus | None],
    deadline: Deadline,
    enough: Callable[[dict[int, NodeStatus | None]], bool] | None,
) -> None:
    query = StatusQuery(line.address)
    pending = set(answers)
    asked: dict[int, tuple[float, int]] = {}  # node → when last asked, how many times
    while pending and deadline.left() > 0:
        # Ask each node as soon as the link to it is up, and again (soon at first, then
        # every ASK_AGAIN s) until it answers.
        now = time.monotonic()
        for node in sorted(pending):
            last, times = asked.get(node, (-ASK_AGAIN, 0))
            if now - last >= ask_again_after(times) and line.ask(node, query):
                asked[node] = (now, times + 1)
        for sender, message in line.answers(deadline):
            if type(message) is StatusAnswer and sender in pending:
                answers[sender] = message.status
                pending.discard(sender)
                if enough is not None and enough(answers):
                    return


def status_summary(config: Config, answers: dict[int, NodeStatus | None]) -> dict[str, Any]:
    """What ``ringleader status --json`` prints: each node's answer and whether they agree.

    ``agreed``: every voter answered and names the same leader in the same epoch, and
    that leader says it leads.  The members are those of the newest configuration a node
    answered with (``configuration``; the config's nodes but its spares if none did): a
    spare not added yet, or a node removed, is listed with ``member`` false, and a
    learner (a member that votes in no majority yet) with ``voter`` false: neither need
    answer.
    """
    newest = _newest_configuration(answers)
    members = set(config.founding) if newest is None else newest.members
    voters = set(config.founding) if newest is None else newest.voters
    nodes = []
    for spec in config.nodes:
        status = answers.get(spec.id)
        entry: dict[str, Any] = {
            "id": spec.id,
            "address": spec.address,
            "member": spec.id in members,
            "voter": spec.id in voters,
            "answered": False,
        }
        if status is not None:
            entry.update(
                answered=True,
                state=status.state,
                leader=status.elected,
                epoch=status.epoch,
                incarnation=status.incarnation,
                received=status.received,
                sent=status.sent_total,
                rejected=dict(status.rejected),
                bad_signatures=dict(status.bad_signatures),
                other_clusters={str(p): line for p, line in status.other_clusters.items()},
            )
        nodes.append(entry)
    agreed = None
    voting = [n for n in nodes if n["voter"]]  # (a learner not up yet holds nothing back)
    if all(n["answered"] for n in voting):
        agreed = agreement({n["id"]: (n["state"], n["leader"], n["epoch"]) for n in voting})
    leader, epoch = (None, None) if agreed is None else agreed
    return {
        "cluster": f"{config.cluster_id:016x}",
        "agreed": agreed is not None,
        "leader": leader,
        "epoch": epoch,
        "configuration": None if newest is None else newest.to_json(),
        "nodes": nodes,
    }


def _newest_configuration(answers: dict[int, NodeStatus | None]) -> Configuration | None:
    """The newest configuration any node answered with (``None``: none runs one)."""
    held = [s.configuration for s in answers.values() if s is not None and s.configuration]
    return max(held, key=lambda c: c.key) if held else None


#: How often a tool waiting for a node's status asks it again, on one line (s).
LOOK_AGAIN = 0.05


def status_until(
    line: OperatorLine,
    node: int,
    deadline: Deadline,
    wanted: Callable[[NodeStatus], bool],
) -> NodeStatus | None:
    """Ask ``node`` for its status on ``line`` every :data:`LOOK_AGAIN` s until it
    answers with one ``wanted`` accepts, and return that; ``None`` if ``deadline``
    passes first (what ``ringleader member`` and ``ringleader transfer`` wait for)."""
    query = StatusQuery(line.address)
    asked = -LOOK_AGAIN
    while deadline.left() > 0:
        now = time.monotonic()
        if now - asked >= LOOK_AGAIN and line.ask(node, query):
            asked = now
        for sender, message in line.answers(deadline):
            if sender == node and type(message) is StatusAnswer and wanted(message.status):
                return message.status
    return None
