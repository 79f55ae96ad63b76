"""The shape of an election: one round at one node, messages in, actions out.

- :class:`Election` is one election round at one node, as a slide of the notes tells it:
  state ``undecided`` / ``leader`` / ``not_leader`` (:class:`NodeState`), ``elected``,
  one handler per message kind; it asks whatever runs it (:class:`Around`) the few
  questions whose answers change when somebody crashes.
- :class:`Message` is the base of every message kind; an election returns
  :data:`Action`\\ s — :class:`Send`, :class:`SetTimer`, :class:`CancelTimer`,
  :class:`Notice` — for its host to carry out, and a member adds :class:`Persist`,
  :class:`Publish` and :class:`StateChanged`.
- :class:`NodeView` is what one node knows of its place; :class:`Candidate` the
  criterion, ``(capacity, id)``.
- :class:`Bound` is the notes' message count for an arrangement (:class:`Graph`).
- :class:`ClusterDefinition` is what defines a cluster (its members, algorithm and the
  settings its lease rests on); its digest is the cluster id every frame carries, and
  :func:`describe_difference` says how two differ.
"""

from ._actions import (
    Action,
    CancelTimer,
    Notice,
    Persist,
    Publish,
    Send,
    SetTimer,
    StateChanged,
)
from ._bound import Bound, Graph
from ._definition import ClusterDefinition, DefinedNode, Difference, describe_difference
from ._election import RESERVED_KINDS, Around, Election, NodeState, frozen
from ._message import Message
from ._view import Candidate, NodeView

__all__ = [
    "RESERVED_KINDS",
    "Action",
    "Around",
    "Bound",
    "CancelTimer",
    "Candidate",
    "ClusterDefinition",
    "DefinedNode",
    "Difference",
    "Election",
    "Graph",
    "Message",
    "NodeState",
    "NodeView",
    "Notice",
    "Persist",
    "Publish",
    "Send",
    "SetTimer",
    "StateChanged",
    "describe_difference",
    "frozen",
]
