"""compose.yaml's two Redis servers at their memory limit, run as compose runs them (with a
smaller ``maxmemory``): the cache evicts old digests and keeps taking new ones; the state's
Redis evicts nothing, refuses writes with a clear degradation, and keeps every key it held."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import redis
from redis.asyncio import Redis

from digest.backends.redis.ledger import RedisLedger
from digest.backends.redis.mirror import RedisStore
from digest.backends.redis.state import RedisState
from digest.errors import StateUnavailable
from tests.deploy.test_dockerfile import compose
from tests.support.redis_server import RedisServer, find_binary
from tests.support.store_samples import REPO, item

PASSWORD = "test-password"
NOW = datetime(2026, 3, 11, 3, 21, tzinfo=UTC)


def _options(service: str, maxmemory: str) -> list[str]:
    """The ``redis-server`` arguments compose gives ``service``, with ``maxmemory`` instead."""
    command = compose()["services"][service]["command"][-1].replace("$$", "$")  # as compose
    words = shlex.split(command)
    args = words[words.index("redis-server") + 1 :]
    args = [PASSWORD if a == "$REDIS_PASSWORD" else a for a in args]
    args[args.index("--maxmemory") + 1] = maxmemory
    return args


@pytest.fixture
def servers() -> Iterator[tuple[RedisServer, RedisServer]]:
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server")
    state = RedisServer(binary, options=_options("redis", "4mb"), password=PASSWORD)
    cache = RedisServer(binary, options=_options("redis-cache", "4mb"), password=PASSWORD)
    yield state, cache
    state.close()
    cache.close()


def _start(server: RedisServer) -> Redis:
    server.start()
    return Redis.from_url(server.url, password=PASSWORD, socket_timeout=5.0)


async def test_the_cache_evicts_old_digests_and_keeps_taking_new_ones(
    servers: tuple[RedisServer, RedisServer],
) -> None:
    """Forty MiB of digests into a 4 MiB cache: every write succeeds, the oldest are gone,
    the newest is there, and memory stays at the limit."""
    _, server = servers
    client = _start(server)
    cache = RedisState(client)
    payload = "x" * 100_000
    for n in range(400):
        await cache.set(f"digest:{n}", payload, timedelta(days=1))
    assert await cache.get("digest:399") == payload
    assert await cache.get("digest:0") is None
    info = await client.info("memory")
    assert info["used_memory"] <= info["maxmemory"] * 1.1
    assert (await client.info("stats"))["evicted_keys"] > 0
    await client.aclose()


async def test_the_state_evicts_nothing_and_refuses_writes_when_full(
    servers: tuple[RedisServer, RedisServer],
) -> None:
    """A mirror filled past 4 MiB: writes end with ``StateUnavailable`` (logged as a
    degradation, not an internal error), and every item and claim stored before is kept."""
    server, _ = servers
    client = _start(server)
    store, ledger = RedisStore(client), RedisLedger(client)
    assert await ledger.claim("post:run", "me", NOW, timedelta(minutes=10))
    stored: list[int] = []
    with pytest.raises(StateUnavailable):
        for batch in range(1000):
            numbers = range(batch * 50 + 1, batch * 50 + 51)
            await store.upsert_items([item(n, body_excerpt="y" * 2000) for n in numbers])
            stored.extend(numbers)
    assert stored
    reader = RedisStore(client)  # its own guard: not in the writer's back-off after the refusal
    kept = await reader.items_by_number(REPO, stored)
    assert len(kept) == len(stored)
    assert not await RedisLedger(client).claim("post:run", "other", NOW, timedelta(minutes=10))
    assert (await client.info("stats"))["evicted_keys"] == 0
    await client.aclose()


def test_the_servers_want_the_password(servers: tuple[RedisServer, RedisServer]) -> None:
    """Without the password a client is refused."""
    state, _ = servers
    state.start()
    with pytest.raises(redis.AuthenticationError):
        redis.Redis.from_url(state.url).ping()
