"""The logger every part of a node's actor writes to: one name to filter a node's lines
on, whichever part wrote them (the name it has always had)."""

from __future__ import annotations

import logging

from ringleader.actors.core import Notice

__all__ = ["log", "notice_line"]

log = logging.getLogger("ringleader.actors.host._node_actor")


def notice_line(  # noqa: PLR0911 -- a line per kind
    node: int, notice: Notice, said: tuple[str, int | None, int]
) -> tuple[int, str] | None:
    """The log level and line for ``notice`` of node ``node``, which now says ``said``
    (its state, the leader it names, its epoch): each names the leader, the epoch and the
    lease where it concerns them.  ``None``: nothing worth a line (a stall is warned of
    where it is handled)."""
    kind, peer, epoch, detail = notice.kind, notice.node, notice.epoch, notice.detail
    state, leader, _ = said
    why = f": {detail}" if detail else ""
    if kind == "state":
        if state == "leader":
            return logging.INFO, f"node {node} leads epoch {epoch}"
        if state == "undecided" or leader is None:
            return logging.INFO, f"node {node}: no leader yet in epoch {epoch}"
        return logging.INFO, f"node {node} follows node {leader} (epoch {epoch})"
    if kind == "lease":
        return logging.INFO, f"node {node} holds its lease in epoch {epoch}"
    if kind == "lost":
        return logging.INFO, f"node {node} no longer leads epoch {epoch}{why}"
    if kind == "election":
        return logging.INFO, f"node {node} starts election (epoch {epoch}){why}"
    if kind == "prevote":
        return logging.INFO, f"node {node} asks for a pre-vote above epoch {epoch}{why}"
    if kind == "handover":
        return logging.INFO, f"node {node} hands epoch {epoch} over to node {peer}{why}"
    if kind == "suspect":
        whose = " (its leader)" if peer == leader else ""
        return logging.INFO, f"node {node} suspects node {peer}{whose}{why} (epoch {epoch})"
    if kind == "recovered":
        return logging.INFO, f"node {node} hears from node {peer} again (epoch {epoch})"
    if kind == "stalled":
        return None
    return logging.INFO, f"node {node}: {kind} {peer} {detail}".rstrip()
