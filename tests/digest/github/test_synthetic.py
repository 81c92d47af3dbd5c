"""The synthetic data generator keeps its promises (other tests rely on its expected facts)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest

from digest.models import Counts
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate

ROCM_WORDS = re.compile(
    r"\b(rocm|amd|aiter|hip|mi300x|mi325x|mi350x|mi355x|gfx90a|gfx942|gfx950|gfx1100|gfx1201|"
    r"rdna|radeon|instinct|quark|hipblaslt|rocblas|rccl)\b",
    re.I,
)


@pytest.fixture(scope="module")
def week() -> Dataset:
    """Seven days of synthetic activity."""
    return generate(days=7, now=DEFAULT_NOW, seed=1)


def when(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def posted_in(data: Dataset, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Comment rows created in ``[start, end)``."""
    return [c for c in data.comments if start <= when(c["created_at"]) < end]


def row_counts(rows: list[dict[str, Any]], start: datetime, end: datetime) -> Counts:
    """The five counts straight from the rows, by the counting rules of docs/design.md."""

    def inside(value: str | None) -> bool:
        return value is not None and start <= when(value) < end

    issues = [r for r in rows if "pull_request" not in r]
    prs = [r for r in rows if "pull_request" in r]
    return Counts(
        new_issues=sum(inside(r["created_at"]) for r in issues),
        closed_issues=sum(inside(r["closed_at"]) for r in issues),
        new_prs=sum(inside(r["created_at"]) for r in prs),
        merged_prs=sum(inside(r["pull_request"]["merged_at"]) for r in prs),
        closed_unmerged_prs=sum(
            inside(r["closed_at"]) and r["pull_request"]["merged_at"] is None for r in prs
        ),
    )


def test_same_seed_same_data() -> None:
    """Generation is deterministic for a seed and differs across seeds."""
    assert generate(days=1, seed=4).issues == generate(days=1, seed=4).issues
    assert generate(days=1, seed=4).comments == generate(days=1, seed=4).comments
    assert generate(days=1, seed=4).issues != generate(days=1, seed=5).issues


def test_a_day_has_vllm_volume(week: Dataset) -> None:
    """Each day has about 150 new items (~40 issues, ~110 PRs) and about 500 comments."""
    for k in range(7):
        start, end = week.day(k)
        counts = week.expected_counts(start, end)
        assert 34 <= counts.new_issues <= 48
        assert 100 <= counts.new_prs <= 122
        assert counts.merged_prs >= 20 and counts.closed_unmerged_prs >= 25
        assert 450 <= len(posted_in(week, start, end)) <= 560


def test_expected_counts_match_the_rows(week: Dataset) -> None:
    """The bookkept counts equal the counts read from the rows, for days and the whole week."""
    windows = [week.day(k) for k in range(7)] + [(week.start, week.now)]
    for start, end in windows:
        assert week.expected_counts(start, end) == row_counts(week.issues, start, end)


def test_day_edges_are_half_open() -> None:
    """Items exactly on the window start count; items exactly on the end do not."""
    data = generate(days=1)
    start, end = data.day(0)
    created = {n: when(data.row(n)["created_at"]) for n in data.edge_numbers["created"]}
    assert sorted(created.values()) == [start, end]
    at_end = data.expected_counts(end, end + timedelta(days=1))
    assert at_end == Counts(1, 1, 0, 1, 0)
    merged = [when(data.row(n)["pull_request"]["merged_at"]) for n in data.edge_numbers["merged"]]
    assert sorted(merged) == [start, end]


def test_reopened_items_are_open_without_closed_at(week: Dataset) -> None:
    """Reopened items are open with closed_at cleared, as GitHub does."""
    assert len(week.reopened_numbers) == 14
    for number in week.reopened_numbers:
        row = week.row(number)
        assert row["state"] == "open" and row["closed_at"] is None


def test_same_day_merges_and_old_closures_exist(week: Dataset) -> None:
    """Some PRs are created and merged in one day; some closed items were created weeks before."""
    start, end = week.day(0)
    prs = [r for r in week.issues if "pull_request" in r]
    same_day = [
        r
        for r in prs
        if r["pull_request"]["merged_at"]
        and start <= when(r["created_at"]) < end
        and start <= when(r["pull_request"]["merged_at"]) < end
    ]
    old_closed = [
        r
        for r in week.issues
        if r["closed_at"]
        and start <= when(r["closed_at"]) < end
        and when(r["created_at"]) < start - timedelta(days=14)
    ]
    assert len(same_day) >= 5 and len(old_closed) >= 20


