"""Daily posts through the real Slack and Discord SDKs, against fake servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from aiohttp import web
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import messages
from bot.commands.subscriptions import ScheduledRequests
from bot.daily import DailyPoster, DiscordDaily, PlatformUnavailable, SlackDaily
from bot.discord import build_discord_client
from bot.discord.endpoints import point_discord_at
from bot.slack import SlackPoster
from config.settings import DiscordSettings, load_config
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.models import Digest, Window
from digest.schedule.ledger import StateLedger
from digest.schedule.scheduler import Scheduler
from digest.schedule.subscriptions import StateSubscriptions
from tests.fakes.discord import CHANNEL_ID, TOKEN, FakeDiscord
from tests.fakes.github import MutableClock
from tests.fakes.slack import FakeSlack, start_fake_slack, stop_fake_slack
from tests.support.serve import SCHEDULED, fake_slack_before, sample_digest, subscription

EMPTY = Window(SCHEDULED + timedelta(days=30), SCHEDULED + timedelta(days=31), "Asia/Shanghai")


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    fake = await start_fake_slack()
    yield fake
    await stop_fake_slack(fake)


def slack_daily(fake: FakeSlack) -> SlackDaily:
    client = AsyncWebClient(token="xoxb-daily", base_url=fake.api_url)
    return SlackDaily(SlackPoster(client, pace_s=0.0))


async def test_slack_digest_is_a_parent_with_a_thread(slack: FakeSlack) -> None:
    """The parent message comes first; every section follows in its thread, unfurls off."""
    digest = await sample_digest()
    await slack_daily(slack)(subscription(), digest, late=False, quiet=False)
    parent, *replies = slack.posts
    assert "thread_ts" not in parent and parent["channel"] == "C0000001"
    assert replies and all(r["thread_ts"] == parent["_ts"] for r in replies)
    assert all(p["unfurl_links"] in (False, "false", "0", 0) for p in slack.posts)
    assert "Posted late" not in json.dumps(parent)


async def test_slack_late_digest_says_so(slack: FakeSlack) -> None:
    """A late post carries a note with the time it was due."""
    digest = await sample_digest()
    await slack_daily(slack)(subscription(), digest, late=True, quiet=False)
    assert "Posted late: this daily digest was due at 2026-02-01 11:21 (UTC+8)" in json.dumps(
        slack.posts[0], ensure_ascii=False
    )


async def test_slack_quiet_day_is_one_line(slack: FakeSlack) -> None:
    """A day without activity is one short message, no thread."""
    digest = await sample_digest(EMPTY)
    await slack_daily(slack)(subscription(), digest, late=False, quiet=True)
    assert len(slack.posts) == 1
    assert slack.posts[0]["text"].startswith("Quiet day in vllm-project/vllm: no new or closed")


async def test_chinese_quiet_and_late_lines_are_in_chinese(slack: FakeSlack) -> None:
    """A zh subscription's quiet-day line and late note are written in Chinese."""
    digest = await sample_digest(EMPTY, lang="zh")
    await slack_daily(slack)(subscription(), digest, late=True, quiet=True)
    (post,) = slack.posts
    assert post["text"].startswith("vllm-project/vllm 今日无动态")
    assert "延迟发布" in post["text"] and "Posted late" not in post["text"]


async def test_slack_parent_failure_raises_so_the_run_is_retried(slack: FakeSlack) -> None:
    """When the parent cannot be posted the poster raises; nothing is half-posted."""
    slack.fail("chat.postMessage", "not_in_channel")
    with pytest.raises(SlackApiError):
        await slack_daily(slack)(subscription(), await sample_digest(), late=False, quiet=False)
    assert slack.posts == []


async def test_slack_reply_failure_keeps_the_post(slack: FakeSlack) -> None:
    """A failing reply after the parent is logged, not raised: a retry would double the parent."""
    digest = await sample_digest()
    client = AsyncWebClient(token="xoxb-daily", base_url=slack.api_url)
    poster = SlackDaily(SlackPoster(client, pace_s=0.3))
    task = asyncio.create_task(poster(subscription(), digest, late=False, quiet=False))
    await slack.wait_until(lambda: len(slack.posts) >= 1)
    slack.fail("chat.postMessage", "msg_too_long", times=50)
    await asyncio.wait_for(task, 5)
    assert len(slack.posts) == 1
    assert len(slack.called("chat.postMessage")) == 2


@pytest.fixture
async def discord_client() -> AsyncIterator[tuple[FakeDiscord, Any]]:
    """A logged-in Discord client on the fake (gateway READY)."""
    fake = FakeDiscord()
    await fake.start()
    previous = point_discord_at(None, None)
    settings = DiscordSettings(api_url=fake.api_url, gateway_url=fake.gateway_url)

    class Subs:
        async def add(self, s: Any) -> None: ...
        async def remove(self, p: str, c: str, r: str | None = None) -> list[str]:
            return []

        async def list(self, p: str, c: str) -> list[Any]:
            return []

    from bot.commands.runner import ReportCore
    from config.settings import load_config

    async def never(request: Any) -> Any:
        raise AssertionError("no digest is built here")

    core = ReportCore(config=load_config(), get_digest=never, clock=lambda: SCHEDULED)
    client = build_discord_client(
        core,
        settings,
        subscriptions=Subs(),
        clock=lambda: SCHEDULED,
        sync_commands=False,
        guild_ready_timeout=0.01,
    )
    task = asyncio.create_task(client.start(TOKEN))
    await asyncio.wait_for(client.wait_until_ready(), 5)
    yield fake, client
    await client.close()
    await asyncio.wait_for(task, 5)
    point_discord_at(*previous)
    await fake.close()


