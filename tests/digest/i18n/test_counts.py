"""How many, in words: counts of things, window lengths, the counts line."""

from __future__ import annotations

from digest.i18n import count_of, counts_line, duration
from digest.models import Counts


def test_counts_line() -> None:
    """The counts line reads like the reference report."""
    counts = Counts(38, 28, 115, 34, 42)
    assert counts_line(counts, "zh") == (
        "新 Issue 38 | 关闭 Issue 28 | 新 PR 115 | 合并 PR 34 | 关闭未合并 PR 42"
    )
    assert counts_line(counts, "en") == (
        "New issues 38 | Closed issues 28 | New PRs 115 | Merged PRs 34 | Closed unmerged PRs 42"
    )


def test_plurals() -> None:
    """English counts agree in number; Chinese ones have no plural."""
    assert count_of(1, "issue", "en") == "1 issue"
    assert count_of(3, "person", "en") == "3 people"
    assert count_of(3, "issue", "zh") == "3 个 Issue"


def test_a_window_of_whole_days_is_counted_in_days() -> None:
    """A day is 24 hours; a week is 7 days."""
    assert duration(1, "en") == "24 hours"
    assert duration(7, "zh") == "7 天"
