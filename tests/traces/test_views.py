"""The pictures, the ShiViz log and the narration of a trace, and their commands."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ringleader.cli import main
from ringleader.errors import UsageError
from ringleader.traces import (
    KIND_COLOURS,
    REGEX,
    TraceError,
    algorithm_of,
    load_trace,
    narrate,
    parse_trace,
    replay,
    shiviz_log,
    write_view,
)
from ringleader.traces._diagram import MAX_MESSAGES, MAX_NODES
from tests.paths import ROOT
from tests.sample_traces import crash_trace, example_trace, ring_trace, run_trace


def save(tmp_path: Path, text: str, name: str = "run.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def in_order(lines: list[str], phrases: list[str]) -> None:
    """Each phrase is in some line, each in a later line than the one before."""
    at = 0
    for phrase in phrases:
        found = [i for i, line in enumerate(lines) if i >= at and phrase in line]
        assert found, f"{phrase!r} not found after line {at}:\n" + "\n".join(lines)
        at = found[0] + 1


# --- diagrams ------------------------------------------------------------------------


def test_the_svg_names_every_node_and_every_kind(tmp_path: Path) -> None:
    out = tmp_path / "bully.svg"
    write_view(save(tmp_path, crash_trace(heartbeats=True)), out)
    svg = out.read_text(encoding="utf-8")
    assert svg.startswith("<?xml")
    for node in range(1, 6):
        assert f">P{node}<" in svg
    for word in ("election", "ok", "coordinator", "crash", "restart", "suspects"):
        assert word in svg
    assert "heartbeat events (failure detector)" in svg  # what it left out, said


@pytest.mark.parametrize(("suffix", "magic"), [(".png", b"\x89PNG\r\n\x1a\n"), (".pdf", b"%PDF-")])
def test_png_and_pdf_are_files_of_their_kind(tmp_path: Path, suffix: str, magic: bytes) -> None:
    out = tmp_path / f"table{suffix}"
    write_view(save(tmp_path, example_trace("chang_roberts_table")), out)
    data = out.read_bytes()
    assert data.startswith(magic) and len(data) > 5000


def test_a_big_run_says_on_the_picture_what_it_left_out(tmp_path: Path) -> None:
    out = tmp_path / "big.svg"
    write_view(save(tmp_path, ring_trace(40)), out)
    svg = out.read_text(encoding="utf-8")
    assert "Left out:" in svg
    assert "8 of 40 nodes and every message to or from them" in svg
    assert f"of the first {MAX_MESSAGES}" not in svg  # said as "the last k of m messages"
    assert re.search(r"the last \d+ of \d+ messages", svg)
    assert ">P40<" in svg  # the leader is in it


def test_a_200_node_picture_shows_the_leader_and_its_neighbours(tmp_path: Path) -> None:
    out = tmp_path / "big.svg"
    write_view(save(tmp_path, ring_trace(200)), out)
    svg = out.read_text(encoding="utf-8")
    assert "168 of 200 nodes" in svg and "the leader and their neighbours" in svg
    shown = _rows(svg)
    assert len(shown) == MAX_NODES and "P200" in shown
    # A stretch of the ring round the leader, in ring order (ids descending: 200, 199 …).
    at = shown.index("P200")
    assert shown[at : at + 3] == ["P200", "P199", "P198"]


def _rows(svg: str) -> list[str]:
    """The node names down the y axis of a diagram's SVG, top to bottom."""
    return re.findall(r'<g id="ytick_\d+">.*?>(P\d+)</text>', svg, flags=re.S)


def test_a_ring_is_drawn_in_ring_order_from_the_leader(tmp_path: Path) -> None:
    out = tmp_path / "table.svg"
    write_view(save(tmp_path, example_trace("chang_roberts_table")), out)
    assert _rows(out.read_text(encoding="utf-8")) == ["P5", "P4", "P3", "P2", "P1"]
    out = tmp_path / "two.svg"
    write_view(save(tmp_path, example_trace("two_way_ring")), out)
    assert _rows(out.read_text(encoding="utf-8")) == [
        f"P{n}" for n in (8, 2, 5, 7, 4, 1, 6, 3)
    ]  # as examples/two_way_ring.toml lists them, from the leader


