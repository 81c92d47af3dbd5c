"""Rate limits: token buckets per scope in the shared state, refusals in zh and en."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from digest.backends.redis.state import RedisState
from digest.backends.sqlite.state import SQLiteState
from digest.errors import StateUnavailable
from digest.state.limiter import Limiter, Rate
from tests.support.clock import Clock
from tests.support.redis_server import sandbox

START = datetime(2026, 3, 10, 3, 21, tzinfo=UTC)
RULES = {
    ("digest", "user"): Rate(3, timedelta(minutes=3)),
    ("digest", "channel"): Rate(5, timedelta(minutes=10)),
}


@pytest.fixture
async def clocked() -> AsyncIterator[tuple[Limiter, Clock]]:
    clock = Clock(START)
    state = SQLiteState(":memory:", clock=clock)
    yield Limiter(state, RULES, clock), clock
    await state.close()


def test_rates_parse_and_refuse_nonsense() -> None:
    """``10/10m``, ``30/h`` and ``off`` read as written; anything else is an error."""
    assert Rate.parse("10/10m") == Rate(10, timedelta(minutes=10))
    assert Rate.parse("30/h") == Rate(30, timedelta(hours=1))
    assert Rate.parse("100 / 1d") == Rate(100, timedelta(days=1))
    assert Rate.parse("off") is None
    for bad in ("ten/m", "10", "10/10x", "-1/m"):
        with pytest.raises(ValueError, match="not a rate"):
            Rate.parse(bad)


async def test_a_member_over_their_limit_is_refused_and_others_are_not(
    clocked: tuple[Limiter, Clock],
) -> None:
    """The fourth digest of one member is refused; another member still gets theirs."""
    limiter, _ = clocked
    alice = {"user": "slack:U1", "channel": "slack:C1"}
    assert [await limiter.take("digest", alice) for _ in range(3)] == [None] * 3
    refusal = await limiter.take("digest", alice)
    assert refusal is not None
    assert (refusal.kind, refusal.scope) == ("digest", "user")
    assert refusal.retry_at == START + timedelta(minutes=1)
    assert await limiter.take("digest", {"user": "slack:U2", "channel": "slack:C1"}) is None


async def test_a_refused_member_spends_nothing_of_the_channel(
    clocked: tuple[Limiter, Clock],
) -> None:
    """Twenty tries of one member take three of the channel's five tokens, not more."""
    limiter, _ = clocked
    for _ in range(20):
        await limiter.take("digest", {"user": "slack:U1", "channel": "slack:C1"})
    others = [
        await limiter.take("digest", {"user": f"slack:U{n}", "channel": "slack:C1"})
        for n in (2, 3, 4)
    ]
    assert others[:2] == [None, None]
    assert others[2] is not None and others[2].scope == "channel"


async def test_tokens_come_back_with_time(clocked: tuple[Limiter, Clock]) -> None:
    """A refused member may ask again once the refusal's moment has come."""
    limiter, clock = clocked
    who = {"user": "discord:1"}
    for _ in range(3):
        await limiter.take("digest", who)
    refusal = await limiter.take("digest", who)
    assert refusal is not None
    clock.now = refusal.retry_at
    assert await limiter.take("digest", who) is None


async def test_work_without_a_rule_is_not_limited(clocked: tuple[Limiter, Clock]) -> None:
    """A kind or scope with no rule, and a missing subject, take nothing."""
    limiter, _ = clocked
    for _ in range(10):
        assert await limiter.take("question", {"user": "slack:U1"}) is None
        assert await limiter.take("digest", {"user": None, "client": "mcp:1"}) is None


class _Down:
    async def take(self, key: str, capacity: int, period: timedelta) -> timedelta | None:
        raise StateUnavailable("redis down")


async def test_an_unreachable_state_limits_nothing() -> None:
    """With Redis down, work goes on unlimited rather than failing."""
    limiter = Limiter(_Down(), RULES, lambda: START)  # type: ignore[arg-type]
    assert await limiter.take("digest", {"user": "slack:U1"}) is None


async def test_replicas_on_one_redis_share_a_members_bucket() -> None:
    """Two replicas' limiters on one Redis: a member's ten digests are ten in all, whichever
    replica each reached."""
    async with sandbox() as box:
        states = [RedisState(box.client, prefix=box.prefix, timeout=15.0) for _ in range(2)]
        rules = {("digest", "user"): Rate(10, timedelta(minutes=10))}
        replicas = [Limiter(state, rules, lambda: START) for state in states]
        who = {"user": "slack:U1"}
        found = await asyncio.gather(*(replicas[n % 2].take("digest", who) for n in range(20)))
    assert sum(1 for refusal in found if refusal is None) == 10
