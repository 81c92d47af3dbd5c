"""The shared-state contract: values, claims and subscriptions, on SQLite and on Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from digest.backends.redis.state import RedisState
from digest.backends.sqlite.state import SQLiteState
from digest.state.base import SharedState, SubscriptionDoc
from tests.support.clock import Clock
from tests.support.redis_server import sandbox

SHORT = timedelta(milliseconds=150)
LONG = timedelta(minutes=5)


START = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)


@dataclass
class Case:
    state: SharedState
    expire: Callable[[str], Awaitable[None]]  # let the claim or value under a key expire


@pytest.fixture(params=["sqlite-memory", "sqlite-file", "redis"])
async def case(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Case]:
    """A fresh shared state of each implementation and a way to let time pass."""
    if request.param == "redis":
        async with sandbox() as box:
            # The contract under test is exclusivity, not latency: twenty concurrent first
            # connections on a loaded machine may take longer than the production timeout.
            state = RedisState(box.client, prefix=box.prefix, timeout=15.0)

            async def wait_gone(key: str) -> None:
                async with asyncio.timeout(5):
                    while True:
                        if not await box.client.exists(f"{box.prefix}kv:{key}"):
                            return
                        await asyncio.sleep(0.01)

            yield Case(state, wait_gone)
        return
    clock = Clock(START)
    path = ":memory:" if request.param == "sqlite-memory" else str(tmp_path / "s" / "state.db")
    sqlite = SQLiteState(path, clock=clock)

    async def advance(key: str) -> None:
        clock.now += LONG * 2

    yield Case(sqlite, advance)
    await sqlite.close()


async def test_values_round_trip_and_expire(case: Case) -> None:
    """A value can be read back until its time-to-live passes."""
    state = case.state
    assert await state.get("digest:x") is None
    await state.set("digest:x", '{"a": "中文"}', SHORT)
    assert await state.get("digest:x") == '{"a": "中文"}'
    await case.expire("digest:x")
    assert await state.get("digest:x") is None


async def test_set_replaces_value(case: Case) -> None:
    """A second set replaces the first value."""
    await case.state.set("k", "one", LONG)
    await case.state.set("k", "two", LONG)
    assert await case.state.get("k") == "two"


async def test_claim_is_exclusive(case: Case) -> None:
    """Only one of many concurrent claims of a key succeeds."""
    tokens = await asyncio.gather(*(case.state.claim("posted:a", LONG) for _ in range(20)))
    assert len([t for t in tokens if t is not None]) == 1


async def test_release_only_by_owner(case: Case) -> None:
    """A wrong token neither releases nor renews a claim; the owner's token does."""
    state = case.state
    token = await state.claim("lock:a", LONG)
    assert token is not None
    assert not await state.release("lock:a", "not-the-token")
    assert not await state.renew("lock:a", "not-the-token", LONG)
    assert await state.claim("lock:a", LONG) is None
    assert await state.renew("lock:a", token, LONG)
    assert await state.release("lock:a", token)
    assert not await state.release("lock:a", token)
    assert await state.claim("lock:a", LONG) is not None


async def test_expired_claim_is_taken_over(case: Case) -> None:
    """After a claim expires another holder takes it; the old token no longer works."""
    state = case.state
    old = await state.claim("lock:b", SHORT)
    assert old is not None
    await case.expire("lock:b")
    new = await state.claim("lock:b", LONG)
    assert new is not None
    assert not await state.release("lock:b", old)
    assert not await state.renew("lock:b", old, LONG)
    assert await state.claim("lock:b", LONG) is None


async def test_renew_keeps_a_claim(case: Case) -> None:
    """A renewed claim outlives its first time-to-live."""
    state = case.state
    token = await state.claim("lock:c", LONG)
    assert token is not None
    assert await state.renew("lock:c", token, LONG * 10)
    await state.set("probe", "x", SHORT)
    await case.expire("probe")
    assert await state.claim("lock:c", LONG) is None


async def test_time_to_live_must_be_positive(case: Case) -> None:
    """A zero time-to-live is refused rather than stored forever."""
    with pytest.raises(ValueError, match="positive"):
        await case.state.claim("k", timedelta(0))


async def test_subscriptions_are_keyed_documents(case: Case) -> None:
    """Subscriptions are stored, replaced, filtered and deleted per platform and channel."""
    state = case.state
    doc = {"repo": "vllm-project/vllm", "time": "09:00", "topics": ["rocm"], "lang": "zh"}
    await state.put_subscription("slack", "C1", "vllm-project/vllm", doc)
    await state.put_subscription("slack", "C1", "octo/x", {"time": "10:00"})
    await state.put_subscription("discord", "42", "vllm-project/vllm", {"lang": "en"})
    await state.put_subscription("slack", "C1", "octo/x", {"time": "11:00"})
    assert await state.subscriptions("slack", "C1") == [
        SubscriptionDoc("slack", "C1", "octo/x", {"time": "11:00"}),
        SubscriptionDoc("slack", "C1", "vllm-project/vllm", doc),
    ]
    assert [s.platform for s in await state.subscriptions()] == ["discord", "slack", "slack"]
    assert [s.channel for s in await state.subscriptions("discord")] == ["42"]
    assert await state.delete_subscription("slack", "C1", "octo/x")
    assert not await state.delete_subscription("slack", "C1", "octo/x")
    assert len(await state.subscriptions()) == 2


async def test_sqlite_state_survives_restart(tmp_path: Path) -> None:
    """Claims and subscriptions in a file are still there after reopening it."""
    path = str(tmp_path / "state.db")
    first = SQLiteState(path, clock=Clock(START))
    await first.claim("posted:sub:2026-03-10", timedelta(days=3))
    await first.put_subscription("slack", "C1", "r", {"a": 1})
    await first.close()
    second = SQLiteState(path, clock=Clock(START))
    assert await second.claim("posted:sub:2026-03-10", timedelta(days=3)) is None
    assert len(await second.subscriptions()) == 1
    await second.close()


async def test_a_bucket_gives_its_capacity_then_says_how_long_to_wait(case: Case) -> None:
    """A token bucket grants ``capacity`` takes at once, then refuses with the wait for one."""
    taken = [await case.state.take("bucket:u1", 3, timedelta(minutes=3)) for _ in range(4)]
    assert taken[:3] == [None, None, None]
    wait = taken[3]
    assert wait is not None
    assert timedelta(seconds=55) <= wait <= timedelta(minutes=1)


async def test_buckets_are_separate_and_atomic(case: Case) -> None:
    """Twenty concurrent takes of a 5-token bucket grant exactly 5; another key is untouched."""
    found = await asyncio.gather(
        *(case.state.take("bucket:burst", 5, timedelta(hours=1)) for _ in range(20))
    )
    assert sum(1 for wait in found if wait is None) == 5
    assert await case.state.take("bucket:other", 1, timedelta(hours=1)) is None


async def test_a_bucket_refills_over_its_period(case: Case) -> None:
    """An emptied bucket grants again once its period has passed."""
    period = SHORT if isinstance(case.state, RedisState) else LONG
    assert await case.state.take("bucket:r", 1, period) is None
    assert await case.state.take("bucket:r", 1, period) is not None
    if isinstance(case.state, RedisState):
        await asyncio.sleep(period.total_seconds() * 1.5)
    else:
        await case.expire("bucket:r")
    assert await case.state.take("bucket:r", 1, period) is None
