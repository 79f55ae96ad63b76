"""Process signals are the main thread's: the threads that host nodes never take them.

Python runs a signal's handler on the main thread only, between two bytecodes.  The
kernel gives a signal sent to the process to any thread that does not block it — after a
SIGCONT, often not the main one — and then the handler waits until the main thread next
runs bytecode, which may be the end of a long wait (a run's ``run_for``).  A thread that
blocks SIGINT and SIGTERM leaves them to the main thread, whose wait they interrupt at
once.  (ZeroMQ's own threads block every signal already.)
"""

from __future__ import annotations

import signal
import threading

__all__ = ["PROCESS_SIGNALS", "leave_signals_to_main"]

#: The signals that end a ``ringleader`` command.
PROCESS_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


def leave_signals_to_main() -> None:
    """Block :data:`PROCESS_SIGNALS` in the calling thread, unless it is the main one."""
    if threading.current_thread() is threading.main_thread():
        return
    if hasattr(signal, "pthread_sigmask"):  # POSIX
        signal.pthread_sigmask(signal.SIG_BLOCK, PROCESS_SIGNALS)