def test_a_kind_has_one_colour_in_every_picture(tmp_path: Path) -> None:
    seen: dict[str, set[str]] = {}
    for name, text in (
        ("story", run_trace("bully_story")),
        ("crash", run_trace("ring_crash")),
        ("table", example_trace("chang_roberts_table")),
    ):
        out = tmp_path / f"{name}.svg"
        write_view(save(tmp_path, text, f"{name}.jsonl"), out)
        svg = out.read_text(encoding="utf-8")
        for kind in ("election", "elected", "coordinator", "ok"):
            legend = re.search(
                rf'stroke: (#[0-9a-f]{{6}})[^>]*/>\s*</g>\s*<g id="text_\d+">\s*'
                rf"<text[^>]*>{kind}</text>",
                svg,
            )
            if legend:
                seen.setdefault(kind, set()).add(legend.group(1))
    assert seen["election"] == {KIND_COLOURS["election"].lower()}
    assert seen["elected"] == {KIND_COLOURS["elected"].lower()}
    assert seen["coordinator"] == {KIND_COLOURS["coordinator"].lower()}
    assert len(set(KIND_COLOURS[k] for k in ("election", "ok", "coordinator"))) == 3


def test_lost_messages_extinctions_and_crashes_are_in_the_legend(tmp_path: Path) -> None:
    out = tmp_path / "crash.svg"
    write_view(save(tmp_path, run_trace("ring_crash")), out)
    svg = out.read_text(encoding="utf-8")
    for words in ("lost: never arrived", "extinction: a candidacy swallowed", "crash", "suspects"):
        assert words in svg


def test_time_on_the_x_axis_and_a_size_to_project(tmp_path: Path) -> None:
    trace = save(tmp_path, run_trace("bully_story"))
    out = tmp_path / "story.svg"
    write_view(trace, out, time_axis=True)
    svg = out.read_text(encoding="utf-8")
    assert "t (seconds since the run began" in svg
    assert "events in the order they happened" not in svg
    png = tmp_path / "story.png"
    write_view(trace, png, size=(1280, 720))
    assert _png_size(png) == (1280, 720)
    write_view(trace, png)
    assert _png_size(png) == (1920, 1080)  # a projector's, by default
    with pytest.raises(UsageError, match="only for a picture"):
        write_view(trace, tmp_path / "story.html", time_axis=True)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


# --- ShiViz --------------------------------------------------------------------------


def test_the_shiviz_log_parses_with_its_own_regex(tmp_path: Path) -> None:
    trace = load_trace(save(tmp_path, crash_trace()))
    lines = shiviz_log(trace).split("\n")
    assert lines[0] == REGEX and lines[1] == ""
    python_regex = re.compile(lines[0].replace("(?<", "(?P<"))
    body = "\n".join(lines[2:])
    matches = list(python_regex.finditer(body))
    assert len(matches) == len(trace.events)
    counted: dict[str, int] = {}
    for match, event in zip(matches, trace.events, strict=True):
        host = match["host"]
        assert host == f"P{event['node']}"
        clock = json.loads(match["clock"])
        counted[host] = counted.get(host, 0) + 1
        assert clock[host] == counted[host]  # the host's own events, from 1
        for peer, count in event["vc"].items():
            if peer != str(event["node"]):
                assert clock[f"P{peer}"] == count
        assert match["event"].startswith(event["event"].split("_")[0][:4]) or match["event"]


def test_shiviz_refuses_a_trace_without_vector_clocks(tmp_path: Path) -> None:
    trace = load_trace(save(tmp_path, ring_trace(70)))
    with pytest.raises(TraceError, match="no vector clock"):
        shiviz_log(trace)


# --- narration -----------------------------------------------------------------------


