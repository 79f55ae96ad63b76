"""``ringleader explore CONFIG --ray ADDRESS``: the partitioned search on a Ray cluster
finds what one worker finds; and what ``--ray`` cannot do is one line, exit status 2.

The cluster is a real one, started as a user starts it: ``ray start --head`` with two
CPUs (so two worker processes hold the parts), on loopback only, with its own temporary
directory, ports and token (``tests/ray_cluster.py``); none of its processes is left,
pass or fail.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ray_cluster import RAY, free_port, local_ray_cluster

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """A Ray cluster of two CPUs on loopback: its address, and the environment a
    command needs to join it."""
    if not RAY.exists():
        pytest.fail("Ray is not installed: pip install -e '.[test]' installs it")
    with local_ray_cluster(2) as (address, env):
        yield address, env


def _explore(env: dict[str, str], *argv: str) -> tuple[int, Any, str]:
    done = subprocess.run(
        [sys.executable, "-m", "ringleader", "explore", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=240,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    summary = json.loads(lines[-1]) if "--json" in argv and lines else None
    return done.returncode, summary, done.stderr


def _script(script: str, address: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``script`` run by this Python with the cluster's ``address`` as its argument."""
    return subprocess.run(
        [sys.executable, "-c", script, address],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def _same(summary: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on who searched: states, checks, findings, the fewest and
    most messages, the runs written."""
    ignore = {"elapsed_s", "states_per_s", "memory_per_state", "spilled_bytes", "traces"}
    ignore |= {"workers", "ray"}
    same = {k: v for k, v in summary.items() if k not in ignore}
    for violation in same["violations"]:  # the runs' files: under each one's --out
        violation["trace"] = Path(violation["trace"]).name
    return same


@pytest.mark.parametrize(
    "argv",
    [
        [str(EXAMPLES / "chang_roberts_table.toml")],  # 1,352 states, 1 leader, no finding
        [str(EXAMPLES / "graph.toml")],  # echo: 5,262 states
    ],
    ids=["chang_roberts", "echo"],
)
def test_a_ray_cluster_of_two_finds_what_one_worker_finds(
    cluster: tuple[str, dict[str, str]], tmp_path: Path, argv: list[str]
) -> None:
    address, env = cluster
    one_code, one, _ = _explore(env, *argv, "--json", "--out", str(tmp_path / "one"))
    code, ray, err = _explore(
        env, *argv, "--ray", address, "--json", "--out", str(tmp_path / "ray")
    )
    assert code == one_code == 0, err
    assert (ray["workers"], ray["ray"]) == (2, address)  # one actor a CPU of the cluster
    assert ray["states_kept"] == "fingerprints"
    assert (one["workers"], one["ray"]) == (1, None)
    assert _same(ray) == _same(one)
    assert ray["states"] > 1000 and ray["messages"] == one["messages"]
    assert sorted(ray["traces"]) == sorted(one["traces"])
    for name in one["traces"]:  # the same runs (fewest, most messages), written alike
        assert Path(ray["traces"][name]).read_text() == Path(one["traces"][name]).read_text()


def test_a_violation_found_on_ray_is_the_one_worker_finds(
    cluster: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    address, env = cluster
    argv = [str(EXAMPLES / "lelann.toml"), "--unordered", "--json"]  # two leaders
    one_code, one, _ = _explore(env, *argv, "--out", str(tmp_path / "one"))
    code, ray, err = _explore(
        env, *argv, "--ray", address, "--workers", "2", "--out", str(tmp_path / "ray")
    )
    assert code == one_code == 1, err
    assert (ray["workers"], ray["states_kept"]) == (2, "fingerprints")  # not given way
    assert one["violations"] and _same(ray) == _same(one)
    assert sorted(ray["traces"]) == sorted(one["traces"])
    for name in one["traces"]:  # the same shortest counterexamples
        assert Path(ray["traces"][name]).read_text() == Path(one["traces"][name]).read_text()


def test_a_search_that_needs_whole_states_says_it_searched_alone(
    cluster: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    address, env = cluster  # echo's two waves: runs of different lengths meet
    argv = [str(EXAMPLES / "graph.toml"), "--initiators", "1,6", "--json"]
    one_code, one, _ = _explore(env, *argv, "--out", str(tmp_path / "one"))
    code, ray, err = _explore(env, *argv, "--ray", address, "--out", str(tmp_path / "ray"))
    assert code == one_code == 0, err
    assert (ray["workers"], ray["ray"], ray["states_kept"]) == (1, None, "exact")
    assert _same(ray) == _same(one)
    assert err.strip().splitlines() == [
        "ringleader explore: searched by this process alone: --ray shares out the search "
        f"by fingerprints, and this one needs whole states ({one['exact_why']})"
    ]


def test_more_workers_than_the_cluster_has_cpus_is_one_line(
    cluster: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    address, env = cluster
    argv = [str(EXAMPLES / "ring.toml"), "--ray", address, "--workers", "3"]
    code, _, err = _explore(env, *argv, "--out", str(tmp_path))
    assert code == 2
    assert err.strip().splitlines() == [
        "ringleader explore: error: --workers 3: the Ray cluster has 2 CPUs "
        "(an explore worker takes one)"
    ]


def test_an_address_where_no_cluster_answers_is_one_line(tmp_path: Path) -> None:
    config = str(EXAMPLES / "ring.toml")
    address = f"127.0.0.1:{free_port()}"
    code, _, err = _explore(dict(os.environ), config, "--ray", address, "--out", str(tmp_path))
    assert code == 2
    assert err.strip().splitlines() == [
        f"ringleader explore: error: --ray {address}: no Ray cluster answers there "
        "(Connection refused)"
    ]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--exact"], "not with --exact"),
        (["--service"], "not with --service"),
        (["--service", "--walks", "10"], "not with --service"),
    ],
)
def test_ray_with_what_it_cannot_share_is_one_line(
    tmp_path: Path, extra: list[str], words: str
) -> None:
    config = str(EXAMPLES / ("service/cluster.toml" if "--service" in extra else "ring.toml"))
    code, _, err = _explore(
        dict(os.environ), config, "--ray", "auto", "--out", str(tmp_path), *extra
    )
    assert code == 2
    assert err.strip().splitlines() == [
        "ringleader explore: error: --ray shares out an election's search by "
        f"fingerprints, alone or with --workers; {words}"
    ]


def test_without_ray_installed_it_says_how_to_install_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing"  # an import of ray that fails, first on the path
    (missing / "ray").mkdir(parents=True)
    (missing / "ray" / "__init__.py").write_text("raise ImportError('no ray here')\n")
    env = {**os.environ, "PYTHONPATH": str(missing)}
    config = str(EXAMPLES / "ring.toml")
    code, _, err = _explore(env, config, "--ray", "auto", "--out", str(tmp_path / "out"))
    assert code == 2
    assert err.strip().splitlines() == [
        "ringleader explore: error: --ray needs Ray: pip install 'ringleader[ray]'"
    ]


_FAILING = """
import os
import sys
from ringleader.actors.exploration import WorkerFailed, explore_parts
from ringleader.cluster import RayPool, explore_options, ray_cluster
from ringleader.cluster._explored import explore_inputs
from ringleader.topologies import load_config

DRIVER = os.getpid()
config = load_config("examples/ring.toml")

def build():  # sent by value (cloudpickle): the model here, an error in each actor
    if os.getpid() != DRIVER:
        raise ValueError("no model here")
    return explore_inputs(config, explore_options(config), None)

with ray_cluster(sys.argv[1]) as cpus:
    try:
        explore_parts(build, RayPool, cpus)
    except WorkerFailed as failed:
        print(failed)
"""


def test_a_part_that_fails_on_ray_is_one_line(
    cluster: tuple[str, dict[str, str]],
) -> None:
    done = _script(_FAILING, *cluster)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("explore worker 0 (Ray) failed: ValueError: no model here ("), (
        done.stdout
    )
    assert len(done.stdout.strip().splitlines()) == 1


_DIES = """
import sys
from functools import partial
import ray
from ringleader.actors.exploration import WorkerFailed, explore_parts
from ringleader.cluster import RayPool, explore_options, ray_cluster
from ringleader.cluster._explored import explore_inputs
from ringleader.topologies import load_config

config = load_config("examples/graph.toml")
build = partial(explore_inputs, config, explore_options(config), None)
made = []

def pool(*args):
    made.append(RayPool(*args))
    return made[-1]

def kill(*_):  # after the first level: actor 1 dies
    ray.kill(made[0].actors[1], no_restart=True)

with ray_cluster(sys.argv[1]) as cpus:
    try:
        explore_parts(build, pool, 2, progress=kill)
    except WorkerFailed as failed:
        print(failed)
        print(len(made[0].actors))  # closed: every actor killed
"""


def test_an_actor_that_dies_stops_the_search_in_one_line(
    cluster: tuple[str, dict[str, str]],
) -> None:
    done = _script(_DIES, *cluster)
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip().splitlines()
    assert said[0].startswith("explore worker 1 (Ray) stopped: "), said
    assert said[1:] == ["0"]
