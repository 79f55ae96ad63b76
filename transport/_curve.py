"""ZeroMQ CURVE: the keys one process holds, and the ZAP handler that admits a cluster.

With ``security = "curve"`` every link is encrypted and every mailbox accepts a
connection only from a member's public key; :class:`~ringleader.transport.ZmqMailbox` then checks
that each frame's sender id is the node its connection's key belongs to.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import zmq
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

from ._errors import TransportError

__all__ = ["ClusterAuthenticator", "CurveKeys"]

log = logging.getLogger(__name__)


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


class ClusterAuthenticator(ThreadAuthenticator):
    """ZAP for CURVE: admit exactly the cluster's public keys; the connection's User-Id
    is the node id its key belongs to."""

    def __init__(self, ctx: zmq.Context[zmq.Socket[bytes]], public: Mapping[int, bytes]) -> None:
        super().__init__(ctx, log=logging.getLogger(f"{__name__}.zap"))
        self._ids = {z85.decode(key): node for node, key in public.items()}
        self._z85 = {key: node for node, key in public.items()}
        self.configure_curve_callback("*", credentials_provider=self)

    def callback(self, domain: str, key: bytes) -> bool:
        if key in self._z85:
            return True
        log.warning("refused a CURVE connection from an unknown key %s", key.decode("ascii"))
        return False

    def curve_user_id(self, client_public_key: bytes) -> str:
        return str(self._ids[client_public_key])
