"""End to end through the real discord.py: mentions and direct messages, without message content
intent."""

from __future__ import annotations

from bot.commands import messages
from bot.commands.grammar import DigestCommand
from bot.commands.runner import ReportCore
from bot.discord import ReportClient, render_discord
from bot.discord.limits import problems
from tests.fakes.discord import (
    BOT_ID,
    BOT_USER,
    CHANNEL_ID,
    MANAGER,
    MANAGER_ROLE_ID,
    FakeDiscord,
)
from tests.fakes.subscriptions import MemorySubscriptions
from tests.support.discord_helpers import THREAD_FROM_MESSAGE, embeds, in_channel, payload

MENTION = f"<@{BOT_ID}>"


async def test_question_is_answered_in_a_thread_from_the_mention(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """ "@vllm-report what's new in ROCm?" starts a thread on that message and answers in it."""
    asked = await fake.mention(f"{MENTION} what's new in ROCm?")
    await fake.wait_for(
        lambda calls: bool(fake.find("POST", THREAD_FROM_MESSAGE)) and bool(in_channel(fake, asked))
    )
    [created] = fake.find("POST", THREAD_FROM_MESSAGE)
    assert created.path == f"channels/{CHANNEL_ID}/messages/{asked}/threads"
    assert created.body["name"] == "what's new in ROCm?"
    assert fake.find("POST", rf"channels/{CHANNEL_ID}/typing")
    answer = payload(in_channel(fake, asked)[0])  # a thread started from a message shares its id
    assert "](<https://github.com/vllm-project/vllm/" in answer["content"]
    assert answer["allowed_mentions"]["parse"] == []
    assert problems(answer) == []
    assert in_channel(fake, CHANNEL_ID) == []  # nothing in the channel itself


async def test_digest_mention_posts_parent_and_sections_in_a_thread(
    bot: ReportClient, fake: FakeDiscord, core: ReportCore
) -> None:
    """ "@vllm-report 2026-01-31" posts the parent embed and every section into a reply thread."""
    expected = render_discord(await core.digest(DigestCommand("2026-01-31")))
    asked = await fake.mention(f"{MENTION} 2026-01-31")
    await fake.wait_for(lambda calls: len(in_channel(fake, asked)) == len(expected.messages))
    [created] = fake.find("POST", THREAD_FROM_MESSAGE)
    assert created.body["name"] == expected.thread_name
    posted = [payload(c) for c in in_channel(fake, asked)]
    assert [embeds(p) for p in posted] == [m.to_dict()["embeds"] for m in expected.messages]
    assert all(p["allowed_mentions"]["parse"] == [] and problems(p) == [] for p in posted)


async def test_messages_not_for_the_bot_are_ignored(bot: ReportClient, fake: FakeDiscord) -> None:
    """Messages without a mention, and messages from bots, get no answer."""
    await fake.mention("what's new in ROCm?", mentions_bot=False)
    await fake.mention(f"{MENTION} what's new in ROCm?", who=BOT_USER)
    marker = await fake.mention(MENTION)
    await fake.wait_for(lambda calls: bool(in_channel(fake, CHANNEL_ID)))
    replies = in_channel(fake, CHANNEL_ID)
    assert len(replies) == 1
    assert int(replies[0].body["message_reference"]["message_id"]) == marker
    assert not fake.find("POST", THREAD_FROM_MESSAGE)


async def test_bare_mention_gets_help(bot: ReportClient, fake: FakeDiscord) -> None:
    """A mention with no text answers with the shared help, as a reply that pings no one."""
    await fake.mention(MENTION)
    await fake.wait_for(lambda calls: bool(in_channel(fake, CHANNEL_ID)))
    reply = in_channel(fake, CHANNEL_ID)[0].body
    assert reply["content"] == messages.help_text("discord").strip()
    assert reply["allowed_mentions"] == {"parse": [], "replied_user": False}


async def test_bad_command_in_a_mention_gets_the_shared_wording(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """An unknown window in a mention is answered with the usage message."""
    await fake.mention(f"{MENTION} topic")
    await fake.wait_for(lambda calls: bool(in_channel(fake, CHANNEL_ID)))
    content = in_channel(fake, CHANNEL_ID)[0].body["content"]
    assert content.startswith("Sorry, I didn't understand that: say which topic")


async def test_subscribe_by_mention_needs_manage_channels(
    bot: ReportClient, fake: FakeDiscord, subscriptions: MemorySubscriptions
) -> None:
    """A member without Manage Channels is refused; a moderator subscribes the channel."""
    await fake.mention(f"{MENTION} subscribe time:08:30")
    await fake.wait_for(lambda calls: len(in_channel(fake, CHANNEL_ID)) == 1)
    assert in_channel(fake, CHANNEL_ID)[0].body["content"] == messages.managers_only("discord")

    await fake.mention(
        f"{MENTION} subscribe time:08:30 lang:zh", who=MANAGER, roles=[MANAGER_ROLE_ID]
    )
    await fake.wait_for(lambda calls: len(in_channel(fake, CHANNEL_ID)) == 2)
    assert in_channel(fake, CHANNEL_ID)[1].body["content"] == (
        "Subscribed: a vllm-project/vllm digest in zh, daily at 08:30 (Asia/Shanghai), in this "
        "channel. Next post: 2026-02-02 08:30 (UTC+8)."
        " Time zone Asia/Shanghai is the repository's report time zone; choose another with "
        "`subscribe tz:Europe/Berlin`, or set this channel's with "
        "`/vllm-settings tz:Europe/Berlin`."
    )
    [saved] = await subscriptions.list("discord", str(CHANNEL_ID))
    assert (saved.time, saved.timezone, saved.lang, saved.platform) == (
        "08:30",
        "Asia/Shanghai",
        "zh",
        "discord",
    )


async def test_direct_message_is_answered_in_place(bot: ReportClient, fake: FakeDiscord) -> None:
    """A question by DM (no mention needed) is answered in the DM, without a thread."""
    dm_channel = 920000000000000001
    await fake.mention("what's new in ROCm?", direct=True, channel_id=dm_channel)
    await fake.wait_for(lambda calls: bool(in_channel(fake, dm_channel)))
    answer = in_channel(fake, dm_channel)[0].body
    assert "](<https://github.com/vllm-project/vllm/" in answer["content"]
    assert not fake.find("POST", THREAD_FROM_MESSAGE)


async def test_private_question_is_answered_by_direct_message(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """ "@vllm-report private what's new in ROCm?" answers in a DM and says so in the channel."""
    await fake.mention(f"{MENTION} private what's new in ROCm?")
    await fake.wait_for(lambda calls: bool(in_channel(fake, CHANNEL_ID)))
    dm = int(fake.find("POST", r"users/@me/channels")[0].response["id"])
    answer = payload(in_channel(fake, dm)[0])
    assert "](<https://github.com/vllm-project/vllm/" in answer["content"]
    assert in_channel(fake, CHANNEL_ID)[0].body["content"] == messages.SENT_PRIVATE
    assert not fake.find("POST", THREAD_FROM_MESSAGE)
