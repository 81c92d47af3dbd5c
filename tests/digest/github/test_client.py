"""The GitHub client against the fake GitHub, over real HTTP."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from aiohttp import web

from digest.errors import Gone, NotFound, RateLimited, SourceUnavailable
from digest.github.client import GitHubClient, Page
from digest.github.retry import RetryPolicy
from tests.fakes.github import (
    FakeGitHub,
    RecordingSleep,
    comment_row,
    issue_row,
    refused_url,
    review_comment_row,
)
from tests.support.clock import Clock
from tests.support.synthetic import DEFAULT_NOW

REPO = "vllm-project/vllm"
T0 = DEFAULT_NOW - timedelta(days=1)


def rows(count: int, *, first: int = 1) -> list[dict[str, object]]:
    """``count`` issues created (and last updated) one minute apart from ``T0``."""
    return [
        issue_row(REPO, n, created=T0 + timedelta(minutes=n)) for n in range(first, first + count)
    ]


async def collect(pages: AsyncIterator[Page]) -> list[Page]:
    return [page async for page in pages]


async def test_issues_follow_link_pagination(fake: FakeGitHub, client: GitHubClient) -> None:
    """Every page of the issues stream is fetched through the Link header, oldest update first."""
    fake.add_repo(REPO, issues=rows(250))
    pages = await collect(client.issues(REPO, T0))
    assert [len(p.rows) for p in pages] == [100, 100, 50]
    assert [r["number"] for p in pages for r in p.rows] == list(range(1, 251))
    assert client.requests_made == 3
    first = fake.requests[0]
    assert first.path == f"/repos/{REPO}/issues"
    assert first.query == {
        "state": "all",
        "since": "2026-03-10T03:21:00Z",
        "sort": "updated",
        "direction": "asc",
        "per_page": "100",
    }


async def test_since_skips_rows_updated_earlier(fake: FakeGitHub, client: GitHubClient) -> None:
    """Rows last updated before ``since`` are not fetched."""
    fake.add_repo(REPO, issues=rows(30))
    pages = await collect(client.issues(REPO, T0 + timedelta(minutes=21)))
    assert [r["number"] for p in pages for r in p.rows] == list(range(21, 31))


async def test_comments_stream_is_one_repository_stream(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """Comments of every item come from the repository comments endpoint, oldest update first."""
    comments = [
        comment_row(REPO, 900 + n, n % 3 + 1, created=T0 + timedelta(minutes=10 - n))
        for n in range(10)
    ]
    fake.add_repo(REPO, issues=rows(3), comments=comments)
    pages = await collect(client.comments(REPO, T0))
    ids = [r["id"] for p in pages for r in p.rows]
    assert ids == list(range(909, 899, -1))
    assert fake.requests[0].path == f"/repos/{REPO}/issues/comments"
    assert fake.requests[0].query["sort"] == "updated"


async def test_review_comments_stream_is_one_repository_stream(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """Inline review comments of every PR come from /pulls/comments, oldest update first."""
    reviews = [
        review_comment_row(REPO, 700 + n, n % 2 + 1, created=T0 + timedelta(minutes=10 - n))
        for n in range(4)
    ]
    fake.add_repo(REPO, issues=rows(2), review_comments=reviews)
    pages = await collect(client.review_comments(REPO, T0, etag=None))
    assert [r["id"] for p in pages for r in p.rows] == [703, 702, 701, 700]
    assert fake.requests[0].path == f"/repos/{REPO}/pulls/comments"
    assert fake.requests[0].query["since"] == "2026-03-10T03:21:00Z"


async def test_matching_etag_gives_304_without_spending_rate_limit(
    fake: FakeGitHub, client: GitHubClient
) -> None:
    """A stored ETag that still matches gives a 304: no rows and no rate limit spent."""
    fake.add_repo(REPO, issues=rows(5))
    [page] = await collect(client.issues(REPO, T0))
    remaining = client.remaining()
    [again] = await collect(client.issues(REPO, T0, etag=page.etag))
    assert again.not_modified and again.rows == []
    assert client.remaining() == remaining
    assert fake.requests[-1].headers["if-none-match"] == page.etag
    assert fake.requests[-1].status == 304


async def test_changed_data_gets_a_new_etag(fake: FakeGitHub, client: GitHubClient) -> None:
    """After a change the old ETag no longer matches and the new rows arrive."""
    repo = fake.add_repo(REPO, issues=rows(5))
    [page] = await collect(client.issues(REPO, T0))
    repo.put_issue(issue_row(REPO, 6, created=T0 + timedelta(hours=2)))
    [again] = await collect(client.issues(REPO, T0, etag=page.etag))
    assert not again.not_modified
    assert [r["number"] for r in again.rows] == [1, 2, 3, 4, 5, 6]
    assert again.etag != page.etag


async def test_token_is_sent_as_bearer_and_never_shown(
    fake: FakeGitHub,
    http: httpx.AsyncClient,
    sleep: RecordingSleep,
    clock: Clock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A token raises the limit to 5,000 and appears in no log record, repr or recording."""
    caplog.set_level(logging.DEBUG)
    fake.add_repo(REPO, issues=rows(5))
    fake.secondary_at = {1}
    client = GitHubClient(http, token="ghp_s3cret", sleep=sleep, clock=clock)
    await collect(client.issues(REPO, T0))
    assert all(r.authenticated for r in fake.requests)
    assert client.rate["core"].limit == 5000
    assert "ghp_s3cret" not in repr(client)
    assert "ghp_s3cret" not in str(fake.requests)
    assert any(r.msg == "github.retry_scheduled" for r in caplog.records)
    assert all("ghp_s3cret" not in str(vars(r)) for r in caplog.records)


