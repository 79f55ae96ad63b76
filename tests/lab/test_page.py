"""The lab's page in headless Chromium: click a message to deliver it, a node to crash
it, drop a message, go back and forward, reload a deep link, open a violation the
explorer found and step on from it — on the notes' Chang–Roberts and a student's
election (``module:Class``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.lab.labs import HASTY, RING, SERVICE, make_lab, make_service_lab, serving
from tests.paths import ROOT


@pytest.fixture(scope="module")
def ring() -> Iterator[str]:
    with serving(make_lab(RING, crashes=1, losses=1)) as url:
        yield url


def wait(driver: Any, what: str, predicate: Any, seconds: float = 20) -> Any:
    """``predicate(driver)`` once it is true, within ``seconds`` (selenium's own wait:
    the page answers a request, and nothing announces it to the test)."""
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.support.wait import WebDriverWait

    waiting = WebDriverWait(
        driver,
        seconds,
        poll_frequency=0.05,
        ignored_exceptions=(StaleElementReferenceException,),  # drawn again: read it anew
    )
    try:
        return waiting.until(predicate)
    except TimeoutException:
        raise AssertionError(f"waited {seconds} s for {what}") from None


def ready(driver: Any, path: str) -> None:
    """Wait until the page shows the state of ``path``."""
    wait(
        driver,
        f"path {path!r}",
        lambda d: d.execute_script("return document.body.dataset.ready") == path,
    )


def open_lab(driver: Any, url: str, path: str = "") -> None:
    driver.set_window_size(1920, 1080)
    driver.get(f"{url}#path={path}")
    driver.refresh()  # the same address with another hash: load it for good
    ready(driver, path)


def nodes(driver: Any) -> dict[str, str]:
    return {
        g.get_attribute("data-node"): g.get_attribute("data-state")
        for g in driver.find_elements("css selector", "#network g.node")
    }


def move(driver: Any, kind: str, node: int | None = None) -> Any:
    selector = f"#moves button.move[data-kind={kind}]"
    if node is not None:
        selector += f"[data-node='{node}']"
    return driver.find_element("css selector", selector)


def path_of(driver: Any) -> str:
    return str(driver.execute_script("return document.body.dataset.ready"))


def test_deliver_crash_drop_back_forward_and_a_deep_link(browser: Any, ring: str) -> None:
    open_lab(browser, ring)
    assert set(nodes(browser).values()) == {"undecided"}
    move(browser, "start", 2).click()  # P2 initiates
    ready(browser, "0")
    # Click the message in flight: it is delivered to P7, which sends its own on.
    message = browser.find_element("css selector", "#network g.inflight.deliverable")
    assert message.get_attribute("data-kind") == "election"
    message.click()
    wait(
        browser,
        "the delivery",
        lambda d: d.find_element("id", "step").get_attribute("data-step") == "2",
    )
    texts = [t.text for t in browser.find_elements("css selector", "#network g.inflight text")]
    assert texts == ["election(P7)"]
    assert "P7 replaces election(P2)" in browser.find_element("id", "narration").text
    arrows = browser.find_elements("css selector", "#diagram line.arrow")
    assert len(arrows) == 2
    # Click P5, then its crash: it is down, and the message on its way to it is lost.
    browser.find_element("css selector", "#network g.node[data-node='5'] circle").click()
    first = browser.find_element("css selector", "#moves button.move")
    assert first.get_attribute("data-node") == "5"  # its moves come first
    move(browser, "crash", 5).click()
    wait(browser, "the crash", lambda d: nodes(d)["5"] == "crashed")
    assert browser.find_elements("css selector", "#network g.inflight") == []
    crashed = path_of(browser)
    # Back, then drop the message instead: nothing is in flight, no message sent.
    browser.find_element("id", "back").click()
    ready(browser, crashed.rsplit(".", 1)[0])
    assert nodes(browser)["5"] == "undecided"
    move(browser, "drop").click()
    wait(
        browser, "the drop", lambda d: d.find_elements("css selector", "#network g.inflight") == []
    )
    assert "2 messages" in browser.find_element("id", "step").text
    dropped = path_of(browser)
    # Back and forward again: the same states.
    browser.find_element("id", "back").click()
    ready(browser, crashed.rsplit(".", 1)[0])
    browser.find_element("id", "forward").click()
    ready(browser, dropped)
    # The address holds the path: a reload, or the link opened anew, shows that state.
    shown = nodes(browser)
    assert browser.current_url.endswith(f"#path={dropped}")
    open_lab(browser, ring, crashed)
    assert nodes(browser)["5"] == "crashed"
    open_lab(browser, ring, dropped)
    assert nodes(browser) == shown


def test_keyboard_steps_and_undoes(browser: Any, ring: str) -> None:
    open_lab(browser, ring)
    body = browser.find_element("tag name", "body")
    body.send_keys("1")  # the first move (P2 wakes up)
    ready(browser, "0")
    body.send_keys("1")
    ready(browser, "0.0")
    from selenium.webdriver.common.keys import Keys

    body.send_keys(Keys.ARROW_LEFT)
    ready(browser, "0")
    body.send_keys(Keys.ARROW_RIGHT)
    ready(browser, "0.0")


def test_a_students_election_its_violation_opened_and_stepped_on(browser: Any) -> None:
    with serving(make_lab(HASTY)) as url:
        open_lab(browser, url)
        assert browser.find_element("id", "alert").is_displayed() is False
        browser.find_element("css selector", "#findings button[data-name=two_leaders]").click()
        check = "#checks li[data-check=two_leaders]"
        wait(
            browser,
            "the broken check",
            lambda d: (
                d.find_element("css selector", check).get_attribute("data-status") == "failed"
            ),
        )
        alert = browser.find_element("id", "alert")
        assert alert.is_displayed() and "at most one leader per epoch" in alert.text
        leaders = [s for s in nodes(browser).values() if s == "leader"]
        assert len(leaders) >= 2
        at = path_of(browser)
        marks = [
            t.get_attribute("textContent")
            for t in browser.find_elements("css selector", "#diagram text.dmark")
        ]
        assert any(m.startswith("✗") for m in marks)  # the violation marked where it broke
        # Step on from it (the first move), then back into it.
        browser.find_element("css selector", "#moves button.move").click()
        wait(browser, "a step on", lambda d: path_of(d).startswith(at + "."))
        browser.find_element("id", "back").click()
        ready(browser, at)


def test_auto_play_the_adversary_to_the_most_messages(browser: Any) -> None:
    from selenium.webdriver.support.ui import Select

    lab = make_lab(RING)
    most = lab.exploration.messages[1]
    with serving(lab) as url:
        open_lab(browser, url)
        Select(browser.find_element("id", "policy")).select_by_value("most_messages")
        Select(browser.find_element("id", "speed")).select_by_value("300")
        browser.find_element("id", "play").click()
        wait(
            browser, "the end of the run", lambda d: "over" in d.find_element("id", "step").text, 90
        )
        assert f"{most} messages" in browser.find_element("id", "step").text
        assert browser.find_element("id", "play").get_attribute("aria-pressed") == "false"


def status_of(driver: Any) -> str:
    return str(driver.find_element("id", "status").text)


def test_an_address_that_is_no_path_says_so(browser: Any, ring: str) -> None:
    """A garbled #path= shows the start and says why; a path that goes past the end of
    the run shows as much of it as there is, and says so."""
    browser.set_window_size(1920, 1080)
    browser.get("about:blank")  # a page of its own: no hash change for the lab's page to take
    browser.get(f"{ring}#path=abc")
    wait(browser, "the garbled path told", lambda d: "not step numbers" in status_of(d))
    assert '"abc"' in status_of(browser) and nodes(browser)["2"] == "undecided"
    browser.get("about:blank")
    browser.get(f"{ring}#path=0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0")
    wait(browser, "the steps that are there", lambda d: "first 21 steps shown" in status_of(d))
    assert path_of(browser) == ".".join(["0"] * 21)
    assert "over" in browser.find_element("id", "step").text


def test_a_nodes_words_at_the_edge_are_not_cut_off(browser: Any) -> None:
    """The student's ring of 4: P4 and P2 stand at the box's left and right edges, and
    their long variables (announcement = elected(P2)) beside them stay in view."""
    with serving(make_lab(HASTY)) as url:
        open_lab(browser, url, "0.0.0.0.0.0.0.0")
        outside = browser.execute_script(
            """
            const svg = document.getElementById('network');
            const view = svg.viewBox.baseVal, out = [];
            for (const t of svg.querySelectorAll('g.node text')) {
              const b = t.getBBox();
              if (b.x < view.x || b.x + b.width > view.x + view.width) out.push(t.textContent);
            }
            return out;"""
        )
        assert outside == []


def test_a_restart_clicked_brings_the_node_back_marked(browser: Any) -> None:
    """--restarts: crash P5 while P2's election is on its way, then restart it."""
    with serving(make_lab(RING, crashes=1, restarts=True)) as url:
        open_lab(browser, url)
        assert "▲ restart" in browser.find_element("id", "legend").text
        move(browser, "start", 2).click()
        ready(browser, "0")
        move(browser, "crash", 5).click()
        wait(browser, "the crash", lambda d: nodes(d)["5"] == "crashed")
        move(browser, "restart", 5).click()
        wait(browser, "the restart", lambda d: nodes(d)["5"] == "undecided")
        marks = [
            t.get_attribute("textContent")
            for t in browser.find_elements("css selector", "#diagram text.dmark")
        ]
        assert "✖crash" in marks and "▲restart" in marks  # (each with its words, for a title)
        assert "P5 recovers" in browser.find_element("id", "narration").text


