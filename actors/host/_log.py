"""The logger every part of a node's actor writes to: one name to filter a node's lines
on, whichever part wrote them (the name it has always had)."""

from __future__ import annotations

import logging

__all__ = ["log"]

log = logging.getLogger("ringleader.actors.host._node_actor")
