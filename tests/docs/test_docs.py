"""The README and the docs, executed: every command and program they show runs here, and
what they show it printing is checked (``tests/docblocks.py`` says how).

Also: the CLI reference shows every command's ``--help`` (checked like any output), the
config reference has every key of the schema with its default, the README's set-up
commands are the ones CI runs, the README's links lead somewhere, the index leads to
every page of the site, and a cross-reference in a docstring that leads nowhere fails
the docs' build.  The figures quoted in the prose: ``test_figures.py``.
"""

from __future__ import annotations

import argparse
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ringleader.cli._parser import build_parser
from ringleader.topologies import _schema as schema
from tests.docblocks import (
    MARKERS,
    ROOT,
    Block,
    MarkerError,
    PageRun,
    check,
    check_json,
    check_text,
    copy_repository,
    pages,
    parse_marker,
    read_page,
)

#: How long one block may run (a page's earlier blocks run first, each with as long).
BLOCK_TIMEOUT = 240.0
#: Names of languages that would hide a command or a program from the test: write sh or
#: python (and a fence with no language at all says nothing: text, toml …).
HIDDEN = {"", "bash", "shell", "console", "shell-session", "zsh", "py", "python3", "pycon"}


def _collect() -> Iterator[Any]:
    for path in pages():
        name = path.relative_to(ROOT).as_posix()
        try:
            blocks = read_page(path)
        except MarkerError as exc:
            yield pytest.param(name, -1, str(exc), id=f"{name}:markers")
            continue
        for index, block in enumerate(blocks):
            if not block.runnable:
                continue
            marks = [pytest.mark.slow] if block.marker("slow") else []
            yield pytest.param(name, index, "", id=block.where, marks=marks)


@pytest.fixture(scope="session")
def page_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, PageRun]]:
    runs: dict[str, PageRun] = {}
    yield runs
    for run in runs.values():
        shutil.rmtree(run.scratch, ignore_errors=True)


