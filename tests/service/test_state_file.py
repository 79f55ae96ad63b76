"""A node's state file (``ringleader/service/_state_file.py``): where it lives, what a
first start, a restart and a start over do, and one clear line for every way it can be
unusable — never a silent reset."""

from __future__ import annotations

import errno
import json
import os
import zlib
from pathlib import Path

import pytest

from ringleader.actors.crashes import Configuration
from ringleader.errors import ConfigError, StateError
from ringleader.service import StateFile, default_state_dir, state_path
from ringleader.topologies import Config, load_config


def _config(tmp_path: Path, extra: str = "") -> Config:
    path = tmp_path / "cluster.toml"
    path.write_text(f'topology = "full_mesh"\nnodes = 3\n{extra}', encoding="utf-8")
    return load_config(path)


def _never() -> int:
    raise AssertionError("the clock was read: a restart must count, not look at the time")


def test_the_default_place_is_the_users_state_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert default_state_dir() == tmp_path / "xdg" / "ringleader"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_state_dir() == tmp_path / "home" / ".local" / "state" / "ringleader"


def test_one_file_per_cluster_and_node(tmp_path: Path) -> None:
    config = _config(tmp_path)
    assert state_path(config, 2) == default_state_dir() / "default" / "node-2" / "state.json"
    named = _config(tmp_path, 'cluster = "svc"\nstate_dir = "st"\n')
    assert state_path(named, 2) == tmp_path / "st" / "svc" / "node-2" / "state.json"
    odd = _config(tmp_path, 'cluster = "../a b"\n')
    name = state_path(odd, 1).parent.parent.name
    assert name.startswith("cluster-") and "/" not in name and " " not in name
    # More or fewer members, or other addresses: the same file (the epoch must grow
    # across such a restart too).
    bigger = (tmp_path / "big.toml").write_text('topology = "full_mesh"\nnodes = 5\n')
    assert bigger and state_path(load_config(tmp_path / "big.toml"), 2) == state_path(config, 2)


def test_state_dir_must_be_a_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="state_dir: 5 is not a directory name"):
        _config(tmp_path, "state_dir = 5\n")


def test_a_first_start_then_restarts_count_lives_and_keep_the_epoch(tmp_path: Path) -> None:
    config = _config(tmp_path)
    first = StateFile.open(config, 1, seed=lambda: 1000)
    assert (first.start, first.epoch, first.incarnation) == ("new", 0, 1000)
    first.save_epoch(7)
    first.save_epoch(5)  # never backwards
    assert first.epoch == 7
    first.close()
    again = StateFile.open(config, 1, seed=_never)
    assert (again.start, again.epoch, again.incarnation) == ("restored", 7, 1001)
    again.close()
    data = json.loads(state_path(config, 1).read_text())
    assert (data["epoch"], data["incarnation"], data["node"]) == (7, 1001, 1)
    assert oct(state_path(config, 1).stat().st_mode & 0o777) == "0o600"


