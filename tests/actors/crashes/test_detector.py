"""The failure detector alone (notes 002): each call, the actions it appends, and what it
then believes — in the style of h11's ``test_state.py``."""

from __future__ import annotations

import pytest

from ringleader.actors.core import Action, CancelTimer, Send, SetTimer
from ringleader.actors.crashes import HEARTBEAT, DetectorSettings, Ping
from ringleader.actors.crashes._detector import FailureDetector

SETTINGS = DetectorSettings(heartbeat=0.05, suspect_after=0.3, reelect_after=2.0)


def _detector() -> tuple[FailureDetector, list[Action]]:
    out: list[Action] = []
    return FailureDetector(SETTINGS, out), out


def test_a_heartbeat_pings_in_id_order_and_sets_the_next() -> None:
    detector, out = _detector()
    detector.tick({3, 1, 2}, epoch=4, now=10.0)
    assert out == [
        Send(1, Ping(), 4),
        Send(2, Ping(), 4),
        Send(3, Ping(), 4),
        SetTimer(HEARTBEAT, 0.05),
    ]
    assert detector.due == pytest.approx(10.05)


def test_heartbeats_run_late_keep_their_schedule() -> None:
    """A busy machine runs each timer a little late: the heartbeats keep to the clock,
    so that twenty of them still take a second (issue 30: each was counted from the
    moment the last one ran, the lateness added up, and the lease, counted in
    heartbeats but ending on the clock, lapsed under load)."""
    detector, out = _detector()
    detector.tick(set(), epoch=1, now=10.0)
    now = 10.0
    for _ in range(20):
        now = detector.due + 0.01  # type: ignore[operator]  # each one 10 ms late
        detector.tick(set(), epoch=1, now=now)
    assert detector.due == pytest.approx(11.05)
    assert out[-1] == SetTimer(HEARTBEAT, pytest.approx(0.04))
    # A heartbeat off its schedule (more than a heartbeat late, or early: a take-over's
    # at once) starts it afresh from its moment.
    detector.tick(set(), epoch=1, now=11.12)
    assert detector.due == pytest.approx(11.17) and out[-1] == SetTimer(HEARTBEAT, 0.05)
    detector.tick(set(), epoch=1, now=11.15)
    assert detector.due == pytest.approx(11.20) and out[-1] == SetTimer(HEARTBEAT, 0.05)


def test_watching_arms_a_timer_per_new_peer_and_disarms_the_dropped() -> None:
    detector, out = _detector()
    detector.watch({1, 2})
    assert out == [SetTimer("detector:suspect:1", 0.3), SetTimer("detector:suspect:2", 0.3)]
    out.clear()
    detector.watch({2, 3})
    assert out == [SetTimer("detector:suspect:3", 0.3), CancelTimer("detector:suspect:1")]
    assert detector.watched == {2, 3}
    out.clear()
    detector.watch({2, 3})  # the same set: nothing to do
    assert out == []


def test_any_message_restarts_the_window_and_a_silent_peer_is_suspected() -> None:
    detector, out = _detector()
    detector.watch({1})
    out.clear()
    assert detector.heard(1) is False  # not suspected: its window starts again
    assert out == [SetTimer("detector:suspect:1", 0.3)]
    assert detector.expired(1) is True
    assert (detector.watched, detector.suspected) == (set(), {1})
    assert detector.expired(1) is False  # told once
    assert detector.heard(1) is True  # back: no longer suspected
    assert detector.suspected == set()


def test_a_suspect_is_not_watched_again_until_heard_from() -> None:
    detector, out = _detector()
    detector.watch({1})
    detector.expired(1)
    out.clear()
    detector.watch({1})
    assert out == [] and detector.watched == set()


def test_proof_of_death_suspects_at_once_and_cancels_the_timer() -> None:
    detector, out = _detector()
    detector.watch({1})
    out.clear()
    assert detector.dead(1) is True
    assert out == [CancelTimer("detector:suspect:1")]
    assert detector.suspected == {1}
    assert detector.dead(2) is False  # not watched: no proof of anything


def test_a_late_heartbeat_shows_the_node_itself_stood_still_once() -> None:
    detector, _ = _detector()
    detector.next_beat(now=1.0)  # due at 1.05
    standstill = SETTINGS.standstill  # max(heartbeat, suspect_after - 2 heartbeats) = 0.2
    assert standstill == pytest.approx(0.2)
    assert detector.stood_still(1.05 + standstill - 0.01) is None  # late, within bounds
    late = detector.stood_still(1.05 + standstill + 0.1)
    assert late == pytest.approx(standstill + 0.1)
    assert detector.stood_still(5.0) is None  # told once: nothing due until the next beat


def test_forgiving_its_own_stall_gives_every_watched_peer_a_new_window() -> None:
    detector, out = _detector()
    detector.watch({2, 1})
    out.clear()
    detector.forgive_own_stall()
    assert out == [SetTimer("detector:suspect:1", 0.3), SetTimer("detector:suspect:2", 0.3)]
    assert detector.suspected == set()


def test_settings_default_and_off() -> None:
    assert DetectorSettings.of({}) is None
    assert DetectorSettings.of({"heartbeat": 0}) is None
    fast = DetectorSettings.of({"heartbeat": 0.2})
    assert fast is not None and fast.suspect_after == pytest.approx(0.6)  # 3 heartbeats
    assert DetectorSettings.of({"heartbeat": 0.05}) == DetectorSettings()
