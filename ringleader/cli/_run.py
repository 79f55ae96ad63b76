"""``ringleader run``: every node of a config in this process (threads), in node
processes, or in the simulator; the report against the notes."""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
import threading
import time
from contextlib import nullcontext
from typing import Any

from ringleader.errors import SetupError, UsageError

from ._arguments import add_config_arguments, add_force_argument, add_trace_arguments, load
from ._exits import EXIT_FAILED, EXIT_OK
from ._output import err, out, print_json

__all__ = ["add_run_command", "one_cpu"]


def add_run_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "run",
        help="run an election locally and report who won and how",
        description="Start every node of CONFIG in this process, elect a leader, and "
        "report the winner, each node's state and the messages sent against the "
        "course notes' formula.",
    )
    add_config_arguments(parser)
    parser.add_argument(
        "--all-cpus",
        action="store_true",
        help="let the process use every CPU (default: one; all nodes share one GIL, and "
        "hand-offs between threads on different CPUs cost more than they save)",
    )
    add_trace_arguments(parser, "every event of the run")
    add_force_argument(parser, "start")
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="run CONFIG (its crash schedule too) in the deterministic simulator, in "
        "virtual time: the same algorithm objects, no threads or sockets; 100,000 nodes "
        "are fine",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="with --simulate: the seed of the message delays (the same seed, the same run)",
    )
    parser.set_defaults(handler=_run)
    return parser


def one_cpu() -> None:
    """Pin this process to one of the CPUs it may use (Linux; elsewhere, do nothing).

    Every node of a local run is a thread of this process, and only one holds the GIL at
    a time: spread over several CPUs, each hop pays for waking a thread on another core.
    ``benchmarks/hop.py`` measured the same elections 1.5 to 4 times faster on one CPU.
    """
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM ends a run as Ctrl-C does: every node stopped


def _run(args: argparse.Namespace) -> int:
    from ringleader.cluster import run, size_up  # noqa: PLC0415
    from ringleader.reports import setup_failed_report  # noqa: PLC0415

    if args.seed is not None and not args.simulate:
        raise UsageError(
            "--seed needs --simulate: a real run's timing is the machine's, not a seed's"
        )
    config = load(args)
    size_up(config, simulate=args.simulate, force=args.force)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    # Processes mode: the nodes are other processes, which would inherit the pinning.
    if not args.all_cpus and not args.simulate and config.mode != "processes":
        one_cpu()
    if args.simulate:
        # One run and the process ends: the millions of objects of a large one hold no
        # cycle worth the cyclic collector's walks through them while the report is made.
        gc.disable()
    bar = None
    if not args.json and not args.verbose and not args.simulate:
        console = err()
        if console.is_terminal:
            from ._render import progress_bar  # noqa: PLC0415

            bar = progress_bar(console)
    began = time.monotonic()
    try:
        with bar if bar is not None else nullcontext(None) as progress:
            report = run(
                config,
                progress=progress,
                trace=args.trace,
                trace_heartbeats=args.trace_heartbeats,
                simulate=args.simulate,
                seed=args.seed or 0,
            )
    except SetupError as exc:  # nothing ran, but the report says what failed
        sys.stderr.write(f"ringleader run: error: {exc}\n")
        report = setup_failed_report(
            config,
            config.algorithm_class,
            node=exc.node,
            reason=exc.reason,
            setup_s=time.monotonic() - began,
        )
    if args.json:
        data = report.as_dict()
        if config.network:
            data["network"] = [str(entry) for entry in config.network]
        print_json(data)
    else:
        from ._render import print_report  # noqa: PLC0415

        console = out()
        print_report(console, report)
        if config.network:
            told = "; ".join(str(entry) for entry in config.network)
            console.print(f"The network misbehaved on purpose ([[faults]]): {told}", markup=False)
    return EXIT_OK if report.ok else EXIT_FAILED
