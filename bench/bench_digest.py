"""Benchmark of digest builds through the real pipeline: requests, build time, peak memory.

For synthetic vLLM-sized 1-, 7- and 30-day windows, builds the digest with ``build_runtime``
(SQLite mirror, sync gate, template writer, digest cache) against the fake GitHub, first on a
cold store (an empty SQLite file), then on a warm one: the same window again after the injected
clock has moved on 2 minutes, past the 60 s sync freshness, so the sync really runs.

Each window is measured in its own process (so its RSS high-water mark is its own) and the fake
GitHub runs in another (so neither its CPU nor its memory is counted). The pipeline's clock is
injected; its ``sleep`` advances that clock instead of waiting (rate-limit waits are simulated
and reported), and the fake's clock follows it through a request header. Build times are wall
times without tracing; peak memory comes from a second, traced pass on a fresh store.

    python bench/bench_digest.py [--windows 1,7,30] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import resource
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

import httpx
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.compose import Runtime, build_runtime
from config.settings import GitHubSettings, Settings, load_config
from tests.fakes.github import FakeGitHub, MutableClock, RecordedRequest
from tests.support.synthetic import DEFAULT_NOW, generate

REPO = "vllm-project/vllm"
CLOCK_HEADER = "X-Bench-Clock"
DEFAULT_BACKFILL = GitHubSettings().backfill_days
WARM_AFTER = timedelta(minutes=2)
MB = 1024 * 1024


# -- the fake GitHub, in its own process ------------------------------------------------------


async def serve(days: int, seed: int) -> None:
    """Serve ``days`` of synthetic data; answer JSON commands on stdin, one a line."""
    data = generate(days=days, now=DEFAULT_NOW, seed=seed, repo=REPO)
    clock = MutableClock(DEFAULT_NOW)

    def follow(record: RecordedRequest) -> None:
        stamp = record.headers.get(CLOCK_HEADER.lower())
        if stamp:
            clock.now = datetime.fromisoformat(stamp)

    def reply(payload: object) -> None:
        sys.stdout.write(json.dumps(payload) + "\n")
        sys.stdout.flush()

    async with FakeGitHub(clock=clock) as gh:
        gh.before_request = follow
        gh.add_repo(REPO, issues=data.issues, comments=data.comments)
        reply({"url": gh.url})
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            command = json.loads(line)
            if command["op"] == "facts":
                start = datetime.fromisoformat(command["start"])
                end = datetime.fromisoformat(command["end"])
                items, comments = data.rows_updated_since(start)
                counts = data.expected_counts(start, end).as_dict()
                reply({"items": items, "comments": comments, "counts": counts})
            else:
                reply([[r.path, r.query.get("since"), r.status] for r in gh.requests])


class FakeProcess:
    """The fake GitHub child process and its line protocol."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self._proc = proc
        self.url = ""

    @classmethod
    async def start(cls, days: int, seed: int) -> FakeProcess:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--serve",
            str(days),
            "--seed",
            str(seed),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        fake = cls(proc)
        fake.url = (await fake._read())["url"]
        return fake

    async def _read(self) -> Any:
        assert self._proc.stdout is not None
        return json.loads(await self._proc.stdout.readline())

    async def ask(self, **command: str) -> Any:
        assert self._proc.stdin is not None
        self._proc.stdin.write((json.dumps(command) + "\n").encode())
        await self._proc.stdin.drain()
        return await self._read()

    async def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        await self._proc.wait()


# -- one window, in its own process -----------------------------------------------------------


class ClockHeader(httpx.AsyncBaseTransport):
    """Sends the pipeline's clock with each request, so the fake's rate limits follow it."""

    def __init__(self, clock: MutableClock) -> None:
        self._clock = clock
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers[CLOCK_HEADER] = self._clock().isoformat()
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@dataclass
class FastSleep:
    """Advances the clock instead of waiting; remembers the seconds it skipped."""

    clock: MutableClock
    skipped: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.skipped.append(seconds)
        self.clock.advance(seconds)
        await asyncio.sleep(0)


