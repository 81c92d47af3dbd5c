"""Exact counts and lists of a window (docs/design.md, Counting rules)."""

from __future__ import annotations

from datetime import timedelta

from digest.analysis.counts import count, lists
from digest.models import Counts, ItemState
from tests.support.analysis_sample import START, WINDOW, make_item, sample_data

END = WINDOW.end


def test_sample_counts_by_the_rules() -> None:
    """The real sample's counts follow the rules, not the full day's published counts."""
    data = sample_data()
    # Window [2026-01-31T03:44Z, 2026-02-01T03:44Z), 13 rows:
    # new issues   33478 (01-31 16:16), 33480 (17:21), 33497 (02-01 02:29)         -> 3
    # closed issues 22808 (01-31 04:08, created 2025), 33091 (13:31, created 01-26) -> 2
    #               (33478 closed 02-04, after the window)
    # new PRs      33463 (08:22), 33473 (13:35), 33490 (22:34), 33492 (02-01 00:49) -> 4
    #               (33443, 33417 created 01-30; 33553 created 02-02)
    # merged PRs   32492 (01-31 15:32, created 01-16), 33492 (02-01 03:12)         -> 2
    # closed unmerged: 33463 and 33490 closed unmerged on 02-04, after the window  -> 0
    assert count(data.items, data.window) == Counts(3, 2, 4, 2, 0)


def test_sample_lists_sorted_by_number() -> None:
    """Each list holds exactly the counted items, sorted by number."""
    found = lists(sample_data().items, sample_data().window)
    assert [i.number for i in found.new_issues] == [33478, 33480, 33497]
    assert [i.number for i in found.closed_issues] == [22808, 33091]
    assert [i.number for i in found.new_prs] == [33463, 33473, 33490, 33492]
    assert [i.number for i in found.merged_prs] == [32492, 33492]
    assert found.closed_unmerged_prs == ()


def test_window_is_half_open() -> None:
    """An item created exactly at the start counts; one created exactly at the end does not."""
    items = (
        make_item(1, created=START),
        make_item(2, created=END),
        make_item(3, created=END - timedelta(seconds=1)),
        make_item(4, created=START - timedelta(seconds=1)),
    )
    assert count(items, WINDOW).new_issues == 2
    assert [i.number for i in lists(items, WINDOW).new_issues] == [1, 3]


def test_edges_of_close_and_merge() -> None:
    """Closing and merging exactly on the edges follow the same half-open rule."""
    old = START - timedelta(days=30)
    items = (
        make_item(1, created=old, closed=START),
        make_item(2, created=old, closed=END),
        make_item(3, pr=True, created=old, merged=START),
        make_item(4, pr=True, created=old, merged=END),
        make_item(5, pr=True, created=old, closed=START),
        make_item(6, pr=True, created=old, closed=END),
    )
    assert count(items, WINDOW) == Counts(0, 1, 0, 1, 1)


def test_one_item_counts_in_several_lines() -> None:
    """A PR created and merged in the window is both new and merged; an old close still counts."""
    items = (
        make_item(10, pr=True, merged=START + timedelta(hours=3)),
        make_item(11, created=START - timedelta(days=200), closed=START + timedelta(hours=4)),
    )
    assert count(items, WINDOW) == Counts(0, 1, 1, 1, 0)


def test_reopened_item_is_not_closed() -> None:
    """An item closed in the window but open now is not counted as closed."""
    old = START - timedelta(days=3)
    reopened = make_item(20, created=old, closed=START + timedelta(hours=1), state=ItemState.OPEN)
    reopened_pr = make_item(
        21, pr=True, created=old, closed=START + timedelta(hours=1), state=ItemState.OPEN
    )
    assert count((reopened, reopened_pr), WINDOW) == Counts(0, 0, 0, 0, 0)


def test_duplicates_count_once() -> None:
    """The same item given twice counts once."""
    item = make_item(30)
    assert count((item, item), WINDOW).new_issues == 1


def test_prs_and_issues_apart() -> None:
    """Issues never count as PRs and PRs never as issues."""
    items = (make_item(40, pr=True), make_item(41))
    assert count(items, WINDOW) == Counts(1, 0, 1, 0, 0)
