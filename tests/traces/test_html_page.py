"""The step-through page in a real headless browser (Debian's chromium and its driver).

Load the page, press next (the button, then the arrow key), and read the step shown and
the states table; compare with what the trace says after that many events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ringleader.traces import narrate, parse_trace, write_view
from tests.paths import ROOT
from tests.sample_traces import crash_trace, example_trace, ring_trace, run_trace


def expected_states(events: list[dict[str, Any]], nodes: list[int]) -> dict[str, tuple[str, str]]:
    """Every node's (state, elected) after ``events``, as the page should show them."""
    states = {str(n): ("undecided", "") for n in nodes}
    for event in events:
        node = str(event["node"])
        if event["event"] == "state":
            elected = event["elected"]
            states[node] = (event["state"], "" if elected is None else str(elected))
        elif event["event"] == "crash":
            states[node] = ("crashed", "")
        elif event["event"] == "restart":
            states[node] = ("undecided", "")
    return states


def shown_states(driver: Any) -> dict[str, tuple[str, str]]:
    rows = driver.find_elements("css selector", "#states tr[data-node]")
    return {
        row.get_attribute("data-node"): (
            row.get_attribute("data-state"),
            row.get_attribute("data-elected"),
        )
        for row in rows
    }


def test_stepping_through_a_crash_shows_what_the_trace_says(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    trace_file = tmp_path / "crash.jsonl"
    trace_file.write_text(crash_trace(heartbeats=True), encoding="utf-8")
    page = tmp_path / "crash.html"
    write_view(trace_file, page)
    trace = parse_trace(trace_file.read_text(encoding="utf-8").splitlines())
    events = trace.without_heartbeats()

    browser.get(page.as_uri())
    step = browser.find_element("id", "step")
    assert step.get_attribute("data-step") == "0"
    assert browser.find_element("id", "slider").get_attribute("max") == str(len(events))
    assert shown_states(browser) == expected_states([], trace.nodes)

    nxt = browser.find_element("id", "next")
    for _ in range(20):
        nxt.click()
    assert step.text == f"step 20 of {len(events)}"
    assert shown_states(browser) == expected_states(events[:20], trace.nodes)
    current = browser.find_elements("css selector", "line.msg.current")
    if "msg" in events[19] and events[19]["event"] == "receive":
        assert [c.get_attribute("data-msg") for c in current] == [str(events[19]["msg"])]

    body = browser.find_element("tag name", "body")
    crash = next(i for i, e in enumerate(events) if e["event"] == "crash") + 1
    for _ in range(crash - 20):
        body.send_keys(Keys.ARROW_RIGHT)
    assert step.get_attribute("data-step") == str(crash)
    states = shown_states(browser)
    assert states == expected_states(events[:crash], trace.nodes)
    assert states["5"] == ("crashed", "")

    body.send_keys(Keys.ARROW_LEFT)
    assert step.get_attribute("data-step") == str(crash - 1)
    assert shown_states(browser)["5"] == ("leader", "5")

    browser.find_element("id", "prev").click()
    assert step.get_attribute("data-step") == str(crash - 2)

    browser.execute_script(
        "const s = document.getElementById('slider'); s.value = s.max;"
        "s.dispatchEvent(new Event('input'));"
    )
    assert step.get_attribute("data-step") == str(len(events))
    final = shown_states(browser)
    assert final == expected_states(events, trace.nodes)
    assert {elected for _, elected in final.values()} == {"5"}
    assert "heartbeat events" in browser.page_source


def test_a_broken_check_is_marked_from_its_moment_on(browser: Any, tmp_path: Path) -> None:
    """A run's ``violation`` event: a line across every node at its step, hidden
    before it, its words in its title."""
    import ringleader
    from ringleader.topologies import load_config

    root = ROOT
    trace_file = tmp_path / "pause.jsonl"
    config = load_config(root / "examples" / "explore" / "bully_pause.toml")
    assert not ringleader.run(config, simulate=True, trace=trace_file).safe
    page = tmp_path / "pause.html"
    write_view(trace_file, page)
    events = parse_trace(trace_file.read_text(encoding="utf-8").splitlines()).events
    at = next(i for i, e in enumerate(events) if e["event"] == "violation") + 1

    browser.get(page.as_uri())
    (mark,) = browser.find_elements("css selector", "line.mark.violation")
    title = mark.find_element("tag name", "title").get_attribute("textContent")
    assert title == "✗ unsafe (two_leaders): P2 and P3 lead epoch 1"
    assert not mark.is_displayed()

    def step_to(k: int) -> None:
        browser.execute_script(
            f"const s = document.getElementById('slider'); s.value = {k};"
            "s.dispatchEvent(new Event('input'));"
        )

    step_to(at - 1)
    assert not mark.is_displayed()
    step_to(at)
    assert mark.is_displayed()


def test_the_page_needs_no_network(tmp_path: Path) -> None:
    trace_file = tmp_path / "t.jsonl"
    trace_file.write_text(crash_trace(), encoding="utf-8")
    page = tmp_path / "t.html"
    write_view(trace_file, page)
    text = page.read_text(encoding="utf-8")
    assert "<script src" not in text and "<link" not in text
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text


def _page(tmp_path: Path, text: str, name: str) -> tuple[Path, list[dict[str, Any]]]:
    trace_file = tmp_path / f"{name}.jsonl"
    trace_file.write_text(text, encoding="utf-8")
    page = tmp_path / f"{name}.html"
    write_view(trace_file, page)
    return page, parse_trace(text.splitlines()).without_heartbeats()


def _go(driver: Any, step: int) -> None:
    driver.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));",
        step,
    )


