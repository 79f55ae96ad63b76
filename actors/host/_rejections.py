"""The frames a node refuses, counted by reason, and those that fail the signature by the
address they came from."""

from __future__ import annotations

from collections import Counter

from ringleader.transport import FrameRejected

from ._log import log

__all__ = ["ADDRESSES_KEPT", "OTHER_ADDRESSES", "UNKNOWN_ADDRESS", "Rejections"]


#: Addresses whose frames failing the signature a node counts apart; the rest together.
ADDRESSES_KEPT = 64
#: Where a frame came from when the transport does not say.
UNKNOWN_ADDRESS = "an unknown address"
OTHER_ADDRESSES = "other addresses"


class Rejections:
    """Node ``node``'s refused frames: :attr:`reasons` (reason → frames) and
    :attr:`bad_signatures` (address → frames)."""

    def __init__(self, node: int) -> None:
        self.node = node
        self.reasons: Counter[str] = Counter()
        self.bad_signatures: Counter[str] = Counter()

    def __str__(self) -> str:
        return f"node {self.node}"

    def count(self, rejected: FrameRejected, address: str | None) -> str | None:
        """Count ``rejected`` (from ``address``, if known) and log it as its reason
        deserves; returns the address it is counted under."""
        reason = rejected.reason
        self.reasons[reason] += 1
        if reason == "bad_signature":
            return self._bad_signature(address or UNKNOWN_ADDRESS)
        if reason == "incompatible" and self.reasons[reason] == 1:
            log.warning("%s refuses a peer: %s", self, rejected.detail)
        elif reason != "wrong_cluster":
            log.debug("%s dropped a frame: %s", self, rejected)
        return address

    def _bad_signature(self, address: str) -> str:
        """Count a frame that failed the signature under its address (past
        :data:`ADDRESSES_KEPT` addresses, a new one counts as :data:`OTHER_ADDRESSES`);
        warn once per address: a peer that keeps sending them likely has another secret."""
        counts = self.bad_signatures
        if address not in counts and len(counts) >= ADDRESSES_KEPT:
            address = OTHER_ADDRESSES
        counts[address] += 1
        if counts[address] == 1:
            log.warning(
                "%s: frames from %s fail the signature: does its secret differ?", self, address
            )
        return address

    def as_dict(self, stale: int) -> dict[str, int]:
        """Every reason's count, with ``stale`` election messages its member dropped."""
        rejected = dict(self.reasons)
        if stale:
            rejected["stale_epoch"] = stale
        return rejected