def test_rocm_items_and_traps(week: Dataset) -> None:
    """Planted rocm items carry their signal; trap items carry only look-alike words."""
    for reason in ("label", "tag", "keyword", "author"):
        assert week.rocm_by_reason[reason]
    for number in week.rocm_by_reason["label"]:
        row = week.row(number)
        assert "rocm" in [label["name"] for label in row["labels"]]
        assert not ROCM_WORDS.search(row["title"] + row["body"])
    for number in week.rocm_by_reason["author"]:
        row = week.row(number)
        assert row["user"]["login"].endswith("-amd") and not ROCM_WORDS.search(row["title"])
    for number in week.rocm_by_reason["keyword"]:
        title = week.row(number)["title"]
        assert ROCM_WORDS.search(title) and not title.startswith(("[ROCm]", "[AMD]", "[AITER]"))
    traps = [week.row(n) for n in week.trap_numbers]
    assert all(not ROCM_WORDS.search(r["title"]) for r in traps)
    hits = [m for r in traps if (m := ROCM_WORDS.search(r["body"]))]
    assert len(hits) == 7 and all(m.start() > 2000 for m in hits)
    titles = " ".join(r["title"] for r in traps)
    for word in ("ownership", "command", "chip", "shipping", "hipster", "AMDAHL"):
        assert word in titles


def test_no_other_item_mentions_rocm(week: Dataset) -> None:
    """Outside the planted items and the CUDA-log traps, no title or body names a rocm word."""
    planted = week.rocm_numbers | week.trap_numbers
    for row in week.issues:
        if row["number"] not in planted:
            assert not ROCM_WORDS.search(row["title"] + row["body"]), row["title"]
            assert not row["user"]["login"].endswith("-amd")
            assert "rocm" not in [label["name"] for label in row["labels"]]


def test_bots_comment_a_lot_but_rank_nowhere(week: Dataset) -> None:
    """Bots write about a third of the comments; the most discussed items count humans only."""
    start, end = week.day(0)
    posted = posted_in(week, start, end)
    bots = [c for c in posted if c["user"]["login"] in week.bot_logins]
    assert 0.2 <= len(bots) / len(posted) <= 0.45
    assert {"github-actions[bot]", "mergify[bot]", "vllm-ci", "pre-commit-ci[bot]"} <= (
        week.bot_logins
    )
    assert {c["user"]["type"] for c in bots} == {"Bot", "User"}
    counts = week.human_comment_counts(start, end)
    top = week.most_discussed(start, end, 5)
    assert min(counts[n] for n in top) >= 8
    assert max(v for n, v in counts.items() if n not in top) <= 6
    by_item: dict[int, int] = {}
    for c in bots:
        number = int(c["issue_url"].rsplit("/", 1)[1])
        by_item[number] = by_item.get(number, 0) + 1
    storm = max(by_item, key=lambda n: by_item[n])
    assert by_item[storm] >= 30 and storm not in top
    assert all(len(week.participants(start, end)[n]) >= 3 for n in top)


def test_lifetime_comment_counts(week: Dataset) -> None:
    """Each item's ``comments`` is a lifetime total, at least the comments generated for it."""
    generated: dict[int, int] = {}
    for c in week.comments:
        number = int(c["issue_url"].rsplit("/", 1)[1])
        generated[number] = generated.get(number, 0) + 1
    for row in week.issues:
        assert row["comments"] >= generated.get(row["number"], 0)
    assert any(row["comments"] >= 200 for row in week.issues)


def test_updated_at_covers_every_event(week: Dataset) -> None:
    """An item's updated_at is at or after its creation, closing and every comment on it."""
    latest: dict[int, str] = {}
    for c in week.comments:
        number = int(c["issue_url"].rsplit("/", 1)[1])
        latest[number] = max(latest.get(number, ""), c["created_at"])
    for row in week.issues:
        assert row["updated_at"] >= max(row["created_at"], row["closed_at"] or "")
        assert row["updated_at"] >= latest.get(row["number"], "")
        assert when(row["updated_at"]) <= week.now