def test_messages_in_flight_are_drawn_between_their_ends_with_arrowheads(
    browser: Any, tmp_path: Path
) -> None:
    page, events = _page(tmp_path, example_trace("chang_roberts_table"), "table")
    browser.get(page.as_uri())
    # The first moment two messages are in flight: sent, not yet received.
    flying: set[Any] = set()
    index = 0
    while len(flying) < 2:
        event = events[index]
        index += 1
        if event["event"] == "send":
            flying.add(event["msg"])
        elif event["event"] == "receive":
            flying.discard(event["msg"])
    _go(browser, index)
    diagram = browser.find_elements("css selector", "#svg line.msg.flight")
    assert {int(line.get_attribute("data-msg")) for line in diagram} == flying
    assert all(line.get_attribute("marker-end").startswith("url(#") for line in diagram)
    network = browser.find_elements("css selector", "#network line.flight")
    assert {int(line.get_attribute("data-msg")) for line in network} == flying
    assert all("head" in line.get_attribute("marker-end") for line in network)
    # The future is not drawn: no message sent after this step shows.
    later = browser.find_elements("css selector", "#svg line.msg.future")
    sent_later = {e["msg"] for e in events[index:] if e["event"] == "send"}
    assert {int(line.get_attribute("data-msg")) for line in later} == sent_later
    assert all(not line.is_displayed() for line in later)


def test_each_step_shows_the_story_the_event_and_the_message(browser: Any, tmp_path: Path) -> None:
    page, events = _page(tmp_path, example_trace("chang_roberts_table"), "table")
    browser.get(page.as_uri())
    lines = narrate(events)
    receive = next(i for i, e in enumerate(events) if e["event"] == "receive") + 1
    _go(browser, receive)
    story = browser.find_element("id", "story").text
    assert any(line.split(" ", 1)[1] in story for line in lines[1:-2]), story
    event = events[receive - 1]
    assert (
        f"receives election(P{event['fields']['candidate']['id']})"
        in browser.find_element("id", "event").text
    )
    message = browser.find_element("id", "message").text
    assert f"message {event['msg']}" in message and "candidate = P" in message


