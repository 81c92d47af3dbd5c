"""Benchmark of the digest cache: one build for many concurrent requests from several processes.

Starts a Redis server (``REDIS_URL`` when set, else ``redis-server`` from PATH on a free port)
and the fake GitHub server with a synthetic vLLM-sized day, then runs PROCESSES worker processes
that share REQUESTS concurrent requests for the same uncached one-day digest through the real
pipeline (Redis mirror, sync gate, template writer, digest cache). Prints the builds made, the
GitHub requests made, the cold latencies, and the warm-cache latency (median and p95).

    python bench/bench_cache.py [--processes 3] [--requests 50] [--warm 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from dataclasses import asdict
from datetime import datetime, timedelta
from pathlib import Path

import httpx
from redis.asyncio import Redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from config.settings import load_config
from digest.backends.redis.mirror import RedisStore
from digest.backends.redis.state import RedisState
from digest.builder import DigestBuilder, DigestRequest
from digest.github.client import GitHubClient
from digest.mirror.gate import SyncGate
from digest.mirror.sync import Syncer
from digest.models import Window
from digest.service import DigestService
from digest.writers.template import TemplateWriter
from tests.fakes.github import FakeGitHub
from tests.support.redis_server import RedisServer, find_binary
from tests.support.synthetic import DEFAULT_NOW, generate

REPO = "vllm-project/vllm"


def one_day_window() -> Window:
    return Window(DEFAULT_NOW - timedelta(days=1), DEFAULT_NOW, "Asia/Shanghai", "today", True)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def worker(args: argparse.Namespace) -> None:
    """One process: wait for the others, fire its share of requests, then time warm ones."""
    started = time.monotonic()

    def clock() -> datetime:
        return DEFAULT_NOW + timedelta(seconds=time.monotonic() - started)

    redis = Redis.from_url(args.redis, socket_connect_timeout=1, socket_timeout=5)
    http = httpx.AsyncClient(base_url=args.github, timeout=30)
    store = RedisStore(redis, prefix=args.prefix)
    state = RedisState(redis, prefix=args.prefix)
    gate = SyncGate(Syncer(GitHubClient(http, clock=clock), store, clock=clock), state, clock)
    builder = DigestBuilder(
        store=store, sync=gate, writers={"template": TemplateWriter()}, clock=clock
    )
    service = DigestService(builder, state, clock, store=store, sync=gate)
    shared_only = DigestService(builder, state, clock, store=store, sync=gate, memo_bytes=0)
    request = DigestRequest(
        repo=REPO,
        window=one_day_window(),
        lang="zh",
        writer="template",
        topics=tuple(load_config().topics_for(REPO)),
        config_fingerprint="bench",
    )

    async def timed(through: DigestService = service) -> float:
        begun = time.perf_counter()
        await through.get_digest(request)
        return time.perf_counter() - begun

    await redis.incr(f"{args.prefix}bench:ready")
    async with asyncio.timeout(60):
        while True:
            if int(await redis.get(f"{args.prefix}bench:ready") or 0) >= args.processes:
                break
            await asyncio.sleep(0.005)
    cold = await asyncio.gather(*(timed() for _ in range(args.requests)))
    warm = [await timed() for _ in range(args.warm)]
    shared = [await timed(shared_only) for _ in range(args.warm)]
    print(
        json.dumps(
            {
                "builds": builder.builds,
                "cold": cold,
                "warm": warm,
                "shared": shared,
                "digest": asdict(service.stats),
                "sync": asdict(gate.stats),
            }
        )
    )
    await http.aclose()
    await redis.aclose()


async def parent(args: argparse.Namespace) -> None:
    server = None
    url = os.environ.get("REDIS_URL")
    if not url:
        binary = find_binary()
        if binary is None:
            raise SystemExit("no Redis: set REDIS_URL or put redis-server on PATH")
        server = RedisServer(binary)
        server.start()
        url = server.url
    data = generate(days=1, now=DEFAULT_NOW, seed=1, repo=REPO)
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    shares = [
        args.requests // args.processes + (i < args.requests % args.processes)
        for i in range(args.processes)
    ]
    try:
        async with FakeGitHub(clock=lambda: DEFAULT_NOW) as gh:
            gh.add_repo(REPO, issues=data.issues, comments=data.comments)
            began = time.perf_counter()
            procs = [
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--worker",
                    "--redis",
                    url,
                    "--github",
                    gh.url,
                    "--prefix",
                    prefix,
                    "--processes",
                    str(args.processes),
                    "--requests",
                    str(share),
                    "--warm",
                    str(args.warm),
                    stdout=asyncio.subprocess.PIPE,
                )
                for share in shares
            ]
            outputs = [json.loads((await p.communicate())[0]) for p in procs]
            elapsed = time.perf_counter() - began
            github_requests = len(gh.requests)
    finally:
        if server is not None:
            server.close()
    cold = [t for o in outputs for t in o["cold"]]
    warm = [t for o in outputs for t in o["warm"]]
    shared = [t for o in outputs for t in o["shared"]]
    items, comments = len(data.issues), len(data.comments)
    print(f"processes: {args.processes}, concurrent requests: {len(cold)} ({shares})")
    print(f"synthetic data: {items} issue/PR rows, {comments} comment rows (one day)")
    print(f"builds made: {sum(o['builds'] for o in outputs)}")
    print(f"GitHub requests made: {github_requests}")
    print(
        f"cold requests: median {statistics.median(cold) * 1000:.0f} ms, "
        f"max {max(cold) * 1000:.0f} ms (wall {elapsed:.2f} s incl. process start)"
    )
    print(
        f"warm cache, in-process memo ({len(warm)} requests): "
        f"median {statistics.median(warm) * 1000:.2f} ms, "
        f"p95 {percentile(warm, 0.95) * 1000:.2f} ms"
    )
    print(
        f"warm cache, Redis entry only ({len(shared)} requests): "
        f"median {statistics.median(shared) * 1000:.2f} ms, "
        f"p95 {percentile(shared, 0.95) * 1000:.2f} ms"
    )
    for i, o in enumerate(outputs):
        print(f"  process {i}: digest {o['digest']} sync {o['sync']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--warm", type=int, default=200)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--redis", help=argparse.SUPPRESS)
    parser.add_argument("--github", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    args = parser.parse_args()
    asyncio.run(worker(args) if args.worker else parent(args))


if __name__ == "__main__":
    main()
