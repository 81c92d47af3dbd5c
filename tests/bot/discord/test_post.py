"""Daily posts through the real Discord SDK, against the fake Discord on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest

from bot.commands import messages
from bot.commands.runner import ReportCore
from bot.discord import build_discord_client
from bot.discord.endpoints import point_discord_at
from bot.discord.post import DiscordDaily, channel_id
from config.settings import DiscordSettings, load_config
from digest.models import Digest, Window
from digest.schedule.subscription import Subscription
from tests.fakes.discord import CHANNEL_ID, TOKEN, FakeDiscord
from tests.support.serve import SCHEDULED, sample_digest, subscription

EMPTY = Window(SCHEDULED + timedelta(days=30), SCHEDULED + timedelta(days=31), "Asia/Shanghai")
DailyFn = Callable[..., Awaitable[None]]


async def _nothing() -> None:
    return None


def discord_daily(client: Any) -> DailyFn:
    """A subscription's daily post through :class:`DiscordDaily`, as the scheduler makes it."""
    daily = DiscordDaily(client)

    async def post(
        sub: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        parent_sent: Callable[[], Awaitable[None]] = _nothing,
    ) -> None:
        await daily(sub.channel, messages.daily_post(digest, late=late, quiet=quiet), parent_sent)

    return post


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
    await discord_daily(client)(
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
    await discord_daily(client)(
        subscription("discord", str(CHANNEL_ID)), await sample_digest(EMPTY), late=False, quiet=True
    )
    sent = fake.find("POST", rf"channels/{CHANNEL_ID}/messages")
    assert len(sent) == 1 and sent[0].body["content"] == messages.quiet_day(
        "vllm-project/vllm", "2026-03-03 11:21 (UTC+8) ~ 2026-03-04 11:21 (UTC+8)"
    )
    assert fake.find("POST", r"threads") == []


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
    await discord_daily(client)(sub, digest, late=False, quiet=False, parent_sent=parent_sent)
    assert seen == [1] and len(fake.find("POST", r"channels/\d+/messages")) > 2


@pytest.mark.parametrize("channel", ["#general", "general", "12a", ""])
def test_a_discord_channel_is_its_numeric_id(channel: str) -> None:
    """A Discord subscription names its channel by numeric id; anything else is refused."""
    with pytest.raises(ValueError):
        channel_id(channel)
    assert channel_id(str(CHANNEL_ID)) == CHANNEL_ID
