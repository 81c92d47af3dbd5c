"""Follow-ups: the previous window's hot and watched items, and what happened to them."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from digest.analysis.analyze import analyze
from digest.analysis.followups import as_of
from tests.support.analysis_sample import START, make_item
from tests.support.followups import FIX, HOT_FIXED, HOT_STUCK, WATCHED, followup_analysis, two_days


def test_each_earlier_item_gets_its_news() -> None:
    """Fixed by a merged PR, still stuck, or discussed again: hot items first, then watched."""
    found = [(f.item.number, f.was, f.status) for f in followup_analysis().followups]
    assert found == [
        (HOT_FIXED, "hot", "fixed"),
        (HOT_STUCK, "hot", "stuck"),
        (WATCHED, "watch", "discussed"),
    ]
    assert followup_analysis().followups[0].by is not None
    assert followup_analysis().followups[0].by.number == FIX  # type: ignore[union-attr]


def test_no_previous_window_means_no_follow_ups() -> None:
    """Without the previous window in the mirror, nothing is said about it."""
    assert analyze(replace(two_days(), previous=None), ()).followups == ()


def test_an_open_fix_is_a_proposal() -> None:
    """A fix PR still open today reads as a proposed fix, not a fix."""
    data = two_days()
    items = tuple(
        replace(i, merged_at=None, closed_at=None, state=i.state.OPEN)
        if i.number in (FIX, HOT_FIXED)
        else i
        for i in data.items
    )
    data = replace(data, items=items)
    first = analyze(data, ()).followups[0]
    assert (first.item.number, first.status) == (HOT_FIXED, "fix_proposed")


def test_as_of_undoes_a_later_close() -> None:
    """An item closed after a moment was open at that moment; one closed before stays closed."""
    closed = make_item(1, closed=START + timedelta(hours=2))
    assert as_of(closed, START).closed_at is None
    assert as_of(closed, START + timedelta(hours=3)) == closed
