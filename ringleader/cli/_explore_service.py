"""``ringleader explore --service``: a config's cluster as ``ringleader node`` runs it,
every ordering of it, checked against the service's guarantees; its output."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ringleader.errors import UsageError
from ringleader.topologies import Config

from ._arguments import count
from ._spinner import spinner

if TYPE_CHECKING:
    from rich.console import Console

    from ringleader.actors.exploration.service import (
        ServiceExploration,
        ServiceModel,
        ServiceOptions,
        WalkResult,
    )

__all__ = ["INCOMPLETE", "add_service_arguments", "explore_service_command"]

#: ``explore --service``'s exit status when nothing was violated in the states explored
#: but not every state was (a limit stopped the search, or it walked at random).
INCOMPLETE = 3
#: The faults and the option that counts each (``ServiceOptions``' names).
FAULT_OPTIONS = {
    "crashes": "--crashes",
    "restarts": "--restarts",
    "wipes": "--wipes",
    "partitions": "--partitions",
    "cuts": "--cuts",
    "losses": "--loss",
    "duplicates": "--duplicates",
    "pauses": "--pauses",
}
#: Without any fault asked for: a crash, and a message lost.
DEFAULT_FAULTS = {"crashes": 1, "losses": 1}


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number from 0 up to (not) 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value


def _delay(text: str) -> int | None:
    if text == "any":
        return None
    return count(text)


def add_service_arguments(parser: argparse.ArgumentParser) -> None:
    """``explore``'s options for ``--service``."""
    service = parser.add_argument_group(
        "as a service runs it (--service)",
        "the failure detector, the steady rules, the lease on each node's clock, the state "
        "file and restarts, as ringleader node runs them; --crashes, --loss and "
        "--duplicates count these faults too",
    )
    service.add_argument(
        "--service",
        action="store_true",
        help="explore CONFIG as `ringleader node` runs it and check the service's "
        "guarantees: the fencing token never goes back, no two leases at one instant, one "
        "leader per epoch, one acknowledged leader per round, and a leader after the faults",
    )
    for name, help_text in (
        ("--restarts", "up to K crashed nodes restart with their state file (no --crashes: K)"),
        (
            "--wipes",
            "up to K crashed nodes restart with their state lost (a minority; no --crashes: K)",
        ),
        ("--partitions", "the network splits into two sides up to K times (and heals)"),
        ("--cuts", "one link goes down up to K times (and comes back)"),
        ("--pauses", "up to K times a node stands still (its clock runs on), then resumes"),
    ):
        service.add_argument(name, type=count, metavar="K", help=help_text)
    service.add_argument(
        "--faults", type=count, metavar="K", help="K of every fault (the others override it)"
    )
    service.add_argument(
        "--changes",
        type=count,
        default=0,
        metavar="K",
        help="up to K membership changes, one at a time, asked of the leader at any "
        "moment: remove a member (the leader itself: it hands over first), or add a "
        "removed one back as a learner (default 0)",
    )
    service.add_argument(
        "--drift",
        type=_fraction,
        metavar="R",
        help="clocks may run fast or slow by up to R of true time (default: the margin "
        "the config's lease leaves below suspect_after minus a heartbeat)",
    )
    service.add_argument(
        "--tick",
        type=_seconds,
        metavar="S",
        help="true time goes on in ticks of S seconds (default: the largest that divides "
        "every timing the config sets)",
    )
    service.add_argument(
        "--delay",
        type=_delay,
        default=0,
        metavar="TICKS",
        help="the most ticks a frame may take: 0 (default: within the tick it is sent "
        "in), a number, or any",
    )
    service.add_argument(
        "--capacity",
        type=count,
        metavar="N",
        help="a link holds at most N frames in flight; one sent onto a full link is lost "
        "(default: no limit; 2 with --delay any)",
    )
    service.add_argument(
        "--from",
        dest="start",
        choices=("settled", "boot"),
        default="settled",
        help="start from the cluster settled on its first leader (default) or from every "
        "node's start",
    )
    service.add_argument(
        "--walks",
        type=count,
        metavar="N",
        help="instead of searching every state, walk N seeded random runs (for what is "
        "too big to search)",
    )
    service.add_argument(
        "--walk-steps", type=count, default=500, metavar="L", help="steps per walk (500)"
    )
    service.add_argument("--seed", type=int, default=0, help="the walks' seed (0)")
    service.add_argument(
        "--lean",
        action="store_true",
        default=None,
        help="keep a 64-bit fingerprint of each state (about 20 bytes a state; two states "
        "could share one, at the odds the report gives; --exact: whole states), the "
        "frontier on disk past a bound and no graph: every safety check, the progress "
        "check not made",
    )
    service.add_argument(
        "--max-seconds",
        type=_seconds,
        metavar="S",
        help="stop searching after S seconds (the states explored by then are checked)",
    )


