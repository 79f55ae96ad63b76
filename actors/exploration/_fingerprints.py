"""The states seen, as 64-bit fingerprints: 8 bytes a slot instead of a whole state.

A search needs to know only whether it has met a state before; TLC keeps for that a
64-bit *fingerprint* of each state and nothing else.  So does :class:`Seen`: an
open-addressing table of fingerprints in one ``array('Q')`` (linear probing, grown
twofold past three quarters full), about 11 to 21 bytes a state where a set of tuples
costs hundreds.

:func:`fingerprint` is the hash of the state's tuple of small integers.  Python hashes
integers and tuples of them without a salt (``PYTHONHASHSEED`` salts only strings,
bytes and dates), so a state has the same fingerprint in every process of one Python
build: workers in other processes can share the work by it.  It is computed in C,
eight times faster here than ``hashlib.blake2b`` over the packed state, and the search
hashes each state once either way.

Two states with one fingerprint are taken for one: the second is never explored.  If
fingerprints behave as random 64-bit numbers, the odds that any two of ``n`` states
share one are at most ``n(n − 1)/2⁶⁵`` (:func:`collision_odds`, the estimate TLC prints):
about 5 × 10⁻¹⁰ for 142,081 states, 3 × 10⁻⁸ for a million, 3 × 10⁻⁴ for a hundred
million.  A search that
must not take that chance keeps whole states (``exact``).
"""

from __future__ import annotations

import sys
from array import array

__all__ = ["Places", "Seen", "collision_odds", "fingerprint"]

_MASK = (1 << 64) - 1
#: The empty slot; a fingerprint of 0 is stored as 1 (one more pair of states that may
#: collide, out of 2⁶⁴).
_EMPTY = 0

if sys.hash_info.width != 64:  # pragma: no cover - every platform ringleader supports
    raise ImportError("64-bit fingerprints need a 64-bit Python")


def fingerprint(state: tuple[int, ...]) -> int:
    """The 64-bit fingerprint of ``state`` (a tuple of small integers): the same in every
    process of one Python build."""
    return hash(state) & _MASK or 1


def collision_odds(states: int) -> float:
    """The odds that two of ``states`` states share a fingerprint, if fingerprints behave
    as random 64-bit numbers: ``n(n − 1)/2⁶⁵``, as TLC estimates them."""
    return states * (states - 1) / 2.0**65


class Seen:
    """A set of fingerprints: :meth:`add` says whether one is new."""

    def __init__(self, capacity: int = 1 << 10) -> None:
        size = 1 << max(4, (max(1, capacity) * 4 // 3).bit_length())
        self._table = array("Q", bytes(8 * size))
        self._mask = size - 1
        self._count = 0
        self._limit = size * 3 // 4

    def __len__(self) -> int:
        return self._count

    def __contains__(self, fp: int) -> bool:
        table, mask = self._table, self._mask
        fp = fp or 1
        slot = fp & mask
        while True:
            there = table[slot]
            if there == fp:
                return True
            if there == _EMPTY:
                return False
            slot = (slot + 1) & mask

    def add(self, fp: int) -> bool:
        """Add fingerprint ``fp``: ``True`` if it was not there."""
        table, mask = self._table, self._mask
        fp = fp or 1
        slot = fp & mask
        while True:
            there = table[slot]
            if there == fp:
                return False
            if there == _EMPTY:
                break
            slot = (slot + 1) & mask
        table[slot] = fp
        self._count += 1
        if self._count > self._limit:
            self._grow()
        return True

    def update(self, fps: array[int]) -> list[int]:
        """Add every fingerprint of ``fps`` (never 0): the places in ``fps`` of those that
        were there already (as :meth:`add` one by one, in one loop)."""
        while (self._count + len(fps)) > self._limit:
            self._grow()
        table, mask = self._table, self._mask
        there_already: list[int] = []
        for at, fp in enumerate(fps):
            slot = fp & mask
            while True:
                there = table[slot]
                if there == fp:
                    there_already.append(at)
                    break
                if there == _EMPTY:
                    table[slot] = fp
                    break
                slot = (slot + 1) & mask
        self._count += len(fps) - len(there_already)
        return there_already

    def _grow(self) -> None:
        old = self._table
        size = len(old) * 2
        self._table = table = array("Q", bytes(8 * size))
        self._mask = mask = size - 1
        self._limit = size * 3 // 4
        for fp in old:
            if fp:
                slot = fp & mask
                while table[slot]:
                    slot = (slot + 1) & mask
                table[slot] = fp

    @property
    def nbytes(self) -> int:
        """The bytes the table holds."""
        return len(self._table) * 8


class Places:
    """Fingerprints, each with a place (a number from 0 up, less than 2³¹): the states
    of one level of a search, about 24 bytes each where a dict takes a hundred."""

    def __init__(self, capacity: int = 1 << 10) -> None:
        size = 1 << max(4, (max(1, capacity) * 4 // 3).bit_length())
        self._keys = array("Q", bytes(8 * size))
        self._places = array("i", bytes(4 * size))
        self._mask = size - 1
        self._count = 0
        self._limit = size * 3 // 4

    def __len__(self) -> int:
        return self._count

    def get(self, fp: int) -> int:
        """The place of ``fp`` (a fingerprint, never 0), or -1 if it is not here."""
        keys, mask = self._keys, self._mask
        slot = fp & mask
        while True:
            there = keys[slot]
            if there == fp:
                return self._places[slot]
            if there == _EMPTY:
                return -1
            slot = (slot + 1) & mask

    def put(self, fp: int, place: int) -> None:
        """Give ``fp`` (never 0, not here yet) ``place``."""
        keys, mask = self._keys, self._mask
        slot = fp & mask
        while keys[slot]:
            slot = (slot + 1) & mask
        keys[slot] = fp
        self._places[slot] = place
        self._count += 1
        if self._count > self._limit:
            old_keys, old_places = self._keys, self._places
            size = len(old_keys) * 2
            self._keys = keys = array("Q", bytes(8 * size))
            self._places = places = array("i", bytes(4 * size))
            self._mask = mask = size - 1
            self._limit = size * 3 // 4
            for key, value in zip(old_keys, old_places, strict=True):
                if key:
                    slot = key & mask
                    while keys[slot]:
                        slot = (slot + 1) & mask
                    keys[slot] = key
                    places[slot] = value

    @property
    def nbytes(self) -> int:
        return len(self._keys) * 12
