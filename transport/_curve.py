"""ZeroMQ CURVE: the keys one process holds (the ZAP handler that admits a cluster is in
``_zap.py``, imported only when CURVE is used).

With ``security = "curve"`` every link is encrypted and every mailbox accepts a
connection only from a member's public key; :class:`~ringleader.transport.ZmqMailbox` then checks
that each frame's sender id is the node its connection's key belongs to.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._errors import TransportError

__all__ = ["CurveKeys"]


@dataclass(frozen=True)
class CurveKeys:
    """ZeroMQ CURVE keys (Z85 text, as ``zmq.auth`` writes them) for one process.

    ``public``: every member's public key (and the operator's, if it may ask for
    status); a mailbox accepts a connection only from one of these keys, and the sender
    id of every frame must be the id the key belongs to.  ``secret``: the secret keys of
    the nodes this process hosts.
    """

    public: Mapping[int, bytes]
    secret: Mapping[int, bytes]

    def pair(self, node: int) -> tuple[bytes, bytes]:
        try:
            return self.public[node], self.secret[node]
        except KeyError:
            raise TransportError(f"node {node} has no CURVE key pair here") from None
