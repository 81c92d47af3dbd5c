"""Benchmark of digest builds through the real pipeline: requests, build and CLI time, memory.

For synthetic vLLM-sized 1-, 7- and 30-day windows, builds the digest with ``build_runtime``
(SQLite mirror, sync gate, template writer, digest cache) against the fake GitHub: first on a
cold store (an empty SQLite file), then the same window again after 1 minute and after another
hour of simulated time (past the 60 s sync freshness, so the sync really runs), counting the
requests of each stream. Then the real ``vllm-report`` command builds the same window, by dates,
on the warm store (twice: the second run is the repeat a user makes). The 7- and 30-day windows
are also measured without a token (60 requests an hour, 10 searches a minute). Last, one
long-lived process builds ten distinct 30-day digests and reports its RSS, as ``serve`` would.

Each window is measured in its own process (so its RSS high-water mark is its own) and the fake
GitHub runs in another (so neither its CPU nor its memory is counted); each paces its garbage
collector as ``serve`` does. The pipeline's clock is injected and has microseconds (as a real
clock has); its ``sleep`` advances that clock instead of waiting (rate-limit waits are simulated
and reported), and the fake's clock follows it through a request header.

    python bench/bench_digest.py [--windows 1,7,30] [--anonymous 1,7,30] [--memory 10] [--seed 1]
        [--review-share 0.5]

Half the human discussion on PRs is inline review by default (``--review-share``); ``budget`` is
DESIGN's cold one-day budget ``ceil(items/100)+ceil(comments/100)+ceil(review_comments/100)+3``
for the window's rows.

The CLI runs the ``vllm-report`` beside this interpreter, so its start-up is that environment's:
a test environment also holds click (the test extras pull it in), which makes httpx import its
own command line, about a tenth of a second. The image's figure comes from an environment
installed as the image is, from the lock file:

    python -m venv /tmp/lock && /tmp/lock/bin/pip install -r requirements.lock
    /tmp/lock/bin/pip install --no-deps . && /tmp/lock/bin/python bench/bench_digest.py --windows 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any

import httpx
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.compose import Runtime, build_runtime
from bot.discord.render import render_discord
from bot.process.collector import pace_collector
from bot.slack.render import render_slack
from config.settings import GitHubSettings, Settings, load_config
from digest.errors import RateLimited
from digest.models import Digest
from tests.fakes.github import FakeGitHub, RecordedRequest
from tests.support.clock import Clock
from tests.support.synthetic import DEFAULT_NOW, generate

ROOT = Path(__file__).resolve().parents[1]
REPO = "vllm-project/vllm"
CLOCK_HEADER = "X-Bench-Clock"
DEFAULT_BACKFILL = GitHubSettings().backfill_days
START_OFFSET = timedelta(seconds=0.345678)  # sub-second, as a real clock has
PHASES = (
    ("cold", timedelta(0)),
    ("warm_1m", timedelta(minutes=1, microseconds=250001)),
    ("warm_1h", timedelta(hours=1, microseconds=1)),
)
MAX_STAGES = 6


# -- the fake GitHub, in its own process ------------------------------------------------------


async def serve(days: int, seed: int, review_share: float) -> None:
    """Serve ``days`` of synthetic data; answer JSON commands on stdin, one a line."""
    data = generate(days=days, now=DEFAULT_NOW, seed=seed, repo=REPO, review_share=review_share)
    clock = Clock(DEFAULT_NOW)

    def follow(record: RecordedRequest) -> None:
        stamp = record.headers.get(CLOCK_HEADER.lower())
        if stamp:
            clock.now = datetime.fromisoformat(stamp)

    def reply(payload: object) -> None:
        sys.stdout.write(json.dumps(payload) + "\n")
        sys.stdout.flush()

    async with FakeGitHub(clock=clock) as gh:
        gh.before_request = follow
        gh.add_repo(
            REPO, issues=data.issues, comments=data.comments, review_comments=data.review_comments
        )
        reply({"url": gh.url})
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            command = json.loads(line)
            if command["op"] == "facts":
                start = datetime.fromisoformat(command["start"])
                end = datetime.fromisoformat(command["end"])
                items, comments = data.rows_updated_since(start)
                reviews = data.review_rows_updated_since(start)
                counts = data.expected_counts(start, end).as_dict()
                reply({"items": items, "comments": comments, "reviews": reviews, "counts": counts})
            else:
                reply([[r.path, r.query.get("since"), r.status] for r in gh.requests])


class FakeProcess:
    """The fake GitHub child process and its line protocol."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self._proc = proc
        self.url = ""

    @classmethod
    async def start(cls, days: int, seed: int, review_share: float = 0.5) -> FakeProcess:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--serve",
            str(days),
            "--seed",
            str(seed),
            "--review-share",
            str(review_share),
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

    def __init__(self, clock: Clock) -> None:
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

    clock: Clock
    skipped: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.skipped.append(seconds)
        self.clock.advance(seconds)
        await asyncio.sleep(0)


