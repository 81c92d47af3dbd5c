"""The post ledger in Redis: claims and "posted" markers of scheduled runs, for every replica.

One key per run, ``P ledger:{claim key}``, holding ``c|owner|expires_ms`` while a replica works
on the run and ``p|owner|posted_ms`` once it is posted, and a list ``P ledger:{claim key}:parts``
of the message ids of its thread as they go out; a hash ``P ledger:threads`` lists the threads
commands started and no replica closed yet. Each operation is one Lua script, so a claim, a
takeover of an expired claim, recording the next part under the claim and the "posted" check
are atomic. Expiry follows the
``now`` the scheduler passes in (its clock), not the server's; Redis' own expiry only collects
old keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, cast

from redis.asyncio import Redis

from digest.backends.redis.guard import RedisGuard, server_of

_COLLECT_AFTER = timedelta(days=1)  # extra lifetime before Redis drops a stale claim

_CLAIM = """
local v = redis.call('GET', KEYS[1])
if v then
  local kind, who, at = string.match(v, '^(%a)|(.*)|(%d+)$')
  if kind == 'p' then return 0 end
  if kind == 'c' and who ~= ARGV[1] and tonumber(at) > tonumber(ARGV[2]) then return 0 end
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


# KEYS: the run, its parts; ARGV: owner, index, message id, expires_ms, px
_RECORD_PART = """
local v = redis.call('GET', KEYS[1])
if not v or v:sub(1, #ARGV[1] + 3) ~= 'c|' .. ARGV[1] .. '|' then return 0 end
if redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], 'c|' .. ARGV[1] .. '|' .. ARGV[4], 'PX', ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1
"""

# KEYS: the run, its parts; ARGV: owner, expires_ms, px -> {'ok', part...} or {} (claim lost)
_RESUME = """
local v = redis.call('GET', KEYS[1])
if not v or v:sub(1, #ARGV[1] + 3) ~= 'c|' .. ARGV[1] .. '|' then return {} end
redis.call('SET', KEYS[1], 'c|' .. ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[3])
local parts = redis.call('LRANGE', KEYS[2], 0, -1)
table.insert(parts, 1, 'ok')
return parts
"""

# KEYS: the run, its parts; ARGV: value, px
_MARK_POSTED = """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
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

    async def _eval_thread(self, op: str, script: str, key: str, *args: str | int) -> int:
        run = self._prefix + key

        async def call() -> Any:
            return await cast(Any, self._redis).eval(script, 2, run, run + ":parts", *args)

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

    async def record_part(
        self, key: str, owner: str, index: int, message_id: str, now: datetime, ttl: timedelta
    ) -> bool:
        args = (owner, index, message_id, _ms(now + ttl), _px(ttl))
        return bool(await self._eval_thread("ledger.record_part", _RECORD_PART, key, *args))

    async def parts(self, key: str) -> tuple[str, ...]:
        async def call() -> Any:
            return await cast(Any, self._redis).lrange(self._prefix + key + ":parts", 0, -1)

        found = await self._guard.run("ledger.parts", call)
        return tuple(v.decode() if isinstance(v, bytes) else str(v) for v in found)

    async def resume(
        self, key: str, owner: str, now: datetime, ttl: timedelta
    ) -> tuple[str, ...] | None:
        run = self._prefix + key
        args = (owner, _ms(now + ttl), _px(ttl))

        async def call() -> Any:
            return await cast(Any, self._redis).eval(_RESUME, 2, run, run + ":parts", *args)

        found = await self._guard.run("ledger.resume", call)
        values = [v.decode() if isinstance(v, bytes) else str(v) for v in found]
        return tuple(values[1:]) if values and values[0] == "ok" else None

    async def mark_posted(self, key: str, owner: str, now: datetime, keep: timedelta) -> None:
        value = f"p|{owner}|{_ms(now)}"
        await self._eval_thread("ledger.mark_posted", _MARK_POSTED, key, value, _px(keep))

    async def is_posted(self, key: str) -> bool:
        async def call() -> Any:
            return await self._redis.get(self._prefix + key)

        value = await self._guard.run("ledger.is_posted", call)
        if isinstance(value, bytes):
            value = value.decode()
        return isinstance(value, str) and value.startswith("p|")

    def _threads(self) -> str:
        return self._prefix + "threads"

    async def open_thread(self, key: str, doc: Mapping[str, Any], keep: timedelta) -> None:
        value = json.dumps(dict(doc), ensure_ascii=False, sort_keys=True)

        async def call() -> Any:
            pipe = self._redis.pipeline(transaction=True)
            pipe.hset(self._threads(), key, value)
            pipe.pexpire(self._threads(), _px(keep))
            return await pipe.execute()

        await self._guard.run("ledger.open_thread", call)

    async def open_threads(self) -> dict[str, dict[str, Any]]:
        async def call() -> Any:
            return await cast(Any, self._redis).hgetall(self._threads())

        rows = await self._guard.run("ledger.open_threads", call)
        found: dict[str, dict[str, Any]] = {}
        for field, value in rows.items():
            name = field.decode() if isinstance(field, bytes) else str(field)
            try:
                doc = json.loads(value)
            except ValueError:
                continue
            if isinstance(doc, dict):
                found[name] = doc
        return found

    async def close_thread(self, key: str) -> None:
        async def call() -> Any:
            return await cast(Any, self._redis).hdel(self._threads(), key)

        await self._guard.run("ledger.close_thread", call)