def _options(args: argparse.Namespace) -> ServiceOptions:
    from ringleader.actors.exploration.service import ServiceOptions  # noqa: PLC0415

    counts = {
        name: getattr(args, option.lstrip("-").replace("-", "_"), None)
        for name, option in FAULT_OPTIONS.items()
    }
    if args.faults is not None:
        counts = {k: args.faults if v is None else v for k, v in counts.items()}
    elif all(v is None for v in counts.values()):
        counts = {k: DEFAULT_FAULTS.get(k, 0) for k in counts}
    capacity = args.capacity
    if capacity is None and args.delay is None:
        capacity = 2
    count = {k: v or 0 for k, v in counts.items()}
    if not count["crashes"]:  # a restart, its state kept or lost, needs a crash first
        count["crashes"] = count["restarts"] + count["wipes"]
    try:
        return ServiceOptions(
            crashes=count["crashes"],
            restarts=count["restarts"],
            wipes=count["wipes"],
            partitions=count["partitions"],
            cuts=count["cuts"],
            losses=count["losses"],
            duplicates=count["duplicates"],
            pauses=count["pauses"],
            delay=args.delay,
            capacity=capacity,
            changes=args.changes,
        )
    except ValueError as exc:
        raise UsageError(f"--service: {exc}") from None


def _refuse_notes_options(args: argparse.Namespace) -> None:
    for option, value in (
        ("--unordered", args.unordered),
        ("--starts", args.starts != "any"),
        ("--timers", args.timers),
        ("--html", args.html),
    ):
        if value:
            raise UsageError(f"{option} is for the notes' runs: leave it out with --service")


def _progress(console: Console, walks: int | None) -> AbstractContextManager[Callable[..., None]]:
    def describe(seconds: float, counts: tuple[int, ...]) -> str:
        if walks is not None:
            return f"walking: {counts[0]:,} of {walks:,} walks, {counts[1]:,} steps"
        found, explored, depth = counts
        rate = found / max(1e-3, seconds)
        return (
            f"exploring: {found:,} states found, {explored:,} explored, depth {depth}, "
            f"{rate:,.0f} states/s"
        )

    return spinner(console, describe)


def explore_service_command(
    args: argparse.Namespace, config: Config, out: Console, err: Console, directory: Path
) -> int:
    """Run ``explore --service``; its exit status."""
    from ringleader.cluster import explore_service_config, service_timing  # noqa: PLC0415
    from ringleader.traces import trace_header, write_service_runs  # noqa: PLC0415

    _refuse_notes_options(args)
    if args.walks is not None and (args.lean or args.exact):
        flag = "--lean" if args.lean else "--exact"
        raise UsageError(f"{flag} is for a search of every state: leave it out with --walks")
    options = _options(args)
    try:
        timing = service_timing(config, drift=args.drift, tick=args.tick)
    except ValueError as exc:
        raise UsageError(f"--tick: {exc}") from None
    show = err.is_terminal and not args.verbose
    from ringleader.actors.exploration.service import Unsettled  # noqa: PLC0415

    with _progress(err, args.walks) if show else nullcontext(None) as progress:
        try:
            result = explore_service_config(
                config,
                options,
                timing=timing,
                settled=args.start == "settled",
                walks=args.walks,
                walk_steps=args.walk_steps,
                seed=args.seed,
                max_states=args.max_states,
                max_depth=args.max_depth,
                max_seconds=args.max_seconds,
                progress=progress,
                lean=bool(args.lean),
                exact=args.exact,
            )
        except Unsettled as exc:
            raise UsageError(
                f"{config.source}: {exc} (--from boot explores from every node's start, "
                "and shows the run)"
            ) from None
    files = write_service_runs(result, directory, header=trace_header(config, mode="explored"))
    summary = service_summary(config, result, files)
    if args.json:
        import json  # noqa: PLC0415

        print(json.dumps(summary))  # noqa: T201
    else:
        print_service_exploration(out, summary)
    if not result.ok:
        return 1
    checked = "not checked" not in summary["checks"].values()
    return 0 if summary["complete"] and checked else INCOMPLETE


