"""The Search API path: qualifiers, half-open windows, the 1,000-result cap."""

from __future__ import annotations

from datetime import timedelta

import pytest

from digest.errors import NotFound, RepoMoved, SearchRefused, SourceUnavailable
from digest.github.client import GitHubClient
from tests.fakes.github import FakeGitHub, issue_row
from tests.support.synthetic import DEFAULT_NOW

REPO = "vllm-project/vllm"
T0 = DEFAULT_NOW - timedelta(days=30)
DAY = timedelta(days=1)


async def test_search_window_is_half_open(fake: FakeGitHub, client: GitHubClient) -> None:
    """An item created exactly at the start counts; one created exactly at the end does not."""
    end = T0 + timedelta(days=1)
    fake.add_repo(
        REPO,
        issues=[
            issue_row(REPO, 1, created=T0 - timedelta(seconds=1)),
            issue_row(REPO, 2, created=T0),
            issue_row(REPO, 3, created=end - timedelta(seconds=1)),
            issue_row(REPO, 4, created=end),
        ],
    )
    result = await client.search(REPO, kind="issue", field="created", start=T0, end=end)
    assert sorted(r["number"] for r in result.rows) == [2, 3]
    assert result.complete
    query = fake.requests[0].query["q"]
    assert query == (f"repo:{REPO} is:issue created:2026-02-09T03:21:00Z..2026-02-10T03:20:59Z")


async def test_search_kinds_and_fields(fake: FakeGitHub, client: GitHubClient) -> None:
    """``is:pr closed:`` finds PRs merged or closed in the window, not issues or open PRs."""
    end = T0 + timedelta(days=1)
    fake.add_repo(
        REPO,
        issues=[
            issue_row(REPO, 1, created=T0 - timedelta(days=3), closed=T0 + timedelta(hours=1)),
            issue_row(REPO, 2, created=T0 - timedelta(days=3), merged=T0 + timedelta(hours=2)),
            issue_row(
                REPO, 3, created=T0 - timedelta(days=3), closed=T0 + timedelta(hours=3), pr=True
            ),
            issue_row(REPO, 4, created=T0 + timedelta(hours=1), pr=True),
            issue_row(REPO, 5, created=T0 - timedelta(days=3), merged=end),
        ],
    )
    result = await client.search(REPO, kind="pr", field="closed", start=T0, end=end)
    assert sorted(r["number"] for r in result.rows) == [2, 3]
    merged = {r["number"]: r["pull_request"]["merged_at"] for r in result.rows}
    assert merged[2] is not None and merged[3] is None


async def test_large_ranges_are_split_under_the_cap(fake: FakeGitHub, client: GitHubClient) -> None:
    """A range with more than 1,000 results is split so every result is fetched once."""
    fake.add_repo(
        REPO,
        issues=[
            issue_row(REPO, n, created=T0 + timedelta(minutes=5 * n), pr=True)
            for n in range(1, 2601)
        ],
    )
    end = T0 + timedelta(days=10)
    result = await client.search(REPO, kind="pr", field="created", start=T0, end=end)
    numbers = sorted(r["number"] for r in result.rows)
    assert numbers == list(range(1, 2601))
    assert result.complete
    served = [r for r in fake.requests if r.status == 200]
    assert max(int(r.query.get("page", "1")) for r in served) <= 10
    assert {r.status for r in fake.requests} <= {200, 403}  # 403: the search limit, waited out
    assert len(served) <= 2600 // 100 + 8


async def test_incomplete_results_are_reported(fake: FakeGitHub, client: GitHubClient) -> None:
    """GitHub's ``incomplete_results`` flag makes the result incomplete."""
    fake.add_repo(REPO, issues=[issue_row(REPO, 1, created=T0)])
    fake.incomplete_search = True
    result = await client.search(
        REPO, kind="issue", field="created", start=T0, end=T0 + timedelta(days=1)
    )
    assert not result.complete


async def test_unknown_repository_search_is_not_found(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """Search refuses unknown repositories (422); a repository lookup turns that into NotFound."""
    with pytest.raises(NotFound):
        await client.search(
            "nobody/nothing", kind="issue", field="created", start=T0, end=T0 + timedelta(days=1)
        )
    assert [r.path for r in fake.requests] == ["/search/issues", "/repos/nobody/nothing"]


async def test_search_of_a_renamed_repository_says_its_new_name(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """The Search API refuses a renamed repository's old name (422); the repository lookup
    follows GitHub's 301 and says what it is called now (``RepoMoved``)."""
    fake.add_repo(REPO, issues=[issue_row(REPO, 1, created=T0)])
    fake.rename(REPO, "vllm-project/vllm-next")
    with pytest.raises(RepoMoved) as moved:
        await client.search(REPO, kind="issue", field="created", start=T0, end=T0 + DAY)
    assert (moved.value.old, moved.value.new) == (REPO, "vllm-project/vllm-next")
    result = await client.search(
        moved.value.new, kind="issue", field="created", start=T0, end=T0 + DAY
    )
    assert [row["number"] for row in result.rows] == [1]


async def test_a_search_github_refuses_is_search_refused(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """A 422 for a repository that exists under its name is GitHub refusing the query:
    ``SearchRefused`` with GitHub's reason, not an outage."""
    fake.add_repo(REPO)
    fake.refuse_search = True
    with pytest.raises(SearchRefused) as refused:
        await client.search(REPO, kind="issue", field="created", start=T0, end=T0 + DAY)
    assert (refused.value.status, refused.value.message) == (422, "Validation Failed")
    assert not isinstance(refused.value, SourceUnavailable)


async def test_search_rate_limit_resets_within_a_minute(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """The search limit (10 a minute without a token) is waited out, not raised."""
    fake.add_repo(REPO, issues=[issue_row(REPO, 1, created=T0)])
    end = T0 + timedelta(days=1)
    for _ in range(12):
        result = await client.search(REPO, kind="issue", field="created", start=T0, end=end)
        assert len(result.rows) == 1
    assert [r.status for r in fake.requests].count(403) == 1
    assert client.rate["search"].limit == 10
