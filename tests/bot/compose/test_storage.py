"""The storage bundle: Redis when ``REDIS_URL`` is set (shared by replicas), else SQLite files."""

from __future__ import annotations

from contextlib import AsyncExitStack
from datetime import timedelta
from pathlib import Path

import pytest
import redis

from bot.compose import build_runtime, build_storage
from config.settings import RedisSettings, load_config
from digest.builder import DigestRequest
from digest.errors import ConfigError
from digest.models import Lang, Window
from tests.bot.compose.conftest import NOW, REPO, at_now, redis_replica, settings_for
from tests.fakes.github import FakeGitHub
from tests.support.redis_server import RedisServer, find_binary


async def test_a_malformed_redis_url_is_a_configuration_error(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """A ``REDIS_URL`` without a scheme is a clear configuration error that hides the URL."""
    settings = settings_for(github, tmp_path / "m.db", redis=RedisSettings(url="pw@localhost:6379"))
    with pytest.raises(ConfigError, match="REDIS_URL is not a Redis URL") as caught:
        async with build_runtime(settings, load_config(), clock=at_now):
            pass
    assert "pw@" not in str(caught.value)


async def test_replicas_on_one_redis_share_the_post_ledger(
    github: FakeGitHub, redis_server: RedisServer, tmp_path: Path
) -> None:
    """With REDIS_URL the storage bundle's ledger is shared: a run one replica claims and posts
    is neither claimed nor posted again by another."""
    ttl, keep = timedelta(minutes=10), timedelta(days=2)
    async with (
        redis_replica(github, tmp_path / "a.db", redis_server.url) as a,
        redis_replica(github, tmp_path / "b.db", redis_server.url) as b,
    ):
        assert await a.ledger.claim("post:run", "a", NOW, ttl)
        assert not await b.ledger.claim("post:run", "b", NOW, ttl)
        await a.ledger.mark_posted("post:run", "a", NOW, keep)
        assert await b.ledger.is_posted("post:run")


async def test_without_redis_the_ledger_lives_in_the_state_file(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """Without REDIS_URL a posted run is still known as posted after a restart."""
    settings = settings_for(github, tmp_path / "m.db")
    async with build_runtime(settings, load_config(), clock=at_now) as runtime:
        assert await runtime.ledger.claim("post:run", "me", NOW, timedelta(minutes=10))
        await runtime.ledger.mark_posted("post:run", "me", NOW, timedelta(days=2))
    async with build_runtime(settings, load_config(), clock=at_now) as again:
        assert await again.ledger.is_posted("post:run")


async def test_whether_redis_answers_is_asked_of_redis_only(
    github: FakeGitHub, redis_server: RedisServer, tmp_path: Path
) -> None:
    """SQLite storage has no Redis to check; Redis storage answers whether its server answers,
    yes while it runs and no once it stops."""
    async with AsyncExitStack() as stack:
        local = await build_storage(settings_for(github, tmp_path / "a.db"), stack, at_now)
        assert local.redis_reachable is None
        shared = await build_storage(
            settings_for(github, tmp_path / "b.db", redis=RedisSettings(url=redis_server.url)),
            stack,
            at_now,
        )
        assert shared.redis_reachable is not None and await shared.redis_reachable()
        redis_server.stop()
        assert not await shared.redis_reachable()


async def test_the_digest_cache_goes_to_the_cache_redis_and_nothing_else_does(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """With REDIS_CACHE_URL a built digest is cached on that Redis; the mirror, the ledger and
    the subscriptions stay on REDIS_URL's."""
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server")
    main, cache = RedisServer(binary), RedisServer(binary)
    main.start()
    cache.start()
    try:
        urls = RedisSettings(url=main.url, cache_url=cache.url)  # type: ignore[arg-type]
        settings = settings_for(github, tmp_path / "m.db", redis=urls)
        config = load_config()
        async with build_runtime(settings, config, clock=at_now) as runtime:
            window = Window(NOW - timedelta(days=1), NOW, "UTC", "24h")
            request = DigestRequest(REPO, window, Lang.EN, "template", ())
            await runtime.service.get_digest(request)
            await runtime.ledger.claim("post:run", "me", NOW, timedelta(minutes=10))
        main_keys = redis.Redis.from_url(main.url).keys("*")
        cache_keys = redis.Redis.from_url(cache.url).keys("*")
    finally:
        main.close()
        cache.close()
    assert cache_keys and all(b"{" not in key and b"ledger" not in key for key in cache_keys)
    assert any(b":items" in key for key in main_keys)
    assert any(b"ledger:post:run" in key for key in main_keys)
