"""The markers of old windows fetched, kept in a repository's sync state."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from digest.mirror.markers import mark, mark_partial, partial_of, trusted, whole_second
from digest.mirror.store import SyncState
from digest.mirror.tuning import MAX_MARKERS, SEARCH_FRESH

T0 = datetime(2026, 3, 1, tzinfo=UTC)
DAY = timedelta(days=1)


def _search_key(start: datetime, end: datetime) -> str:
    return f"search {start:%Y-%m-%dT%H:%M:%SZ}..{end:%Y-%m-%dT%H:%M:%SZ}"


def test_only_the_newest_markers_are_kept_beside_the_stream_etags() -> None:
    """Past ``MAX_MARKERS`` old-window markers the oldest goes; a stream's ETag always stays."""
    state = SyncState(etags={"issues?since=2026-03-01T00:00:00Z": '"abc"'})
    for k in range(MAX_MARKERS + 1):
        day = T0 + k * DAY
        state = mark(state, _search_key(day, day + DAY), T0 + k * timedelta(minutes=1))
    assert state.etags["issues?since=2026-03-01T00:00:00Z"] == '"abc"'
    assert len(state.etags) == MAX_MARKERS + 1
    assert _search_key(T0, T0 + DAY) not in state.etags
    assert _search_key(T0 + DAY, T0 + 2 * DAY) in state.etags


def test_a_searched_window_is_trusted_while_fresh_or_tracked_by_the_mirror() -> None:
    """A search of a window is trusted for windows it holds: for ``SEARCH_FRESH``, then only
    once a mirror streams every change since it was made."""
    searched = mark(SyncState(), _search_key(T0, T0 + DAY), T0 + 2 * DAY)
    start, end = T0 + timedelta(hours=1), T0 + timedelta(hours=5)
    soon = T0 + 2 * DAY + SEARCH_FRESH - timedelta(seconds=1)
    later = soon + timedelta(seconds=2)
    assert trusted(searched, "search", start, end, soon)
    assert not trusted(searched, "search", start, end, later)
    assert not trusted(searched, "search", start, T0 + 2 * DAY, soon)  # not held
    assert not trusted(searched, "old-comments", start, end, soon)
    tracked = SyncState(covered_since=T0 + 2 * DAY, etags=searched.etags)
    assert trusted(tracked, "search", start, end, later + 30 * DAY)


def test_the_furthest_stopped_read_of_a_window_is_the_one_resumed() -> None:
    """Of two stopped reads of a comment stream, the one that got further is resumed, with the
    pages it still needed; another stream or a window they do not hold has none."""
    state = mark_partial(SyncState(), "comments", T0, T0 + DAY, T0 + 3 * DAY, T0, 9)
    reached = T0 + timedelta(hours=6)
    state = mark_partial(state, "comments", T0, T0 + 2 * DAY, T0 + 4 * DAY, reached, 4)
    assert partial_of(state, "comments", T0, T0 + DAY) == (T0 + 4 * DAY, reached, 4)
    assert partial_of(state, "comments", T0, T0 + 2 * DAY) == (T0 + 4 * DAY, reached, 4)
    assert partial_of(state, "review_comments", T0, T0 + DAY) is None
    assert partial_of(state, "comments", T0 - DAY, T0 + DAY) is None


def test_windows_are_widened_to_whole_seconds() -> None:
    """A moment goes down to its second, or up to the next one; a whole second stays."""
    moment = T0 + timedelta(seconds=7, microseconds=250_000)
    assert whole_second(moment) == T0 + timedelta(seconds=7)
    assert whole_second(moment, up=True) == T0 + timedelta(seconds=8)
    assert whole_second(T0, up=True) == T0