def maxrss() -> float:
    """This process's RSS high-water mark in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss() -> float:
    """This process's resident set now, in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


STREAMS = ("items", "comments", "review", "search", "old", "other")


def split(requests: list[list[Any]], covered: datetime | None) -> dict[str, int]:
    """Requests by stream: items, comments, review comments, Search API, old comment pages."""
    tally = dict.fromkeys((*STREAMS, "not_modified", "limited"), 0)
    for path, since, status in requests:
        old = covered is not None and bool(since) and datetime.fromisoformat(since) < covered
        if path == "/search/issues":
            stream = "search"
        elif path.endswith(("/issues/comments", "/pulls/comments")) and old:
            stream = "old"
        elif path.endswith("/issues/comments"):
            stream = "comments"
        elif path.endswith("/pulls/comments"):
            stream = "review"
        elif path.endswith("/issues"):
            stream = "items"
        else:
            stream = "other"
        tally[stream] += 1
        tally["not_modified"] += status == 304
        tally["limited"] += status in (403, 429)
    return tally


def cli_window(days: int) -> list[str]:
    """The CLI arguments of the same window as ``{days}d`` ending at ``DEFAULT_NOW``, by dates."""
    last = (DEFAULT_NOW - timedelta(days=1)).date()
    first = last - timedelta(days=days - 1)
    window = str(last) if days == 1 else f"{first}..{last}"
    return [window, "--tz", "UTC", "--day-start", DEFAULT_NOW.strftime("%H:%M")]


