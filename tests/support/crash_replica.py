"""One replica for the crash tests, run as its own process (and killed with SIGKILL).

``python -m tests.support.crash_replica REDIS_URL PREFIX SLACK_API_URL EPOCH OWNER [MODE ...]``
on the Redis ledger under ``PREFIX``, posting the sample day's digest to the fake Slack at
``SLACK_API_URL`` through the real Slack posting path. ``MODE`` is

- ``daily`` (the default): a real :class:`Scheduler` over the subscriptions under ``PREFIX``;
- ``command CHANNEL...``: the real Slack front end answers ``/vllm-report today`` in each
  channel, its threads kept in the journal, then waits;
- ``recover``: the journal's recovery loop completes the threads a dead replica left short.

Its clock is the sample day's scheduled moment plus one minute plus the seconds since ``EPOCH``
(Unix time), so every replica shares one clock and claims expire in real seconds.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from redis.asyncio import Redis

from bot.commands.runner import ReportCore
from bot.commands.subscriptions import ScheduledRequests
from bot.compose.front_ends import DailyPoster
from bot.slack.handlers import SlackBot
from bot.slack.post import SlackDaily, SlackPoster, SlackThreads
from bot.slack.web import web_client
from config.settings import load_config
from digest.backends.redis.ledger import RedisLedger
from digest.backends.redis.state import RedisState
from digest.builder import DigestRequest
from digest.models import Digest
from digest.schedule.command_threads import CommandThreads, ThreadRecovery
from digest.schedule.scheduler import Backoff, Scheduler
from digest.schedule.subscriptions import StateSubscriptions
from tests.support.serve import SCHEDULED, sample_digest

CLAIM_TTL = timedelta(seconds=1)
PACE_S = 0.1  # between the messages of one channel: kills land inside threads


async def main(
    redis_url: str, prefix: str, slack_url: str, epoch: float, owner: str, mode: list[str]
) -> None:
    def clock() -> datetime:
        return SCHEDULED + timedelta(minutes=1, seconds=time.time() - epoch)

    digest = await sample_digest()

    async def build(request: DigestRequest) -> Digest:
        return digest

    client = Redis.from_url(redis_url, socket_connect_timeout=1.0, socket_timeout=2.0)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    poster = SlackPoster(web_client("xoxb-crash", slack_url), pace_s=PACE_S)
    ledger = RedisLedger(client, prefix=prefix)
    if mode and mode[0] in ("command", "recover"):
        threads = CommandThreads(ledger, clock=clock, owner=owner, claim_ttl=CLAIM_TTL)
        try:
            if mode[0] == "recover":
                recovery = ThreadRecovery(
                    threads,
                    posts={"slack": SlackThreads(poster)},
                    build=build,
                    note=lambda thread, parts: f"cut short after {parts}",
                    poll=timedelta(seconds=0.2),
                )
                print("ready", flush=True)
                await recovery.run_forever(stop)
            else:
                await commands(threads, poster, build, clock, mode[1:], stop)
        finally:
            await client.aclose()
        return
    slack = SlackDaily(poster)
    scheduler = Scheduler(
        subscriptions=StateSubscriptions(RedisState(client, prefix=prefix)),
        ledger=ledger,
        request=ScheduledRequests(load_config(), default_writer="template"),
        build=build,
        post=DailyPoster({"slack": slack}),
        clock=clock,
        claim_ttl=CLAIM_TTL,
        poll=timedelta(seconds=0.2),
        backoff=Backoff(first=timedelta(seconds=0.2), cap=timedelta(seconds=1)),
        owner=owner,
    )
    print("ready", flush=True)
    try:
        await scheduler.run_forever(stop)
    finally:
        await client.aclose()


async def commands(
    threads: CommandThreads,
    poster: SlackPoster,
    build: Callable[[DigestRequest], Awaitable[Digest]],
    clock: Callable[[], datetime],
    channels: list[str],
    stop: asyncio.Event,
) -> None:
    """``/vllm-report today`` in each of ``channels``, answered by the real Slack front end."""
    core = ReportCore(config=load_config(), get_digest=build, clock=clock)
    bot = SlackBot(core, poster, clock=clock, threads=threads)
    for channel in channels:
        body = {"channel_id": channel, "user_id": "U0CRASH", "text": "today", "trigger_id": channel}
        await bot.on_command(body)
    print("ready", flush=True)
    await bot.jobs.idle()
    await stop.wait()


if __name__ == "__main__":
    asyncio.run(
        main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5], sys.argv[6:])
    )