def _faults(options: ServiceOptions) -> dict[str, int]:
    from ringleader.actors.exploration.service import FAULTS  # noqa: PLC0415

    return {name: getattr(options, name) for name in FAULTS}


def service_summary(
    config: Config, result: ServiceExploration | WalkResult, files: dict[str, Path]
) -> dict[str, Any]:
    """What ``explore --service --json`` prints (one object)."""
    from ringleader.actors.exploration.service import (  # noqa: PLC0415
        CHECKS,
        GUARANTEES,
        ServiceExploration,
        WalkResult,
    )

    model: ServiceModel = result.model
    timing, options = model.timing, model.options
    complete = isinstance(result, ServiceExploration) and result.complete
    found = {f.kind: f for f in result.findings}
    checks = {}
    for kind in CHECKS:
        if kind in found:
            verdict = "broken"
        elif (
            kind == "no_progress"
            and isinstance(result, ServiceExploration)
            and not result.progress_checked
        ):
            verdict = "not checked"
        elif complete:
            verdict = "held"
        else:
            verdict = "held so far"
        checks[kind] = verdict
    summary: dict[str, Any] = {
        "ok": result.ok,
        "mode": "service",
        "source": config.source,
        "title": _title(config),
        "algorithm": config.algorithm_class.name,
        "topology": config.topology,
        "n": config.n,
        "quorum": bool(model.settings.quorum),
        "timing": {
            "tick_s": timing.tick,
            "drift": round(timing.drift, 6),
            "lease_s": round(timing.lease, 9),
            "lease_ticks_held": timing.shadow,
        },
        "network": {"delay_ticks": options.delay, "capacity": options.capacity},
        "faults": _faults(options),
        "changes": options.changes,
        "search": "walks" if isinstance(result, WalkResult) else "every state",
        "complete": complete,
        "checks": checks,
        "violations": [
            {
                **finding.as_dict(),
                "check": CHECKS[finding.kind],
                "guarantee": GUARANTEES[finding.kind],
                "steps": len(result.paths[finding.kind]),
                "trace": str(files[finding.kind]),
            }
            for finding in result.findings
        ],
    }
    if isinstance(result, ServiceExploration):
        summary.update(
            states=result.states,
            explored=result.explored,
            stopped=result.stopped,
            depth=result.depth,
            elapsed_s=round(result.elapsed, 6),
            states_per_s=round(result.rate),
            memory_per_state=round(result.bytes_per_state),
            lean=result.lean,
            states_kept="exact" if result.exact else "fingerprints",
            collision_odds=result.collision_odds,
            spilled_bytes=result.spilled,
        )
    else:
        summary.update(
            walks=result.walks,
            steps=result.steps,
            states=result.states,
            seed=result.seed,
            elapsed_s=round(result.elapsed, 6),
        )
    return summary


def _title(config: Config) -> str:
    from ringleader.topologies import TOPOLOGIES  # noqa: PLC0415

    algorithm = config.algorithm_class
    topology = TOPOLOGIES[config.topology].title
    return f"{algorithm.title} on a {topology} of {config.n} nodes"


def _incomplete(summary: dict[str, Any]) -> str:
    """What the first line says of a search that did not explore every state."""
    if summary["search"] == "walks":
        return ": [yellow]incomplete, random walks[/]"
    if summary["complete"]:
        return ""
    limit = summary["stopped"].replace("_", "-")
    return f": [yellow]incomplete, stopped by --{limit} at {summary['states']:,} states[/]"


