"""Your own election (``algorithm = "module:Class"``): in run, --simulate and explore, with
its own bound(); anything wrong with it is one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ringleader.cli import main
from ringleader.topologies import ConfigError, Overrides, load_config
from tests.paths import ROOT

TUTORIAL = ROOT / "examples" / "your_algorithm"


@pytest.fixture
def tutorial(tmp_path: Path) -> Path:
    """A copy of the tutorial's folder: a config next to hasty.py and patient.py."""
    folder = tmp_path / "mine"
    shutil.copytree(TUTORIAL, folder)
    return folder


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_explore_finds_the_hasty_elections_two_leaders(
    tutorial: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(
        capsys, "explore", str(tutorial / "ring.toml"), "--json", "--out", str(tutorial / "o")
    )
    data = json.loads(out)
    assert code == 1
    assert data["algorithm"] == "hasty" and data["custom"]
    first = data["violations"][0]
    assert first["kind"] == "two_leaders" and first["steps"] == 3


def test_the_patient_election_passes_and_meets_its_own_bound(
    tutorial: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(
        capsys,
        "explore",
        str(tutorial / "ring.toml"),
        "--algorithm",
        "patient:Patient",
        "--json",
        "--out",
        str(tutorial / "o"),
    )
    data = json.loads(out)
    assert code == 0 and data["ok"] and data["complete"]
    assert data["bound"] == {"formula": "n(n+1)/2+n", "value": 14, "exact": False, "held": True}


@pytest.mark.parametrize("simulate", [False, True])
def test_run_and_simulate_run_your_election(
    tutorial: Path, capsys: pytest.CaptureFixture[str], simulate: bool
) -> None:
    argv = ["run", str(tutorial / "ring.toml"), "--algorithm", "patient:Patient", "--json"]
    argv += ["--transport", "inproc"] + (["--simulate"] if simulate else [])
    code, out, err = run_cli(capsys, *argv)
    report = json.loads(out)
    assert code == 0, err
    assert report["algorithm"] == "patient" and report["leader"] == 4
    assert report["messages"]["total"] == 11


def test_processes_import_your_election_from_next_to_the_config(tutorial: Path) -> None:
    config = tutorial / "ring.toml"
    text = config.read_text().replace('"hasty:Hasty"', '"patient:Patient"')
    config.write_text(text + 'mode = "processes"\ntransport = "ipc"\nrun_for = 0.2\n')
    done = subprocess.run(
        [sys.executable, "-m", "ringleader", "run", str(config), "--json"],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tutorial.parent,  # not the config's folder: the nodes must find it anyway
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["algorithm"] == "patient" and report["leader"] == 4


def test_a_file_path_names_your_election_too(tutorial: Path) -> None:
    config = load_config(
        tutorial / "ring.toml", Overrides(algorithm=str(tutorial / "patient.py") + ":Patient")
    )
    assert config.algorithm_class.name == "patient"
    assert config.algorithm.endswith("patient.py:Patient")


@pytest.mark.parametrize(
    ("module", "spec", "said"),
    [
        ("", "nowhere:Mine", "cannot import nowhere"),
        ("x = 1\n", "mine:Mine", "has no Mine"),
        ("class Mine:\n    pass\n", "mine:Mine", "is not an Election class"),
        ("def broken(:\n", "mine:Mine", "SyntaxError"),
        ("import not_installed_anywhere\n", "mine:Mine", "No module named"),
        (
            "from ringleader.actors import Election, Message\n"
            "class Hi(Message):\n    kind = 'hi'\n"
            "class Mine(Election):\n    name = 'mine'\n    title = 'mine'\n"
            "    messages = (Hi,)\n    def on_hi(self, m, s): pass\n",
            "mine:Mine",
            "has no bound()",
        ),
        ("", "no-colon", "unknown algorithm"),
    ],
)
def test_a_bad_election_is_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    module: str,
    spec: str,
    said: str,
) -> None:
    (tmp_path / "mine.py").write_text(module)
    config = tmp_path / "c.toml"
    config.write_text(f'topology = "unidirectional_ring"\nalgorithm = "{spec}"\nnodes = 3\n')
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)
    sys.modules.pop("mine", None)
    code, _, err = run_cli(capsys, "explore", str(config), "--out", str(tmp_path / "o"))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and said in err and "Traceback" not in err
    sys.modules.pop("mine", None)


def test_a_bad_algorithm_on_the_command_line_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        capsys, "check", str(TUTORIAL / "ring.toml"), "--algorithm", "nowhere:Mine"
    )
    assert code == 2
    assert err.startswith("ringleader check: error: command line: --algorithm: cannot import")


#: A student's Chang–Roberts without the participant flag: it always replaces a smaller
#: election by its own.  Its messages are Chang–Roberts'; it is not Chang–Roberts.
NO_FLAG = """
from ringleader.actors import ChangRoberts, Elected, ElectionMessage


class NoFlag(ChangRoberts):
    def on_election(self, message, sender):
        if message.candidate > self.me:
            self.send(self.successor, message)
        elif message.candidate < self.me:
            self.send(self.successor, ElectionMessage(self.me))
        else:
            self.decide(self.me)
            self.announce(Elected(self.me))
"""


@pytest.mark.parametrize("how", ["--simulate", "explore"])
def test_the_replay_tells_your_algorithm_as_yours_not_as_the_notes_one(
    how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "no_flag.py").write_text(NO_FLAG)
    config = tmp_path / "ring.toml"
    config.write_text(
        'topology = "unidirectional_ring"\nalgorithm = "no_flag:NoFlag"\nnodes = 4\n'
        "initiators = [1, 2, 3, 4]\n"
    )
    trace = tmp_path / "run.jsonl"
    if how == "explore":
        run_cli(capsys, "explore", str(config), "--out", str(tmp_path / "runs"))
        trace = tmp_path / "runs" / "max.jsonl"
    else:
        code, out, _ = run_cli(capsys, "run", str(config), "--simulate", "--trace", str(trace))
        # Without the flag every smaller bid is replaced: more messages than the notes
        # give, a problem (exit status 1), and the trace to see why.
        assert code == 1 and "38 messages, but the notes give" in out
    header = json.loads(trace.read_text().splitlines()[0])
    assert header["algorithm"] == "no_flag:NoFlag" and header["title"] == "NoFlag"
    code, out, _ = run_cli(capsys, "replay", str(trace), "--no-step")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("NoFlag (no_flag:NoFlag), an algorithm the notes do not tell")
    assert not any("Chang–Roberts" in line or "participant" in line.split(";")[0] for line in lines)
    # what it did, and its variables as recorded: its flag, never reset, says True
    assert any("receives election(" in line for line in lines)
    assert any("participant = True" in line for line in lines), lines
