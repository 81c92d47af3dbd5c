"""Pacing of the background sync from GitHub's rate-limit headers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from digest.github.client import GitHubClient, RateStatus
from digest.mirror.pacing import Pacer, next_wait
from tests.fakes.github import FakeGitHub, issue_row
from tests.support.clock import Clock

NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)
TEN = timedelta(minutes=10)
REPO = "vllm-project/vllm"


def status(
    remaining: int, limit: int = 5000, reset_in: timedelta = timedelta(hours=1)
) -> RateStatus:
    return RateStatus("core", limit, remaining, NOW + reset_in)


def test_plenty_left_keeps_the_interval() -> None:
    """With a token and thousands left, a round of a few requests waits the interval."""
    assert next_wait(status(4800), now=NOW, interval=TEN, per_round=4) == TEN


def test_little_left_stretches_the_wait() -> None:
    """Without a token, 30 left (12 kept for commands) and 6 a round: three rounds this hour."""
    got = next_wait(status(30, limit=60), now=NOW, interval=TEN, per_round=6)
    assert got == timedelta(minutes=20)


def test_spent_limit_waits_for_the_reset() -> None:
    """When not even one round fits, the next one starts just after the reset."""
    got = next_wait(
        status(13, limit=60, reset_in=timedelta(minutes=42)), now=NOW, interval=TEN, per_round=2
    )
    assert got == timedelta(minutes=42, seconds=1)


def test_unknown_limit_keeps_the_interval() -> None:
    """Before GitHub has answered, the interval holds."""
    assert next_wait(None, now=NOW, interval=TEN, per_round=3) == TEN


async def test_unauthenticated_304s_are_paid() -> None:
    """A round of two 304s costs two requests without a token and none with one."""
    clock = Clock(NOW)
    async with FakeGitHub(clock=clock) as gh:
        gh.add_repo(REPO, issues=[issue_row(REPO, 1, created=NOW - timedelta(hours=1))])
        async with httpx.AsyncClient(base_url=gh.url) as http:
            for token, paid in ((None, 2), ("t", 0)):
                client = GitHubClient(http, token=token, clock=clock)
                [page] = [p async for p in client.issues(REPO, NOW - timedelta(days=1))]
                pacer = Pacer(client)
                pacer.start()
                for _ in range(2):
                    [p async for p in client.issues(REPO, NOW - timedelta(days=1), etag=page.etag)]
                assert pacer.paid() == paid
