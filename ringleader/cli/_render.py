"""Human-readable output: the run report, the check summary, live progress."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Progress_
from rich.table import Table

from ringleader.actors import ALGORITHMS
from ringleader.cluster import Progress
from ringleader.reports import Report
from ringleader.topologies import SECRET_ENV, TOPOLOGIES, Config, Size

__all__ = ["print_check", "print_report", "progress_bar"]

#: Above this many nodes the per-node table is left out of the human report.
TABLE_LIMIT = 32

#: Rejections a healthy cluster has after a crash, a restart or a pause: messages still
#: in flight that belong to an election round or a life since replaced.
NORMAL_REJECTIONS = {
    "stale_epoch": "messages of an election round since superseded",
    "stale_incarnation": "frames from a peer's previous life",
    "stale_receiver": "frames meant for this node's previous life",
}
#: Any other rejection says something is wrong: a stranger, a misconfigured peer, a replay.
SUSPICIOUS_REJECTIONS = {
    "bad_signature": "not signed with the cluster's secret: a peer with another secret?",
    "wrong_cluster": "signed, but for another cluster",
    "unknown_sender": "from a node that is not an in-neighbour: configs that differ?",
    "wrong_receiver": "addressed to another node: configs that differ?",
    "replayed": "a frame received before, sent again",
    "incompatible": "another ringleader, Python or cloudpickle version",
    "wrong_key": "a CURVE key sending as another node",
}
MALFORMED = "not a ringleader frame"


def rejection_lines(rejected: dict[str, int]) -> list[str]:
    """Rejected frames by reason, explained, normal ones apart from suspicious ones."""
    normal = {r: n for r, n in rejected.items() if r in NORMAL_REJECTIONS and n}
    suspicious = {r: n for r, n in rejected.items() if r not in NORMAL_REJECTIONS and n}
    lines = []
    if normal:
        told = "; ".join(f"{r} {n} ({NORMAL_REJECTIONS[r]})" for r, n in sorted(normal.items()))
        lines.append(f"Frames rejected, normal after a crash, restart or pause: {told}")
    if suspicious:
        told = "; ".join(
            f"{r} {n} ({SUSPICIOUS_REJECTIONS.get(r, MALFORMED)})"
            for r, n in sorted(suspicious.items())
        )
        lines.append(f"[yellow]Frames rejected, suspicious: {told}[/]")
    return lines


def _order(ids: Sequence[int], arrow: str = " → ", limit: int = 16) -> str:
    shown = [str(i) for i in ids[:limit]]
    if len(ids) > limit:
        shown.append("…")
    return arrow.join([*shown, str(ids[0])])


def _wiring_text(summary: dict[str, Any], limit: int = 12) -> str:
    """How the nodes are wired, in a line: ring order, or the undirected edges."""
    ids = [n["id"] for n in summary["nodes"]]
    topology = summary["topology"]
    if topology == "unidirectional_ring":
        return _order(ids)
    if topology == "bidirectional_ring":
        return _order(ids, " ↔ ")
    if topology == "full_mesh":
        return "everyone ↔ everyone"
    edges = sorted(
        {tuple(sorted((int(a), b))) for a, peers in summary["out"].items() for b in peers}
    )
    shown = [f"{a}–{b}" for a, b in edges[:limit]] + (["…"] if len(edges) > limit else [])
    return f"{len(edges)} edges: {', '.join(shown)}"


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _bound_text(formula: str, value: int, exact: bool) -> str:
    return f"{formula} {'=' if exact else '≤'} {value}"


def _print_crashes(console: Console, report: Report) -> None:
    for fault in report.faults:
        what = f"{fault.action} node {fault.node}" if fault.node is not None else fault.action
        why = f" [yellow](skipped: {fault.skipped})[/]" if fault.skipped else ""
        if fault.detection_s is not None:
            why += f"; suspected after {_ms(fault.detection_s)}"
        if fault.failover_s is not None:
            why += f", a leader again after {_ms(fault.failover_s)}"
        console.print(f"Fault at {fault.at:.3f} s: {what}{why}")
    table = Table(
        box=None,
        pad_edge=False,
        title="Elections (in time order: what set each off, then its rounds)",
        title_justify="left",
    )
    columns = ("at", "cause", "round", "by", "outcome", "detection", "duration", "messages")
    for column in columns:
        table.add_column(column, justify="left" if column in ("cause", "outcome") else "right")
    shown = 0
    for e in report.elections:
        first = e.election != shown
        shown = e.election
        table.add_row(
            f"{e.at:.3f} s" if first and e.at is not None else "",
            e.cause if first else "",
            str(e.epoch),
            "" if e.started_by is None else str(e.started_by),
            "superseded" if e.leader is None else f"node {e.leader} leads",
            _ms(e.detection_s) if first and e.detection_s is not None else "",
            _ms(e.duration_s) if e.duration_s is not None else "",
            str(e.messages),
            end_section=False,
        )
    console.print(table)


def _print_checks(console: Console, report: Report, *, crashes: bool) -> None:
    """A crash schedule's faults and elections; the checks' verdict with a crash
    schedule, or when a check was broken."""
    if crashes:
        _print_crashes(console, report)
    if report.safety is not None and (crashes or report.safety.violations):
        _print_safety(console, report)


def _print_safety(console: Console, report: Report) -> None:
    """The checks over every state of the run: how many led one epoch at once, and
    each violation, with its moment (the problems repeat them)."""
    assert report.safety is not None
    violations = report.safety.violations
    verdict = (
        "[green]no violation[/]"
        if not violations
        else f"[red]{len(violations)} violation{'s' if len(violations) > 1 else ''}[/]"
    )
    most = report.safety.max_leaders_per_epoch
    console.print(f"Safety: at most {most} leader{'s' * (most > 1)} per epoch; {verdict}")


def _messages_text(report: Report) -> str:
    """``Messages: …; the notes: formula ✓`` (✗, or not finished: nothing to judge)."""
    kinds = ", ".join(f"{k} {v}" for k, v in report.messages_by_type.items())
    if report.bound_unchecked is not None:
        mark = f"({report.bound_unchecked})"
    else:
        mark = "[green]✓[/]" if report.bound_holds else "[red]✗[/]"
    first = report.first_election_messages
    counted = "" if first is None else f"; the first election {first}"
    beats = f", heartbeats {report.heartbeats}" if report.heartbeats else ""
    bound = _bound_text(report.bound.formula, report.bound.value, report.bound.exact)
    return (
        f"Messages: {report.total} ({kinds or 'none'}{beats}){counted}; the notes: {bound} {mark}"
    )


def _time_text(report: Report, what: str) -> str:
    if report.mode == "simulated":  # the simulator's clock: no set-up, seconds of no one's
        return f"Time: {what} {_ms(report.elapsed_s)} of virtual time"
    return f"Time: {what} {_ms(report.elapsed_s)}, set-up {_ms(report.setup_s)}"


def print_report(console: Console, report: Report) -> None:
    known = ALGORITHMS.get(report.algorithm)
    algorithm = known.title if known else report.algorithm
    topology = TOPOLOGIES[report.topology].title
    where = "in the simulator" if report.mode == "simulated" else f"over {report.transport}"
    console.print(f"[bold]{algorithm}[/] on a {topology} of {report.n} nodes {where}")
    if report.setup_failed is not None:  # nothing ran: what failed, and how long it took
        console.print(f"[bold red]The cluster could not be set up[/] ({_ms(report.setup_s)})")
        for problem in report.problems:
            console.print(f"[bold red]Problem:[/] {problem}")
        return
    leader = report.leader  # found once: it looks at every node
    if leader is not None:
        agree = f"all {report.n} nodes agree" if report.agreed else "[red]not every node agrees[/]"
        capacity = next(n.capacity for n in report.nodes if n.id == leader)
        console.print(
            f"Leader: [bold green]node {leader}[/] (capacity {capacity:g}); {agree}; "
            f"epoch {report.epoch}"
        )
    else:
        console.print(f"Leader: [bold red]none[/] ({len(report.leaders)} nodes claim to lead)")
    console.print(_messages_text(report))
    crashes = report.first_election_messages is not None  # a crash schedule
    _print_checks(console, report, crashes=crashes)
    # A supervised run's time is the whole run (faults, run_for), not one election's.
    what = "the run" if crashes else "election"
    console.print(_time_text(report, what))
    for line in rejection_lines(report.rejected_frames):
        console.print(line)
    if report.send_failures or report.errors:
        console.print(
            f"Send failures: {report.send_failures} (frames to a node down or not yet "
            f"linked: normal after a crash); handler errors: {report.errors}"
        )
    if report.n <= TABLE_LIMIT:
        table = Table(box=None, pad_edge=False)
        for column in ("node", "capacity", "state", "elected"):
            table.add_column(column, justify="right" if column != "state" else "left")
        for node in report.nodes:
            style = "bold green" if node.state == "leader" else ""
            table.add_row(
                str(node.id),
                f"{node.capacity:g}",
                node.state,
                "⊥" if node.elected is None else str(node.elected),
                style=style,
            )
        console.print(table)
    else:
        console.print(f"(the table of {report.n} nodes is left out; --json has it)")
    for problem in report.problems:
        console.print(f"[bold red]Problem:[/] {problem}")


def check_summary(config: Config, size: Size | None = None) -> dict[str, Any]:
    """What ``ringleader check`` reports about a valid config (``size``: its estimate,
    as :func:`ringleader.cluster.size_up` made it)."""
    wiring = config.wiring
    bound = config.bound
    if config.secret_file is not None:
        secret = "secret_file"
    elif config.secret() is not None:
        secret = SECRET_ENV
    else:
        secret = "random per run"
    return {
        "ok": True,
        "source": config.source,
        "topology": config.topology,
        "algorithm": config.algorithm,
        "auto_algorithm": config.auto_algorithm,
        "fits": list(TOPOLOGIES[config.topology].algorithms),
        "transport": config.transport,
        "n": config.n,
        "nodes": [{"id": n.id, "capacity": n.capacity, "address": n.address} for n in config.nodes],
        "out": {str(k): list(v) for k, v in wiring.out.items()},
        "initiators": list(config.initiators),
        "expected_leader": max(wiring.candidates).id,
        "bound": bound.as_dict(),
        "timeout": config.timeout,
        "settings": dict(config.settings),
        "secret": secret,
        "security": config.security,
        "keys": None if config.keys is None else str(config.keys.resolve()),
        "secret_keys": config.secret_keys_here() if config.security == "curve" else None,
        "network": [str(entry) for entry in config.network],
        **({"size": {**size.as_dict(), "text": size.resources()}} if size is not None else {}),
    }


def _addresses_text(given: int, n: int) -> str:
    if given == n:
        return "every address given"
    if given == 0:
        return "free addresses picked at start"
    return f"{given} of {n} addresses given, free ones picked for the rest"


def _security_text(summary: dict[str, Any]) -> str:
    if summary["security"] != "curve":
        return "hmac: every frame signed with the secret"
    held = summary["secret_keys"]
    here = f"nodes {', '.join(map(str, held))}" if held else "none (no node can run here)"
    return f"curve (keys in {summary['keys']}; secret keys here: {here})"


def print_check(console: Console, summary: dict[str, Any]) -> None:
    others = [a for a in summary["fits"] if a != summary["algorithm"]]
    how = "the default for this topology" if summary["auto_algorithm"] else "chosen"
    also = f"; also fits: {', '.join(others)}" if others else ""
    if ":" in summary["algorithm"]:  # module:Class, a class of one's own
        how, also = "your own", f"; the notes' for this topology: {', '.join(others)}"
    initiators = summary["initiators"]
    bound = summary["bound"]
    addresses = [n["address"] for n in summary["nodes"] if n["address"]]
    settings = summary["settings"]
    console.print(f"[bold]{summary['source']}[/]: [green]OK[/]")
    rows = [
        ("topology", f"{summary['topology']}, {summary['n']} nodes: {_wiring_text(summary)}"),
        ("algorithm", f"{summary['algorithm']} ({how}{also})"),
        ("transport", f"{summary['transport']}; {_addresses_text(len(addresses), summary['n'])}"),
        (
            "initiators",
            "all" if len(initiators) == summary["n"] else ", ".join(map(str, initiators)),
        ),
        (
            "expect",
            f"leader node {summary['expected_leader']}; messages "
            f"{_bound_text(bound['formula'], bound['value'], bound['exact'])}",
        ),
        *([("size", summary["size"]["text"])] if "size" in summary else []),
        ("timeout", f"{summary['timeout']:g} s"),
        *(
            [
                (
                    "T, T′",
                    f"{settings['election_timeout']:g} s, {settings['coordinator_timeout']:g} s",
                )
            ]
            if summary["algorithm"] == "bully"
            else []
        ),
        ("secret", summary["secret"]),
        ("security", _security_text(summary)),
        *([("network", "; ".join(summary["network"]))] if summary["network"] else []),
    ]
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for row in rows:
        table.add_row(*row)
    console.print(table)


@contextmanager
def progress_bar(console: Console) -> Iterator[Progress]:
    """A transient progress display; yields a :class:`~ringleader.cluster._cluster.Progress`:
    each phase's bar, and while electing the messages sent so far and their rate."""
    with Progress_(
        TextColumn("{task.description:>10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[messages]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}
        began: dict[str, float] = {}

        def update(phase: str, done: int, total: int, messages: int | None = None) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total, messages="")
                began[phase] = time.monotonic()
            shown = ""
            if messages is not None:
                rate = messages / max(1e-3, time.monotonic() - began[phase])
                shown = f"{messages:,} messages, {rate:,.0f} msg/s"
            bar.update(tasks[phase], completed=done, total=total, messages=shown)

        yield update


def print_status(console: Console, summary: dict[str, Any]) -> None:
    """``ringleader status``: one row per node, then the verdict."""
    table = Table(box=None, pad_edge=False)
    columns = ("node", "address", "state", "leader", "epoch", "life", "rejected", "suspicious")
    for column in columns:
        left = column in ("address", "state")
        table.add_column(column, justify="left" if left else "right", no_wrap=True)
    everyone: dict[str, int] = {}
    # With no answer at all, whom the config lists as a spare may have been added since.
    spare = "no member, silent" if any(n["answered"] for n in summary["nodes"]) else "no answer"
    for node in summary["nodes"]:
        if not node["answered"]:
            silent = "[red]no answer[/]" if node.get("member", True) else spare
            table.add_row(str(node["id"]), node["address"], silent, *[""] * 5)
            continue
        for reason, count in node["rejected"].items():
            everyone[reason] = everyone.get(reason, 0) + count
        rejected = sum(node["rejected"].values())
        suspicious = sum(n for r, n in node["rejected"].items() if r not in NORMAL_REJECTIONS)
        table.add_row(
            str(node["id"]),
            node["address"],
            node["state"] if node.get("member", True) else f"{node['state']} (no member)",
            "–" if node["leader"] is None else str(node["leader"]),
            str(node["epoch"]),
            str(node["incarnation"]),
            str(rejected),
            f"[yellow]{suspicious}[/]" if suspicious else "0",
        )
    console.print(table)
    for line in rejection_lines(everyone):
        console.print(line)
    for node in summary["nodes"]:
        for address, count in node.get("bad_signatures", {}).items():
            console.print(
                f"[yellow]node {node['id']}: {count} frames from {address} failed the "
                "signature: does its secret differ?[/]"
            )
        for line in node.get("other_clusters", {}).values():
            console.print(f"[yellow]node {node['id']}: {line}[/]")
    configuration = summary.get("configuration")
    if configuration is not None and configuration["version"] > 0:
        learners = configuration["learners"]
        console.print(
            f"Configuration version {configuration['version']} (round "
            f"{configuration['epoch']}): voters {','.join(map(str, configuration['voters']))}"
            + (f"; learners {','.join(map(str, learners))}" if learners else "")
        )
    if summary["agreed"]:
        console.print(f"Leader: node {summary['leader']}, epoch {summary['epoch']}; all agree")
    else:
        console.print("[red]No agreement[/]: some nodes did not answer or disagree")
