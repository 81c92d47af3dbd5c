"""The daily schedule of a subscription (docs/design.md): pure, right across DST changes."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, date, datetime, timedelta

import pytest

from digest.errors import BadWindow
from digest.schedule.subscription import (
    Subscription,
    claim_key,
    due_runs,
    next_run,
    run_on,
    run_window,
    runs_between,
)
from digest.windows import parse_window
from tests.support.schedule import last_run


def sub(time: str = "09:00", tz: str = "Europe/Berlin", **kw: object) -> Subscription:
    fields: dict[str, object] = {"platform": "slack", "channel": "C1", "repo": "vllm-project/vllm"}
    fields.update(kw)
    return Subscription(time=time, timezone=tz, **fields)  # type: ignore[arg-type]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_next_run_is_the_local_time_converted_to_utc() -> None:
    """09:00 in Berlin in winter is 08:00 UTC, in summer 07:00 UTC."""
    s = sub()
    assert next_run(s, utc(2026, 1, 15, 0, 0)) == utc(2026, 1, 15, 8, 0)
    assert next_run(s, utc(2026, 7, 15, 0, 0)) == utc(2026, 7, 15, 7, 0)


def test_next_run_is_strictly_after_the_given_moment() -> None:
    """A run exactly at ``after`` is not next; the following day's is."""
    s = sub()
    assert next_run(s, utc(2026, 1, 15, 8, 0)) == utc(2026, 1, 16, 8, 0)
    assert next_run(s, utc(2026, 1, 15, 7, 59, 59)) == utc(2026, 1, 15, 8, 0)


@pytest.mark.parametrize(
    ("tz", "local", "day", "expected"),
    [
        # spring forward: 02:00-03:00 does not exist, runs at 03:00 local
        ("Europe/Berlin", "02:30", date(2026, 3, 29), utc(2026, 3, 29, 1, 0)),
        ("America/New_York", "02:30", date(2026, 3, 8), utc(2026, 3, 8, 7, 0)),
        ("America/New_York", "02:00", date(2026, 3, 8), utc(2026, 3, 8, 7, 0)),
        # fall back: 02:00-03:00 (Berlin) / 01:00-02:00 (New York) happen twice, first one wins
        ("Europe/Berlin", "02:30", date(2026, 10, 25), utc(2026, 10, 25, 0, 30)),
        ("America/New_York", "01:30", date(2026, 11, 1), utc(2026, 11, 1, 5, 30)),
        # the day after a change is normal again
        ("Europe/Berlin", "02:30", date(2026, 3, 30), utc(2026, 3, 30, 0, 30)),
        ("America/New_York", "01:30", date(2026, 11, 2), utc(2026, 11, 2, 6, 30)),
    ],
)
def test_dst_days(tz: str, local: str, day: date, expected: datetime) -> None:
    """Skipped times run at the end of the gap; repeated times run at their first occurrence."""
    assert run_on(sub(local, tz), day) == expected


@pytest.mark.parametrize("tz", ["Europe/Berlin", "America/New_York", "Asia/Shanghai", "UTC"])
@pytest.mark.parametrize("local", ["00:00", "01:30", "02:00", "02:30", "09:00", "23:59"])
def test_one_run_per_local_day_through_a_whole_year(tz: str, local: str) -> None:
    """Over 2026 every local date gets exactly one run, and runs are ordered."""
    s = sub(local, tz)
    runs = runs_between(s, utc(2025, 12, 31, 12), utc(2027, 1, 1, 12))
    days = [r.astimezone(s.tz).date() for r in runs]
    assert len(days) == len(set(days))
    assert set(date(2026, 1, 1) + timedelta(days=n) for n in range(365)) <= set(days)
    assert runs == sorted(runs)
    assert all(b - a >= timedelta(hours=23) for a, b in itertools.pairwise(runs))


def test_last_run_is_at_or_before_the_moment() -> None:
    """last_run includes a run exactly at the moment and otherwise the previous one."""
    s = sub()
    assert last_run(s, utc(2026, 1, 15, 8, 0)) == utc(2026, 1, 15, 8, 0)
    assert last_run(s, utc(2026, 1, 15, 7, 0)) == utc(2026, 1, 14, 8, 0)


def test_run_window_is_the_24_hours_ending_at_the_scheduled_moment() -> None:
    """The window of a run ends at its scheduled moment and is shown in the channel's zone."""
    s = sub("11:21", "Asia/Shanghai")
    scheduled = run_on(s, date(2026, 3, 11))
    window = run_window(s, scheduled)
    assert (window.start, window.end) == (utc(2026, 3, 10, 3, 21), utc(2026, 3, 11, 3, 21))
    assert window.timezone == "Asia/Shanghai" and not window.ends_now
    same = parse_window(
        "2026-03-10", now=utc(2026, 3, 12), timezone="Asia/Shanghai", day_start="11:21"
    )
    assert (same.start, same.end, same.label) == (window.start, window.end, window.label)


def test_claim_key_depends_on_subscription_and_window_only() -> None:
    """The same run gives the same key; another day or channel gives another."""
    s = sub()
    w1 = run_window(s, run_on(s, date(2026, 1, 15)))
    w2 = run_window(s, run_on(s, date(2026, 1, 16)))
    assert claim_key(s, w1) == claim_key(sub(), w1)
    assert claim_key(s, w1) != claim_key(s, w2)
    assert claim_key(s, w1) != claim_key(sub(channel="C2"), w1)
    assert claim_key(s, w1) == claim_key(sub(lang="zh"), w1)