@pytest.mark.timeout(900)
@pytest.mark.parametrize(("page", "index", "error"), list(_collect()))
def test_block(
    page: str,
    index: int,
    error: str,
    page_runs: dict[str, PageRun],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    assert not error, error
    if page not in page_runs:
        scratch = tmp_path_factory.mktemp(re.sub(r"\W", "-", page))
        page_runs[page] = PageRun(read_page(ROOT / page), copy_repository(scratch))
    run = page_runs[page]
    block = run.blocks[index]
    skip = block.marker("skip")
    if skip:
        pytest.skip(f"{block.where}: {skip.why}")
    for ran, outcome in run.through(index, BLOCK_TIMEOUT):
        problem = check(ran, outcome)
        assert problem is None, problem


def test_every_block_says_what_it_is() -> None:
    """A fence names its language, and a command or program is ``sh`` or ``python``, so
    that no command escapes being run."""
    untold = [
        f"{block.where}: {block.lang or 'no language'}"
        for path in pages()
        for block in _all_blocks(path)
        if block.lang in HIDDEN
    ]
    assert not untold, f"say sh, python, text, json, toml …, not {sorted(HIDDEN)}: {untold}"


def _all_blocks(path: Path) -> Iterator[Block]:
    try:
        blocks = read_page(path)
    except MarkerError:
        return  # test_block reports it
    for block in blocks:
        yield block
        if block.output is not None:
            yield block.output


# --- the checker itself -------------------------------------------------------------------


def test_shown_text_checks_figures_not_timings() -> None:
    shown = "Leader: node 9; epoch 1\nMessages: 20 …\nTime: election 3.7 ms\n…\n"
    printed = "Leader: node 9; epoch 1\nMessages: 20 (elected 7)\nTime: election 12 ms\na\nb\n"
    assert check_text(shown, printed) is None
    assert check_text(shown, printed.replace("20", "21")) is not None
    assert check_text(shown, printed.replace("node 9", "node 8")) is not None
    assert check_text("one\n", "one\ntwo\n") is not None  # a line printed, not shown


def test_shown_json_checks_values_not_timings() -> None:
    shown = '{"leader": 9, "elapsed_s": 0.1, "nodes": [{"id": 4}, "…"], "x": "…"}'
    assert (
        check_json(shown, '{"leader": 9, "elapsed_s": 2.5, "nodes": [{"id": 4}, 5], "x": 1}')
        is None
    )
    assert check_json(shown, '{"leader": 8, "elapsed_s": 0.1, "nodes": [{"id": 4}], "x": 1}')
    assert check_json(shown, '{"leader": 9, "elapsed_s": 0.1, "nodes": [], "x": 1}')
    assert check_json('{"a": 1}\n…\n', '{"a": 1}\n{"b": 2}\n') is None


def test_markers_are_precise() -> None:
    smaller = parse_marker("smaller (a quick run) `--nodes 1000` → `--nodes 10`", "x")
    assert smaller.replacements == (("--nodes 1000", "--nodes 10"),)
    assert parse_marker("exit 2", "x").status == 2
    assert parse_marker("skip (needs root (for namespaces))", "x").why
    for wrong in ("skip", "smaller (why)", "smaller (why) --nodes 10", "exit two", "later (x)"):
        with pytest.raises(MarkerError):
            parse_marker(wrong, "x")
    assert set(MARKERS) == {"skip", "smaller", "exit", "slow"}


# --- the references cannot drift ------------------------------------------------------------


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(actions[0].choices)


def test_the_cli_reference_shows_every_commands_help() -> None:
    """Each ``ringleader CMD --help`` block's output is checked by test_block; here: that
    there is one for every command, so a new command or option cannot go undocumented."""
    blocks = read_page(ROOT / "docs/reference/cli.md")
    shown = {
        b.text.strip() for b in blocks if b.lang == "sh" and b.output is not None and not b.markers
    }
    wanted = ["ringleader --help", *(f"ringleader {c} --help" for c in _commands(build_parser()))]
    missing = [command for command in wanted if command not in shown]
    assert not missing, f"docs/reference/cli.md: add a section with its output for {missing}"


def _config_rows() -> dict[str, list[str]]:
    text = (ROOT / "docs/reference/config.md").read_text(encoding="utf-8")
    section = text.split("## Every key", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        key = re.fullmatch(r"`([\w.\[\]]+)`", cells[0]) if line.startswith("|") else None
        if key:
            rows[key[1]] = cells[1:]
    return rows


def _default(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def test_the_config_reference_has_every_key_and_its_default() -> None:
    rows = _config_rows()
    keys = {
        *schema.KEYS,
        *(f"nodes[].{k}" for k in schema.NODE_KEYS),
        *(f"faults[].{k}" for k in schema.FAULT_KEYS),
    } - {"nodes", "faults"}
    assert set(rows) >= keys, f"not in docs/reference/config.md: {sorted(keys - set(rows))}"
    stray = set(rows) - keys - {"nodes", "faults"}
    assert not stray, f"docs/reference/config.md documents keys the schema lacks: {stray}"
    defaults = {
        **schema.ALGORITHM_DEFAULTS,
        **schema.DETECTOR_DEFAULTS,
        "timeout": schema.DEFAULT_TIMEOUT,
        "transport": schema.TRANSPORT_NAMES[0],
        "mode": schema.MODES[0],
        "security": schema.SECURITY[0],
        "faults[].after": schema.FAULT_AFTER[0],
    }
    for key, value in defaults.items():
        assert f"`{_default(value)}`" in rows[key][0], (
            f"docs/reference/config.md: {key}'s default is {_default(value)}, "
            f"the page says {rows[key][0]!r}"
        )
    text = (ROOT / "docs/reference/config.md").read_text(encoding="utf-8")
    assert f"{schema.MAX_SETTING:g}" in text  # the longest setting, a day


# --- the README ------------------------------------------------------------------------------


def test_the_readmes_set_up_commands_are_what_ci_runs() -> None:
    """``.ci/run`` runs the README's two set-up commands (with its own venv's name)."""
    setup = next(b for b in read_page(ROOT / "README.md") if b.lang == "sh")
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8").replace('"$venv', '".venv')
    ci = ci.replace(" --quiet", "").replace('"', "")
    commands = [c.strip() for line in setup.text.splitlines() for c in line.split("&&")]
    assert commands, "the README's first sh block is its set-up"
    for command in commands:
        if command.startswith("python3 -m venv"):
            continue  # CI makes its venv afresh under another name
        assert command in ci, f".ci/run does not run the README's {command!r}"


def test_the_readme_stays_short_and_its_links_lead_somewhere() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200, "the README is a front page: move the rest to docs/"
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        assert (ROOT / target).exists(), f"README.md links to {target}, which does not exist"


# --- the index leads to every page ---------------------------------------------------------


def _nav() -> list[tuple[tuple[str, ...], str]]:
    """Every page of mkdocs.yml's navigation, with the sections it is in."""
    yaml = pytest.importorskip("yaml")

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !!python/name …
    nav = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)["nav"]

    def walk(items: list[Any], section: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
        for item in items:
            if isinstance(item, str):
                yield section, item
                continue
            for title, value in item.items():
                if isinstance(value, str):
                    yield section, value
                else:
                    yield from walk(value, (*section, title))

    return list(walk(nav, ()))


def _links(page: str) -> set[str]:
    """The pages ``page`` links to, as paths under docs/."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    found = set()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target or not target.endswith(".md"):
            continue
        parts: list[str] = []
        for part in [*Path(page).parent.parts, *target.split("/")]:
            if part == "..":
                parts = parts[:-1]
            elif part not in ("", "."):
                parts.append(part)
        found.add("/".join(parts))
    return found


def test_the_index_leads_to_every_page() -> None:
    """Every page of the site's navigation is linked from the index; a page of a section
    within a section (the Python API's) may be reached instead through the pages of its
    own section the index links (the API's contents)."""
    nav = _nav()
    reached = _links("index.md")
    changed = True
    while changed:  # within a section, a page the index leads to leads on
        changed = False
        for section, page in nav:
            if page not in reached:
                continue
            for linked in _links(page):
                if linked not in reached and (section, linked) in nav and len(section) > 1:
                    reached.add(linked)
                    changed = True
    missing = [page for _, page in nav if page != "index.md" and page not in reached]
    assert not missing, f"docs/index.md does not lead to {missing}"


# --- the docs' build ------------------------------------------------------------------------


def test_a_cross_reference_to_nothing_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    """Docstrings keep Sphinx roles; the docs' build resolves each (docs/hooks/crossrefs.py)
    and a role that names nothing is a warning, which fails ``mkdocs build --strict``."""
    griffe = pytest.importorskip("griffe", reason="the docs extra: pip install -e '.[docs]'")
    import importlib.util

    spec = importlib.util.spec_from_file_location("crossrefs", ROOT / "docs/hooks/crossrefs.py")
    assert spec is not None and spec.loader is not None
    crossrefs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(crossrefs)
    package = griffe.load("ringleader.actors.core", search_paths=[ROOT])
    election = package["Election"]
    good = crossrefs.convert(election, "see :class:`~ringleader.actors.Member` and :meth:`bound`")
    assert "[`Member`][ringleader.actors.Member]" in good
    assert "[`bound()`][ringleader.actors.core._election.Election.bound]" in good
    assert not [r for r in caplog.records if r.levelname == "WARNING"]
    crossrefs.convert(election, "see :class:`~ringleader.actors.NoSuchThing` and :func:`nowhere`")
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("NoSuchThing" in w for w in warnings), warnings
    assert any("nowhere" in w for w in warnings), warnings