def run_cli(args: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """Wall and CPU seconds, peak RSS (MiB) and exit code of one ``vllm-report`` process."""
    exe = str(Path(sys.executable).with_name("vllm-report"))
    began = time.perf_counter()
    proc = subprocess.Popen(
        [exe, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - began
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return elapsed, cpu, usage.ru_maxrss / 1024, proc.returncode


async def staged_build(
    runtime: Runtime, days: int, clock: Clock
) -> tuple[Digest, tuple[float, float], list[str]]:
    """The digest of the last ``days`` days; a build stopped by the rate limit is retried
    after the reset (at most ``MAX_STAGES`` times), as a user without a token would.

    Returns the digest, the wall and CPU seconds of the last build (CPU: every thread of this
    process, so the figure holds on a busy machine) and what each stopped stage said.
    """
    stages: list[str] = []
    while True:
        request = runtime.core.request(f"{days}d")
        began, cpu = time.perf_counter(), time.process_time()
        try:
            digest = await runtime.core.build(request)
        except RateLimited as exc:
            if len(stages) >= MAX_STAGES or exc.reset_at is None:
                raise
            stages.append(f"stopped by the rate limit until {exc.reset_at:%H:%M:%S}")
            clock.now = max(clock.now, exc.reset_at) + timedelta(seconds=1)
            continue
        return digest, (time.perf_counter() - began, time.process_time() - cpu), stages


def _settings(url: str, token: str | None, backfill: int, db: Path) -> Settings:
    return Settings(
        github=GitHubSettings(
            api_url=url, token=SecretStr(token) if token else None, backfill_days=backfill
        ),
        db=str(db),
    )


async def measure(
    days: int, backfill: int, seed: int, anonymous: bool, review_share: float
) -> dict[str, Any]:
    """Cold, warm-after-a-minute and warm-after-an-hour builds of one window, then the CLI."""
    logging.disable(logging.WARNING)
    fake = await FakeProcess.start(days, seed, review_share)
    config = load_config()
    clock = Clock(DEFAULT_NOW + START_OFFSET)
    sleep = FastSleep(clock)
    token = None if anonymous else "bench"
    result: dict[str, Any] = {"days": days, "backfill": backfill, "anonymous": anonymous}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "mirror.sqlite3"
            settings = _settings(fake.url, token, backfill, db)
            async with build_runtime(
                settings, config, clock=clock, sleep=sleep, transport=ClockHeader(clock)
            ) as runtime:
                for phase, after in PHASES:
                    clock.advance(after)
                    seen = len(await fake.ask(op="requests"))
                    waits = len(sleep.skipped)
                    built_at = clock.now
                    digest, elapsed, stages = await staged_build(runtime, days, clock)
                    window = digest.window
                    facts = await fake.ask(
                        op="facts", start=window.start.isoformat(), end=window.end.isoformat()
                    )
                    made = (await fake.ask(op="requests"))[seen:]
                    covered = (await runtime.store.get_sync_state(REPO)).covered_since
                    result[phase] = {
                        "requests": len(made),
                        **split(made, covered),
                        "seconds": elapsed[0],
                        "cpu": elapsed[1],
                        "waited": sum(sleep.skipped[waits:]),
                        "stages": stages,
                        "exact": digest.counts.as_dict() == facts["counts"],
                        "notes": list(digest.notes),
                        "at": built_at.isoformat(),
                    }
                    if phase == "cold":
                        result["items"], result["comments"] = facts["items"], facts["comments"]
                        result["reviews"] = facts["reviews"]
                        result["slack"] = len(render_slack(digest).messages)
                        result["discord"] = len(render_discord(digest).messages)
                result["rss_peak"] = maxrss()
            if not anonymous:
                env = {
                    "PATH": os.environ.get("PATH", ""),
                    "HOME": tmp,
                    "GITHUB_API_URL": fake.url,
                    "GITHUB_TOKEN": "bench-cli",
                    "GITHUB_BACKFILL_DAYS": str(backfill),
                    "VLLM_REPORT_DB": str(db),
                    "PYTHONPATH": str(ROOT),  # this checkout's code, whatever is installed
                }
                runs = [run_cli(cli_window(days), env) for _ in range(2)]
                result["cli"] = [
                    {"seconds": s, "cpu": c, "rss": r, "rc": rc} for s, c, r, rc in runs
                ]
                helps = [run_cli(["--help"], env) for _ in range(3)]
                result["cli_help"] = [min(h[0] for h in helps), min(h[1] for h in helps)]
    finally:
        await fake.close()
    return result


async def serve_memory(seed: int, count: int) -> dict[str, Any]:
    """RSS of one long-lived process (like ``serve``) after ``count`` distinct 30-day digests."""
    logging.disable(logging.WARNING)
    import bot.compose.services  # noqa: F401  (what serve has loaded before its first digest)

    fake = await FakeProcess.start(31, seed)
    config = load_config()
    clock = Clock(DEFAULT_NOW + START_OFFSET)
    sleep = FastSleep(clock)
    out: dict[str, Any] = {"count": count}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = _settings(fake.url, "bench", 32, Path(tmp) / "mirror.sqlite3")
            async with build_runtime(
                settings, config, clock=clock, sleep=sleep, transport=ClockHeader(clock)
            ) as runtime:
                out["start"] = current_rss()
                after: list[float] = []
                for k in range(count):
                    await runtime.core.build(runtime.core.request("30d"))
                    after.append(current_rss())
                    clock.advance(timedelta(minutes=11, microseconds=123457 * (k + 1)))
                out["after"] = after
                out["peak"] = maxrss()
    finally:
        await fake.close()
    return out


# -- the report -------------------------------------------------------------------------------


def budget(items: int, comments: int, reviews: int) -> int:
    """DESIGN's cold one-day budget for these rows."""
    return math.ceil(items / 100) + math.ceil(comments / 100) + math.ceil(reviews / 100) + 3


def _requests(phase: dict[str, Any]) -> str:
    """``total (items/comments/review/search/old/other)``, with the 304s counted."""
    parts = "/".join(str(phase[s]) for s in STREAMS)
    extra = f", {phase['not_modified']}x304" if phase["not_modified"] else ""
    if phase["limited"]:
        extra += f", {phase['limited']} limited"
    return f"{phase['requests']} ({parts}{extra})"


def _cli(run: dict[str, Any]) -> str:
    text = f"{run['seconds']:.2f} cpu {run['cpu']:.2f}"
    return text + (f" (exit {run['rc']})" if run["rc"] else "")


def row(r: dict[str, Any]) -> list[str]:
    cold, warm, later = (r[p] for p, _ in PHASES)
    cli = r.get("cli")
    return [
        f"{r['days']}d{' anon' if r['anonymous'] else ''}",
        f"{r['backfill']}d",
        f"{r['items']}/{r['comments']}/{r['reviews']}",
        f"{budget(r['items'], r['comments'], r['reviews'])}",
        _requests(cold),
        _requests(warm),
        _requests(later),
        "/".join(f"{p['seconds']:.2f}" for p in (cold, warm, later))
        + " cpu "
        + "/".join(f"{p['cpu']:.2f}" for p in (cold, warm, later)),
        " / ".join(_cli(c) for c in cli) if cli else "-",
        f"{r['rss_peak']:.0f}" + (f"/{max(c['rss'] for c in cli):.0f}" if cli else ""),
        f"{r['slack']}/{r['discord']}",
        "yes" if all(r[p]["exact"] for p, _ in PHASES) else "NO",
    ]


HEADERS = [
    "window",
    "backfill",
    "items/comments/review",
    "budget",
    "cold requests",
    "warm +1 min",
    "warm +1 h",
    "build s cold/1m/1h wall, cpu",
    "CLI s warm / repeat",
    "peak RSS MiB bench/CLI",
    "Slack/Discord msgs",
    "exact",
]


COMPLETES = "complete after about "


def _incomplete(notes: list[str]) -> bool:
    return any(n.startswith(COMPLETES) or n.endswith("not synced yet") for n in notes)


def completion_line(r: dict[str, Any]) -> str:
    """The completion the first stopped build estimated, and the first build that had it."""
    label = f"{r['days']}d/{r['backfill']}d anon"
    said = next((n for p, _ in PHASES for n in r[p]["notes"] if n.startswith(COMPLETES)), None)
    if said is None:
        return f"{label}: no build was stopped by the rate limit"
    estimate = said[len(COMPLETES) :].split(" UTC", 1)[0] + " UTC"
    done = next((p for p, _ in PHASES if not _incomplete(r[p]["notes"])), None)
    at = r[done]["at"][:16].replace("T", " ") if done else ""
    actual = f"complete at the {done} build ({at} UTC)" if done else "still incomplete"
    return f"{label}: estimated complete after about {estimate}; {actual}"


def table(rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]
    lines = [HEADERS, ["-" * w for w in widths], *rows]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in lines
    )


async def _child(*args: str) -> Any:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, __file__, *args, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate()
    if proc.returncode:
        raise SystemExit(f"the benchmark run {' '.join(args)} failed (exit {proc.returncode})")
    return json.loads(out)


async def main_async(args: argparse.Namespace) -> None:
    runs: list[tuple[int, int, bool]] = []
    for days in args.windows:
        runs.append((days, DEFAULT_BACKFILL, False))
        if days > DEFAULT_BACKFILL:
            runs.append((days, days + 1, False))
    runs.extend((days, DEFAULT_BACKFILL, True) for days in args.anonymous)
    results = []
    began = time.perf_counter()
    for days, backfill, anonymous in runs:
        flags = ["--measure", str(days), "--backfill", str(backfill), "--seed", str(args.seed)]
        flags += ["--review-share", str(args.review_share)]
        results.append(await _child(*flags, *(["--anonymous-run"] if anonymous else [])))
    memory = await _child("--memory-run", str(args.memory), "--seed", str(args.seed))
    total = time.perf_counter() - began
    print(
        f"{REPO} synthetic (seed {args.seed}), fake GitHub on 127.0.0.1 in its own process, "
        "with a token\n(5,000 core requests an hour, 30 searches a minute) unless 'anon' "
        "(60 an hour, 10 searches a minute).\nThe pipeline's clock starts at "
        f"{(DEFAULT_NOW + START_OFFSET).isoformat()} (sub-second) and only moves when told: "
        "cold = empty SQLite file;\nwarm +1 min / +1 h = the same window again after 1 minute "
        "and after another hour of simulated time.\nrequests = total (items/comments/review/"
        "search/old/other): mirror streams, review comments, Search API,\nold comment pages "
        "(before the mirror's coverage), anything else; 304s and rate-limited answers counted.\n"
        "build s = wall and CPU time of the bare build (sync + analysis + writer + cache); CLI s = "
        "`vllm-report DATE..DATE` on the\nwarm store (real clock), then its repeat; "
        "peak RSS = ru_maxrss of the bench process / of the CLI;\nSlack/Discord msgs = "
        "messages of the posted thread (parent included); exact = the five counts match.\n"
    )
    print(table([row(r) for r in results]))
    print()
    helps = [r["cli_help"] for r in results if "cli_help" in r]
    if helps:
        wall, cpu = min(h[0] for h in helps), min(h[1] for h in helps)
        print(f"vllm-report --help: {wall:.3f} s wall, {cpu:.3f} s cpu (best of {3 * len(helps)})")
    print(
        f"one process, {memory['count']} distinct 30-day digests: RSS {memory['start']:.0f} MiB "
        f"after start, {memory['after'][0]:.0f} after the first, {memory['after'][-1]:.0f} "
        f"after the last (max {max(memory['after']):.0f}), peak {memory['peak']:.0f} MiB"
    )
    print()
    for r in results:
        for phase, _ in PHASES:
            p = r[phase]
            label = f"{r['days']}d/{r['backfill']}d{' anon' if r['anonymous'] else ''} {phase}:"
            for k, stage in enumerate(p["stages"], 1):
                print(f"{label} stage {k} {stage}")
            if p["waited"]:
                print(f"{label} {p['waited']:.0f} s of rate-limit waiting simulated")
            for note in p["notes"]:
                print(f"{label} note: {note}")
    for r in results:
        if r["anonymous"]:
            print(completion_line(r))
    print(f"\ntotal benchmark time {total:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--windows", type=lambda s: [int(d) for d in s.split(",")], default=[1, 7, 30]
    )
    parser.add_argument(
        "--anonymous",
        type=lambda s: [int(d) for d in s.split(",") if d],
        default=[1, 7, 30],
        help="windows also measured without a token (default 1,7,30)",
    )
    parser.add_argument(
        "--review-share",
        type=float,
        default=0.5,
        help="share of the human PR discussion that is inline review (default 0.5)",
    )
    parser.add_argument("--memory", type=int, default=10, help="distinct 30-day digests (10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--backfill", type=int, default=DEFAULT_BACKFILL, help=argparse.SUPPRESS)
    parser.add_argument(
        "--anonymous-run", dest="anon_run", action="store_true", help=argparse.SUPPRESS
    )
    parser.add_argument("--memory-run", dest="memory_run", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve, args.seed, args.review_share))
    elif args.measure:
        pace_collector()  # as `serve` and the CLI do
        out: IO[str] = sys.stdout
        found = asyncio.run(
            measure(args.measure, args.backfill, args.seed, args.anon_run, args.review_share)
        )
        out.write(json.dumps(found) + "\n")
    elif args.memory_run:
        pace_collector()
        out = sys.stdout
        out.write(json.dumps(asyncio.run(serve_memory(args.seed, args.memory_run))) + "\n")
    else:
        asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
