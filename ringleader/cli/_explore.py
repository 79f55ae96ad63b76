"""``ringleader explore``: every ordering of a config's run, checked; its output."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ringleader.actors import ALGORITHMS
from ringleader.errors import UsageError
from ringleader.topologies import TOPOLOGIES, Config

from ._arguments import (
    add_config_arguments,
    add_force_argument,
    add_happening_arguments,
    count,
    happenings,
    load,
    positive_int,
)
from ._explore_service import INCOMPLETE, add_service_arguments, explore_service_command
from ._output import err, out
from ._spinner import spinner

if TYPE_CHECKING:  # imported when the command runs: building the parser needs none
    from rich.console import Console

    from ringleader.actors.exploration import Exploration, Options

__all__ = ["add_explore_command", "exploration_summary", "explore_command"]


def add_explore_command(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        "explore",
        help="explore every ordering of a run: every state, checked (a model checker)",
        description="Run CONFIG's election through every reachable state — every moment "
        "each initiator wakes up, every order of delivery (FIFO per link unless "
        "--unordered), every moment a timer may fire, and the faults asked for — with the "
        "very same election objects as run and --simulate. Check that no epoch has two "
        "leaders, that every run ends with all live nodes agreeing, and the notes' "
        "message count; write the runs with the fewest and most messages and the "
        "shortest run to each violation as traces (replay and diagram read them). "
        "With --service, explore it as `ringleader node` runs it instead, and check the "
        "service's guarantees.",
        epilog="Exit status: 0 nothing violated, every state explored and every check "
        "applied; 1 a violation found (the notes' message count too); 2 bad usage or "
        f"config; {INCOMPLETE} nothing violated in the states explored, but not every state "
        "was (a limit stopped the search), or a check was not made (nothing to check; "
        "--service --lean: the progress check). Examples: "
        "ringleader explore examples/chang_roberts_table.toml --out cr && ringleader "
        "diagram cr/max.jsonl -o max.svg; ringleader explore "
        "examples/service/cluster.toml --service",
    )
    add_config_arguments(parser)
    add_happening_arguments(parser, "what may happen (besides every ordering)")
    limits = parser.add_argument_group("limits and output")
    limits.add_argument(
        "--max-states",
        type=positive_int,
        default=1_000_000,
        metavar="N",
        help="stop after N states (default 1,000,000)",
    )
    limits.add_argument(
        "--max-depth", type=count, metavar="D", help="explore runs of at most D steps"
    )
    limits.add_argument(
        "--exact",
        action="store_true",
        help="keep every state whole and the explored graph (the most memory: hundreds of "
        "bytes a state), instead of a 64-bit fingerprint of each (about 32 bytes a "
        "state; two states could share one, at the odds the report gives); with "
        "--service, which keeps them whole unless --lean: whole states in the lean search",
    )
    limits.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="share the search out to N worker processes (default 1: this process), "
        "each expanding a slice of every breadth-first level: the same states, checks "
        "and runs as one; not with --exact or --service",
    )
    limits.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="share the search out to actors of the Ray cluster at ADDRESS instead (its "
        "head's HOST:PORT, or auto: the cluster this machine is part of), each owning "
        "the states of its part, N with --workers (default: one per CPU of the "
        "cluster); needs pip install 'ringleader[ray]'; not with --exact or --service",
    )
    limits.add_argument(
        "--out",
        metavar="DIR",
        help="where to write the traces (default: CONFIG's name + '-explore', in the "
        "current directory)",
    )
    limits.add_argument(
        "--html",
        metavar="OUT.html",
        help="retired (writes nothing): step the run by hand in the browser with "
        "`ringleader lab CONFIG`, the same options",
    )
    add_service_arguments(parser)
    add_force_argument(parser, "explore")
    parser.set_defaults(handler=_explore)
    return parser


def _explore(args: argparse.Namespace) -> int:
    from ringleader.cluster import size_up  # noqa: PLC0415

    config = load(args)
    size_up(config, simulate=True, force=args.force)  # its first state holds all the wiring
    return explore_command(args, config, out(), err())


def _out_dir(args: argparse.Namespace) -> Path:
    if args.out:
        return Path(args.out)
    stem = Path(args.config).stem if args.config else "ringleader"
    return Path(f"{stem}-explore")


def _progress(console: Console) -> AbstractContextManager[Callable[..., None]]:
    def describe(seconds: float, counts: tuple[int, ...]) -> str:
        found, explored, depth = counts
        rate = found / max(1e-3, seconds)
        return (
            f"exploring: {found:,} states found, {explored:,} explored, depth {depth}, "
            f"{rate:,.0f} states/s"
        )

    return spinner(console, describe)


def _refuse_service_options(args: argparse.Namespace) -> None:
    """An option of ``--service``'s, given without it: one line, exit status 2."""
    for option in (
        "restarts",
        "wipes",
        "partitions",
        "cuts",
        "pauses",
        "faults",
        "drift",
        "tick",
        "walks",
        "capacity",
        "max_seconds",
        "lean",
    ):
        if getattr(args, option) is not None:
            flag = option.replace("_", "-")
            raise UsageError(f"--{flag} needs --service (it explores a service's runs)")
    if args.changes:  # (a count, 0 by default)
        raise UsageError("--changes needs --service (it explores a service's runs)")


