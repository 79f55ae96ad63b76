"""Whether a node is alive and whether it is ready, as its ``/healthz`` and ``/readyz``
answer (beside ``/metrics``, see ``_metrics.py``): each a verdict, ``(ok, why)``, ``why``
one line.

- **alive** (``/healthz``): the process answers and its node runs; not once it stopped,
  or stopped by itself because it could not keep its state (then ``why`` is that error);
- **ready** (``/readyz``): alive, and it knows a leader that holds a lease, or is it: it
  leads with its lease held; or it follows a leader it does not suspect.  A leader whose
  lease lapsed names no leader until it holds one again (another may lead by then).  A follower
  cannot read another node's lease: it counts its leader's heartbeats, and suspects it
  when they stop (``suspect_after``), then elects again.

Decided here from what the node says, with no clock or socket: the view carries its
instant.
"""

from __future__ import annotations

from collections.abc import Collection

from ringleader.errors import RingleaderError

from ._view import LeadershipView

__all__ = ["Verdict", "alive", "ready"]

#: ``(ok, why)``: ``why`` is one line.
Verdict = tuple[bool, str]


def alive(node: int, running: bool, failure: RingleaderError | None) -> Verdict:
    """Node ``node``'s liveness: it runs, and did not fail."""
    if failure is not None:
        return False, f"node {node} failed: {_one_line(failure)}"
    if not running:
        return False, f"node {node} is stopped"
    return True, f"node {node} is running"


def ready(
    view: LeadershipView,
    running: bool,
    failure: RingleaderError | None,
    suspected: Collection[int] = (),
) -> Verdict:
    """Node ``view.node``'s readiness: alive, and it knows a leader with a lease (see
    the module)."""
    up, why = alive(view.node, running, failure)
    if not up:
        return False, why
    node, leader, epoch = view.node, view.leader, view.epoch
    if leader is None:
        return False, (
            f"node {node} knows no leader holding a lease (epoch {epoch}): "
            "none elected, none heard, or its own lease lapsed"
        )
    if leader == node:
        if view.is_leader:
            return True, f"node {node} leads epoch {epoch} with its lease held"
        return False, (
            f"node {node} leads epoch {epoch} without a lease: "
            "no majority has acknowledged it (yet)"
        )
    if leader in suspected:
        return False, f"node {node} follows node {leader} (epoch {epoch}), which it suspects"
    return True, f"node {node} follows node {leader} (epoch {epoch})"


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
