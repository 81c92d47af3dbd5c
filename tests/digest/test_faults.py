"""Whole digests through the composition root against a faulty fake GitHub, and their budgets."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.compose import Runtime, build_runtime
from config.settings import GitHubSettings, Settings, load_config
from digest.models import Digest
from digest.render.json import to_json
from tests.fakes.github import FakeGitHub, RecordingSleep
from tests.support.clock import Clock
from tests.support.synthetic import DEFAULT_NOW, Dataset, generate

REPO = "vllm-project/vllm"


@pytest.fixture(scope="module")
def day() -> Dataset:
    """One synthetic vLLM-sized day ending at DEFAULT_NOW."""
    return generate(days=1, now=DEFAULT_NOW, seed=1, repo=REPO)


@asynccontextmanager
async def served(
    data: Dataset, db: Path, faults: Callable[[FakeGitHub], None] = lambda gh: None
) -> AsyncIterator[tuple[FakeGitHub, Runtime, Clock, RecordingSleep]]:
    """A fake GitHub serving ``data`` (with ``faults`` applied) and a runtime on an empty store."""
    clock = Clock(data.now)
    sleep = RecordingSleep(clock)
    async with FakeGitHub(clock=clock) as gh:
        gh.add_repo(REPO, issues=data.issues, comments=data.comments)
        faults(gh)
        settings = Settings(github=GitHubSettings(api_url=gh.url), db=str(db))
        async with build_runtime(settings, load_config(), clock=clock, sleep=sleep) as runtime:
            yield gh, runtime, clock, sleep


async def today(runtime: Runtime) -> Digest:
    return await runtime.core.build(runtime.core.request("today"))


def without_provenance_times(digest: Digest) -> dict[str, Any]:
    """The JSON render less the moments the build and the sync happened."""
    rendered = to_json(digest)
    del rendered["provenance"]["generated_at"], rendered["provenance"]["synced_at"]
    return rendered


def budget(data: Dataset, digest: Digest) -> int:
    items, comments = data.rows_updated_since(digest.window.start)
    return math.ceil(items / 100) + math.ceil(comments / 100) + 3


async def test_502s_and_a_secondary_limit_change_nothing(day: Dataset, tmp_path: Path) -> None:
    """A 502 on every fifth request and a mid-sync secondary limit leave the digest unchanged."""
    async with served(day, tmp_path / "clean.sqlite3") as (_, runtime, _, _):
        clean = await today(runtime)

    def faulty(gh: FakeGitHub) -> None:
        gh.fail_every = 5
        gh.secondary_at = {7}
        gh.retry_after = 3

    async with served(day, tmp_path / "faulty.sqlite3", faulty) as (gh, runtime, _, sleep):
        survived = await today(runtime)
        statuses = [r.status for r in gh.requests]

    assert statuses.count(502) >= 2 and statuses[6] == 403
    assert 200 in statuses[:6] and 200 in statuses[7:]
    assert any(delay >= 3 for delay in sleep.delays)
    expected = day.expected_counts(*day.day(0))
    assert clean.counts == survived.counts == expected
    assert [s.id for s in survived.sections] == [s.id for s in clean.sections]
    assert without_provenance_times(survived) == without_provenance_times(clean)
    assert survived.notes == ()


async def test_one_day_from_an_empty_store_stays_within_budget(
    day: Dataset, tmp_path: Path
) -> None:
    """A one-day digest from an empty store makes at most the design's budget of requests."""
    async with served(day, tmp_path / "mirror.sqlite3") as (gh, runtime, _, _):
        digest = await today(runtime)
    assert digest.counts == day.expected_counts(*day.day(0))
    assert 0 < len(gh.data_requests) <= budget(day, digest)
    assert not any(r.path.startswith("/search/") for r in gh.requests)


async def test_repeat_a_minute_later_makes_at_most_two_free_requests(
    day: Dataset, tmp_path: Path
) -> None:
    """The same digest a minute later re-syncs with at most 2 requests, all free 304s."""
    async with served(day, tmp_path / "mirror.sqlite3") as (gh, runtime, clock, _):
        first = await today(runtime)
        remaining = runtime.github.remaining("core")
        seen = len(gh.requests)
        clock.advance(timedelta(minutes=1))
        again = await today(runtime)
        repeat = gh.requests[seen:]
        assert runtime.github.remaining("core") == remaining
    assert again.window.start == first.window.start + timedelta(minutes=1)
    assert 0 < len(repeat) <= 2
    assert all(r.status == 304 for r in repeat)
    assert again.counts == day.expected_counts(again.window.start, again.window.end)