def test_bully_is_told_as_the_notes_tell_it() -> None:
    lines = narrate(parse_trace(example_trace("mesh").splitlines()).events)
    assert lines[0].startswith("Bully (coordinator, election, ok) among 5 processes")
    in_order(
        lines,
        [
            "P1 starts an election: election to P2, P3, P4, P5",
            "P5 rejects P1's election (ok) and proclaims itself: coordinator to P1, P2, P3, P4",
            "takes P5 as coordinator; elected = P5",
            "Messages: 24 (election 10, ok 10, coordinator 4)",
        ],
    )
    in_order(
        lines,
        [
            "P1 starts an election",
            "P2 rejects P1's election (ok) and starts its own round → election to P3, P4, P5",
            "P3 rejects P2's election (ok); its own round is already running",
        ],
    )
    assert any("election is rejected by" in line and "waits T′" in line for line in lines)


def test_a_crash_and_a_recovery_are_told() -> None:
    lines = narrate(parse_trace(crash_trace(heartbeats=True).splitlines()).events)
    in_order(
        lines,
        [
            "P5 crashes (fails)",
            "suspects P5 (no answer within T) → election to",
            "P4 is the leader",
            "t=2.000 P5 recovers and, knowing no higher process, proclaims itself: "
            "coordinator to P1, P2, P3, P4 (no election)",
            "P1 takes P5 as coordinator; elected = P5 (epoch 9)",
        ],
    )
    assert not any("ping" in line or "pong" in line for line in lines)


def test_the_chang_roberts_table_reads_per_initiator() -> None:
    lines = narrate(parse_trace(example_trace("chang_roberts_table").splitlines()).events)
    assert lines[0].startswith("Chang–Roberts")
    in_order(
        lines,
        [
            "P5 starts its round (participant): election(P5) to P4",
            "P4 forwards election(P5) to P3",
            "P5 swallows election(P1) (extinction: P5 is a participant, P1 < P5)",
            "P5 gets its own election back: it is the leader; elected(P5) to P4 round the ring",
            "P4 learns its leader from elected(P5) (non-participant); P4 forwards elected(P5)",
            "P5 gets elected(P5) back",
            "Messages: 20 (election 15, elected 5)",
            "election(P1) 1, election(P2) 2, election(P3) 3, election(P4) 4, election(P5) 5",
        ],
    )


def test_a_lost_message_is_told_with_its_send_and_why() -> None:
    lines = narrate(parse_trace(run_trace("bully_story").splitlines()).events)
    in_order(
        lines,
        [
            "P2 suspects P4",
            "P3 rejects P2's election (ok) and starts its own round → election to P4 — lost: "
            "P4 is down",
            "P3 gets no reject within T: proclaims itself: coordinator to P2; coordinator to "
            "P1 — lost: P1 is down",
            "P1 recovers and starts its election: election to P2, P3; election to P4 — lost: "
            "P4 is down",
            "P4 recovers and, knowing no higher process, proclaims itself: coordinator to P1, "
            "P2, P3 (no election)",
            "Messages: 21 (coordinator 10, election 7, ok 4); 4 of them lost",
        ],
    )
    assert not any(
        "its own round is already running" in line and "P3 rejects P2" in line and "t=0.5" in line
        for line in lines
    )


def test_timers_are_told_in_the_notes_words() -> None:
    events = parse_trace(crash_trace(heartbeats=True).splitlines()).events
    told = "\n".join(narrate(events))
    assert "rounds:" not in told and "detector:" not in told and "recovery:" not in told
    timer = {"event": "timer", "t": 0.5, "node": 2, "timer": "rounds:behind"}
    state = {"event": "state", "t": 0.5, "node": 2, "state": "undecided", "epoch": 7}
    assert "heard of a newer round" in narrate([timer, {**state, "elected": None}])[1]
    coordinator = {"event": "timer", "t": 0.5, "node": 2, "timer": "coordinator"}
    assert "T′ runs out" in narrate([coordinator])[1]