def test_the_acknowledged_round_is_kept_and_an_old_file_reads_without_it(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    first = StateFile.open(config, 1, seed=lambda: 1000)
    assert first.acknowledged == (0, None)
    first.save(9, (7, 2))
    first.save(9, (5, 3))  # never an older round
    first.save_epoch(8)  # nor an older epoch
    assert (first.epoch, first.acknowledged) == (9, (7, 2))
    first.close()
    again = StateFile.open(config, 1, seed=_never)
    assert (again.epoch, again.acknowledged, again.incarnation) == (9, (7, 2), 1001)
    again.close()
    # A file of format 1 (before the acknowledged round was kept): its epoch, with a
    # leader not known, so that the node acknowledges none of that round.
    path = state_path(config, 1)
    fields = {"format": 1, "node": 1, "epoch": 12, "incarnation": 4}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    check = f"{zlib.crc32(text.encode()):08x}"
    path.write_text(json.dumps({**fields, "check": check}))
    old = StateFile.open(config, 1, seed=_never)
    assert (old.epoch, old.acknowledged, old.incarnation) == (12, (12, None), 5)
    old.close()
    assert json.loads(path.read_text())["format"] == 3  # written in the new format
    # An acknowledged round above the highest epoch seen cannot be.
    fields = {"format": 2, "node": 1, "epoch": 12, "acked": 15, "acked_leader": 3}
    fields["incarnation"] = 6
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    path.write_text(json.dumps({**fields, "check": f"{zlib.crc32(text.encode()):08x}"}))
    with pytest.raises(StateError, match="corrupt: acked 15 or acked_leader 3"):
        StateFile.open(config, 1, seed=_never)


def _write_fields(path: Path, fields: dict[str, object]) -> None:
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    path.write_text(json.dumps({**fields, "check": f"{zlib.crc32(text.encode()):08x}"}))


def test_the_configuration_is_kept_and_an_older_file_reads_as_the_config_files(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    first = StateFile.open(config, 1, seed=lambda: 1000)
    founding = first.configuration
    assert (founding.version, founding.voters, founding.learners) == (0, {1, 2, 3}, set())
    learner = founding.add(4, "tcp://127.0.0.1:7004", epoch=5)
    assert first.keep(learner)
    assert not first.keep(founding)  # never an older one
    first.close()
    again = StateFile.open(config, 1, seed=_never)
    assert again.configuration == learner  # kept across lives, with its address
    assert again.configuration.address(4) == "tcp://127.0.0.1:7004"
    again.close()
    path = state_path(config, 1)
    data = json.loads(path.read_text())
    assert (data["format"], data["configuration"]["learners"]) == (3, [4])
    # A file of format 2 (before the configuration was kept) reads as the config file's
    # list, version 0, and is written back in format 3.
    fields = {"format": 2, "node": 1, "epoch": 12, "acked": 11, "acked_leader": 3}
    _write_fields(path, {**fields, "incarnation": 6})
    old = StateFile.open(config, 1, seed=_never)
    assert (old.epoch, old.acknowledged, old.incarnation) == (12, (11, 3), 7)
    assert old.configuration == Configuration.founding([1, 2, 3], config.addresses)
    old.close()
    assert json.loads(path.read_text())["format"] == 3
    # Still at version 0, the configuration follows the config file: a rolling restart
    # with a fourth node changes it, as before.
    four = tmp_path / "four.toml"
    four.write_text('topology = "full_mesh"\nnodes = 4\n', encoding="utf-8")
    grown = StateFile.open(load_config(four), 1, seed=_never)
    assert (grown.configuration.version, grown.configuration.voters) == (0, {1, 2, 3, 4})
    grown.close()


def test_a_configuration_that_is_not_one_is_corrupt(tmp_path: Path) -> None:
    config = _config(tmp_path)
    StateFile.open(config, 1).close()
    path = state_path(config, 1)
    fields = {"format": 3, "node": 1, "epoch": 2, "acked": 2, "acked_leader": 1}
    bad = {"version": 1, "epoch": 2, "voters": [], "learners": [4]}
    _write_fields(path, {**fields, "incarnation": 3, "configuration": bad})
    with pytest.raises(StateError) as caught:
        StateFile.open(config, 1)
    text = _one_line(caught.value, path)
    assert "corrupt: configuration: a configuration needs at least one voter" in text


def test_a_second_process_with_the_same_state_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path)
    held = StateFile.open(config, 1)
    try:
        with pytest.raises(StateError, match="in use by another process") as caught:
            StateFile.open(config, 1)
        assert str(state_path(config, 1)) in str(caught.value)
    finally:
        held.close()
    StateFile.open(config, 1).close()  # free again


def _one_line(error: StateError, path: Path) -> str:
    text = str(error)
    assert "\n" not in text and text.startswith(str(path)), text
    return text


def test_a_missing_file_after_the_node_has_run_is_an_error(tmp_path: Path) -> None:
    config = _config(tmp_path)
    StateFile.open(config, 1).close()
    path = state_path(config, 1)
    path.unlink()
    with pytest.raises(StateError) as caught:
        StateFile.open(config, 1)
    text = _one_line(caught.value, path)
    assert "missing" in text and "--fresh-state" in text
    assert not path.exists()  # nothing was written in its place
    # Other nodes of the cluster start for the first time as usual.
    StateFile.open(config, 2).close()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("", "not a state file"),
        ("{", "not a state file"),
        ('{"format": 1}', "not a state file"),
        ('{"format": 1, "node": 1, "epoch": 9, "incarnation": 2, "check": "0"}', "check"),
        ('{"format": 7, "node": 1, "check": "0"}', "format 7, not 3"),
    ],
)
def test_a_corrupt_file_is_an_error(tmp_path: Path, content: str, words: str) -> None:
    config = _config(tmp_path)
    StateFile.open(config, 1).close()
    path = state_path(config, 1)
    path.write_text(content)
    with pytest.raises(StateError) as caught:
        StateFile.open(config, 1)
    text = _one_line(caught.value, path)
    assert "corrupt" in text and words in text and "--fresh-state" in text
    assert path.read_text() == content  # left as it was, for whoever looks at it


