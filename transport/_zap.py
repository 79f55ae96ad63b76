"""The ZAP handler that admits a CURVE cluster: :class:`ClusterAuthenticator`.

Its own module because ``zmq.auth`` brings asyncio with it (a tenth of a second of
imports): only a network with CURVE keys imports it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import zmq
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

__all__ = ["ClusterAuthenticator"]

log = logging.getLogger("ringleader.transport._curve")  # the name its warnings always had


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
