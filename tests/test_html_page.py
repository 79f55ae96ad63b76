"""The step-through page in a real headless browser (Debian's chromium and its driver).

Load the page, press next (the button, then the arrow key), and read the step shown and
the states table; compare with what the trace says after that many events.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ringleader.traces import parse_trace, write_view

from .traces import crash_trace

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
INSTALL = "apt-get install -y chromium chromium-driver (as root), then pip install selenium"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.skip(f"no headless browser: {', '.join(missing)} missing; {INSTALL}")
    webdriver = pytest.importorskip("selenium.webdriver", reason=f"selenium missing; {INSTALL}")
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="ringleader-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


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


def test_the_page_needs_no_network(tmp_path: Path) -> None:
    trace_file = tmp_path / "t.jsonl"
    trace_file.write_text(crash_trace(), encoding="utf-8")
    page = tmp_path / "t.html"
    write_view(trace_file, page)
    text = page.read_text(encoding="utf-8")
    assert "<script src" not in text and "<link" not in text
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text