async def test_anonymous_client_gets_the_low_limit(fake: FakeGitHub, client: GitHubClient) -> None:
    """Without a token no Authorization is sent and the limit is 60 an hour."""
    fake.add_repo(REPO, issues=rows(5))
    await collect(client.issues(REPO, T0))
    assert not fake.requests[0].authenticated
    assert (client.rate["core"].limit, client.remaining()) == (60, 59)


async def test_exhausted_rate_limit_raises_with_reset_time(
    fake: FakeGitHub, client: GitHubClient, sleep: RecordingSleep
) -> None:
    """An exhausted primary limit raises RateLimited at once, with GitHub's reset time."""
    fake.add_repo(REPO, issues=rows(5))
    fake.exhaust()
    with pytest.raises(RateLimited) as info:
        await collect(client.issues(REPO, T0))
    assert info.value.reset_at == DEFAULT_NOW + timedelta(hours=1)
    assert info.value.authenticated is False
    assert client.requests_made == 1
    assert sleep.delays == []


async def test_limit_resetting_within_a_minute_is_waited_for(
    fake: FakeGitHub, client: GitHubClient, sleep: RecordingSleep, clock: Clock
) -> None:
    """A primary limit that resets within the wait cap is slept through, then retried."""
    fake.add_repo(REPO, issues=rows(5))
    await collect(client.issues(REPO, T0))
    fake.exhaust()
    clock.advance(timedelta(minutes=59, seconds=50))
    pages = await collect(client.issues(REPO, T0))
    assert len(pages[0].rows) == 5
    assert sleep.delays == [11.0]


async def test_unknown_repository_is_not_found(
    fake: FakeGitHub, client: GitHubClient, sleep: RecordingSleep
) -> None:
    """A 404 raises NotFound naming the repository, without retrying."""
    with pytest.raises(NotFound) as info:
        await collect(client.issues("nobody/nothing", T0))
    assert info.value.what == "nobody/nothing"
    assert client.requests_made == 1 and sleep.delays == []


async def test_repository_lookup(fake: FakeGitHub, client: GitHubClient) -> None:
    """The repository lookup returns its metadata, or NotFound."""
    fake.add_repo(REPO)
    assert (await client.repository(REPO))["full_name"] == REPO
    with pytest.raises(NotFound):
        await client.repository("vllm-project/missing")


async def test_one_issue_by_number(fake: FakeGitHub, client: GitHubClient) -> None:
    """One issue or PR row by number, or NotFound naming it."""
    fake.add_repo(REPO, issues=rows(3))
    assert (await client.issue(REPO, 2))["number"] == 2
    with pytest.raises(NotFound) as info:
        await client.issue(REPO, 99)
    assert info.value.what == f"{REPO}#99"


async def test_connection_refused_is_source_unavailable(
    sleep: RecordingSleep, clock: Clock
) -> None:
    """Refused connections are retried with growing backoff, then reported as unavailable."""
    async with httpx.AsyncClient(base_url=refused_url(), timeout=2.0) as http:
        client = GitHubClient(http, sleep=sleep, clock=clock, jitter=lambda: 0.5)
        with pytest.raises(SourceUnavailable, match="ConnectError"):
            await collect(client.issues(REPO, T0))
    assert client.requests_made == RetryPolicy().attempts
    assert sleep.delays == [0.75, 1.5, 3.0, 6.0]


async def test_undecodable_body_is_source_unavailable_at_once(
    sleep: RecordingSleep, clock: Clock
) -> None:
    """A body httpx cannot decode is reported as unavailable, not retried and not leaked raw."""

    async def garbled(request: web.Request) -> web.Response:
        headers = {"Content-Encoding": "gzip", "Content-Type": "application/json"}
        return web.Response(body=b"not gzip at all", headers=headers)

    app = web.Application()
    app.router.add_get("/{tail:.*}", garbled)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=2.0) as http:
            client = GitHubClient(http, sleep=sleep, clock=clock, jitter=lambda: 0.5)
            with pytest.raises(SourceUnavailable, match="DecodingError"):
                await client.repository(REPO)
    finally:
        await runner.cleanup()
    assert client.requests_made == 1 and sleep.delays == []


