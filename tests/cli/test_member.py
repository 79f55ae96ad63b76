"""``ringleader member add|remove``: its one-line refusals, before and without a running
cluster (the changes themselves: ``tests/system/test_membership.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ringleader.cli import main
from tests.nodes import write_config
from tests.paths import ROOT

MESH = 'topology = "full_mesh"\nalgorithm = "bully"\ntransport = "tcp"\n'


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RINGLEADER_SECRET", "ab" * 32)


@pytest.mark.usefixtures("secret")
def test_a_node_not_listed_in_the_config_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path / "c.toml", MESH, [1, 2, 3])
    code, out, err = cli(capsys, "member", "add", str(path), "--id", "7", "--json")
    assert code == 1
    assert json.loads(out) == {
        "changed": False,
        "change": "add",
        "id": 7,
        "refused": f"node 7 is not listed in {path}: add it there with spare = true (every "
        "node must know its address), then add it",
    }
    assert err.count("\n") == 1 and err.startswith("ringleader member add: refused: node 7")


@pytest.mark.usefixtures("secret")
def test_with_no_node_running_the_line_names_the_silent_and_asks_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path / "c.toml", MESH, [1, 2, 3])
    code, _, err = cli(capsys, "member", "remove", str(path), "--id", "2", "--timeout", "1")
    assert code == 1
    assert err == (
        "ringleader member remove: refused: no node answered (1, 2, 3): are they running, "
        "with this secret?\n"
    )


def test_member_needs_a_change_and_an_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path / "c.toml", MESH, [1, 2, 3])
    with pytest.raises(SystemExit) as exited:
        main(["member", "add", str(path)])
    assert exited.value.code == 2
    assert "--id" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "what"),
    [(["run"], "ringleader run"), (["explore"], "ringleader explore (without --service)")],
)
def test_a_run_of_the_notes_rules_refuses_a_spare_in_one_line(
    capsys: pytest.CaptureFixture[str], command: list[str], what: str
) -> None:
    code, _, err = cli(capsys, *command, str(ROOT / "examples" / "service" / "spare.toml"))
    assert code == 2 and err.count("\n") == 1
    assert f"nodes[3].spare: {what} elects among every node: a spare is for a service" in err
