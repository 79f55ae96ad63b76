"""The repository's folders, for the tests wherever they sit under ``tests/``."""

from __future__ import annotations

from pathlib import Path

#: The repository's top: ``examples/``, ``docs/``, ``README.md`` are under it.
ROOT = Path(__file__).resolve().parent.parent
