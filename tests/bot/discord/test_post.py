"""Daily posts through the real Discord SDK, against the fake Discord on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any

import pytest

from bot.commands import messages
from bot.commands.runner import ReportCore
from bot.compose.front_ends import DailyCorrector
from bot.discord import DiscordFrontEnd, build_discord_client
from bot.discord.endpoints import point_discord_at
from bot.discord.post import DiscordDaily, DiscordThreads, channel_id
from config.settings import DiscordSettings, load_config
from digest.models import Digest, Window
from digest.schedule.subscription import Subscription
from tests.fakes.discord import CHANNEL_ID, TOKEN, FakeDiscord
from tests.support.serve import SCHEDULED, sample_digest, subscription

EMPTY = Window(SCHEDULED + timedelta(days=30), SCHEDULED + timedelta(days=31), "Asia/Shanghai")
DailyFn = Callable[..., Awaitable[None]]


async def _nothing(index: int, message_id: str) -> None:
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
        done: tuple[str, ...] = (),
        part_sent: Callable[[int, str], Awaitable[None]] = _nothing,
    ) -> None:
        content = messages.daily_post(digest, late=late, quiet=quiet)
        await daily(sub.channel, content, done, part_sent)

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
    front = DiscordFrontEnd(core=core, subscriptions=Subs(), clock=lambda: SCHEDULED)
    client = build_discord_client(front, settings, sync_commands=False, guild_ready_timeout=0.01)
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


async def test_discord_reports_each_part_as_it_goes_out(
    discord_client: tuple[FakeDiscord, Any],
) -> None:
    """``part_sent`` follows the parent (before the thread is started), then each message in it."""
    fake, client = discord_client
    seen: list[tuple[int, int]] = []

    async def part_sent(index: int, message_id: str) -> None:
        seen.append((index, len(fake.find("POST", r"channels/\d+/messages/\d+/threads"))))

    sub = subscription("discord", str(CHANNEL_ID))
    await discord_daily(client)(
        sub, await sample_digest(), late=False, quiet=False, part_sent=part_sent
    )
    assert seen[0] == (0, 0) and [i for i, _ in seen] == list(range(len(seen)))
    assert all(threads == 1 for _, threads in seen[1:]) and len(seen) > 2


async def test_discord_resumed_thread_posts_the_missing_parts_in_the_parents_thread(
    discord_client: tuple[FakeDiscord, Any],
) -> None:
    """Given the parent and one message of its thread, the rest goes into the same thread (found
    by the parent's id), in order, with no second thread and nothing posted twice."""
    fake, client = discord_client
    sub = subscription("discord", str(CHANNEL_ID))
    digest = await sample_digest()
    ids: list[str] = []

    async def record(index: int, message_id: str) -> None:
        ids.append(message_id)

    await discord_daily(client)(sub, digest, late=False, quiet=False, part_sent=record)
    (thread,) = fake.find("POST", r"channels/\d+/messages/\d+/threads")
    inside = fake.find("POST", rf"channels/{thread.response['id']}/messages")
    calls = len(fake.calls)
    seen: list[int] = []

    async def part_sent(index: int, message_id: str) -> None:
        seen.append(index)

    await discord_daily(client)(
        sub, digest, late=False, quiet=False, done=tuple(ids[:2]), part_sent=part_sent
    )
    later = fake.calls[calls:]
    posted = [c for c in later if c.method == "POST"]
    assert all(c.path == f"channels/{ids[0]}/messages" for c in posted)
    assert [c.body["content"] for c in posted] == [c.body["content"] for c in inside[1:]]
    assert seen == list(range(2, len(ids)))


async def test_discord_resume_starts_the_thread_when_only_the_parent_was_out(
    discord_client: tuple[FakeDiscord, Any],
) -> None:
    """A post interrupted right after its parent gets its thread started from that parent."""
    fake, client = discord_client
    sub = subscription("discord", str(CHANNEL_ID))
    digest = await sample_digest()
    parent = fake.find("POST", r"channels/\d+/messages")
    assert parent == []
    await discord_daily(client)(sub, await sample_digest(EMPTY), late=False, quiet=True)
    (quiet,) = fake.find("POST", rf"channels/{CHANNEL_ID}/messages")
    await discord_daily(client)(sub, digest, late=False, quiet=False, done=(quiet.response["id"],))
    (thread,) = fake.find("POST", r"channels/\d+/messages/\d+/threads")
    assert thread.path == f"channels/{CHANNEL_ID}/messages/{quiet.response['id']}/threads"
    assert fake.find("POST", rf"channels/{quiet.response['id']}/messages")


@pytest.mark.parametrize("channel", ["#general", "general", "12a", ""])
def test_a_discord_channel_is_its_numeric_id(channel: str) -> None:
    """A Discord subscription names its channel by numeric id; anything else is refused."""
    with pytest.raises(ValueError):
        channel_id(channel)
    assert channel_id(str(CHANNEL_ID)) == CHANNEL_ID


async def test_a_correction_goes_into_the_daily_posts_thread(
    discord_client: tuple[FakeDiscord, Any],
) -> None:
    """The correction of a daily post that went out behind is one message in the thread
    started from the post's parent (whose id the ledger recorded as part 0)."""
    fake, client = discord_client
    parts: list[str] = []

    async def part_sent(index: int, message_id: str) -> None:
        parts.append(message_id)

    sub = subscription("discord", str(CHANNEL_ID))
    digest = await sample_digest()
    await discord_daily(client)(sub, digest, late=False, quiet=False, part_sent=part_sent)
    (thread,) = fake.find("POST", rf"channels/{CHANNEL_ID}/messages/\d+/threads")
    before = len(fake.find("POST", r"channels/\d+/messages$"))
    await DailyCorrector({"discord": DiscordThreads(client)})(sub, digest, parts[0])
    sent = fake.find("POST", r"channels/\d+/messages$")[before:]
    assert [c.path for c in sent] == [f"channels/{thread.response['id']}/messages"]
    assert sent[0].body["content"].startswith("Correction: this digest went out before")
    assert sent[0].body["allowed_mentions"]["parse"] == []
