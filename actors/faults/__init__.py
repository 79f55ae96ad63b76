"""A network that misbehaves on purpose: the ``[[faults]]`` entries beyond crashes.

- :data:`NetworkFault` — one entry: :class:`Partition`, :class:`Loss`, :class:`Delay`
  (with its :class:`Distribution`), :class:`Duplicate`, :class:`Reorder`, :class:`Pause`;
- :class:`Misbehaving` — what the network does to each message sent
  (:class:`Fate`), asked by the hosts: the simulator, the node actor.

The same entries drive every mode: threads and processes (the node actor holds, drops
or copies its own sends and pauses itself), the simulator (as events in virtual time),
and ``ringleader explore`` (as what may happen, see
:func:`ringleader.cluster.explore_options`).  Standard library only.
"""

from ._entries import (
    Delay,
    Distribution,
    Duplicate,
    Loss,
    NetworkFault,
    Partition,
    Pause,
    Reorder,
)
from ._network import Fate, Misbehaving

__all__ = [
    "Delay",
    "Distribution",
    "Duplicate",
    "Fate",
    "Loss",
    "Misbehaving",
    "NetworkFault",
    "Partition",
    "Pause",
    "Reorder",
]
