"""The post ledger in Redis: claims and "posted" markers of scheduled runs, for every replica.

One key per run, ``P ledger:{claim key}``, holding ``c|owner|expires_ms`` while a replica works
on the run and ``p|owner|posted_ms`` once it is posted. Each operation is one Lua script, so a
claim, a takeover of an expired claim and the "posted" check are atomic. Expiry follows the
``now`` the scheduler passes in (its clock), not the server's; Redis' own expiry only collects
old keys.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from redis.asyncio import Redis

from digest.backends.redis.guard import RedisGuard, server_of

_COLLECT_AFTER = timedelta(days=1)  # extra lifetime before Redis drops a stale claim

_CLAIM = """
local v = redis.call('GET', KEYS[1])
if v then
  local kind, at = string.match(v, '^(%a)|.*|(%d+)$')
  if kind == 'p' then return 0 end
  if kind == 'c' and tonumber(at) > tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], 'c|' .. ARGV[1] .. '|' .. ARGV[3], 'PX', ARGV[4])
return 1
"""

_EXTEND = """
local v = redis.call('GET', KEYS[1])
if v and v:sub(1, #ARGV[1] + 3) == 'c|' .. ARGV[1] .. '|' then
  redis.call('SET', KEYS[1], 'c|' .. ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""

_RELEASE = """
local v = redis.call('GET', KEYS[1])
if v and v:sub(1, #ARGV[1] + 3) == 'c|' .. ARGV[1] .. '|' then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _px(ttl: timedelta) -> int:
    return int((ttl + _COLLECT_AFTER).total_seconds() * 1000)


class RedisLedger:
    """A :class:`~digest.schedule.scheduler.PostLedger` in Redis."""

    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = "vllm-report:",
        timeout: float = 2.0,
        retry_after: float = 0.5,
    ) -> None:
        self._redis = client
        self._prefix = f"{prefix}ledger:"
        self._guard = RedisGuard(
            component="ledger", server=server_of(client), timeout=timeout, retry_after=retry_after
        )

    async def _eval(self, op: str, script: str, key: str, *args: str | int) -> int:
        async def call() -> Any:
            return await cast(Any, self._redis).eval(script, 1, self._prefix + key, *args)

        return int(await self._guard.run(op, call))

    async def claim(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        return bool(
            await self._eval("ledger.claim", _CLAIM, key, owner, _ms(now), _ms(now + ttl), _px(ttl))
        )

    async def extend(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        expires = _ms(now + ttl)
        return bool(await self._eval("ledger.extend", _EXTEND, key, owner, expires, _px(ttl)))

    async def release(self, key: str, owner: str) -> None:
        await self._eval("ledger.release", _RELEASE, key, owner)

    async def mark_posted(self, key: str, owner: str, now: datetime, keep: timedelta) -> None:
        value = f"p|{owner}|{_ms(now)}"

        async def call() -> Any:
            return await self._redis.set(self._prefix + key, value, px=_px(keep))

        await self._guard.run("ledger.mark_posted", call)

    async def is_posted(self, key: str) -> bool:
        async def call() -> Any:
            return await self._redis.get(self._prefix + key)

        value = await self._guard.run("ledger.is_posted", call)
        if isinstance(value, bytes):
            value = value.decode()
        return isinstance(value, str) and value.startswith("p|")