def test_per_initiator_is_in_numeric_order() -> None:
    lines = narrate(parse_trace(ring_trace(12).splitlines()).events)
    per = lines[-1]
    assert per.startswith("Per initiator")
    named = [int(n) for n in re.findall(r"election\(P(\d+)\)", per)]
    assert named == sorted(named) and 10 in named and 2 in named


@pytest.mark.parametrize(
    ("kinds", "algorithm"),
    [
        ({"elect"}, "lelann"),
        ({"probe", "reply"}, "hirschberg_sinclair"),
        ({"probe", "reply", "elected"}, "hirschberg_sinclair"),
        ({"election", "elected"}, "chang_roberts"),
        ({"election", "ok", "coordinator"}, "bully"),
        ({"coordinator"}, "bully"),
        ({"el", "ack"}, "bully_broadcast"),
        ({"demande", "rep", "elu", "ok"}, "tree"),
        ({"demande", "rep", "elu"}, "echo"),
        ({"gossip"}, None),
    ],
)
def test_the_algorithm_is_known_by_its_kinds(kinds: set[str], algorithm: str | None) -> None:
    assert algorithm_of(kinds) == algorithm


def test_kinds_nobody_knows_are_told_neutrally() -> None:
    send = {"event": "send", "t": 0.1, "node": 1, "peer": 2, "kind": "gossip", "epoch": 1}
    receive = {**send, "event": "receive", "t": 0.2, "node": 2, "peer": 1, "msg": 1}
    state = {"event": "state", "t": 0.2, "node": 2, "state": "leader", "elected": 2, "epoch": 1}
    lines = narrate([{**send, "msg": 1}, receive, state])
    assert lines[1:3] == [
        "t=0.100 P1 sends gossip to P2",
        "t=0.200 P2 receives gossip from P1; P2 is the leader",
    ]


def test_replay_waits_between_steps_and_stops_on_q(tmp_path: Path) -> None:
    path = save(tmp_path, example_trace("mesh"))
    answers = iter(["", "", "q"])
    out = io.StringIO()
    replay(path, step=True, out=out, ask=lambda: next(answers))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("(Enter: the next step")
    assert len(lines) == 5  # the hint, the heading, then three steps


# --- the commands --------------------------------------------------------------------


def test_replay_into_a_pipe_prints_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = save(tmp_path, example_trace("chang_roberts_table"))
    assert main(["replay", str(path)]) == 0  # stdin/stdout are not terminals here
    out = capsys.readouterr().out
    assert out.splitlines() == narrate(load_trace(path).events)


