"""A whole repository's history, synthetic and fast: N issues and PRs over D days, with their
comments and review comments, as the list endpoints return them.

Sized like vLLM by default (about 37,000 issues and PRs since 2023-02, a quarter of a million
comments, a hundred thousand review comments). Rows are the fake GitHub's minimal shapes; each
item's ``updated_at`` is its latest event (its close, merge or last comment), as on GitHub.

    from tests.support.history import History, generate_history

    h = generate_history(items=37_000, comments=250_000, reviews=100_000, days=1_100)
    h.issues, h.comments, h.review_comments, h.start, h.now
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.fakes.github import comment_row, issue_row, review_comment_row

Row = dict[str, Any]
NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)
_TALK = timedelta(days=30)  # comments fall within a month of the item's creation


@dataclass(frozen=True, slots=True)
class History:
    issues: list[Row]
    comments: list[Row]
    review_comments: list[Row]
    start: datetime
    now: datetime


def generate_history(
    *,
    items: int = 37_000,
    comments: int = 250_000,
    reviews: int = 100_000,
    days: int = 1_100,
    now: datetime = NOW,
    seed: int = 7,
    repo: str = "vllm-project/vllm",
) -> History:
    """``items`` issues and PRs created over ``days`` days ending at ``now`` (growing busier,
    as vLLM did), two in three of them PRs, with ``comments`` comments and ``reviews`` review
    comments on them."""
    rnd = random.Random(seed)
    start = now - timedelta(days=days)
    span = (now - start).total_seconds()

    def moment(lo: datetime, hi: datetime) -> datetime:
        seconds = max(0, int((hi - lo).total_seconds()))
        return lo + timedelta(seconds=rnd.randint(0, seconds))

    created = sorted(
        start + timedelta(seconds=int(span * rnd.random() ** 0.6)) for _ in range(items)
    )
    stamps: list[list[datetime | None]] = []  # created, closed, merged, last talk
    prs: list[int] = []
    for number, made in enumerate(created, start=1):
        pr = rnd.random() < 2 / 3
        ended = made + timedelta(seconds=int(rnd.expovariate(1 / (5 * 86400))))
        closed = ended if ended < now and rnd.random() < 0.85 else None
        merged = closed if pr and closed is not None and rnd.random() < 0.6 else None
        stamps.append([made, closed, merged, None])
        if pr:
            prs.append(number)
    comment_rows: list[Row] = []
    for k in range(comments):
        number = rnd.randint(1, items)
        made = created[number - 1]
        at = moment(made, min(now, made + _TALK))
        stamps[number - 1][3] = max(stamps[number - 1][3] or at, at)
        login = "github-actions[bot]" if k % 4 == 0 else f"user{rnd.randint(1, 3000)}"
        comment_rows.append(comment_row(repo, 1_000_000 + k, number, created=at, login=login))
    review_rows: list[Row] = []
    for k in range(reviews):
        number = rnd.choice(prs)
        made = created[number - 1]
        at = moment(made, min(now, made + _TALK))
        stamps[number - 1][3] = max(stamps[number - 1][3] or at, at)
        review_rows.append(
            review_comment_row(repo, 2_000_000 + k, number, created=at, login=f"user{k % 900}")
        )
    pr_set = set(prs)
    issue_rows = []
    for number, (made, closed, merged, talk) in enumerate(stamps, start=1):
        assert made is not None
        latest = max(s for s in (made, closed, merged, talk) if s is not None)
        issue_rows.append(
            issue_row(
                repo,
                number,
                created=made,
                updated=latest,
                closed=closed,
                merged=merged,
                pr=number in pr_set,
                login=f"user{number % 2000}",
            )
        )
    return History(issue_rows, comment_rows, review_rows, start, now)
