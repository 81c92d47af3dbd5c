"""One process of the cross-process single-flight test and benchmark.

``python -m tests.support.service_worker URL PREFIX PROCESSES TASKS``: requests one digest from
TASKS concurrent tasks through a :class:`DigestService` on the shared Redis; the build waits
until every process has started, so all requests overlap. Prints one JSON line.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from datetime import UTC, datetime

from redis.asyncio import Redis

from digest.backends.redis.mirror import RedisStore
from digest.backends.redis.state import RedisState
from digest.codec import encode_digest
from digest.mirror.gate import SyncGate
from digest.service import DigestService
from tests.support.service import CountingBuilder, CountingSync, request


async def main(url: str, prefix: str, processes: int, tasks: int) -> None:
    client = Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)

    async def all_started() -> None:
        async with asyncio.timeout(20):
            while True:
                if int(await client.get(f"{prefix}started") or 0) >= processes:
                    break
                await asyncio.sleep(0.01)
        await client.incr(f"{prefix}builds")

    async def count_sync() -> None:
        await client.incr(f"{prefix}syncs")

    def clock() -> datetime:
        return datetime.now(UTC)

    state = RedisState(client, prefix=prefix)
    builder = CountingBuilder(before=all_started)
    gate = SyncGate(CountingSync(clock, before=count_sync), state, clock)
    service = DigestService(
        builder, state, clock, store=RedisStore(client, prefix=prefix), sync=gate
    )
    await client.incr(f"{prefix}started")
    digests = await asyncio.gather(*(service.get_digest(request()) for _ in range(tasks)))
    hashes = {hashlib.sha256(encode_digest(d).encode()).hexdigest() for d in digests}
    print(json.dumps({"builds": builder.builds, "answers": len(digests), "hashes": sorted(hashes)}))
    await client.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
