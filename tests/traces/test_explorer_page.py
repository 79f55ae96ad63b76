"""``ringleader explore --html``: walking the explored graph by hand in a real headless
browser (Debian's chromium and its driver), as ``test_html_page.py`` does for traces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ringleader.actors.exploration import Options
from ringleader.cli import main
from ringleader.cluster import explore_config
from ringleader.topologies import load_config
from ringleader.traces import explorer_page
from tests.paths import ROOT

BULLY = 'topology = "full_mesh"\nalgorithm = "bully"\ninitiators = [1]\nnodes = 3\n'


def steps(driver: Any) -> dict[str, Any]:
    """The enabled steps' buttons by their text (without "(sends n)")."""
    found = {}
    for button in driver.find_elements("css selector", "#steps button"):
        found[button.text.split(" (sends")[0]] = button
    return found


def nodes(driver: Any) -> dict[str, tuple[str, str, str]]:
    rows = driver.find_elements("css selector", "#nodes tr[data-node]")
    return {
        row.get_attribute("data-node"): (
            row.get_attribute("data-state"),
            row.get_attribute("data-elected"),
            row.get_attribute("data-epoch"),
        )
        for row in rows
    }


def check(driver: Any, name: str) -> str:
    element = driver.find_element("css selector", f"#checks li[data-check={name}]")
    return str(element.get_attribute("data-status"))


def state(driver: Any) -> int:
    return int(driver.find_element("id", "state").get_attribute("data-state"))


def sent(driver: Any) -> int:
    return int(driver.find_element("id", "sent").get_attribute("data-count"))


def test_walking_to_two_bully_leaders_by_hand(browser: Any, tmp_path: Path) -> None:
    config = tmp_path / "bully.toml"
    config.write_text(BULLY)
    page = tmp_path / "bully.html"
    code = main(
        [
            "explore",
            str(config),
            "--timers",
            "any",
            "--max-states",
            "2000",
            "--out",
            str(tmp_path / "o"),
            "--html",
            str(page),
            "--json",
        ]
    )
    assert code == 1
    browser.get(page.as_uri())
    assert state(browser) == 0 and sent(browser) == 0
    assert list(steps(browser)) == ["P1 wakes up (initiates)"]
    assert nodes(browser) == {n: ("undecided", "", "1") for n in ("1", "2", "3")}
    assert check(browser, "two_leaders") == "ok" and check(browser, "end") == "pending"

    steps(browser)["P1 wakes up (initiates)"].click()
    assert sent(browser) == 2
    flight = browser.find_element("id", "flight").text
    assert "P1 → P2: election()" in flight and "P1 → P3: election()" in flight
    assert "P1's timer answer fires" in steps(browser)  # --timers any: T may fire now

    steps(browser)["deliver election() from P1 to P3"].click()
    assert nodes(browser)["3"] == ("leader", "3", "1")
    assert check(browser, "two_leaders") == "ok"
    steps(browser)["P1's timer answer fires"].click()
    assert nodes(browser)["1"] == ("leader", "1", "1")
    assert check(browser, "two_leaders") == "violated"
    assert "P1 and P3 lead epoch 1" in browser.find_element("id", "checks").text
    assert len(browser.find_elements("css selector", "#path li")) == 3
    assert sent(browser) == 5

    browser.find_element("id", "back").click()
    assert check(browser, "two_leaders") == "ok"
    assert nodes(browser)["1"] == ("undecided", "", "1")
    assert len(browser.find_elements("css selector", "#path li")) == 2

    browser.find_element("id", "restart").click()
    assert state(browser) == 0

    browser.find_element("css selector", "#runs button[data-run=two_leaders]").click()
    assert check(browser, "two_leaders") == "violated"
    assert len(browser.find_elements("css selector", "#path li")) == 3