def maxrss() -> float:
    """This process's RSS high-water mark in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def build(runtime: Runtime, days: int, traced: bool) -> tuple[Any, float, float]:
    """The digest of the last ``days`` days, its wall time and (when traced) peak MiB."""
    request = runtime.core.request(f"{days}d")
    if traced:
        tracemalloc.start()
    began = time.perf_counter()
    digest = await runtime.core.build(request)
    elapsed = time.perf_counter() - began
    peak = tracemalloc.get_traced_memory()[1] / MB if traced else 0.0
    tracemalloc.stop()
    return digest, elapsed, peak


def split(requests: list[list[Any]], covered: datetime | None) -> dict[str, int]:
    """Requests by purpose: mirror streams, Search API, old comments (before the mirror)."""
    tally = {"mirror": 0, "search": 0, "old_comments": 0, "not_modified": 0, "limited": 0}
    for path, since, status in requests:
        if path == "/search/issues":
            tally["search"] += 1
        elif covered is not None and since and datetime.fromisoformat(since) < covered:
            tally["old_comments"] += 1
        else:
            tally["mirror"] += 1
        tally["not_modified"] += status == 304
        tally["limited"] += status in (403, 429)
    return tally


async def measure(days: int, backfill: int, seed: int) -> dict[str, Any]:
    """Cold and warm builds of one window: an untraced pass, then a traced one for peak memory."""
    logging.disable(logging.WARNING)
    fake = await FakeProcess.start(days, seed)
    config = load_config()
    clock = MutableClock(DEFAULT_NOW)
    sleep = FastSleep(clock)
    result: dict[str, Any] = {"days": days, "backfill": backfill}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for run, traced in enumerate((False, True)):
                settings = Settings(
                    github=GitHubSettings(
                        api_url=fake.url, token=SecretStr(f"bench-{run}"), backfill_days=backfill
                    ),
                    db=str(Path(tmp) / f"mirror-{run}.sqlite3"),
                )
                async with build_runtime(
                    settings, config, clock=clock, sleep=sleep, transport=ClockHeader(clock)
                ) as runtime:
                    for phase in ("cold", "warm"):
                        if phase == "warm":
                            clock.advance(WARM_AFTER)
                        seen = len(await fake.ask(op="requests"))
                        waits = len(sleep.skipped)
                        rss = maxrss()
                        digest, elapsed, peak = await build(runtime, days, traced)
                        if traced:
                            result[f"{phase}_peak"] = peak
                            continue
                        window = digest.window
                        facts = await fake.ask(
                            op="facts", start=window.start.isoformat(), end=window.end.isoformat()
                        )
                        made = (await fake.ask(op="requests"))[seen:]
                        covered = (await runtime.store.get_sync_state(REPO)).covered_since
                        result[phase] = {
                            "requests": len(made),
                            **split(made, covered),
                            "seconds": elapsed,
                            "rss_delta": maxrss() - rss,
                            "waited": sum(sleep.skipped[waits:]),
                            "exact": digest.counts.as_dict() == facts["counts"],
                            "notes": list(digest.notes),
                        }
                        if phase == "cold":
                            result["items"], result["comments"] = facts["items"], facts["comments"]
                        clock.advance(timedelta(minutes=10))
    finally:
        await fake.close()
    return result


# -- the report -------------------------------------------------------------------------------


def budget(items: int, comments: int) -> int:
    return math.ceil(items / 100) + math.ceil(comments / 100) + 3


def _requests(phase: dict[str, Any]) -> str:
    """``total (mirror+search s+old comments c)``, or ``total (Nx304)`` for a free repeat."""
    if phase["not_modified"] == phase["requests"] > 0:
        return f"{phase['requests']} ({phase['not_modified']}x304)"
    parts = f"{phase['mirror']}+{phase['search']}s"
    if phase["old_comments"]:
        parts += f"+{phase['old_comments']}c"
    return f"{phase['requests']} ({parts})"


def row(r: dict[str, Any]) -> list[str]:
    cold, warm = r["cold"], r["warm"]
    return [
        f"{r['days']}d",
        f"{r['backfill']}d",
        f"{r['items']}/{r['comments']}",
        _requests(cold),
        str(budget(r["items"], r["comments"])),
        _requests(warm),
        f"{cold['seconds']:.2f}/{warm['seconds']:.2f}",
        f"{r['cold_peak']:.1f}/{r['warm_peak']:.1f}",
        f"{cold['rss_delta']:.0f}",
        "yes" if cold["exact"] and warm["exact"] else "NO",
    ]


HEADERS = [
    "window",
    "backfill",
    "items/comments",
    "cold requests",
    "budget",
    "warm requests",
    "build s cold/warm",
    "peak MiB cold/warm",
    "RSS+ MiB",
    "exact",
]


def table(rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]
    lines = [HEADERS, ["-" * w for w in widths], *rows]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines
    )


async def main_async(args: argparse.Namespace) -> None:
    runs: list[tuple[int, int]] = []
    for days in args.windows:
        runs.append((days, DEFAULT_BACKFILL))
        if days > DEFAULT_BACKFILL:
            runs.append((days, days + 1))
    results = []
    began = time.perf_counter()
    for days, backfill in runs:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--measure",
            str(days),
            "--backfill",
            str(backfill),
            "--seed",
            str(args.seed),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await proc.communicate()
        if proc.returncode:
            raise SystemExit(f"the {days}-day run failed (exit {proc.returncode})")
        results.append(json.loads(out))
    total = time.perf_counter() - began
    print(
        f"{REPO} synthetic (seed {args.seed}), fake GitHub on 127.0.0.1 in its own process, "
        "authenticated with a token\n(5,000 core requests an hour, 30 searches a minute: "
        "the anonymous 60 an hour would stop the 30-day run).\n"
        "cold = empty SQLite file; warm = the same window again 2 minutes later (past the 60 s "
        "sync freshness).\nrequests = all the fake received: mirror streams + search (s) "
        "+ old comments (c); budget = DESIGN's\nceil(items/100)+ceil(comments/100)+3 over "
        "the rows updated since the window's start; peak = tracemalloc\n(traced pass); "
        "RSS+ = rise of ru_maxrss during the untraced cold build; exact = the five counts match.\n"
    )
    print(table([row(r) for r in results]))
    print()
    for r in results:
        for phase in ("cold", "warm"):
            p = r[phase]
            label = f"{r['days']}d/{r['backfill']}d backfill {phase}:"
            if p["search"] or p["old_comments"]:
                print(
                    f"{label} {p['mirror']} mirror requests ({r['backfill']} days), "
                    f"{p['search']} Search API requests (the older days), "
                    f"{p['old_comments']} old-comment pages (before the mirror)"
                    + (f"; {p['limited']} rate-limited" if p["limited"] else "")
                    + (f", {p['waited']:.0f} s of waiting simulated" if p["waited"] else "")
                )
            for note in p["notes"]:
                print(f"{label} note: {note}")
    print(f"\ntotal benchmark time {total:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--windows", type=lambda s: [int(d) for d in s.split(",")], default=[1, 7, 30]
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--backfill", type=int, default=DEFAULT_BACKFILL, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve, args.seed))
    elif args.measure:
        out: IO[str] = sys.stdout
        out.write(json.dumps(asyncio.run(measure(args.measure, args.backfill, args.seed))) + "\n")
    else:
        asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