@pytest.mark.parametrize("suffix", [".svg", ".html", ".log"])
def test_diagram_writes_the_format_of_the_suffix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    out = tmp_path / f"run{suffix}"
    assert main(["diagram", str(save(tmp_path, example_trace("mesh"))), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert out.stat().st_size > 1000


@pytest.mark.parametrize(
    ("content", "output", "message"),
    [
        (None, "x.svg", "no such file"),
        ('{"event":"send"\n', "x.svg", "line 1: not JSON"),
        ('\n{"event": "state", "t": 0, "node": 1}\n', "x.svg", "line 2: state event without"),
        ('{"event": "crash", "t": 0, "node": 1}\n\n[1]\n', "x.svg", "line 3: not a trace"),
        ('{"event":"nap","t":0,"node":1}\n', "x.html", "line 1: not a trace event"),
        ('{"event":"crash","t":0,"node":1}\n', "x.txt", "unknown format '.txt'"),
        ("", "x.log", "no events"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    output: str,
    message: str,
) -> None:
    trace = tmp_path / "bad.jsonl"
    if content is not None:
        trace.write_text(content, encoding="utf-8")
    for argv in (["diagram", str(trace), "-o", str(tmp_path / output)], ["replay", str(trace)]):
        if argv[0] == "replay" and output.endswith(".txt"):
            continue
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1, err
        assert message in err and "Traceback" not in err
        assert err.startswith(f"ringleader {argv[0]}: error: ")


def test_replay_into_a_pipe_closed_early_stops_quietly(tmp_path: Path) -> None:
    path = save(tmp_path, ring_trace(60))  # far more than a pipe holds
    writer = subprocess.Popen(
        [sys.executable, "-m", "ringleader", "replay", str(path), "--no-step"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert writer.stdout is not None and writer.stderr is not None
    first = writer.stdout.readline().decode()  # as `| head -1` reads
    writer.stdout.close()
    error = writer.stderr.read()
    writer.stderr.close()
    assert writer.wait(timeout=60) == 141  # 128 + SIGPIPE, as the shell has it
    assert first.startswith("Chang–Roberts")
    assert error == b""  # no traceback, no "Exception ignored"


def test_diagram_time_and_size_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = save(tmp_path, example_trace("mesh"))
    out = tmp_path / "mesh.png"
    assert main(["diagram", str(trace), "-o", str(out), "--time", "--size", "1280x720"]) == 0
    assert out.exists()
    for bad in ("big", "10x10", "1920x"):
        with pytest.raises(SystemExit) as exit_:
            main(["diagram", str(trace), "-o", str(out), "--size", bad])
        assert exit_.value.code == 2
    assert main(["diagram", str(trace), "-o", str(tmp_path / "m.log"), "--time"]) == 2
    assert "only for a picture" in capsys.readouterr().err


def test_help_of_the_view_commands(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("diagram", "replay"):
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"])
        assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert ".html" in out and "ShiViz" in out and "--no-step" in out


# -- the story told from what ran (the trace's header, its recorded variables) ------------


def test_a_partition_run_never_compares_a_process_with_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After the partition heals, old rounds' elections reach processes in newer ones:
    they are ignored (told so, with both epochs), not swallowed as if smaller."""
    trace = save(tmp_path, run_trace("faults/partition"))
    assert main(["replay", str(trace), "--no-step"]) == 0
    lines = capsys.readouterr().out.splitlines()
    compared = [(int(a), int(b)) for line in lines for a, b in re.findall(r"P(\d+) < P(\d+)", line)]
    assert compared and all(a < b for a, b in compared), compared  # ids are capacities
    assert any("ignores election(P5)" in line and "older round" in line for line in lines)


def _with_header(text: str) -> tuple[list[dict[str, object]], dict[str, object] | None]:
    trace = parse_trace(text.splitlines())
    return trace.events, trace.header


def _ring_crash_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """``ringleader replay`` of the explorer's run of notes 002's crash on a ring."""
    out = tmp_path / "runs"
    main(["explore", str(ROOT / "examples/explore/ring_crash.toml"), "--out", str(out)])
    capsys.readouterr()
    assert main(["replay", str(out / "undecided.jsonl"), "--no-step"]) == 0
    return capsys.readouterr().out.splitlines()


def test_a_loss_caused_by_a_crash_is_told_after_the_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _ring_crash_replay(tmp_path, capsys)
    crash = next(k for k, line in enumerate(lines) if "P5 crashes" in line)
    assert not any("lost" in line for line in lines[1:crash]), lines
    assert "election(P4) from P1" in lines[crash]


def test_the_explorers_run_is_told_as_the_algorithm_that_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its messages are all ``election`` (no ``elected``): only the header says which
    algorithm sent them."""
    lines = _ring_crash_replay(tmp_path, capsys)
    assert lines[0] == "Chang–Roberts (election) among 5 processes", lines[0]


def test_a_trace_without_a_header_is_read_and_says_it_guessed(tmp_path: Path) -> None:
    text = run_trace("ring_crash")
    first, *rest = text.splitlines()
    assert json.loads(first)["event"] == "header"
    old = parse_trace(rest)  # as written before traces had a header
    assert old.header is None
    heading = narrate(old.events)[0]
    assert heading.startswith("Chang–Roberts") and "guessed from its messages" in heading
    told = narrate(*_with_header(text))[0]
    assert told.startswith("Chang–Roberts") and "guessed" not in told