def test_the_runs_the_search_found_end_where_it_said(browser: Any, tmp_path: Path) -> None:
    exploration = explore_config(load_config(ROOT / "examples" / "chang_roberts_table.toml"))
    page = tmp_path / "cr.html"
    page.write_text(explorer_page(exploration, title="Chang–Roberts"), encoding="utf-8")
    browser.get(page.as_uri())
    browser.find_element("css selector", "#runs button[data-run=max]").click()
    assert state(browser) == exploration.paths["max"].state
    assert sent(browser) == 20  # n(n+1)/2 + n for n = 5
    assert check(browser, "end") == "ok"
    assert steps(browser) == {}
    assert "Nothing more can happen" in browser.find_element("id", "steps").text
    assert set(nodes(browser).values()) == {("not_leader", "5", "1"), ("leader", "5", "1")}


def test_a_crash_and_an_undecided_end_by_hand(browser: Any, tmp_path: Path) -> None:
    config = load_config(ROOT / "examples" / "ring.toml")
    exploration = explore_config(config, Options(crashes=1, crashable=frozenset({5})))
    page = tmp_path / "ring.html"
    page.write_text(explorer_page(exploration), encoding="utf-8")
    browser.get(page.as_uri())
    browser.find_element("css selector", "#runs button[data-run=undecided]").click()
    assert check(browser, "end") == "violated"
    assert nodes(browser)["5"][0] == "crashed"
    assert "never decided" in browser.find_element("id", "checks").text


def test_a_large_exploration_is_cut_and_says_so(tmp_path: Path) -> None:
    exploration = explore_config(load_config(ROOT / "examples" / "chang_roberts_table.toml"))
    assert exploration.states > 50
    text = explorer_page(exploration, limit=50)
    assert f"This page holds the first 50 of the {exploration.states:,} states" in text
    data = json.loads(text.split('id="graph">', 1)[1].split("</script>", 1)[0])
    assert len(data["states"]) == 50
    targets = {t for s in data["states"] for _, t, _ in s["e"]}
    assert -1 in targets and max(targets) < 50
    assert "<script src" not in text and "http://" not in text.replace(
        "http://www.w3.org/2000/svg", ""
    )


def test_the_network_draws_the_links_and_what_is_in_flight_on_each(
    browser: Any,
    tmp_path: Path,
) -> None:
    exploration = explore_config(load_config(ROOT / "examples" / "chang_roberts_table.toml"))
    page = tmp_path / "cr.html"
    page.write_text(explorer_page(exploration, title="Chang–Roberts"), encoding="utf-8")
    browser.get(page.as_uri())
    links = browser.find_elements("css selector", "#topology line.link")
    # A one-way ring of 5: five links, each with its arrowhead.
    assert sorted(link.get_attribute("data-link") for link in links) == sorted(
        f"{a}-{b}" for a, b in exploration.model.links
    )
    assert len(links) == 5 and all(link.get_attribute("marker-end") for link in links)
    assert browser.find_elements("css selector", "#topology text.inflight") == []
    steps(browser)["P5 wakes up (initiates)"].click()
    flying = browser.find_elements("css selector", "#topology text.inflight")
    assert [(f.get_attribute("data-link"), f.text) for f in flying] == [("5-4", "election(P5)")]
    circle = browser.find_element("css selector", '#topology circle[data-node="5"]')
    assert circle.get_attribute("fill") == "#ffffff"  # no leader yet


def test_a_two_way_ring_has_one_line_per_link(browser: Any, tmp_path: Path) -> None:
    config = tmp_path / "hs.toml"
    config.write_text(
        'topology = "bidirectional_ring"\nalgorithm = "hirschberg_sinclair"\n'
        "initiators = [3]\nnodes = 3\n"
    )
    page = tmp_path / "hs.html"
    main(["explore", str(config), "--out", str(tmp_path / "o"), "--html", str(page), "--json"])
    browser.get(page.as_uri())
    links = browser.find_elements("css selector", "#topology line.link")
    assert len(links) == 3 and not any(link.get_attribute("marker-end") for link in links)


def test_an_end_state_shows_every_check_it_fails() -> None:
    """The hasty ring's nodes name different leaders: neither do they agree, nor does the
    largest win, and the page's end state says both."""
    exploration = explore_config(load_config(ROOT / "examples" / "your_algorithm" / "ring.toml"))
    text = explorer_page(exploration)
    assert text.count('"wrong":"disagreement: ') == exploration.end_states == 15
    assert "; wrong_leader: P1 names P2, P2 names P3, P4 names P2; the largest is P4" in text
