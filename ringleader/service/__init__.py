"""A leader inside a service: one node of a cluster in this process.

- :class:`Node` joins a config's cluster from a service's own process and tells it who
  leads (``is_leader``, ``epoch``, :class:`LeadershipView` snapshots, callbacks,
  :class:`LeaderChange` events); :class:`AsyncNode` is the same for asyncio, every wait
  awaited.
- :func:`serve` is what ``ringleader node`` runs (its events written out by an
  :class:`EventWriter`); ``_protocol.py`` is that node's protocol with a parent that
  supervises it.
- :func:`ask_status` is ``ringleader status``: the operator asks every node;
  :func:`transfer` is ``ringleader transfer``: it asks the leader to hand over;
  :func:`add_member` and :func:`remove_member` are ``ringleader member add|remove``:
  they ask the leader to change the members, live;
  :class:`Observer` is ``ringleader watch``: it follows the leader as it changes
  (each change a :class:`Watched`).
- :class:`NodeOptions`: how a node runs beyond its config and id, checked once whoever
  gives them (:class:`Node`'s keywords, ``ringleader node``'s flags, a supervisor).
- :class:`NodeMetrics` serves a node's Prometheus metrics.
- :class:`StateFile`: what must survive a node of a service (the highest epoch it saw,
  its incarnation counter), under :func:`default_state_dir` or the config's
  ``state_dir``.

Each name is imported when first asked for: a node process loads neither the
Prometheus client nor the operator's tools unless it uses them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ringleader._lazy import lazy_names

if TYPE_CHECKING:
    from ._assembly import check_standalone, service_settings
    from ._async_node import AsyncNode
    from ._callbacks import LeaderChange
    from ._members import MemberChange, add_member, remove_member
    from ._metrics import FAILOVER_BUCKETS, NodeMetrics
    from ._node import Node
    from ._node_options import NodeOptions, OptionError, flag, parse_address
    from ._observer import Observer
    from ._operator import ask_status, status_summary
    from ._output import EventWriter, describe
    from ._protocol import (
        BOOT,
        LINK,
        START,
        STATUS,
        command_line,
        event_dict,
        link_addresses,
        link_line,
        node_event,
        parse_command,
        status_dict,
        status_from_dict,
    )
    from ._sightings import Watched
    from ._standalone import (
        BAD_SIGNATURE_EVERY,
        REJECTIONS_PER_SECOND,
        RejectionThrottle,
        die_with_parent,
        run_node,
        serve,
    )
    from ._state_file import StateFile, default_state_dir, state_path
    from ._transfer import Transfer, transfer
    from ._view import LeadershipView

#: Each name, and the module it comes from.
_HOMES = {
    "AsyncNode": "._async_node",
    "BAD_SIGNATURE_EVERY": "._standalone",
    "BOOT": "._protocol",
    "FAILOVER_BUCKETS": "._metrics",
    "LINK": "._protocol",
    "REJECTIONS_PER_SECOND": "._standalone",
    "START": "._protocol",
    "STATUS": "._protocol",
    "EventWriter": "._output",
    "LeaderChange": "._callbacks",
    "LeadershipView": "._view",
    "MemberChange": "._members",
    "add_member": "._members",
    "remove_member": "._members",
    "Node": "._node",
    "NodeMetrics": "._metrics",
    "Observer": "._observer",
    "Watched": "._sightings",
    "RejectionThrottle": "._standalone",
    "ask_status": "._operator",
    "check_standalone": "._assembly",
    "command_line": "._protocol",
    "describe": "._output",
    "die_with_parent": "._standalone",
    "event_dict": "._protocol",
    "link_addresses": "._protocol",
    "link_line": "._protocol",
    "node_event": "._protocol",
    "parse_address": "._node_options",
    "NodeOptions": "._node_options",
    "OptionError": "._node_options",
    "flag": "._node_options",
    "parse_command": "._protocol",
    "run_node": "._standalone",
    "serve": "._standalone",
    "service_settings": "._assembly",
    "StateFile": "._state_file",
    "default_state_dir": "._state_file",
    "state_path": "._state_file",
    "status_dict": "._protocol",
    "status_from_dict": "._protocol",
    "status_summary": "._operator",
    "Transfer": "._transfer",
    "transfer": "._transfer",
}

__all__ = [
    "BAD_SIGNATURE_EVERY",
    "BOOT",
    "FAILOVER_BUCKETS",
    "LINK",
    "REJECTIONS_PER_SECOND",
    "START",
    "STATUS",
    "AsyncNode",
    "EventWriter",
    "LeaderChange",
    "LeadershipView",
    "MemberChange",
    "Node",
    "NodeMetrics",
    "NodeOptions",
    "Observer",
    "OptionError",
    "RejectionThrottle",
    "StateFile",
    "Transfer",
    "Watched",
    "add_member",
    "ask_status",
    "check_standalone",
    "command_line",
    "default_state_dir",
    "describe",
    "die_with_parent",
    "event_dict",
    "flag",
    "link_addresses",
    "link_line",
    "node_event",
    "parse_address",
    "parse_command",
    "remove_member",
    "run_node",
    "serve",
    "service_settings",
    "state_path",
    "status_dict",
    "status_from_dict",
    "status_summary",
    "transfer",
]


__getattr__, __dir__ = lazy_names(__name__, globals(), _HOMES)
