"""``ringleader status``: ask every node of a config, over the authenticated wire, what
it thinks.

The tool is an operator, not a member: it signs with the cluster secret as the reserved
sender :data:`~ringleader.transport.OPERATOR`, binds a mailbox of its own for the
answers (on the address this machine would use to reach the nodes) and sends each node
a :class:`~ringleader.actors.host.StatusQuery`; each node answers with its
:class:`~ringleader.actors.host.NodeStatus`.
Nodes answer only the operator, and only that question.
"""

from __future__ import annotations

import socket
import time
from typing import Any

import zmq

from ringleader.actors import agreement
from ringleader.actors.host import OPERATOR, NodeStatus, StatusAnswer, StatusQuery, wire_kinds
from ringleader.errors import FrameRejected
from ringleader.topologies import Config, cluster_codec, node_secret
from ringleader.transport import Deadline, Links, Mailbox, Session, SocketOptions, ZmqNetwork

from ._standalone import check_standalone

__all__ = ["ask_status", "status_summary"]

ASK_AGAIN = 0.2  # s between questions to a node that has not answered


def _reply_address(config: Config) -> str | None:
    """An address of this machine the nodes can reach (``None``: a free ipc one)."""
    if config.transport != "tcp":
        return None
    first = next(iter(config.addresses.values()))
    host = first[len("tcp://") :].rpartition(":")[0].strip("[]")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((host, 9))  # UDP: no packet is sent, the kernel picks a route
            local = probe.getsockname()[0]
    except OSError:
        local = "127.0.0.1"
    return f"tcp://{local}:*"


def ask_status(config: Config, *, timeout: float = 2.0) -> dict[int, NodeStatus | None]:
    """Every node's status, or ``None`` for a node that did not answer within ``timeout``.

    The nodes answer by connecting back to this machine, on a free port of the address
    it uses to reach the first node: a firewall between them must let that through.
    """
    check_standalone(config)
    kinds = wire_kinds(config.algorithm_class)
    codec = cluster_codec(config, node_secret(config), config.cluster_id, kinds)
    session = Session(codec, OPERATOR, time.time_ns())
    network = ZmqNetwork(
        config.transport,
        nodes=1,
        links=config.n,
        options=SocketOptions(send_timeout=timeout),
        curve=config.curve_keys([OPERATOR]),
    )
    answers: dict[int, NodeStatus | None] = {n.id: None for n in config.nodes}
    try:
        mailbox = network.listen(OPERATOR, _reply_address(config))
        try:
            links = network.connect(config.addresses, node=OPERATOR)
            try:
                _ask(mailbox, links, session, answers, Deadline(timeout))
            finally:
                links.close(abrupt=True)
        finally:
            mailbox.close()
    finally:
        network.close()
    return answers


def _ask(
    mailbox: Mailbox,
    links: Links,
    session: Session,
    answers: dict[int, NodeStatus | None],
    deadline: Deadline,
) -> None:
    query = StatusQuery(mailbox.address)
    poller = zmq.Poller()
    poller.register(mailbox.waitable, zmq.POLLIN)
    pending = set(answers)
    asked: dict[int, float] = {}  # node → when last asked
    while pending and (left := deadline.left()) > 0:
        # Ask each node as soon as the link to it is up (a PUSH drops a frame for a peer
        # it is not connected to yet), and again every ASK_AGAIN s until it answers: its
        # first answer is lost if its link back here is still connecting.
        now = time.monotonic()
        for node in sorted(pending):
            if now - asked.get(node, -ASK_AGAIN) >= ASK_AGAIN and links.send(
                node, session.seal(node, query.kind, 0, query), wait=False
            ):
                asked[node] = now
        poller.poll(round(min(left, 0.02) * 1000))
        while (frame := mailbox.receive()) is not None:
            try:
                header, message = session.open(frame)
            except FrameRejected:
                continue
            if type(message) is StatusAnswer and header.sender in pending:
                answers[header.sender] = message.status
                pending.discard(header.sender)


def status_summary(config: Config, answers: dict[int, NodeStatus | None]) -> dict[str, Any]:
    """What ``ringleader status --json`` prints: each node's answer and whether they agree.

    ``agreed``: every node answered and names the same leader in the same epoch, and that
    leader says it leads.
    """
    nodes = []
    for spec in config.nodes:
        status = answers.get(spec.id)
        entry: dict[str, Any] = {"id": spec.id, "address": spec.address, "answered": False}
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
    if all(n["answered"] for n in nodes):
        agreed = agreement({n["id"]: (n["state"], n["leader"], n["epoch"]) for n in nodes})
    leader, epoch = (None, None) if agreed is None else agreed
    return {
        "cluster": f"{config.cluster_id:016x}",
        "agreed": agreed is not None,
        "leader": leader,
        "epoch": epoch,
        "nodes": nodes,
    }
