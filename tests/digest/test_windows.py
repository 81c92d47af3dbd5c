"""Window rules (docs/design.md, Windows)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from digest.errors import BadWindow
from digest.windows import format_window, parse_window, report_day, report_days, title_date

NOW = datetime(2026, 3, 12, 8, 30, 45, tzinfo=UTC)


def test_date_window_matches_the_reference_report() -> None:
    """2026-03-10 with Asia/Shanghai and 11:21 is the reference report's exact window."""
    window = parse_window("2026-03-10", now=NOW, timezone="Asia/Shanghai", day_start="11:21")
    assert window.start == datetime(2026, 3, 10, 3, 21, tzinfo=UTC)
    assert window.end == datetime(2026, 3, 11, 3, 21, tzinfo=UTC)
    assert format_window(window) == "2026-03-10 11:21 (UTC+8) ~ 2026-03-11 11:21 (UTC+8)"
    assert title_date(window) == "2026-03-10"


def test_today_is_the_24_hours_ending_now_rounded_to_the_minute() -> None:
    """today ends at now (floored to the minute) and starts 24 h earlier."""
    window = parse_window("today", now=NOW)
    assert window.end == datetime(2026, 3, 12, 8, 30, tzinfo=UTC)
    assert window.end - window.start == timedelta(days=1)
    assert window.ends_now


def test_yesterday_is_the_24_hours_before_today() -> None:
    """yesterday ends where today starts."""
    today = parse_window("today", now=NOW)
    yesterday = parse_window("yesterday", now=NOW)
    assert yesterday.end == today.start
    assert yesterday.end - yesterday.start == timedelta(days=1)


@pytest.mark.parametrize(("spec", "days"), [("week", 7), ("7d", 7), ("3d", 3), ("31d", 31)])
def test_n_day_windows_end_now(spec: str, days: int) -> None:
    """week and Nd are N×24 hours ending now."""
    window = parse_window(spec, now=NOW)
    assert window.end - window.start == timedelta(days=days)


def test_date_range_runs_from_first_cutoff_to_the_cutoff_after_the_last_date() -> None:
    """DATE..DATE covers whole report days in the repository's timezone."""
    window = parse_window(
        "2026-03-01..2026-03-03", now=NOW, timezone="Asia/Shanghai", day_start="11:21"
    )
    assert window.start == datetime(2026, 3, 1, 3, 21, tzinfo=UTC)
    assert window.end == datetime(2026, 3, 4, 3, 21, tzinfo=UTC)
    assert title_date(window) == "2026-03-01 ~ 2026-03-03"


@pytest.mark.parametrize(
    "spec",
    [
        "tomorrow",
        "2026-13-01",
        "2026-03-40",
        "32d",
        "0d",
        "2026-03-10..2026-03-01",
        "2026-01-01..2026-03-01",
        "2027-01-01",
        "1d2",
    ],
)
def test_bad_windows_are_clear_errors(spec: str) -> None:
    """Malformed, future, reversed or too-long windows raise BadWindow, never a guess."""
    with pytest.raises(BadWindow):
        parse_window(spec, now=NOW)


def test_longest_range_is_counted_in_local_days() -> None:
    """31 local days are allowed even when a DST change makes them an hour longer; 32 are not."""
    now = datetime(2026, 11, 15, tzinfo=UTC)
    october = parse_window("2026-10-01..2026-10-31", now=now, timezone="Europe/Berlin")
    assert october.end - october.start == timedelta(days=31, hours=1)
    with pytest.raises(BadWindow, match="at most 31 days"):
        parse_window("2026-10-01..2026-11-01", now=now, timezone="Europe/Berlin")


def test_unknown_timezone_is_a_clear_error() -> None:
    """A timezone that is not an IANA name is refused with a hint."""
    with pytest.raises(BadWindow, match="IANA"):
        parse_window("today", now=NOW, timezone="Mars/Olympus")


def test_window_in_progress_is_clamped_to_now() -> None:
    """Today's date window ends at now while the day is still running."""
    window = parse_window("2026-03-12", now=NOW, timezone="UTC", day_start="00:00")
    assert window.end == datetime(2026, 3, 12, 8, 30, tzinfo=UTC)
    assert window.ends_now


def test_date_window_in_its_first_minute_is_a_clear_error() -> None:
    """A date asked for within a minute of its cut-off is a BadWindow, not an empty window."""
    just_after = datetime(2026, 3, 10, 3, 21, 30, tzinfo=UTC)
    with pytest.raises(BadWindow, match="less than a minute"):
        parse_window("2026-03-10", now=just_after, timezone="Asia/Shanghai", day_start="11:21")
    window = parse_window(
        "2026-03-10",
        now=just_after + timedelta(seconds=30),
        timezone="Asia/Shanghai",
        day_start="11:21",
    )
    assert window.end - window.start == timedelta(minutes=1)


def test_offsets_with_minutes_and_negative_offsets() -> None:
    """Offsets print as UTC+5:30 and UTC-4 (DST in New York)."""
    india = parse_window("2026-03-10", now=NOW, timezone="Asia/Kolkata", day_start="09:00")
    assert format_window(india).startswith("2026-03-10 09:00 (UTC+5:30)")
    ny = parse_window(
        "2026-07-01",
        now=datetime(2026, 8, 1, tzinfo=UTC),
        timezone="America/New_York",
        day_start="09:00",
    )
    assert "(UTC-4)" in format_window(ny)


def test_report_days_end_with_the_last_ended_window() -> None:
    """The report days are the N days whose window has ended; the day in progress is apart."""
    now = datetime(2026, 2, 1, 6, 0, tzinfo=UTC)  # 14:00 in Shanghai, past the 11:21 cut-off
    days, current = report_days(now, "Asia/Shanghai", "11:21", 3, None)
    assert days == [date(2026, 1, 29), date(2026, 1, 30), date(2026, 1, 31)]
    assert current == date(2026, 2, 1)
    early = now.replace(hour=3, minute=0)  # 11:00 in Shanghai, before the cut-off
    assert report_days(early, "Asia/Shanghai", "11:21", 1, None) == (
        [date(2026, 1, 30)],
        date(2026, 1, 31),
    )
    since, _ = report_days(now, "Asia/Shanghai", "11:21", 30, date(2026, 1, 30))
    assert since == [date(2026, 1, 30), date(2026, 1, 31)]


def test_a_moment_belongs_to_the_day_whose_cut_off_it_follows() -> None:
    """The cut-off itself opens the new report day; a minute before it is still the old one,
    though the local calendar may say otherwise."""
    cut = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)  # 2026-03-10 11:21 in Shanghai
    assert report_day(cut, "Asia/Shanghai", "11:21") == date(2026, 3, 10)
    assert report_day(cut - timedelta(minutes=1), "Asia/Shanghai", "11:21") == date(2026, 3, 9)
    late = datetime(2026, 3, 10, 23, 30, tzinfo=UTC)  # 19:30 in New York, before a 20:00 start
    assert report_day(late, "America/New_York", "20:00") == date(2026, 3, 9)