def test_due_runs_are_bounded_by_grace_and_since() -> None:
    """Runs older than the grace period or before the subscription existed are not due."""
    s = sub()
    now = utc(2026, 1, 15, 12, 0)
    assert due_runs(s, now, timedelta(hours=6)) == [utc(2026, 1, 15, 8, 0)]
    assert due_runs(s, now, timedelta(hours=3)) == []
    assert due_runs(s, now, timedelta(days=2)) == [utc(2026, 1, 14, 8, 0), utc(2026, 1, 15, 8, 0)]
    late_joiner = sub(since=utc(2026, 1, 15, 10, 0))
    assert due_runs(late_joiner, now, timedelta(hours=6)) == []


def through_json(s: Subscription) -> Subscription:
    """``s`` stored as JSON and read back, as the subscription stores do."""
    return Subscription.from_dict(json.loads(json.dumps(s.to_dict())))


def test_subscription_identity_and_round_trip() -> None:
    """The id is platform, channel and repository; JSON round-trips every field."""
    s = sub(lang="zh", topics=("rocm",), writer="llm", since=utc(2026, 1, 1))
    assert s.id == "slack:C1:vllm-project/vllm"
    assert sub(repo="VLLM-Project/vLLM").id == s.id
    assert through_json(s) == s
    assert through_json(sub()) == sub()


@pytest.mark.parametrize(
    ("kw", "error"),
    [
        ({"time": "25:00"}, BadWindow),
        ({"tz": "Mars/Olympus"}, BadWindow),
        ({"platform": "irc"}, ValueError),
        ({"since": datetime(2026, 1, 1)}, ValueError),
    ],
)
def test_invalid_subscriptions_are_rejected(kw: dict[str, object], error: type[Exception]) -> None:
    """A bad time, zone, platform or naive moment is refused."""
    with pytest.raises(error):
        sub(**kw)


def weekly(day: int = 0, time: str = "09:00", tz: str = "Europe/Berlin") -> Subscription:
    return sub(time, tz, cadence="weekly", weekday=day)


def test_weekly_runs_once_a_week_on_its_day_across_dst() -> None:
    """Monday 09:00 Berlin: one run a week, always a Monday at 09:00 local, winter and summer."""
    s = weekly()
    runs = runs_between(s, utc(2026, 1, 1), utc(2026, 12, 31))
    local = [r.astimezone(s.tz) for r in runs]
    assert len(runs) == 52
    assert {t.weekday() for t in local} == {0}
    assert {(t.hour, t.minute) for t in local} == {(9, 0)}
    assert next_run(s, utc(2026, 3, 24)) == utc(2026, 3, 30, 7, 0)  # the Monday after the change


def test_weekly_on_a_dst_sunday_runs_at_the_end_of_the_gap_and_once_in_the_fold() -> None:
    """A Sunday 02:30 Berlin post runs at 03:00 on spring-forward day and once on fall-back day."""
    s = weekly(6, "02:30")
    assert next_run(s, utc(2026, 3, 23)) == utc(2026, 3, 29, 1, 0)
    assert next_run(s, utc(2026, 10, 19)) == utc(2026, 10, 25, 0, 30)
    assert next_run(s, utc(2026, 10, 25, 0, 30)) == utc(2026, 11, 1, 1, 30)


def test_weekly_window_is_the_seven_days_ending_at_the_run() -> None:
    """A weekly run reports on the last 7 days, shown as a date range in the channel's zone."""
    s = weekly()
    scheduled = next_run(s, utc(2026, 3, 4))
    window = run_window(s, scheduled)
    assert window.end == scheduled == utc(2026, 3, 9, 8, 0)
    assert window.start == utc(2026, 3, 2, 8, 0)
    assert claim_key(s, window) != claim_key(sub(), run_window(sub(), scheduled))


def test_weekdays_skip_the_weekend_in_the_subscriptions_zone() -> None:
    """Weekdays at 09:00 Shanghai (01:00 UTC): Monday to Friday local, never Saturday or Sunday."""
    s = sub("09:00", "Asia/Shanghai", cadence="weekdays")
    runs = runs_between(s, utc(2026, 3, 1), utc(2026, 3, 15))  # Sun 1 March .. Sun 15 March
    assert [r.astimezone(s.tz).day for r in runs] == [2, 3, 4, 5, 6, 9, 10, 11, 12, 13]
    assert next_run(s, utc(2026, 3, 6, 2)) == utc(2026, 3, 9, 1, 0)  # Friday after the run
    assert last_run(s, utc(2026, 3, 8, 12)) == utc(2026, 3, 6, 1, 0)


def test_a_weekday_missed_on_friday_is_caught_up_within_grace() -> None:
    """Grace catches a weekday run up; the weekend adds no runs."""
    s = sub("23:00", "UTC", cadence="weekdays")
    assert due_runs(s, utc(2026, 3, 7, 3), timedelta(hours=6)) == [utc(2026, 3, 6, 23)]
    assert due_runs(s, utc(2026, 3, 8, 3), timedelta(hours=6)) == []


def test_schedules_round_trip_and_old_records_read_as_daily() -> None:
    """The cadence and day survive JSON; a record stored before schedules existed is daily."""
    for s in (weekly(4), sub(cadence="weekdays"), sub()):
        assert through_json(s) == s
    old = {k: v for k, v in sub().to_dict().items() if k not in ("cadence", "day")}
    assert Subscription.from_dict(old).cadence == "daily"


@pytest.mark.parametrize("kw", [{"cadence": "monthly"}, {"cadence": "weekly", "weekday": 7}])
def test_unknown_schedules_are_rejected(kw: dict[str, object]) -> None:
    """A cadence other than daily, weekdays or weekly, or a weekday out of range, is refused."""
    with pytest.raises(ValueError):
        sub(**kw)
