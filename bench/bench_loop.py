"""Benchmark of what a digest build holds the event loop for: the longest pause of a 5 ms
ticker while a synthetic vLLM-sized digest is built through the digest service (SQLite mirror
and state, template writer), then served again from the process's memory.

    python bench/bench_loop.py [--days 30]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from config.settings import load_config
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestBuilder, DigestRequest
from digest.github.parse import comment_from_api, item_from_api
from digest.models import Window
from digest.service import DigestService
from digest.writers.template import TemplateWriter
from tests.support.synthetic import DEFAULT_NOW, generate

REPO = "vllm-project/vllm"


async def _longest_pause(work: asyncio.Future[object] | asyncio.Task[object]) -> float:
    longest = 0.0
    while not work.done():
        began = time.perf_counter()
        await asyncio.sleep(0.005)
        longest = max(longest, time.perf_counter() - began - 0.005)
    await work
    return longest


async def main(days: int) -> None:
    data = generate(days=days, now=DEFAULT_NOW, seed=1)
    store = SQLiteStore(":memory:")
    await store.upsert_items([item_from_api(r, REPO) for r in data.issues])
    await store.upsert_comments([comment_from_api(r, REPO) for r in data.comments])
    state = SQLiteState(":memory:", clock=lambda: data.now)
    writers = {"template": TemplateWriter()}
    builder = DigestBuilder(store=store, sync=None, writers=writers, clock=lambda: data.now)
    service = DigestService(builder, state, lambda: data.now, store=store)
    window = Window(data.now - timedelta(days=days), data.now, "UTC", f"{days}d")
    request = DigestRequest(REPO, window, "en", "template", load_config().topics_for(REPO))
    for label in ("built", "from memory"):
        began = time.perf_counter()
        task = asyncio.ensure_future(service.get_digest(request))
        pause = await _longest_pause(task)
        took = time.perf_counter() - began
        print(
            f"{days}-day digest {label}: {took:.2f} s, "
            f"longest event-loop pause {pause * 1000:.0f} ms"
        )
    await store.close()
    await state.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
    asyncio.run(main(parser.parse_args().days))