def test_play_pause_and_speed(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    page, events = _page(tmp_path, ring_trace(12), "ring")  # 200 events: 3 s at 64 a second
    browser.get(page.as_uri())
    step = browser.find_element("id", "step")
    Select(browser.find_element("id", "speed")).select_by_value("64")
    play = browser.find_element("id", "play")
    play.click()
    assert play.get_attribute("data-playing") == "true"
    WebDriverWait(browser, 10).until(lambda d: int(step.get_attribute("data-step")) >= 5)
    play.click()
    assert play.get_attribute("data-playing") == "false"
    paused = step.get_attribute("data-step")
    browser.execute_script("return new Promise(r => setTimeout(r, 200))")
    assert step.get_attribute("data-step") == paused  # it stays where it was paused
    play.click()  # on to the end, where it stops by itself
    WebDriverWait(browser, 10).until(
        lambda d: (
            play.get_attribute("data-playing") == "false"
            and step.get_attribute("data-step") == str(len(events))
        )
    )


def test_a_lost_message_and_timers_in_the_notes_words(browser: Any, tmp_path: Path) -> None:
    page, events = _page(tmp_path, run_trace("bully_story", heartbeats=True), "story")
    browser.get(page.as_uri())
    lost = next(i for i, e in enumerate(events) if e["event"] == "send" and e.get("lost")) + 1
    _go(browser, lost)
    assert (
        "P3 sends election to P4 (epoch 6) — lost: P4 is down"
        in browser.find_element("id", "event").text
    )
    assert "election to P4 — lost: P4 is down" in browser.find_element("id", "story").text
    assert browser.find_elements("css selector", "#svg line.msg.lost")
    text = browser.find_element("tag name", "body").text
    assert "rounds:" not in browser.page_source.split('<script type="application/json"')[0]
    timers = [i for i, e in enumerate(events) if e["event"] == "timer"]
    for index in timers[:5]:
        _go(browser, index + 1)
        said = browser.find_element("id", "event").text
        assert ":" not in said.split(": ", 1)[1].replace("T′", "").split(" (")[0], said
    assert "timer rounds" not in text


def test_at_200_nodes_the_views_follow_the_action(browser: Any, tmp_path: Path) -> None:
    page, events = _page(tmp_path, ring_trace(200), "ring200")
    browser.get(page.as_uri())
    assert len(browser.find_elements("css selector", "#states tr[data-node]")) == 200
    for step in (300, 900, len(events) - 3):
        _go(browser, step)
        event = events[step - 1]
        inside = browser.execute_script(
            """
            const box = document.getElementById('diagram').getBoundingClientRect();
            const label = document.querySelector('#labels text[data-node="' + arguments[0] + '"]')
              .getBoundingClientRect();
            const cursor = [...document.querySelectorAll('#svg line')].pop()
              .getBoundingClientRect();
            const row = document.querySelector('#states tr[data-node="' + arguments[0] + '"]')
              .getBoundingClientRect();
            const table = document.getElementById('tablebox').getBoundingClientRect();
            return [label.top >= box.top && label.bottom <= box.bottom,
                    label.left >= box.left && label.right <= box.right,
                    cursor.left >= box.left && cursor.left <= box.right,
                    row.top >= table.top && row.bottom <= table.bottom];
            """,
            event["node"],
        )
        assert inside == [True, True, True, True], (step, event)
        # The network closes in on the acting node: it is named, and in view.
        name = browser.execute_script(
            """
            const circle = document.querySelector('#network circle[data-node="' + arguments[0]
              + '"]').getBoundingClientRect();
            const net = document.getElementById('network').getBoundingClientRect();
            return circle.left >= net.left && circle.right <= net.right
              && circle.top >= net.top && circle.bottom <= net.bottom;
            """,
            event["node"],
        )
        assert name, (step, event)


def test_each_node_shows_its_variables_when_the_trace_has_them(
    browser: Any, tmp_path: Path
) -> None:
    lines = []
    for number, line in enumerate(example_trace("chang_roberts_table").splitlines()):
        event = json.loads(line)
        if event["event"] == "state":
            event["vars"] = {
                "seen": number,
                "best": {"id": 5, "capacity": 5},
                "announcement": {"kind": "elected", "leader": {"id": 5, "capacity": 5}},
            }
        lines.append(json.dumps(event))
    page, events = _page(tmp_path, "\n".join(lines) + "\n", "vars")
    browser.get(page.as_uri())
    header = browser.find_element("css selector", "#states thead").text
    assert "variables" in header
    state = next(i for i, e in enumerate(events) if e["event"] == "state")
    _go(browser, state + 1)
    node = events[state]["node"]
    cell = browser.find_element("css selector", f'#states tr[data-node="{node}"] td.vars')
    seen = events[state]["vars"]["seen"]
    assert cell.text == f"seen = {seen}, best = P5, announcement = elected(P5)"


def test_without_variables_a_node_shows_what_it_heard(browser: Any, tmp_path: Path) -> None:
    # A trace written before state events carried their variables (issue 28).
    old = []
    for line in example_trace("chang_roberts_table").splitlines():
        event = json.loads(line)
        event.pop("vars", None)
        old.append(json.dumps(event))
    page, events = _page(tmp_path, "\n".join(old) + "\n", "heard")
    browser.get(page.as_uri())
    assert "no variables in the trace" in browser.find_element("css selector", "#states").text
    receive = next(i for i, e in enumerate(events) if e["event"] == "receive")
    _go(browser, receive + 1)
    event = events[receive]
    sent = sum(
        1 for e in events[: receive + 1] if e["event"] == "send" and e["node"] == event["node"]
    )
    cell = browser.find_element("css selector", f'#states tr[data-node="{event["node"]}"] td.vars')
    assert cell.text == (
        f"last heard election(P{event['fields']['candidate']['id']}) from P{event['peer']}; "
        f"sent {sent}, received 1"
    )


@pytest.mark.parametrize(
    ("example", "links", "one_way"), [("chang_roberts_table", 5, True), ("two_way_ring", 8, False)]
)
def test_the_network_draws_the_links(
    browser: Any, tmp_path: Path, example: str, links: int, one_way: bool
) -> None:
    page, events = _page(tmp_path, example_trace(example), example)
    browser.get(page.as_uri())
    drawn = browser.find_elements("css selector", "#network line.link")
    pairs = {frozenset((e["node"], e["peer"])) for e in events if e["event"] == "send"}
    assert len(drawn) == links == len(pairs)
    assert {
        frozenset(int(n) for n in d.get_attribute("data-link").split("-")) for d in drawn
    } == pairs
    heads = [d.get_attribute("marker-end") for d in drawn]
    assert all(heads) if one_way else not any(heads)


def test_messages_in_flight_carry_their_label_and_line(browser: Any, tmp_path: Path) -> None:
    page, events = _page(tmp_path, example_trace("two_way_ring"), "hs")
    browser.get(page.as_uri())
    probe = next(i for i, e in enumerate(events) if e["event"] == "send" and e["kind"] == "probe")
    reply = next(i for i, e in enumerate(events) if e["event"] == "send" and e["kind"] == "reply")
    _go(browser, reply + 1)
    msg = events[reply]["msg"]
    label = browser.find_element("css selector", f'#network text.label[data-msg="{msg}"]')
    fields = events[reply]["fields"]
    assert label.text == f"reply(P{fields['candidate']['id']} φ{fields['phase']})"
    line = browser.find_element("css selector", f'#svg line.msg[data-msg="{msg}"]')
    first = browser.find_element(
        "css selector", f'#svg line.msg[data-msg="{events[probe]["msg"]}"]'
    )
    assert line.get_attribute("stroke-dasharray") and not first.get_attribute("stroke-dasharray")


def test_the_legend_tells_no_leader_from_an_extinction(tmp_path: Path) -> None:
    page, _ = _page(tmp_path, run_trace("ring_crash"), "crash")
    text = page.read_text(encoding="utf-8")
    assert "⊥</b> no leader yet (elected = ⊥)" in text
    assert "┃</b> extinction: a candidacy swallowed here" in text
    assert "⊥</b> extinction" not in text
    for kind in ("election", "elected"):
        assert f'data-kind="{kind}"><svg' in text  # its line beside its name