def test_keys_pressed_faster_than_the_page_draws_take_a_step_each(browser: Any, ring: str) -> None:
    """Five presses of 1 in a row (far faster than a request and a redraw): five steps,
    each the first move of the state the one before it drew."""
    open_lab(browser, ring)
    browser.find_element("tag name", "body").send_keys("11111")
    wait(
        browser,
        "the fifth step",
        lambda d: d.find_element("id", "step").get_attribute("data-step") == "5",
    )
    assert path_of(browser) == "0.0.0.0.0"


def viewport(driver: Any, width: int, height: int) -> None:
    """The page's viewport (not the window's): a 1080-pixel screen less the browser's bars
    is 937 pixels high."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def test_at_1920_by_937_nothing_needed_is_below_the_fold(browser: Any, ring: str) -> None:
    """The projector's screen with the browser's bars: the network, the whole space-time
    diagram (its last process's line too), the moves, the checks and the story all in
    view, with no scrolling of the page or the diagram."""
    viewport(browser, 1920, 937)
    try:
        open_lab(browser, ring, ".".join(["0"] * 21))  # the whole run: every row busy
        below = browser.execute_script(
            """
            const fold = window.innerHeight, out = [];
            if (document.documentElement.scrollHeight > fold) out.push('the page scrolls');
            const box = document.getElementById('diagram-box');
            if (box.scrollHeight > box.clientHeight) out.push('the diagram scrolls');
            const seen = box.getBoundingClientRect();
            const lines = [...document.querySelectorAll('#diagram line.lifeline')];
            for (const line of lines) {
              const r = line.getBoundingClientRect();
              if (r.bottom > seen.bottom || r.bottom > fold) out.push('a lifeline below');
            }
            for (const id of ['network', 'moves', 'checks', 'findings', 'narration', 'status']) {
              const r = document.getElementById(id).getBoundingClientRect();
              if (r.bottom > fold + 0.5) out.push(id + ' ends at ' + r.bottom);
            }
            return out;"""
        )
        assert below == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_in_a_tree_messages_in_flight_cover_no_nodes_words(browser: Any) -> None:
    """The tree election on examples/tree.toml: in every state of its longest run, no
    message box in flight overlaps a node's circle or words."""
    lab = make_lab(ROOT / "examples" / "tree.toml")
    run = next(f for f in lab.findings if f["name"] == "max")["path"].split(".")
    with serving(lab) as url:
        open_lab(browser, url)
        covered = []
        for k in range(1, len(run) + 1):
            path = ".".join(run[:k])
            browser.execute_script("location.hash = '#path=' + arguments[0]", path)
            ready(browser, path)
            covered += browser.execute_script(
                """
                const meet = (a, b) => a.left < b.right && b.left < a.right &&
                                       a.top < b.bottom && b.top < a.bottom;
                const words = [...document.querySelectorAll(
                  '#network g.node text, #network g.node circle')];
                const out = [];
                for (const box of document.querySelectorAll('#network g.inflight')) {
                  const r = box.getBoundingClientRect();
                  for (const w of words)
                    if (meet(r, w.getBoundingClientRect()))
                      out.push(arguments[0] + ': ' + box.textContent + ' on ' + w.textContent);
                }
                return out;""",
                path,
            )
        assert covered == []


def test_a_service_config_says_its_rules_and_shows_each_lease(browser: Any) -> None:
    """examples/service/cluster.toml: the page says it steps the service's rules, and each
    node shows its lease and what its state file keeps."""
    with serving(make_service_lab(SERVICE, crashes=1)) as url:
        open_lab(browser, url)
        rules = browser.find_element("id", "rules")
        assert rules.is_displayed() and "as `ringleader node` runs it" in rules.text
        words = browser.find_element("css selector", "#network g.node[data-node='3']").text
        assert "lease = none" in words and "kept = " in words
        buttons = browser.find_elements("css selector", "#moves button.move")
        kinds = {b.get_attribute("data-kind") for b in buttons}
        assert {"deliver", "crash"} <= kinds and "start" not in kinds
