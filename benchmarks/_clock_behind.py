"""Run ``python -m MODULE ARGS`` with the wall clock ``SECONDS`` behind (the monotonic
clock, which the lease reads, as it is): the clock the code reads, shifted in Python.

    python benchmarks/_clock_behind.py 3600 python -m ringleader node c.toml --id 1

``faketime`` does the same for the whole process where it works (its ``clock_nanosleep``
fails on some systems, which a ``time.sleep`` then raises); this works everywhere.
"""

from __future__ import annotations

import runpy
import sys
import time


def main() -> None:
    behind = float(sys.argv[1])
    rest = sys.argv[2:]
    module = rest[rest.index("-m") + 1]
    args = rest[rest.index("-m") + 2 :]
    wall, wall_ns = time.time, time.time_ns
    shift_ns = int(behind * 1e9)
    time.time = lambda: wall() - behind
    time.time_ns = lambda: wall_ns() - shift_ns
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
