"""The logger every part of a node's actor writes to (one name to filter a node's lines
on, whichever part wrote them: the name it has always had), and the node's INFO lines.

Every INFO line of a node says what happened and why, and ends with what the node
believes then: who leads and the epoch, ``[leader node 3, epoch 2]`` (``leader none``
while it knows of none), so that any one line, read alone, tells an operator where the
cluster stands."""

from __future__ import annotations

import logging

from ringleader.actors.core import Notice

__all__ = ["NodeLines", "log", "view"]

log = logging.getLogger("ringleader.actors.host._node_actor")


def view(leader: int | None, epoch: int) -> str:
    """What ends every INFO line: ``[leader node 3, epoch 2]`` or ``[leader none, …]``."""
    return f"[leader {'none' if leader is None else f'node {leader}'}, epoch {epoch}]"


class NodeLines:
    """Node ``node``'s INFO lines for its notices.

    It remembers why the node's latest round began (a crash, its start, a hand-over …)
    to say it again on the line where the round ends: who leads, and why."""

    def __init__(self, node: int, floor: int = 0) -> None:
        self.node = node
        #: The highest epoch the node's previous lives saw: before its first round, the
        #: epoch its lines say (every round it enters is above it).
        self.floor = floor
        #: Why the round under way began ("" once a leader is known).
        self.cause = ""

    def line(  # noqa: PLR0911 -- a line per kind
        self, notice: Notice, said: tuple[str, int | None, int]
    ) -> tuple[int, str] | None:
        """The log level and line for ``notice``, the node now saying ``said`` (its
        state, the leader it names, its epoch).  ``None``: nothing worth a line (a stall
        is warned of where it is handled)."""
        node = self.node
        kind, peer, detail = notice.kind, notice.node, notice.detail
        epoch = max(notice.epoch, self.floor)
        state, leader, _ = said
        if kind == "state":
            return logging.INFO, self._state(state, leader, epoch)
        if kind == "lease":
            return logging.INFO, (
                f"node {node} holds its lease: its followers acknowledged its heartbeat "
                f"{view(node, epoch)}"
            )
        if kind == "lost":
            now = None if leader == node else leader  # it no longer leads, whatever it said
            return logging.INFO, (
                f"node {node} no longer leads epoch {epoch}: {detail or 'its leadership ended'} "
                f"{view(now, epoch)}"
            )
        if kind in ("election", "prevote"):
            self.cause = detail
            why = detail or "no leader"
            if kind == "prevote":  # it leads nothing new yet: its view stands
                return logging.INFO, (
                    f"node {node} asks its peers whether to start a round: {why} "
                    f"{view(leader, epoch)}"
                )
            return logging.INFO, f"node {node} starts a round: {why} {view(None, epoch)}"
        if kind == "handover":
            return logging.INFO, (
                f"node {node} hands the leadership over to node {peer}: "
                f"{detail or 'asked to'} {view(leader, epoch)}"
            )
        if kind == "suspect":
            whose = ", its leader" if peer == leader else ""
            why = detail or "silent for longer than suspect_after"
            return logging.INFO, (
                f"node {node} suspects node {peer}{whose}: {why} {view(leader, epoch)}"
            )
        if kind == "recovered":
            return logging.INFO, (
                f"node {node} hears from node {peer} again: it answers {view(leader, epoch)}"
            )
        if kind == "stalled":
            return None
        if kind == "configuration":
            return logging.INFO, (
                f"node {node} counts majorities in configuration {detail} {view(leader, epoch)}"
            )
        if kind == "removed":
            return logging.INFO, (
                f"node {node} was removed from the cluster: configuration {detail} "
                f"{view(leader, epoch)}"
            )
        about = "" if peer is None else f" of node {peer}"
        return logging.INFO, (
            f"node {node} notes {kind}{about}: {detail or 'no detail'} {view(leader, epoch)}"
        )

    def _state(self, state: str, leader: int | None, epoch: int) -> str:
        node, cause = self.node, self.cause
        round_ = f"the round ({cause})" if cause else "the round"
        if state == "undecided" or leader is None:
            return f"node {node} waits for a leader: {round_} is under way {view(None, epoch)}"
        self.cause = ""
        if state == "leader" or leader == node:
            return f"node {node} leads: it won {round_} {view(node, epoch)}"
        told = f"it won {round_}" if cause else "it says it leads"
        return f"node {node} follows node {leader}: {told} {view(leader, epoch)}"