def _lean(summary: dict[str, Any]) -> str:
    """What the states line says of a lean search: how states were kept, what spilled."""
    if not summary["lean"]:
        return ""
    if summary["states_kept"] == "fingerprints":
        kept = f"fingerprints (collision odds {summary['collision_odds']:.1g})"
    else:
        kept = "whole states"
    spilled = summary["spilled_bytes"]
    disk = f", {spilled / 1e6:,.1f} MB of frontier spilled to disk" if spilled else ""
    return f"; lean: {kept}{disk}"


def _unchecked(summary: dict[str, Any]) -> str:
    """Why the progress check was not made."""
    if summary.get("lean"):
        return "a lean search keeps no graph: leave out --lean to check it"
    return "the search is not complete"


def print_service_exploration(console: Console, summary: dict[str, Any]) -> None:
    """The human report of a service's exploration."""
    from ringleader.actors.exploration.service import CHECKS  # noqa: PLC0415

    console.print(
        f"[bold]Explored {summary['title']} as `ringleader node` runs it[/] "
        f"({summary['source']}){_incomplete(summary)}"
    )
    timing, network = summary["timing"], summary["network"]
    drift = timing["drift"]
    console.print(
        f"  time: ticks of {timing['tick_s']:g} s; clocks drift up to {drift:.1%}, so a "
        f"lease of {timing['lease_s']:g} s is held {timing['lease_ticks_held']} ticks "
        f"against the others' clocks"
    )
    delay = network["delay_ticks"]
    if delay == 0:
        frames = "each arrives within the tick it is sent in"
    elif delay is None:
        frames = "each may take any time"
    else:
        frames = f"each may take up to {delay} ticks"
    capacity = network["capacity"]
    room = "" if capacity is None else f", at most {capacity} in flight on a link"
    console.print(f"  frames: FIFO, {frames}{room}")
    faults = ", ".join(f"{name} {count}" for name, count in summary["faults"].items() if count)
    changes = summary["changes"]
    asked = f"; membership changes {changes}" if changes else ""
    quorum = "on" if summary["quorum"] else "off"
    console.print(f"  faults: {faults or 'none'}{asked}; quorum {quorum}")
    if summary["search"] == "walks":
        console.print(
            f"  walks: {summary['walks']:,} seeded random runs (seed {summary['seed']}), "
            f"{summary['steps']:,} steps, {summary['states']:,} distinct states, "
            f"{summary['elapsed_s']:.2f} s: [yellow]not every state[/]"
        )
    else:
        extent = (
            "every reachable state"
            if summary["complete"]
            else f"[yellow]stopped by --{summary['stopped'].replace('_', '-')}: not every state[/]"
        )
        console.print(
            f"  states: {summary['states']:,} ({extent}), depth {summary['depth']}; "
            f"{summary['elapsed_s']:.2f} s, {summary['states_per_s']:,} states/s, "
            f"{summary['memory_per_state']} bytes/state{_lean(summary)}"
        )
    found = {v["kind"]: v for v in summary["violations"]}
    for kind, words in CHECKS.items():
        verdict = summary["checks"][kind]
        if verdict == "broken":
            v = found[kind]
            console.print(
                f"  [red]✗ {words}[/]: {v['detail']} ({v['count']:,} times); breaks: "
                f"{v['guarantee']}; shortest run, {v['steps']} steps: {v['trace']}"
            )
        elif verdict == "held":
            console.print(f"  [green]✓[/] {words}")
        elif verdict == "held so far":
            console.print(f"  [yellow]~[/] {words} (in the states explored)")
        else:
            console.print(f"  [yellow]?[/] {words}: not checked ({_unchecked(summary)})")
    if found:
        first = next(iter(found.values()))["trace"]
        console.print(
            f"  e.g. ringleader replay {first} --no-step; "
            f"ringleader diagram {first} -o {Path(first).with_suffix('.svg')}"
        )