async def test_discord_digest_starts_a_thread(discord_client: tuple[FakeDiscord, Any]) -> None:
    """Parent message in the channel, a thread from it, the sections inside; no mentions."""
    fake, client = discord_client
    await DiscordDaily(client)(
        subscription("discord", str(CHANNEL_ID)), await sample_digest(), late=False, quiet=False
    )
    parents = fake.find("POST", rf"channels/{CHANNEL_ID}/messages")
    threads = fake.find("POST", rf"channels/{CHANNEL_ID}/messages/\d+/threads")
    assert len(parents) == 1 and len(threads) == 1
    thread_id = threads[0].response["id"]
    inside = fake.find("POST", rf"channels/{thread_id}/messages")
    assert inside
    assert all(c.body["allowed_mentions"]["parse"] == [] for c in [*parents, *inside])
    assert threads[0].body["name"].startswith("vLLM")


async def test_discord_quiet_day_is_one_message(discord_client: tuple[FakeDiscord, Any]) -> None:
    """A quiet day is a single message and no thread."""
    fake, client = discord_client
    await DiscordDaily(client)(
        subscription("discord", str(CHANNEL_ID)), await sample_digest(EMPTY), late=False, quiet=True
    )
    sent = fake.find("POST", rf"channels/{CHANNEL_ID}/messages")
    assert len(sent) == 1 and sent[0].body["content"] == messages.quiet_day(
        "vllm-project/vllm", "2026-03-03 11:21 (UTC+8) ~ 2026-03-04 11:21 (UTC+8)"
    )
    assert fake.find("POST", r"threads") == []


async def test_unconfigured_platform_is_an_error() -> None:
    """A subscription of a platform this process does not run is not silently dropped."""
    with pytest.raises(PlatformUnavailable):
        await DailyPoster({})(
            subscription("discord", "1"), await sample_digest(), late=False, quiet=False
        )


async def test_slack_post_counts_as_made_once_the_parent_is_out(slack: FakeSlack) -> None:
    """``parent_sent`` is awaited right after the parent message, before any reply."""
    seen: list[int] = []

    async def parent_sent() -> None:
        seen.append(len(slack.posts))

    poster = slack_daily(slack)
    await poster(
        subscription(), await sample_digest(), late=False, quiet=False, parent_sent=parent_sent
    )
    await poster(
        subscription(), await sample_digest(EMPTY), late=False, quiet=True, parent_sent=parent_sent
    )
    assert seen[0] == 1 and len(slack.posts) > 2
    assert seen[1] == len(slack.posts)


async def test_slack_late_quiet_day_says_it_is_late(slack: FakeSlack) -> None:
    """A quiet day caught up after downtime is still one line, with the time it was due."""
    await slack_daily(slack)(subscription(), await sample_digest(EMPTY), late=True, quiet=True)
    (line,) = slack.posts
    assert line["text"].startswith("Quiet day in vllm-project/vllm")
    assert line["text"].endswith(
        "Posted late: this daily digest was due at 2026-03-04 11:21 (UTC+8)."
    )


async def test_thread_cut_off_after_the_parent_is_not_posted_again() -> None:
    """Slack drops the connection on every reply: the scheduler keeps the run posted, and no
    later pass (here or on another replica) posts the parent again."""

    async def drop_replies(request: web.Request, is_reply: bool) -> web.StreamResponse | None:
        if not is_reply or request.transport is None:
            return None
        request.transport.close()
        return web.Response(status=500)  # never arrives

    fake, runner = await fake_slack_before(drop_replies)
    clock = MutableClock(SCHEDULED)
    state = SQLiteState(":memory:", clock=clock)
    try:
        subs = StateSubscriptions(state)
        await subs.put_subscription(subscription())
        client = AsyncWebClient(token="xoxb-daily", base_url=fake.api_url, retry_handlers=[])
        digest = await sample_digest()

        async def build(request: DigestRequest) -> Digest:
            return digest

        def replica() -> Scheduler:
            return Scheduler(
                subscriptions=subs,
                ledger=StateLedger(state),
                request=ScheduledRequests(load_config(), default_writer="template"),
                build=build,
                post=DailyPoster({"slack": SlackDaily(SlackPoster(client, pace_s=0.0))}),
                clock=clock,
            )

        first = replica()
        assert await first.tick() == 1
        assert first.counters["posts_incomplete"] == 1
        clock.advance(timedelta(minutes=30))
        assert await first.tick() == 0 and await replica().tick() == 0
        assert len(fake.posts) == 1 and "thread_ts" not in fake.posts[0]
    finally:
        await state.close()
        await runner.cleanup()


async def test_discord_post_counts_as_made_once_the_parent_is_out(
    discord_client: tuple[FakeDiscord, Any],
) -> None:
    """``parent_sent`` is awaited after the parent message and before the thread is started."""
    fake, client = discord_client
    seen: list[int] = []

    async def parent_sent() -> None:
        seen.append(len(fake.find("POST", r"channels/\d+/messages")))
        assert fake.find("POST", r"threads") == []

    sub = subscription("discord", str(CHANNEL_ID))
    digest = await sample_digest()
    await DiscordDaily(client)(sub, digest, late=False, quiet=False, parent_sent=parent_sent)
    assert seen == [1] and len(fake.find("POST", r"channels/\d+/messages")) > 2