def explore_command(args: argparse.Namespace, config: Config, out: Console, err: Console) -> int:
    workers = args.workers or 1
    if args.ray is not None and (args.service or args.exact):
        raise UsageError(
            "--ray shares out an election's search by fingerprints, alone or with "
            f"--workers; not with {'--service' if args.service else '--exact'}"
        )
    if args.service and workers > 1:
        raise UsageError("--workers shares out an election's search, not --service's")
    if args.exact and workers > 1:
        raise UsageError(
            "--workers shares out the search by fingerprints: leave out --exact "
            "(whole states are kept by one process only)"
        )
    if args.service:
        return explore_service_command(args, config, out, err, _out_dir(args))
    _refuse_service_options(args)
    from ringleader.actors.exploration import WorkerFailed  # noqa: PLC0415
    from ringleader.cluster import explore_config  # noqa: PLC0415
    from ringleader.traces import trace_header, write_runs  # noqa: PLC0415

    options = happenings(config, args)
    show = err.is_terminal and not args.verbose
    with _ray(args.ray) as cpus, _progress(err) if show else nullcontext(None) as progress:
        workers = args.workers or cpus
        try:
            exploration = explore_config(
                config,
                options,
                max_states=args.max_states,
                max_depth=args.max_depth,
                progress=progress,
                exact=args.exact,
                workers=workers,
                ray=args.ray,
            )
        except WorkerFailed as exc:  # one line, exit status 2
            raise UsageError(str(exc)) from None
        except MemoryError:  # as a search the size estimate refuses: one line, exit 2
            raise UsageError(
                "the search ran out of memory: lower --max-states or --max-depth"
            ) from None
    header = trace_header(config, mode="explored")
    files = write_runs(exploration, _out_dir(args), header=header)
    shared = workers > 1 or args.ray is not None
    gave_way = shared and exploration.exact  # the lean search gave way to whole states
    ray = None if gave_way else args.ray
    summary = exploration_summary(config, exploration, options, files, ray=ray)
    if gave_way:
        flag = "--workers" if args.ray is None else "--ray"
        err.print(
            f"ringleader explore: searched by this process alone: {flag} shares out the "
            "search by fingerprints, and this one needs whole states "
            f"({exploration.exact_why})",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    if args.json:
        import json  # noqa: PLC0415

        print(json.dumps(summary))  # noqa: T201
    else:
        print_exploration(out, summary)
    if args.html is not None:
        err.print(_retired(args), highlight=False, markup=False, soft_wrap=True)
    if not exploration.ok:
        return 1
    return 0 if exploration.checked else INCOMPLETE


def _ray(address: str | None) -> AbstractContextManager[int]:
    """The Ray cluster at ``address`` joined for the search, and its CPUs (``None``: no
    Ray, one worker unless --workers)."""
    if address is None:
        return nullcontext(1)
    from ringleader.cluster import ray_cluster  # noqa: PLC0415

    return ray_cluster(address)


def _retired(args: argparse.Namespace) -> str:
    """The one line ``--html`` prints: where the page to walk a run by hand went."""
    config = f" {args.config}" if args.config else ""
    return (
        "ringleader explore: --html is retired (nothing written): "
        f"step the run by hand with ringleader lab{config}"
    )


def _title(config: Config) -> str:
    algorithm = config.algorithm_class
    topology = TOPOLOGIES[config.topology].title
    return f"{algorithm.title} on a {topology} of {config.n} nodes"


def exploration_summary(
    config: Config,
    exploration: Exploration,
    options: Options,
    files: dict[str, Path],
    page: Path | None = None,
    *,
    ray: str | None = None,
) -> dict[str, Any]:
    """What ``explore --json`` prints (one object)."""
    from ringleader.actors.exploration import CHECK_WORDS  # noqa: PLC0415 (see _arguments.py)

    messages = exploration.messages
    faultless = exploration.faultless
    bound = exploration.bound
    paths = exploration.paths
    return {
        "ok": exploration.ok,
        "checked": exploration.checked,
        "source": config.source,
        "title": _title(config),
        "algorithm": config.algorithm_class.name,
        "custom": config.algorithm_class not in ALGORITHMS.values(),
        "topology": config.topology,
        "n": config.n,
        "initiators": list(config.initiators),
        "options": {**options.as_dict(), "timed": bool(config.algorithm_class.timers)},
        "states": exploration.states,
        "explored": exploration.explored,
        "end_states": exploration.end_states,
        "complete": exploration.complete,
        "stopped": exploration.stopped,
        "depth": exploration.depth,
        "elapsed_s": round(exploration.elapsed, 6),
        "states_per_s": round(exploration.rate),
        "memory_per_state": round(exploration.memory / max(1, exploration.states)),
        "states_kept": "exact" if exploration.exact else "fingerprints",
        "workers": exploration.workers,
        "ray": ray,
        "exact_why": exploration.exact_why,
        "collision_odds": exploration.collision_odds,
        "spilled_bytes": exploration.spilled,
        "cyclic": exploration.cyclic,
        "messages": None if messages is None else {"min": messages[0], "max": messages[1]},
        "faultless_messages": None
        if faultless is None
        else {"min": faultless[0], "max": faultless[1]},
        "bound": None if bound is None else {**bound.as_dict(), "held": exploration.bound_held},
        "checks": {
            kind: {**verdict.as_dict(), "check": CHECK_WORDS[kind]}
            for kind, verdict in exploration.checks.items()
        },
        "violations": [
            {
                **finding.as_dict(),
                "check": CHECK_WORDS[finding.kind],
                "trace": str(files[finding.kind]),
                "steps": len(paths[finding.kind].events),
                "messages": paths[finding.kind].messages,
            }
            for finding in exploration.findings
        ],
        "traces": {name: str(files[name]) for name in ("min", "max") if name in files},
        "html": None if page is None else str(page),
    }


def _plural(count: int, word: str, many: str) -> str:
    return f"up to {count} {word if count == 1 else many}"


def _what_may_happen(options: dict[str, Any]) -> str:
    parts = ["unordered links" if options["unordered"] else "FIFO links"]
    if options["starts"] == "any":
        parts.append("initiators wake at any moment")
    else:
        parts.append("initiators start before they handle anything")
    if not options["timed"]:
        pass  # the algorithm sets no timer
    elif options["timers"] == "quiet":
        parts.append("timers only when no message is in flight, in deadline order")
    else:
        parts.append("timers at any moment")
    if options["crashes"]:
        parts.append(_plural(options["crashes"], "crash", "crashes"))
        if options["restarts"]:
            parts.append("each crashed node may restart once")
    if options["losses"]:
        parts.append(_plural(options["losses"], "message lost", "messages lost"))
    if options["duplicates"]:
        parts.append(_plural(options["duplicates"], "duplicate", "duplicates"))
    if options["partitions"]:
        parts.append(_plural(len(options["partitions"]), "partition", "partitions"))
    if options["pauses"]:
        parts.append("pauses of " + ", ".join(f"P{n}" for n in options["pauses"]))
    return ", ".join(parts)


def _claim(bound: dict[str, Any], messages: dict[str, Any] | None, starts: str) -> str:
    """What the notes (or the algorithm's ``bound()``) say of the count, in words."""
    count = f"{bound['formula']} = {bound['value']}"
    if not bound["exact"]:
        return f"at most {count}"
    every = messages is not None and messages["min"] == messages["max"]
    if starts == "any" and not every:
        return f"{count} when every initiator starts at once, the most any run sends"
    return f"exactly {count}"


def _extent(summary: dict[str, Any]) -> str:
    """Where a search stopped, and at what, if a limit stopped it."""
    if summary["stopped"] == "max_states":
        return f"stopped by --max-states at {summary['states']:,} states"
    return "stopped by --max-depth"


def _kept(summary: dict[str, Any]) -> str:
    """How the states were kept: fingerprints (with the odds two shared one) or whole."""
    if summary["states_kept"] == "fingerprints":
        kept = f"fingerprints (collision odds {summary['collision_odds']:.1g})"
        workers, ray = summary.get("workers", 1), summary.get("ray")
        if ray is not None:
            return f"{kept}, shared by {workers} Ray workers ({ray})"
        return kept if workers == 1 else f"{kept}, shared by {workers} worker processes"
    why = summary["exact_why"]
    return "whole states" if why is None else f"whole states ({why})"


def _scope(words: str, complete: bool) -> str:
    """A check's words, narrowed to what a stopped search saw."""
    if complete:
        return words
    return words.replace("in every state", "in every state explored").replace(
        "(every end state)", "(every end state reached)"
    )


def print_exploration(console: Console, summary: dict[str, Any]) -> None:  # noqa: PLR0912
    """The human report of an exploration: a check not applied is never a ✓."""
    from ringleader.actors.exploration import CHECK_WORDS  # noqa: PLC0415 (see _arguments.py)

    complete = summary["complete"]
    stopped = "" if complete else f": [yellow]incomplete, {_extent(summary)}[/]"
    console.print(f"[bold]Explored {summary['title']}[/] ({summary['source']}){stopped}")
    console.print(f"  what may happen: {_what_may_happen(summary['options'])}")
    extent = "every reachable state" if complete else "[yellow]not every state[/]"
    ends = summary["end_states"]
    console.print(
        f"  states: {summary['states']:,} ({extent}), {ends:,} end state{'s' * (ends != 1)}, "
        f"depth {summary['depth']}; {summary['elapsed_s']:.2f} s, "
        f"{summary['states_per_s']:,} states/s, {summary['memory_per_state']} bytes/state, "
        f"{_kept(summary)}"
    )
    messages = summary["messages"]
    if messages is not None:
        most = (
            "unbounded (a run can go on for ever)" if messages["max"] is None else messages["max"]
        )
        runs = "complete runs" if complete else "complete runs found"
        console.print(f"  messages: {messages['min']} to {most} over the {runs}")
    checks = summary["checks"]
    bound = summary["bound"]
    if bound is not None:
        status = checks["bound"]["status"]
        if status == "passed":
            verdict = "[green]held[/]" if complete else "[green]held[/] in the complete runs found"
        elif status == "failed":
            verdict = "[red]broken[/]"
        else:
            verdict = f"[yellow]not checked[/] ({checks['bound']['reason']})"
        whose = "its bound()" if summary["custom"] else "the notes"
        claim = _claim(bound, messages, summary["options"]["starts"])
        console.print(f"  {whose}: {claim}: {verdict}")
    kinds = {v["kind"]: v for v in summary["violations"]}
    for kind, words in CHECK_WORDS.items():
        if kind == "bound":
            continue
        found = kinds.get(kind)
        status = checks[kind]["status"]
        if found is not None:
            console.print(
                f"  [red]✗ {words}[/]: {found['detail']} ({found['count']:,} "
                f"{'states' if found['count'] != 1 else 'state'}); shortest run, "
                f"{found['steps']} steps: {found['trace']}"
            )
        elif status == "passed":
            console.print(f"  [green]✓[/] {_scope(words, complete)}")
        else:
            console.print(f"  [yellow]?[/] {words}: not checked ({checks[kind]['reason']})")
    if "bound" in kinds:
        found = kinds["bound"]
        console.print(f"  [red]✗ {CHECK_WORDS['bound']}[/]: {found['detail']}: {found['trace']}")
    traces = summary["traces"]
    if traces:
        shown = ", ".join(f"{name} {file}" for name, file in traces.items())
        console.print(f"Runs written: {shown}")
        first = traces.get("max") or next(iter(traces.values()))
        console.print(
            f"  e.g. ringleader replay {first} --no-step; "
            f"ringleader diagram {first} -o {Path(first).with_suffix('.svg')}"
        )
    if summary["html"]:
        console.print(f"Explore it by hand: {summary['html']}")