async def test_secondary_limit_waits_retry_after_then_succeeds(
    fake: FakeGitHub, client: GitHubClient, sleep: RecordingSleep
) -> None:
    """A secondary rate limit mid-stream waits Retry-After, then the stream completes."""
    fake.add_repo(REPO, issues=rows(250))
    fake.secondary_at = {2}
    fake.retry_after = 3
    pages = await collect(client.issues(REPO, T0))
    assert sum(len(p.rows) for p in pages) == 250
    assert sleep.delays == [3.0]
    assert [r.status for r in fake.requests] == [200, 403, 200, 200]


async def test_secondary_limit_longer_than_the_cap_raises(
    fake: FakeGitHub, client: GitHubClient, sleep: RecordingSleep
) -> None:
    """A Retry-After beyond the wait cap raises RateLimited instead of sleeping."""
    fake.add_repo(REPO, issues=rows(5))
    fake.secondary_at = {1}
    fake.retry_after = 900
    with pytest.raises(RateLimited) as info:
        await collect(client.issues(REPO, T0))
    assert info.value.reset_at == DEFAULT_NOW + timedelta(seconds=900)
    assert sleep.delays == []


async def test_server_errors_are_retried(
    fake: FakeGitHub, client: GitHubClient, sleep: RecordingSleep
) -> None:
    """A 502 on every other request still yields every row, one backoff per failure."""
    fake.add_repo(REPO, issues=rows(250))
    fake.fail_every = 2
    pages = await collect(client.issues(REPO, T0))
    assert sum(len(p.rows) for p in pages) == 250
    assert client.requests_made == 5
    assert sleep.delays == [0.75, 0.75]


async def test_persistent_server_errors_give_up(
    fake: FakeGitHub, client: GitHubClient, sleep: RecordingSleep
) -> None:
    """A server that always fails is abandoned after the capped attempts."""
    fake.add_repo(REPO, issues=rows(5))
    fake.fail_every = 1
    with pytest.raises(SourceUnavailable, match=r"server_error.*5 attempts"):
        await collect(client.issues(REPO, T0))
    assert client.requests_made == 5
    assert sum(sleep.delays) <= RetryPolicy().max_total


async def test_total_wait_is_capped(
    fake: FakeGitHub, http: httpx.AsyncClient, sleep: RecordingSleep, clock: Clock
) -> None:
    """Retries stop once the next backoff would pass the total time cap."""
    fake.add_repo(REPO, issues=rows(5))
    fake.fail_every = 1
    policy = RetryPolicy(attempts=10, base_delay=4.0, max_delay=64.0, max_total=20.0)
    client = GitHubClient(http, sleep=sleep, clock=clock, policy=policy, jitter=lambda: 1.0)
    with pytest.raises(SourceUnavailable):
        await collect(client.issues(REPO, T0))
    assert sleep.delays == [4.0, 8.0]
    assert client.requests_made == 3


async def test_timeouts_are_retried(fake: FakeGitHub, sleep: RecordingSleep, clock: Clock) -> None:
    """A request that times out is retried and the stream completes."""
    fake.add_repo(REPO, issues=rows(5))
    fake.stall_at = {1}
    fake.stall_seconds = 0.5
    async with httpx.AsyncClient(base_url=fake.url, timeout=0.1) as http:
        client = GitHubClient(http, sleep=sleep, clock=clock, jitter=lambda: 0.5)
        pages = await collect(client.issues(REPO, T0))
    assert len(pages[0].rows) == 5
    assert client.requests_made == 2
    assert sleep.delays == [0.75]


async def test_deleted_issue_is_gone(fake: FakeGitHub, client: GitHubClient) -> None:
    """A deleted issue answers 410, which reads as Gone (a kind of NotFound), not disabled."""
    fake.add_repo(REPO, issues=rows(2)).delete(2)
    with pytest.raises(Gone, match="deleted"):
        await client.issue(REPO, 2)


async def test_transferred_issue_is_followed(fake: FakeGitHub, client: GitHubClient) -> None:
    """A transferred issue answers 301; the client follows it on the API host."""
    fake.add_repo(REPO, issues=rows(2)).transfer(2, "vllm-project/other", 9)
    fake.add_repo("vllm-project/other", issues=[issue_row("vllm-project/other", 9, created=T0)])
    row = await client.issue(REPO, 2)
    assert row["number"] == 9 and [r.status for r in fake.requests] == [301, 200]


async def test_redirect_to_another_host_is_refused() -> None:
    """A redirect off the API host is never followed (the token would go with it)."""

    async def handler(request: web.Request) -> web.Response:
        raise web.HTTPMovedPermanently("http://evil.example/repos/x/y/issues/1")

    app = web.Application()
    app.router.add_get("/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        async with httpx.AsyncClient(base_url=f"http://{host}:{port}") as http:
            with pytest.raises(SourceUnavailable, match="another host"):
                await GitHubClient(http, token="t", clock=Clock(DEFAULT_NOW)).issue(REPO, 1)
    finally:
        await runner.cleanup()
