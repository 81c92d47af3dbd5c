"""Pruning: the mirror of a repository nobody follows or asked for lately is dropped, on
SQLite and on a real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from redis.asyncio import Redis

from digest.backends.redis.mirror import RedisStore
from digest.backends.redis.state import RedisState
from digest.backends.sqlite.mirror import SQLiteStore
from digest.errors import StateUnavailable
from digest.github.allow_list import AllowList
from digest.github.client import GitHubClient
from digest.mirror.access import RepoAccess
from digest.mirror.pruning import Prunable, prune
from digest.mirror.store import Store, SyncState
from tests.fakes.github import FakeGitHub
from tests.support.clock import Clock
from tests.support.following import github_access
from tests.support.redis_server import free_port, sandbox
from tests.support.service import START
from tests.support.store_samples import at, comment, item

FOLLOWED, ASKED, OLD, FORGOTTEN = "o/followed", "o/asked", "o/old", "o/forgotten"


@pytest.fixture(params=["sqlite", "redis"])
async def mirror(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """A mirror holding four repositories, on each backend."""
    if request.param == "redis":
        async with sandbox() as box:
            made: Store = RedisStore(box.client, prefix=box.prefix)
            await _fill(made)
            yield made
        return
    made = SQLiteStore(":memory:")
    await _fill(made)
    yield made
    await made.close()


async def _fill(store: Store) -> None:
    for repo in (FOLLOWED, ASKED, OLD, FORGOTTEN):
        await store.upsert_items([item(n, repo) for n in range(1, 6)])
        await store.upsert_comments([comment(n, repo) for n in range(1, 4)])
        await store.set_sync_state(repo, SyncState(synced_at=at(1)))


async def test_unfollowed_and_unasked_mirrors_are_dropped(mirror: Store) -> None:
    """Of four mirrored repositories, the followed one and the one asked for within the
    period stay; the one asked for before it and the one never asked for go, wholly."""
    assert isinstance(mirror, Prunable)
    clock = Clock(START)
    async with FakeGitHub(clock=clock) as gh, github_access(gh, clock) as rig:
        access = rig.access
        await access.asked(OLD)
        clock.advance(access.asked_for - timedelta(days=1))
        await access.asked(ASKED)
        clock.advance(timedelta(days=2))
        dropped = await prune(mirror, access, [FOLLOWED.upper()])
        assert sorted(dropped) == [FORGOTTEN, OLD]
        assert await mirror.mirrored_repos() == sorted([ASKED, FOLLOWED])
        for gone in (OLD, FORGOTTEN):
            assert await mirror.items_by_number(gone, [1, 2, 3, 4, 5]) == []
            assert await mirror.get_sync_state(gone) == SyncState()
        for kept in (ASKED, FOLLOWED):
            assert len(await mirror.items_by_number(kept, [1, 2, 3, 4, 5])) == 5
        assert await prune(mirror, access, [FOLLOWED]) == []


async def test_nothing_is_pruned_on_a_guess_when_the_state_is_down(mirror: Store) -> None:
    """With the shared state unreachable (nobody can say what was asked for), nothing is
    dropped."""
    assert isinstance(mirror, Prunable)
    clock = Clock(START)
    down = Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=0.2)
    async with FakeGitHub(clock=clock) as gh, httpx.AsyncClient(base_url=gh.url) as http:
        access = RepoAccess(
            GitHubClient(http, clock=clock), RedisState(down), AllowList(), clock=clock
        )
        with pytest.raises(StateUnavailable):
            await prune(mirror, access, [FOLLOWED])
    await down.aclose()
    assert len(await mirror.mirrored_repos()) == 4
