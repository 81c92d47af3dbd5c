"""Activity: authors, commenters, merge rate, review load, contributors."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from digest.analysis.activity import activity
from digest.analysis.counts import lists
from digest.models import CommentKind
from tests.support.analysis_sample import (
    START,
    WINDOW,
    make_comment,
    make_item,
    sample_analysis,
)


def test_activity_figures() -> None:
    """Distinct human authors and commenters, merge rate, open new PRs, first-timers."""
    old = START - timedelta(days=5)
    items = [
        make_item(1, author="ann", association="FIRST_TIME_CONTRIBUTOR"),
        make_item(2, pr=True, author="ann"),
        make_item(3, pr=True, author="bob", merged=START + timedelta(hours=2)),
        make_item(4, pr=True, author="dependabot[bot]", bot=True),
        make_item(5, pr=True, author="cat", created=old, closed=START + timedelta(hours=3)),
        make_item(6, pr=True, author="dan", created=old, merged=START + timedelta(hours=4)),
    ]
    comments = [
        make_comment(1, 1, "bob"),
        make_comment(2, 1, "eve"),
        make_comment(3, 2, "bob"),
        make_comment(4, 2, "github-actions[bot]", bot=True),
    ]
    act = activity(lists(items, WINDOW), comments)
    assert act.authors == 2  # ann, bob (the bot is not counted)
    assert act.commenters == 2 and act.comments == 3 and act.bot_comments == 1
    assert act.merge_rate == 2 / 3
    assert act.open_new_prs == 2  # 2 and the bot's 4
    assert act.top_contributors[0] == ("ann", 2)
    assert act.first_time == ("ann",)


def test_sample_activity() -> None:
    """Sample: 7 authors of new items, 2 commenters, all merges and no unmerged closes."""
    act = sample_analysis().activity
    assert (act.authors, act.commenters, act.comments, act.bot_comments) == (7, 2, 2, 0)
    assert act.merge_rate == 1.0
    assert act.open_new_prs == 0  # all four new PRs were closed or merged by the time of the build
    assert act.top_contributors[0] == ("AndreasKaratzas", 2)  # opened and merged #33492


def test_review_comments_count_as_discussion() -> None:
    """Inline review comments count as comments and commenters, and are tallied apart."""
    items = [make_item(1, pr=True, author="ann")]
    review = replace(make_comment(2, 1, "rev"), kind=CommentKind.REVIEW, path="vllm/a.py")
    act = activity(lists(items, WINDOW), [make_comment(1, 1, "bob"), review])
    assert (act.comments, act.commenters, act.review_comments) == (2, 2, 1)
