"""Time phrases of a question, resolved against a fixed clock in the repository's zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from digest.ask.time_phrases import resolve_when

# Wednesday 2026-03-11 11:21 in Shanghai.
NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)
TZ = "Asia/Shanghai"


def _local(text: str) -> datetime:
    """A Shanghai wall-clock time as UTC."""
    return datetime.fromisoformat(text + "+08:00").astimezone(UTC)


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("what's new in ROCm?", NOW - timedelta(days=7), NOW),
        ("today", NOW - timedelta(days=1), NOW),
        ("今天有什么进展", NOW - timedelta(days=1), NOW),
        ("yesterday", NOW - timedelta(days=2), NOW - timedelta(days=1)),
        ("this week", _local("2026-03-09T00:00"), NOW),
        ("本周", _local("2026-03-09T00:00"), NOW),
        ("since Monday", _local("2026-03-09T00:00"), NOW),
        ("周一以来", _local("2026-03-09T00:00"), NOW),
        ("last week", _local("2026-03-02T00:00"), _local("2026-03-09T00:00")),
        ("上周", _local("2026-03-02T00:00"), _local("2026-03-09T00:00")),
        ("in March", _local("2026-03-01T00:00"), NOW),
        ("3月", _local("2026-03-01T00:00"), NOW),
        ("in February", _local("2026-02-01T00:00"), _local("2026-03-01T00:00")),
        ("during December", _local("2025-12-01T00:00"), _local("2026-01-01T00:00")),
        ("last 3 days", NOW - timedelta(days=3), NOW),
        ("in the past three days", NOW - timedelta(days=3), NOW),
        ("最近三天", NOW - timedelta(days=3), NOW),
        ("过去两周", NOW - timedelta(days=14), NOW),
        ("past 24 hours", NOW - timedelta(days=1), NOW),
        ("last 6 hours", NOW - timedelta(hours=6), NOW),
        ("5d", NOW - timedelta(days=5), NOW),
        ("on 2026-03-10", _local("2026-03-10T11:21"), _local("2026-03-11T11:21")),
        ("2026-03-01..2026-03-02", _local("2026-03-01T11:21"), _local("2026-03-03T11:21")),
        ("this month", _local("2026-03-01T00:00"), NOW),
        ("in the last week", NOW - timedelta(days=7), NOW),
        ("in the last month", NOW - timedelta(days=30), NOW),
        ("over the weekend", _local("2026-03-07T00:00"), _local("2026-03-09T00:00")),
        ("周末", _local("2026-03-07T00:00"), _local("2026-03-09T00:00")),
        ("前天", NOW - timedelta(days=3), NOW - timedelta(days=2)),
        ("上周五", _local("2026-03-06T00:00"), _local("2026-03-07T00:00")),
        ("周五合并了什么", _local("2026-03-06T00:00"), _local("2026-03-07T00:00")),
        (
            "between 2026-03-01 and 2026-03-02",
            _local("2026-03-01T11:21"),
            _local("2026-03-03T11:21"),
        ),
        ("on March 5", _local("2026-03-05T11:21"), _local("2026-03-06T11:21")),
        ("the 5th of March", _local("2026-03-05T11:21"), _local("2026-03-06T11:21")),
        ("三月五号", _local("2026-03-05T11:21"), _local("2026-03-06T11:21")),
        ("since March 5", _local("2026-03-05T00:00"), NOW),
        ("3月5日以来", _local("2026-03-05T00:00"), NOW),
        ("on Dec 25", _local("2025-12-25T11:21"), _local("2025-12-26T11:21")),
    ],
)
def test_time_phrases(phrase: str, start: datetime, end: datetime) -> None:
    """Each supported phrase gives its exact window."""
    when = resolve_when(phrase, now=NOW, timezone=TZ, day_start="11:21")
    assert (when.window.start, when.window.end) == (start, end)
    assert when.notes == ()


def test_the_default_is_the_last_seven_days_ending_now() -> None:
    """Without a time phrase the window is the last 7 days and ends now."""
    when = resolve_when("what's new?", now=NOW, timezone=TZ)
    assert when.window.ends_now and when.window.days == 7
    assert when.en == "in the last 7 days" and when.zh == "最近 7 天"


@pytest.mark.parametrize("phrase", ["last 90 days", "since 2025-06-01", "最近100天"])
def test_long_windows_are_capped_at_31_days_with_a_note(phrase: str) -> None:
    """A window longer than 31 days is cut to the last 31, and the answer says so."""
    when = resolve_when(phrase, now=NOW, timezone=TZ)
    assert when.window.end == NOW and when.window.days == 31
    assert when.notes and "31 days" in when.notes[0]


def test_a_month_with_a_dst_change_is_searched_whole() -> None:
    """October in Berlin is 31 days and an hour: searched whole, without a note."""
    when = resolve_when(
        "in October", now=datetime(2026, 11, 15, tzinfo=UTC), timezone="Europe/Berlin"
    )
    assert when.window.start == datetime(2026, 9, 30, 22, 0, tzinfo=UTC)
    assert when.window.end == datetime(2026, 10, 31, 23, 0, tzinfo=UTC)
    assert when.notes == ()


def test_may_needs_on_to_be_a_month() -> None:
    """ "what may 2 PRs break" names no date; "on May 2" does."""
    assert resolve_when("what may 2 PRs break", now=NOW, timezone=TZ).phrase == ""
    assert resolve_when("on May 2", now=NOW, timezone=TZ).window.label == "2025-05-02"


@pytest.mark.parametrize(
    "phrase",
    ["on 2027-01-01", "2026-02-30", "Feb 30", "9999-12-31", "Dec 31, 9999", "in January 0001"],
)
def test_a_future_or_impossible_date_falls_back_to_the_default_with_a_note(phrase: str) -> None:
    """A date that cannot be searched is not guessed at: the default window, with a note."""
    when = resolve_when(phrase, now=NOW, timezone=TZ)
    assert when.window.days == 7 and when.window.end == NOW
    assert when.notes and "not a past date" in when.notes[0]


@pytest.mark.parametrize("phrase", ["0d", "the last 0 days", "past 0 hours", "最近0天"])
def test_an_empty_period_falls_back_to_the_default_with_a_note(phrase: str) -> None:
    """ "the last 0 days" is no period: the default window, with a note, not an hour-long one."""
    when = resolve_when(phrase, now=NOW, timezone=TZ)
    assert when.window.days == 7 and when.en == "in the last 7 days"
    assert when.notes and "not a past date or period" in when.notes[0]


def test_a_calendar_phrase_uses_the_repository_zone() -> None:
    """ "today" ends now; "since Monday" starts at Monday midnight in the given zone."""
    berlin = resolve_when("since Monday", now=NOW, timezone="Europe/Berlin")
    assert berlin.window.start == datetime(2026, 3, 8, 23, 0, tzinfo=UTC)


def test_window_labels_and_words() -> None:
    """Windows carry a label and their wording in both languages."""
    when = resolve_when("last week", now=NOW, timezone=TZ)
    assert (when.window.label, when.en, when.zh) == ("last-week", "last week", "上周")
    assert not when.window.ends_now