def test_a_file_of_another_node_or_format_is_corrupt(tmp_path: Path) -> None:
    config = _config(tmp_path)
    StateFile.open(config, 2).close()
    StateFile.open(config, 1).close()
    state_path(config, 1).write_bytes(state_path(config, 2).read_bytes())
    with pytest.raises(StateError, match="node 2's, not node 1's"):
        StateFile.open(config, 1)


def test_an_unwritable_state_is_an_error(tmp_path: Path) -> None:
    config = _config(tmp_path)
    StateFile.open(config, 1).close()
    path = state_path(config, 1)
    (path.parent / "state.json.tmp").mkdir()  # (root may write anywhere: not a mode)
    with pytest.raises(StateError) as caught:
        StateFile.open(config, 1)
    text = _one_line(caught.value, path)
    assert "cannot write it" in text
    # A state directory that cannot be made.
    blocked = _config(tmp_path, f'state_dir = "{tmp_path / "file"}"\n')
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(StateError, match="cannot create it"):
        StateFile.open(blocked, 1)


def test_a_write_that_fails_later_is_kept_as_the_failure(tmp_path: Path) -> None:
    config = _config(tmp_path)
    state = StateFile.open(config, 1)
    try:
        (state.path.parent / "state.json.tmp").mkdir()
        with pytest.raises(StateError, match="cannot write it"):
            state.save_epoch(3)
        assert state.epoch == 0 and isinstance(state.failure, StateError)
    finally:
        state.close()


def test_a_full_disk_says_to_free_space_not_to_fix_permissions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(tmp_path)
    state = StateFile.open(config, 1)
    try:

        def full(fd: int, data: bytes) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        with monkeypatch.context() as patch:
            patch.setattr(os, "write", full)
            with pytest.raises(StateError) as caught:
                state.save_epoch(3)
        message = str(caught.value)
        assert "No space left on device" in message
        assert "free some space on the disk" in message
        assert "readable and writable" not in message
    finally:
        state.close()


def test_fresh_starts_over_whatever_is_there(tmp_path: Path) -> None:
    config = _config(tmp_path)
    state = StateFile.open(config, 1, seed=lambda: 50)
    state.save_epoch(40)
    state.close()
    state_path(config, 1).write_text("garbage")
    over = StateFile.open(config, 1, fresh=True, seed=lambda: 70)
    assert (over.start, over.epoch, over.incarnation) == ("fresh", 0, 70)
    over.close()
    again = StateFile.open(config, 1, seed=_never)
    assert again.incarnation == 71
    again.close()
    # A readable file started over keeps counting its lives (only the epoch goes).
    counted = StateFile.open(config, 1, fresh=True, seed=lambda: 5)
    assert (counted.epoch, counted.incarnation) == (0, 72)
    counted.close()


def test_a_write_is_atomic_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    config = _config(tmp_path)
    state = StateFile.open(config, 1)
    try:
        state.save_epoch(12)
        assert sorted(p.name for p in state.path.parent.iterdir()) == ["state.json"]
        assert json.loads(state.path.read_text())["epoch"] == 12
    finally:
        state.close()
