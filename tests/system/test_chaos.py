"""The chaos test (issue 13, item 6): seeded kills, restarts and pauses of ``ringleader
node`` processes; about 20 s per cluster.  See ``tests/chaos.py`` for what is checked,
and ``benchmarks/chaos.py`` for longer runs and the figures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.chaos import CLUSTERS, ChaosSettings, hosts_unavailable, run_chaos, summary

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process tests use Linux /proc")

#: With the lease (on by default): no instant with two processes reporting is_leader.
LEASE = True
#: Seconds of faults per cluster (three clusters: about a minute in all).
DURATION = 16.0


@pytest.mark.timeout(90)
@pytest.mark.parametrize("cluster", sorted(CLUSTERS))
def test_chaos_keeps_one_leader_per_epoch_and_agreement(tmp_path: Path, cluster: str) -> None:
    # With root, each node on a host of its own, and a flapping link among the faults.
    hosts = hosts_unavailable() is None
    settings = ChaosSettings(cluster=cluster, seed=13, duration=DURATION, lease=LEASE, hosts=hosts)
    result = run_chaos(settings, tmp_path)
    print(summary(result))
    assert result.faults, "no fault was injected"
    assert result.failures() == [], (summary(result), result.faults)
    # A steady leader: a fault away from the leader changes nothing.
    for kind in ("kill follower", "flap follower"):
        assert set(result.changes.get(kind, [0])) == {0}, (kind, result.changes)


@pytest.mark.timeout(90)
def test_chaos_of_full_restarts_and_wrong_member_lists_keeps_the_token_growing(
    tmp_path: Path,
) -> None:
    """Issue 19: only full-cluster restarts and a node restarted with a wrong member list,
    so that both are drawn (and the first lease after each restart checked) every run."""
    faults = ("full restart", "wrong member list")
    settings = ChaosSettings(seed=19, duration=10.0, lease=LEASE, faults=faults, each_kind=True)
    result = run_chaos(settings, tmp_path)
    print(summary(result))
    kinds = {f.split(" (")[0].split(" with ")[0].rsplit(" ", 1)[0] for f in result.faults}
    assert result.restarts and any("member list" in f for f in result.faults), result.faults
    assert all(after > before for before, after in result.restarts), result.restarts
    assert kinds and result.failures() == [], (summary(result), result.faults)
