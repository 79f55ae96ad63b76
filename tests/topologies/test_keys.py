"""Secret files other users may read are refused, with the fix in one line: the cluster
secret (``secret_file``), CURVE secret keys (``keys``) and this user's local secret."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import ringleader
from ringleader.cli import main
from ringleader.errors import ConfigError
from ringleader.topologies import make_keys, node_secret
from ringleader.topologies._keys import local_secret
from ringleader.topologies._secrets import local_secret_path

SECRET = "0123456789abcdef0123456789abcdef\n"
MESH = 'topology = "full_mesh"\n'


def config_file(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "cluster.toml"
    path.write_text(MESH + "nodes = 3\n" + extra)
    return path


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o444])
def test_a_secret_file_others_may_read_is_refused_saying_how_to_fix_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    secret = tmp_path / "cluster.secret"
    secret.write_text(SECRET)
    secret.chmod(mode)
    path = config_file(tmp_path, 'secret_file = "cluster.secret"\n')
    with pytest.raises(ConfigError) as info:
        ringleader.load_config(path).secret()
    assert str(info.value) == (
        f"{path}: secret_file: {secret} can be read by other users (mode {mode:04o}): anyone "
        f"who reads it can sign frames as a member (chmod 600 {secret})"
    )
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"chmod 600 {secret}" in err
    secret.chmod(0o600)
    assert main(["run", str(path)]) == 0


@pytest.mark.parametrize("mode", [0o600, 0o400, 0o620, 0o602])
def test_a_secret_file_only_its_owner_may_read_is_accepted(tmp_path: Path, mode: int) -> None:
    secret = tmp_path / "cluster.secret"
    secret.write_text(SECRET)
    secret.chmod(mode)
    config = ringleader.load_config(config_file(tmp_path, 'secret_file = "cluster.secret"\n'))
    assert config.secret() == SECRET.strip().encode()


def test_a_curve_secret_key_others_may_read_is_refused(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    written = make_keys(keys, [1, 2, 3])
    secret_keys = [p for p, _ in written if p.name.endswith(".key_secret")]
    assert secret_keys and all(p.stat().st_mode & 0o777 == 0o600 for p in secret_keys)
    assert (keys / "secret").stat().st_mode & 0o777 == 0o600
    path = config_file(
        tmp_path, f'security = "curve"\nkeys = "keys"\nsecret_file = "{keys / "secret"}"\n'
    )
    config = ringleader.load_config(path)
    assert config.curve_keys([1, 2, 3]) is not None
    (keys / "node-2.key_secret").chmod(0o640)
    with pytest.raises(ConfigError) as info:
        config.curve_keys([1, 2, 3])
    own = keys / "node-2.key_secret"
    assert str(info.value) == (
        f"{path}: keys: {own} can be read by other users (mode 0640): anyone who reads it "
        f"can sign frames as a member (chmod 600 {own})"
    )
    assert config.curve_keys([1, 3]) is not None  # only the secret keys held here count


def test_this_users_local_secret_is_refused_if_others_may_read_it(tmp_path: Path) -> None:
    config = ringleader.load_config(config_file(tmp_path, ""))
    first = node_secret(config)  # made with mode 0600
    path = local_secret_path()
    assert path.stat().st_mode & 0o777 == 0o600
    assert local_secret(path) == first
    path.chmod(0o644)
    with pytest.raises(ConfigError, match=f"chmod 600 {path}"):
        node_secret(config)


def test_this_users_local_secret_is_warned_of_once_a_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A tool reads the secret each time it opens a line to the nodes (``ringleader
    member`` did, looking again and again): the warning is said once."""
    monkeypatch.delenv("RINGLEADER_SECRET", raising=False)
    config = ringleader.load_config(config_file(tmp_path, ""))
    with caplog.at_level(logging.WARNING):
        secrets = {node_secret(config) for _ in range(3)}
    said = [r for r in caplog.records if "no secret_file" in r.getMessage()]
    assert len(secrets) == 1 and len(said) == 1
    assert str(local_secret_path()) in said[0].getMessage()
