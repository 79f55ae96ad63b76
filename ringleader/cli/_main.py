"""The ``ringleader`` command.

Each command imports what it needs when it runs (``run --json`` never loads rich, the
Prometheus client or the trace views), so that the command starts quickly.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ringleader.actors import ALGORITHMS
from ringleader.errors import ConfigError, SetupError, TransferRefused, TransportError, UsageError
from ringleader.topologies import (
    MAX_SETTING,
    TOPOLOGIES,
    TRANSPORT_NAMES,
    Config,
    Overrides,
    load_config,
)
from ringleader.transport import __version__

from ._explore import add_explore_command

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: The reader of our output went away (``| head``): 128 + SIGPIPE, as the shell says of
#: any writer stopped by a closed pipe.
EXIT_PIPE = 141
#: Output into a pipe is not wrapped; tables as wide as they need, up to this.
_PIPE_WIDTH = 200


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _initiators(text: str) -> list[int] | str:
    if text == "all":
        return text
    try:
        ids = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not 'all' or a comma-separated list of node ids, e.g. 3,5"
        ) from None
    if not ids:
        raise argparse.ArgumentTypeError("give at least one node id, e.g. 3,5")
    return ids


def _node_ids(text: str) -> list[int]:
    ids = _initiators(text)
    if not isinstance(ids, list):
        raise argparse.ArgumentTypeError("give node ids, e.g. 1,2,3")
    return ids


def _algorithm(text: str) -> str:
    """One of the notes' algorithms, ``auto``, or ``module:Class`` (checked with the
    config: a class of one's own is imported there)."""
    if text in ("auto", *ALGORITHMS) or ":" in text:
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r} is not auto, one of {', '.join(sorted(ALGORITHMS))}, or module:Class"
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _positive_float(text: str) -> float:
    """Seconds for a timer or a socket option: at most a day (ZeroMQ takes int milliseconds)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= MAX_SETTING:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds in (0, {MAX_SETTING:g}]"
        )
    return value


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "config",
        nargs="?",
        metavar="CONFIG",
        help="a TOML config file (default: the built-in 8-node unidirectional ring)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    group = parser.add_argument_group("overrides (replace the config's values)")
    group.add_argument("--topology", choices=sorted(TOPOLOGIES), help="the wiring")
    group.add_argument(
        "--algorithm",
        type=_algorithm,
        metavar="NAME",
        help=f"the election algorithm: auto (the topology's default), "
        f"{', '.join(sorted(ALGORITHMS))}, or module:Class for your own",
    )
    group.add_argument("--transport", choices=TRANSPORT_NAMES, help="how frames travel")
    group.add_argument(
        "--nodes", type=_positive_int, metavar="N", help="N nodes with ids 1..N in ring order"
    )
    group.add_argument(
        "--initiators",
        type=_initiators,
        metavar="IDS",
        help="'all' or comma-separated node ids, e.g. 3,5",
    )
    group.add_argument(
        "--timeout", type=_positive_float, metavar="S", help="give up after S seconds (exit 1)"
    )


def _add_trace_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--trace",
        metavar="FILE",
        help=f"write {what} to FILE as JSON lines: sends, receives, timers, state changes, "
        "suspicions, crashes, restarts, with Lamport and vector clocks",
    )
    parser.add_argument(
        "--trace-heartbeats",
        action="store_true",
        help="with --trace: the failure detector's pings, pongs and timers too",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ringleader",
        description="Leader election on the actor model: Pykka actors over ZeroMQ.",
        epilog="Exit status: 0 elected and safe (explore: nothing violated); 1 not "
        "finished in time, unsafe, or the cluster could not be set up (explore: a "
        "violation found); 2 bad usage or config; 3 explore --service: nothing broken in "
        "the states explored, not every state explored; 141 the reader of the output "
        "went away (| head).",
    )
    parser.add_argument("--version", action="version", version=f"ringleader {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="log more to stderr (-vv: debug)"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    run_parser = commands.add_parser(
        "run",
        help="run an election locally and report who won and how",
        description="Start every node of CONFIG in this process, elect a leader, and "
        "report the winner, each node's state and the messages sent against the "
        "course notes' formula.",
    )
    _add_config_arguments(run_parser)
    run_parser.add_argument(
        "--all-cpus",
        action="store_true",
        help="let the process use every CPU (default: one; all nodes share one GIL, and "
        "hand-offs between threads on different CPUs cost more than they save)",
    )
    _add_trace_arguments(run_parser, "every event of the run")
    run_parser.add_argument(
        "--simulate",
        action="store_true",
        help="run CONFIG (its crash schedule too) in the deterministic simulator, in "
        "virtual time: the same algorithm objects, no threads or sockets; 100,000 nodes "
        "are fine",
    )
    run_parser.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="with --simulate: the seed of the message delays (the same seed, the same run)",
    )
    check_parser = commands.add_parser(
        "check",
        help="validate a config and show what it would run",
        description="Validate CONFIG (and the overrides) without starting anything; "
        "show the wiring, the algorithm, the expected leader and message count.",
    )
    _add_config_arguments(check_parser)
    node_parser = commands.add_parser(
        "node",
        help="run one node of CONFIG in the foreground, until Ctrl-C or SIGTERM",
        description="Run node ID of CONFIG: bind its address, link to its peers, join "
        "(or start) the election, watch the leader and elect again when it goes away. "
        "Peers may start in any order. Every node needs a fixed address in CONFIG; a "
        "secret is required when any address is not on this machine.",
        epilog="With --json, one JSON object per line on stdout: listening, ready, "
        "leader (whenever this node's view of the leader changes), election, suspect, "
        "recovered, lease, lost, prevote, handover, rejected_frame, failed, stopped. The "
        "node keeps the highest epoch it saw and its incarnation in a state file (state_dir "
        "in CONFIG, default $XDG_STATE_HOME/ringleader); a missing, corrupt or unwritable "
        "one is an error (exit 2) unless --fresh-state.",
    )
    node_parser.add_argument("config", metavar="CONFIG", help="the cluster's TOML config")
    node_parser.add_argument(
        "--id", dest="node_id", type=int, required=True, metavar="N", help="which node to run"
    )
    node_parser.add_argument("--json", action="store_true", help="print JSON lines on stdout")
    node_parser.add_argument(
        "--supervised",
        action="store_true",
        help="for a supervisor: take commands on stdin (boot, start, status); exit when "
        "stdin closes or the supervisor dies",
    )
    node_parser.add_argument(
        "--fresh",
        action="store_true",
        help="with --supervised: a member of a cluster started all at once (election 1, "
        "initiated on the start command) rather than one joining a running cluster",
    )
    node_parser.add_argument(
        "--fresh-state",
        action="store_true",
        help="start this node's state over: forget the highest epoch it saw (a node "
        "whose state file is missing or corrupt refuses to start without it; see "
        "docs/service-guarantees.md)",
    )
    node_parser.add_argument(
        "--incarnation",
        type=int,
        metavar="N",
        help="with --supervised: this life's number, from the supervisor (the node then "
        "keeps no state file)",
    )
    node_parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help="serve Prometheus metrics over HTTP there (port 0: any free one, shown in the "
        "listening line)",
    )
    _add_trace_arguments(node_parser, "this node's events (its part of the run's trace)")
    status_parser = commands.add_parser(
        "status",
        help="ask every node of CONFIG who it thinks leads",
        description="Ask every node of CONFIG over the cluster's authenticated wire for its "
        "view (state, leader, epoch, incarnation, counters) and print a table.",
        epilog="Exit status: 0 every node answered and all agree on one live leader; 1 not.",
    )
    status_parser.add_argument("config", metavar="CONFIG", help="the cluster's TOML config")
    status_parser.add_argument("--json", action="store_true", help="print one JSON object")
    status_parser.add_argument(
        "--timeout", type=_positive_float, default=2.0, metavar="S", help="wait S s for answers"
    )
    transfer_parser = commands.add_parser(
        "transfer",
        help="have the leader of CONFIG hand the leadership over to node N",
        description="Find the leader of CONFIG's running cluster (as ringleader status "
        "does) and ask it, over the cluster's authenticated wire, to hand over to node N at "
        "once; wait until N leads.  The leader refuses if N is not a live member (it has "
        "not answered the leader's heartbeat within the lease).",
        epilog="Exit status: 0 node N leads; 1 refused (the reason on stderr), or N did not "
        "lead within the timeout.",
    )
    transfer_parser.add_argument("config", metavar="CONFIG", help="the cluster's TOML config")
    transfer_parser.add_argument(
        "--to", dest="to", type=int, required=True, metavar="N", help="the node to lead next"
    )
    transfer_parser.add_argument("--json", action="store_true", help="print one JSON object")
    transfer_parser.add_argument(
        "--timeout", type=_positive_float, default=5.0, metavar="S", help="give up after S s"
    )
    keys_parser = commands.add_parser(
        "keys",
        help="make a cluster secret (and CURVE key pairs) to copy to every machine",
        description="Write DIR/secret, a new random cluster secret (mode 0600); with --ids, "
        "also a CURVE key pair per node (DIR/node-ID.key, DIR/node-ID.key_secret) for "
        'security = "curve".  Existing files are never overwritten.',
    )
    keys_parser.add_argument("directory", metavar="DIR", help="where to write the files")
    keys_parser.add_argument(
        "--ids", type=_node_ids, metavar="IDS", help="node ids for CURVE key pairs, e.g. 1,2,3"
    )
    explore_parser = add_explore_command(commands, _add_config_arguments)
    views = _add_view_commands(commands)
    subs = (
        run_parser,
        check_parser,
        explore_parser,
        node_parser,
        status_parser,
        transfer_parser,
        keys_parser,
    )
    for sub in (*subs, *views):
        # SUPPRESS: a -v before the command is not reset by the subcommand's default.
        sub.add_argument(
            "-v",
            "--verbose",
            action="count",
            default=argparse.SUPPRESS,
            help="log more to stderr (-vv: debug)",
        )
    return parser


def _add_view_commands(commands: Any) -> list[argparse.ArgumentParser]:
    """``diagram`` and ``replay``: a trace (JSON lines) as a picture, a page, or a story."""
    diagram = commands.add_parser(
        "diagram",
        help="draw a trace: space-time diagram (svg/png/pdf), step-through page, ShiViz log",
        description="Draw TRACE (the JSON lines a traced run writes) into OUT; the format "
        "comes from OUT's suffix: .svg, .png or .pdf a space-time diagram (a line per "
        "node, an arrow per message); .html one self-contained page stepping through the "
        "run event by event (buttons, arrow keys, slider); .log a ShiViz log "
        "(https://bestchai.bitbucket.io/shiviz/).",
        epilog="Example: ringleader diagram run.jsonl -o run.svg",
    )
    diagram.add_argument("trace", metavar="TRACE", help="a trace file (JSON lines)")
    diagram.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the file to write: .svg .png .pdf .html .log",
    )
    diagram.add_argument(
        "--time",
        action="store_true",
        help="a picture: the events at their time in seconds (real, or virtual in the "
        "simulator) along the x axis, rather than one step each in the order they happened",
    )
    diagram.add_argument(
        "--size",
        type=_size,
        metavar="WxH",
        help="a picture: its width and height in pixels; fonts grow with the height "
        "(default 1920x1080, a projector's)",
    )
    replay = commands.add_parser(
        "replay",
        help="tell a traced run step by step, in the course notes' words",
        description="Tell the run in TRACE one step per line, as the notes tell it (who "
        "sends election to whom, who rejects, who proclaims itself). On a terminal it waits "
        "for Enter between steps (q then Enter to quit); into a pipe it prints everything.",
        epilog="Example: ringleader replay run.jsonl --no-step | less",
    )
    replay.add_argument("trace", metavar="TRACE", help="a trace file (JSON lines)")
    replay.add_argument(
        "--no-step", action="store_true", help="print every step at once, without waiting"
    )
    return [diagram, replay]


def _out() -> Console:
    """The console for human output on stdout (rich is imported only when one is made)."""
    from rich.console import Console  # noqa: PLC0415 -- human output only

    out = Console(highlight=False)
    if not out.is_terminal:  # a pipe or a file: lines as long as they are, never cut
        out = Console(highlight=False, width=_PIPE_WIDTH, soft_wrap=True)
    return out


def _err() -> Console:
    from rich.console import Console  # noqa: PLC0415 -- human output only

    return Console(stderr=True, highlight=False)


def _size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT in pixels, e.g. 1920x1080")
    size = int(width), int(height)
    if not (320 <= size[0] <= 10000 and 240 <= size[1] <= 10000):
        raise argparse.ArgumentTypeError(f"{text!r}: from 320x240 to 10000x10000 pixels")
    return size


def _diagram(args: argparse.Namespace) -> int:
    from ringleader.traces import write_view  # noqa: PLC0415

    write_view(args.trace, args.output, time_axis=args.time, size=args.size)
    _out().print(f"wrote {args.output}")
    return EXIT_OK


def _replay(args: argparse.Namespace) -> int:
    from ringleader.traces import replay  # noqa: PLC0415

    step = not args.no_step and sys.stdin.isatty() and sys.stdout.isatty()
    replay(args.trace, step=step)
    return EXIT_OK


def _load(args: argparse.Namespace) -> Config:
    overrides = Overrides(
        topology=args.topology,
        algorithm=args.algorithm,
        transport=args.transport,
        nodes=args.nodes,
        initiators=args.initiators,
        timeout=args.timeout,
    )
    return load_config(args.config, overrides)


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
    from ringleader.cluster import run  # noqa: PLC0415
    from ringleader.reports import setup_failed_report  # noqa: PLC0415

    if args.seed is not None and not args.simulate:
        raise UsageError(
            "--seed needs --simulate: a real run's timing is the machine's, not a seed's"
        )
    config = _load(args)
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
        err = _err()
        if err.is_terminal:
            from ._render import progress_bar  # noqa: PLC0415

            bar = progress_bar(err)
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
        _print_json(data)
    else:
        from ._render import print_report  # noqa: PLC0415

        out = _out()
        print_report(out, report)
        if config.network:
            told = "; ".join(str(entry) for entry in config.network)
            out.print(f"The network misbehaved on purpose ([[faults]]): {told}", markup=False)
    return EXIT_OK if report.ok else EXIT_FAILED


def _check(args: argparse.Namespace) -> int:
    from ._render import check_summary, print_check  # noqa: PLC0415

    summary = check_summary(_load(args))
    if args.json:
        _print_json(summary)
    else:
        print_check(_out(), summary)
    return EXIT_OK


def _explore(args: argparse.Namespace) -> int:
    from ._explore import explore_command  # noqa: PLC0415

    return explore_command(args, _load(args), _out(), _err())


def _node(args: argparse.Namespace) -> int:
    from ringleader.service import NodeOptions, OptionError, flag, run_node  # noqa: PLC0415

    if args.incarnation is not None and not args.supervised:
        raise UsageError("--incarnation needs --supervised (a node counts its own lives)")
    try:
        # The rules of the node's options, checked once (as for ringleader.Node).
        options = NodeOptions(
            metrics=args.metrics,
            fresh=args.fresh,
            fresh_state=args.fresh_state,
            incarnation=(1 if args.incarnation is None else args.incarnation)
            if args.supervised
            else None,
        )
    except OptionError as exc:
        raise UsageError(exc.spelled(flag)) from None
    config = load_config(args.config)
    run_node(
        config,
        args.node_id,
        out=sys.stdout,
        json_lines=args.json,
        commands=sys.stdin if args.supervised else None,
        options=options,
        trace=args.trace,
        trace_heartbeats=args.trace_heartbeats,
    )
    return EXIT_OK


def _status(args: argparse.Namespace) -> int:
    from ringleader.service import ask_status, status_summary  # noqa: PLC0415

    config = load_config(args.config)
    answers = ask_status(config, timeout=args.timeout)
    summary = status_summary(config, answers)
    if args.json:
        _print_json(summary)
    else:
        from ._render import print_status  # noqa: PLC0415

        print_status(_out(), summary)
    return EXIT_OK if summary["agreed"] else EXIT_FAILED


def _transfer(args: argparse.Namespace) -> int:
    from ringleader.service import transfer  # noqa: PLC0415

    config = load_config(args.config)
    try:
        done = transfer(config, args.to, timeout=args.timeout)
    except TransferRefused as refused:
        if args.json:
            _print_json({"transferred": False, "to": args.to, "refused": str(refused)})
        sys.stderr.write(f"ringleader transfer: refused: {refused}\n")
        return EXIT_FAILED
    if args.json:
        _print_json(
            {
                "transferred": True,
                "from": done.previous,
                "to": done.leader,
                "epoch": done.epoch,
                "took_s": round(done.took_s, 6),
            }
        )
    else:
        _out().print(
            f"Node {done.leader} leads (epoch {done.epoch}), handed over by node "
            f"{done.previous} in {done.took_s * 1000:.0f} ms"
        )
    return EXIT_OK


def _keys(args: argparse.Namespace) -> int:
    from ringleader.topologies import make_keys  # noqa: PLC0415

    out = _out()
    try:
        made = make_keys(Path(args.directory), args.ids or [])
    except OSError as exc:
        raise UsageError(str(exc)) from None
    for path, written in made:
        out.print(f"wrote {path}" if written else f"kept {path} (it exists)")
    out.print(
        f"Copy {Path(args.directory) / 'secret'} to every machine and point secret_file at it"
        + (
            "; give each machine its node's .key_secret, every .key, and operator.key_secret "
            "only where ringleader status runs."
            if args.ids
            else "."
        )
    )
    return EXIT_OK


def _print_json(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    prog = f"ringleader {args.command}"
    commands = {
        "run": _run,
        "check": _check,
        "explore": _explore,
        "node": _node,
        "keys": _keys,
        "status": _status,
        "transfer": _transfer,
        "diagram": _diagram,
        "replay": _replay,
    }
    try:
        return commands[args.command](args)
    except (ConfigError, UsageError) as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return EXIT_USAGE
    except TransportError as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return EXIT_FAILED
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``| head -1``): stop quietly, as a pipe writer does, and
        # leave nothing for the interpreter to fail to flush on its way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_PIPE
    finally:
        if argv is None:  # this process's own command: it ends now
            # Whatever it made (a thousand nodes' objects) is garbage only to the
            # interpreter's last collection, which would walk all of it on the way out.
            gc.freeze()


if __name__ == "__main__":
    sys.exit(main())
