"""Traces: every event of a run, as JSON lines, in the order they happened.

A host records what each node does as it happens — cheaply, one append per column, on the
node's own thread (:class:`NodeTrace`) — and writes the run's events once it is over
(:func:`write_trace`): in the order they happened, messages numbered, each event stamped
with its node's Lamport clock and (up to :data:`VECTOR_LIMIT` nodes) its vector clock,
counted over the events the trace shows.  One object per line::

    {"event":"send","t":0.000412,"node":4,"peer":9,"kind":"election","epoch":1,
     "fields":{"candidate":{"capacity":4,"id":4}},"msg":1,"lamport":1,"vc":{"4":1}}

The first line is a *header* (``"event": "header"``, written by :class:`TraceWriter`
when given one): what ran — ``algorithm`` (its config name, or ``module:Class``),
``title``, ``topology``, ``nodes`` (ids and capacities), ``mode``, ``config`` (the config
as run), ``seed`` (if any) and ``ringleader`` (the version).  It has no ``t`` and no
``node``; a trace written before traces had one starts with its first event.

``event`` is one of :data:`EVENTS`.  Every event has ``t`` (seconds since the run
began; virtual seconds in the simulator) and ``node``.  ``send``/``receive`` also have
``peer`` (the other end), ``kind`` (the notes' name), ``epoch``, ``fields``, ``msg`` (the
number a send shares with its receive), ``lamport`` and ``vc``; ``timer`` has ``timer``
(its name); ``state`` has ``state``, ``elected``, ``epoch`` and (when the host gave
them) ``vars``, the node's election variables then
(:meth:`~ringleader.actors.Election.variables`); ``suspect`` has ``peer``
and ``epoch``.  The failure detector's traffic and timers carry ``"heartbeat": true`` and
are left out unless asked for.

A message that never arrived is a send with ``lost`` (why, in words) and no receive, in
every mode: sent to a node that was down (``"P5 is down"``: the simulator, a real run
whose send found no connection to a crashed node, the explorer), for a life of its
receiver since restarted, or lost by a misbehaving network (``[[faults]]``,
``ringleader explore``: ``"lost by the network"``, ``"the network is partitioned"``).
What else a misbehaving network did: a copy delivered twice is a second
receive of the same ``msg`` with ``"duplicate": true``; ``partition`` (with ``groups``,
a list of lists of node ids) and ``heal`` say when the network split and healed, and
``pause`` and ``resume`` (with ``seconds`` when known) when a node stood still; a send
delivered more than once has ``copies``.

A service's run as the explorer replays it (``ringleader explore --service --changes``)
tells the members changing: ``change`` is an operator asking ``node`` to ``change``
(``"add"`` or ``"remove"``) node ``peer``, with the answer, ``configuration`` (the new
one, in words: ``"version 2 (round 5): voters 2,3"``) or ``refused`` (why, in words),
and ``epoch``; ``configuration`` and ``removed`` (``configuration`` and ``epoch``) are a
node's own, as ``ringleader node`` prints them: it counts majorities in a newer
configuration, or the cluster removed it.

A ``violation`` is a check of :mod:`ringleader.actors.checks` that the state the run had
just come to broke: ``check`` (its kind, e.g. ``two_leaders``), ``nodes``, ``epoch`` and
``detail`` (in words); its ``node`` is the node whose state change broke it.

A node's *part* (``ringleader node --trace``: one node's events, alone in its process)
has absolute ``t`` (wall-clock seconds) and names each message by its wire key —
``"sender:incarnation:receiver:sequence"``, which both ends know — and its clocks count
its own events only; :func:`merge_parts` joins parts into one trace.

:class:`NodeTrace` records (``_record.py``), :func:`write_trace` and
:class:`TraceWriter` write (``_writer.py``), :func:`read_trace` and :func:`merge_parts`
read and join (``_reader.py``).
"""

from ._reader import merge_parts, read_trace
from ._record import EVENTS, NodeTrace, Record, TraceClock, merge_runs
from ._writer import VECTOR_LIMIT, Event, TraceWriter, trace_events, write_trace

__all__ = [
    "EVENTS",
    "VECTOR_LIMIT",
    "Event",
    "NodeTrace",
    "Record",
    "TraceClock",
    "TraceWriter",
    "merge_parts",
    "merge_runs",
    "read_trace",
    "trace_events",
    "write_trace",
]
