"""Shared state in Redis: values with TTLs, claims (``SET NX PX`` + token) and subscriptions.

Keys under the prefix ``P``: ``P kv:<key>`` for values and claims, ``P subs`` (a hash of
``[platform, channel, key]`` to JSON documents) for subscriptions, ``P bucket:<key>`` (a hash
of tokens and the moment they were counted) for token buckets. Renew and release run as
Lua scripts, so only the holder of a claim's token can extend or drop it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from redis.asyncio import Redis

from digest.backends.redis.guard import RedisGuard, server_of
from digest.errors import StateUnavailable
from digest.state.base import SubscriptionDoc, new_token, ttl_ms

_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""
_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""

# KEYS: the bucket; ARGV: capacity, period_ms -> 0 (taken) or the ms until a token is back.
# The server's clock, so that every replica's request is measured alike.
_TAKE = """
local cap = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or cap
local at = tonumber(b[2]) or now
local rate = cap / period
tokens = math.min(cap, tokens + math.max(0, now - at) * rate)
if tokens < 1 then return math.max(1, math.ceil((1 - tokens) * period / cap - 1e-6)) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - 1), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], period)
return 0
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisState:
    """A :class:`~digest.state.base.SharedState` on a caller-owned ``redis.asyncio.Redis``."""

    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = "vllm-report:",
        timeout: float = 1.0,
        retry_after: float = 0.5,
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._guard = RedisGuard(
            component="state", server=server_of(client), timeout=timeout, retry_after=retry_after
        )
        self._release = client.register_script(_RELEASE)
        self._renew = client.register_script(_RENEW)
        self._take = client.register_script(_TAKE)

    @property
    def degraded(self) -> bool:
        """Whether the last call failed."""
        return self._guard.degraded

    @property
    def client(self) -> Redis:
        """The Redis client this state uses (for other stores on the same server)."""
        return self._redis

    @property
    def prefix(self) -> str:
        return self._prefix

    async def reachable(self) -> bool:
        """Whether the server answers a ``PING`` now (for health checks)."""

        async def ping() -> Any:
            return await self._redis.ping()

        try:
            await self._guard.run("state.ping", ping)
        except StateUnavailable:
            return False
        return True

    def _kv(self, key: str) -> str:
        return f"{self._prefix}kv:{key}"

    async def get(self, key: str) -> str | None:
        raw = await self._guard.run("get", lambda: self._redis.get(self._kv(key)))
        return None if raw is None else _text(raw)

    async def set(self, key: str, value: str, ttl: timedelta) -> None:
        millis = ttl_ms(ttl)
        await self._guard.run("set", lambda: self._redis.set(self._kv(key), value, px=millis))

    async def claim(self, key: str, ttl: timedelta) -> str | None:
        token, millis = new_token(), ttl_ms(ttl)
        done = await self._guard.run(
            "claim", lambda: self._redis.set(self._kv(key), token, nx=True, px=millis)
        )
        return token if done else None

    async def renew(self, key: str, token: str, ttl: timedelta) -> bool:
        millis = ttl_ms(ttl)
        done = await self._guard.run(
            "renew", lambda: self._renew(keys=[self._kv(key)], args=[token, millis])
        )
        return bool(done)

    async def release(self, key: str, token: str) -> bool:
        done = await self._guard.run(
            "release", lambda: self._release(keys=[self._kv(key)], args=[token])
        )
        return bool(done)

    async def take(self, key: str, capacity: int, period: timedelta) -> timedelta | None:
        args = [capacity, ttl_ms(period)]
        wait = await self._guard.run(
            "take", lambda: self._take(keys=[f"{self._prefix}bucket:{key}"], args=args)
        )
        return timedelta(milliseconds=int(wait)) if int(wait) > 0 else None

    def _subs(self) -> str:
        return f"{self._prefix}subs"

    async def put_subscription(
        self, platform: str, channel: str, key: str, doc: Mapping[str, Any]
    ) -> None:
        field = json.dumps([platform, channel, key])
        value = json.dumps(dict(doc), ensure_ascii=False, sort_keys=True)
        await self._guard.run(
            "put_subscription", lambda: self._redis.hset(self._subs(), field, value)
        )

    async def delete_subscription(self, platform: str, channel: str, key: str) -> bool:
        field = json.dumps([platform, channel, key])
        removed = await self._guard.run(
            "delete_subscription", lambda: self._redis.hdel(self._subs(), field)
        )
        return bool(removed)

    async def subscriptions(
        self, platform: str | None = None, channel: str | None = None
    ) -> list[SubscriptionDoc]:
        rows = await self._guard.run("subscriptions", lambda: self._redis.hgetall(self._subs()))
        found: list[SubscriptionDoc] = []
        for raw_field, raw_value in rows.items():
            p, c, k = json.loads(_text(raw_field))
            if (platform is None or p == platform) and (channel is None or c == channel):
                found.append(SubscriptionDoc(p, c, k, json.loads(_text(raw_value))))
        return sorted(found, key=lambda s: (s.platform, s.channel, s.key))
