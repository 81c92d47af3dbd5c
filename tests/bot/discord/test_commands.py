"""End to end through the real discord.py: application commands against the fake Discord."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import pytest

from bot.commands import messages
from bot.commands.grammar import DigestCommand, UsageError, parse
from bot.commands.runner import ReportCore
from bot.discord import ReportClient, render_discord
from bot.discord.limits import THREAD_NAME, problems
from config.settings import LimitSettings
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.models import Digest
from digest.render.chat import TOP_ENTRIES
from digest.state.limiter import Limiter
from tests.bot.discord.conftest import HOSTILE_LOGIN, StartBot, make_core, synthetic_digest
from tests.fakes.discord import (
    CHANNEL_ID,
    EPHEMERAL,
    MANAGE_CHANNELS,
    MEMBER_PERMISSIONS,
    TOKEN,
    USER_ID,
    Call,
    FakeDiscord,
    user,
)
from tests.fakes.subscriptions import MemorySubscriptions
from tests.support.discord_helpers import (
    CALLBACK,
    THREAD_FROM_MESSAGE,
    UNESCAPED_MENTION,
    WEBHOOK,
    embeds,
    in_channel,
    is_message,
    payload,
    sent_messages,
    texts,
    thread_ids,
)
from tests.support.synthetic import DEFAULT_NOW

MESSAGE_CONTENT_INTENT = 1 << 15
PRIVILEGED = MESSAGE_CONTENT_INTENT | (1 << 1) | (1 << 8)


async def _digest_post(core: ReportCore, window: str = "2026-01-31") -> Digest:
    return await core.digest(DigestCommand(window))


async def test_report_defers_then_posts_parent_and_thread(
    bot: ReportClient, fake: FakeDiscord, core: ReportCore
) -> None:
    """/vllm-report: defer first, the parent as a follow-up, a thread from it, sections inside."""
    expected = render_discord(await _digest_post(core))
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await fake.wait_for(
        lambda calls: (
            len(in_channel(fake, _thread(fake))) == len(expected.thread)
            if thread_ids(fake)
            else False
        )
    )

    calls = [c for c in fake.calls if c.method != "GET" and not c.path.endswith("/commands")]
    assert calls[0].matches("POST", CALLBACK)
    assert calls[0].body == {"type": 5}  # deferred "thinking", not ephemeral
    assert calls[1].matches("POST", WEBHOOK)
    assert calls[1].query["wait"] in ("1", "true")
    parent_id = calls[1].response["id"]
    assert calls[2].matches("POST", rf"channels/{CHANNEL_ID}/messages/{parent_id}/threads")
    name = calls[2].body["name"]
    assert name == "vLLM Development Report - 2026-01-31"
    assert len(name) <= THREAD_NAME
    thread = int(calls[2].response["id"])
    rest = [c for c in calls[3:] if is_message(c)]
    assert all(c.matches("POST", rf"channels/{thread}/messages") for c in rest)
    assert [embeds(payload(c)) for c in rest] == [m.to_dict()["embeds"] for m in expected.thread]

    parent = payload(calls[1])["embeds"][0]
    assert parent["title"] == "vLLM Development Report - 2026-01-31"
    assert parent["description"].startswith("New issues ")
    assert parent["fields"][0]["value"] == "2026-01-31 11:21 (UTC+8) ~ 2026-02-01 11:21 (UTC+8)"
    assert calls[1].flags == 0  # the parent replaced the public "thinking" message


async def test_slow_build_is_deferred_at_once(
    start_bot: StartBot, fake: FakeDiscord, store: SQLiteStore, core: ReportCore
) -> None:
    """The deferral reaches Discord while the digest is still building; the parent follows."""
    gate = asyncio.Event()

    async def slow(request: DigestRequest) -> Digest:
        await gate.wait()
        return await core.build(request)

    await start_bot(make_core(store, get_digest=slow))
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    assert fake.find("POST", CALLBACK)[0].body == {"type": 5} and not fake.find("POST", WEBHOOK)
    gate.set()
    await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    assert payload(fake.find("POST", WEBHOOK)[0])["embeds"][0]["title"].startswith("vLLM")


def _thread(fake: FakeDiscord) -> int:
    return thread_ids(fake)[0]


async def test_every_message_is_within_limits_and_mentions_nobody(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """Each message fits Discord's limits and carries allowed_mentions that ping no one."""
    await fake.command("vllm-report", {"window": "2026-01-31", "language": "zh"})
    await fake.wait_for(
        lambda calls: any(
            c.matches("POST", r"channels/\d+/messages") and "附录" in str(c.body) for c in calls
        )
    )
    found = sent_messages(fake)
    assert len(found) > 5
    for message in found:
        assert problems(message) == []
        assert message["allowed_mentions"]["parse"] == []


async def test_hostile_github_text_is_neutralised(bot: ReportClient, fake: FakeDiscord) -> None:
    """Titles and logins from GitHub can neither ping, format, nor spoof a link."""
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await fake.wait_for(lambda calls: any("Appendix" in str(c.body) for c in calls))
    everything = "\n".join(t for m in sent_messages(fake) for t in texts(m))
    assert "99001" in everything  # the hostile item is reported, and linked
    assert "[#99001 " in everything
    assert re.search(r"@(everyone|here)", everything) is None  # a zero-width space follows "@"
    assert UNESCAPED_MENTION.search(everything) is None
    assert re.search(r"(?<!\\)\]\(<?https://evil", everything) is None  # no masked evil link
    # both addresses of the spoof are code, neither linked
    assert "\\[`github.com/vllm-project/vllm`\\](`https://evil.example`)" in everything
    assert "**bold**" not in everything and "\\*\\*bold\\*\\*" in everything
    assert "||spoiler||" not in everything
    assert f"[@\u200b{HOSTILE_LOGIN}](<https://github.com/{HOSTILE_LOGIN}>)" in everything


async def test_usage_error_is_answered_only_to_the_user(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """A malformed window gets the shared wording, ephemerally, with no deferral."""
    await fake.command("vllm-report", {"window": "banana"})
    calls = await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    callback = fake.find("POST", CALLBACK)[0].body
    assert callback["type"] == 4
    assert callback["data"]["flags"] == EPHEMERAL
    assert callback["data"]["content"].startswith("Sorry, I didn't understand that: unknown window")
    assert not any(c.matches("POST", WEBHOOK) for c in calls)


async def test_core_error_becomes_an_ephemeral_follow_up(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """A window in the future: the thinking message goes away, the error reaches only the user."""
    await fake.command("vllm-report", {"window": "2099-01-01"})
    await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    calls = [c for c in fake.calls if "/interactions/" in f"/{c.path}" or "webhooks" in c.path]
    assert [c.method for c in calls] == ["POST", "DELETE", "POST"]
    assert calls[1].path.endswith("/messages/@original")
    assert calls[2].flags == EPHEMERAL
    assert calls[2].body["content"] == (
        "That window doesn't work: the window '2099-01-01' has not started yet."
    )
    assert not fake.find("POST", THREAD_FROM_MESSAGE)


async def test_unexpected_failure_is_logged_and_worded(
    start_bot: StartBot, fake: FakeDiscord, store: SQLiteStore, caplog: pytest.LogCaptureFixture
) -> None:
    """A crash in the core: logged as an event without the token; the user sees INTERNAL."""

    async def broken(request: DigestRequest) -> Digest:
        raise RuntimeError("disk on fire")

    await start_bot(make_core(store, get_digest=broken))
    with caplog.at_level(logging.INFO):
        await fake.command("vllm-report", {})
        await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    follow_up = fake.find("POST", WEBHOOK)[0]
    assert follow_up.body["content"] == messages.INTERNAL
    assert follow_up.flags == EPHEMERAL
    failed = [r for r in caplog.records if r.getMessage() == "discord.command_failed"]
    assert len(failed) == 1
    assert failed[0].exc_info is not None
    assert failed[0].command == "DigestCommand"  # type: ignore[attr-defined]
    assert TOKEN not in caplog.text


async def test_rate_limit_is_waited_out(
    bot: ReportClient, fake: FakeDiscord, core: ReportCore
) -> None:
    """A 429 (with Discord's Via header) on a thread message is retried; nothing is lost."""
    expected = render_discord(await _digest_post(core))
    fake.rate_limit_next("POST", r"channels/\d+/messages", retry_after=0.05)
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await fake.wait_for(
        lambda calls: (
            bool(thread_ids(fake)) and len(in_channel(fake, _thread(fake))) == len(expected.thread)
        )
    )
    limited = [c for c in fake.calls if c.status == 429]
    assert len(limited) == 1
    posted = [embeds(payload(c)) for c in in_channel(fake, _thread(fake))]
    assert posted == [m.to_dict()["embeds"] for m in expected.thread]


async def test_private_digest_goes_by_direct_message(
    bot: ReportClient, fake: FakeDiscord, core: ReportCore
) -> None:
    """private: an ephemeral deferral, the digest in a DM, and an ephemeral confirmation."""
    expected = render_discord(await _digest_post(core))
    await fake.command("vllm-report", {"window": "2026-01-31", "private": True})
    await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    assert fake.find("POST", CALLBACK)[0].body == {"type": 5, "data": {"flags": EPHEMERAL}}
    dm = int(fake.find("POST", r"users/@me/channels")[0].response["id"])
    assert len(in_channel(fake, dm)) == len(expected.messages)
    confirmation = fake.find("POST", WEBHOOK)[0]
    assert confirmation.body["content"] == messages.SENT_PRIVATE
    assert confirmation.flags == EPHEMERAL
    assert not fake.find("POST", THREAD_FROM_MESSAGE)


async def test_private_digest_that_cannot_be_sent_says_so(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """A direct message Discord refuses for another reason ends in the shared words, privately."""
    fake.fail_next("POST", r"channels/\d+/messages", 400, {"message": "Bad", "code": 50035})
    await fake.command("vllm-report", {"window": "2026-01-31", "private": True})
    await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    follow_up = fake.find("POST", WEBHOOK)[0]
    assert follow_up.body["content"] == messages.INTERNAL and follow_up.flags == EPHEMERAL
    assert fake.find("DELETE", rf"{WEBHOOK}/messages/@original")


async def test_unsubscribe_from_a_bad_repository_gets_the_grammar_wording(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """/vllm-unsubscribe repository:nope is refused with the same words as the text command."""
    await fake.command("vllm-unsubscribe", {"repository": "nope"})
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    data = fake.find("POST", CALLBACK)[0].body["data"]
    with pytest.raises(UsageError) as typed:
        parse("unsubscribe repo:nope")
    assert data["content"] == messages.error_text(typed.value, platform="discord")
    assert data["content"].endswith("Type `/vllm-help` for the commands.")
    assert data["flags"] == EPHEMERAL


async def test_ask_answers_with_links(bot: ReportClient, fake: FakeDiscord) -> None:
    """/vllm-ask: deferred, then a linked answer as a follow-up."""
    await fake.command("vllm-ask", {"question": "what's new in ROCm?"})
    await fake.wait_for(lambda calls: bool(fake.find("POST", WEBHOOK)))
    assert fake.find("POST", CALLBACK)[0].body == {"type": 5}
    answer = fake.find("POST", WEBHOOK)[0].body
    assert "](<https://github.com/vllm-project/vllm/" in answer["content"]
    assert problems(answer) == []
    assert answer["allowed_mentions"]["parse"] == []


async def test_help_is_ephemeral(bot: ReportClient, fake: FakeDiscord) -> None:
    """/vllm-help answers with the shared help in Discord markup, only to the user."""
    await fake.command("vllm-help")
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    data = fake.find("POST", CALLBACK)[0].body["data"]
    assert data["flags"] == EPHEMERAL
    assert data["content"] == messages.help_text("discord").strip()
    assert data["content"].startswith("**vllm-report**") and "`/vllm-ask`" in data["content"]


async def test_subscriptions_need_manage_channels(
    bot: ReportClient, fake: FakeDiscord, subscriptions: MemorySubscriptions
) -> None:
    """Only members with Manage Channels may subscribe; anyone may list."""
    await fake.command("vllm-subscribe", {"time": "09:00"}, permissions=MEMBER_PERMISSIONS)
    await fake.wait_for(lambda calls: len(fake.find("POST", CALLBACK)) == 1)
    refused = fake.find("POST", CALLBACK)[0].body["data"]
    assert refused["content"] == messages.managers_only("discord")
    assert refused["flags"] == EPHEMERAL
    assert await subscriptions.list("discord", str(CHANNEL_ID)) == []

    await fake.command(
        "vllm-subscribe",
        {"time": "09:00", "timezone": "Europe/Berlin", "language": "zh"},
        permissions=MEMBER_PERMISSIONS | MANAGE_CHANNELS,
    )
    await fake.wait_for(lambda calls: len(fake.find("POST", CALLBACK)) == 2)
    done = fake.find("POST", CALLBACK)[1].body["data"]
    assert done["content"] == (
        "Subscribed: a vllm-project/vllm digest in zh, daily at 09:00 (Europe/Berlin), in this "
        "channel. Next post: 2026-02-01 09:00 (UTC+1)."
    )
    assert not done.get("flags")
    [saved] = await subscriptions.list("discord", str(CHANNEL_ID))
    assert (saved.repo, saved.time, saved.timezone, saved.lang) == (
        "vllm-project/vllm",
        "09:00",
        "Europe/Berlin",
        "zh",
    )

    await fake.command("vllm-subscriptions")
    await fake.wait_for(lambda calls: len(fake.find("POST", CALLBACK)) == 3)
    listed = fake.find("POST", CALLBACK)[2].body["data"]["content"]
    assert "vllm-project/vllm: daily at 09:00 (Europe/Berlin) in zh" in listed

    await fake.command("vllm-unsubscribe", permissions=MEMBER_PERMISSIONS | MANAGE_CHANNELS)
    await fake.wait_for(lambda calls: len(fake.find("POST", CALLBACK)) == 4)
    assert fake.find("POST", CALLBACK)[3].body["data"]["content"] == messages.unsubscribed(
        "vllm-project/vllm"
    )
    assert await subscriptions.list("discord", str(CHANNEL_ID)) == []


async def test_subscribe_with_unknown_timezone_is_refused(
    bot: ReportClient, fake: FakeDiscord
) -> None:
    """A subscription in an unknown timezone gets the shared error wording."""
    await fake.command(
        "vllm-subscribe",
        {"timezone": "Mars/Olympus"},
        permissions=MEMBER_PERMISSIONS | MANAGE_CHANNELS,
    )
    await fake.wait_for(lambda calls: bool(fake.find("POST", CALLBACK)))
    data = fake.find("POST", CALLBACK)[0].body["data"]
    assert data["content"].startswith("That window doesn't work: unknown timezone 'Mars/Olympus'")
    assert data["flags"] == EPHEMERAL


@pytest.mark.slow
async def test_thirty_day_thread_is_short_and_points_to_every_list(
    start_bot: StartBot, fake: FakeDiscord, store: SQLiteStore
) -> None:
    """A 30-day digest through discord.py: at most 15 messages, each list's top items, the rest
    counted with where the full list is."""
    digest = synthetic_digest(30, "en")

    async def built(request: DigestRequest) -> Digest:
        assert request.window.days == 30
        return digest

    expected = render_discord(digest)
    await start_bot(make_core(store, now=DEFAULT_NOW, get_digest=built), now=DEFAULT_NOW)
    await fake.command("vllm-report", {"window": "30d"})
    await fake.wait_for(
        lambda calls: (
            bool(thread_ids(fake)) and len(in_channel(fake, _thread(fake))) == len(expected.thread)
        ),
        seconds=60,
    )
    posted = [payload(c) for c in in_channel(fake, _thread(fake))]
    assert all(problems(p) == [] and p["allowed_mentions"]["parse"] == [] for p in posted)
    text = "\n".join(t for p in posted for t in texts(p))
    linked = {int(n) for n in re.findall(r"\[#(\d+) ", text)}
    appendix = digest.section("appendix")
    assert appendix is not None
    assert len(posted) + 1 <= 15  # the thread and its parent
    for _key, items in digest.lists:
        assert {i.number for i in items[:TOP_ENTRIES]} <= linked
        if len(items) > TOP_ENTRIES:
            assert f"and {len(items) - TOP_ENTRIES} more" in text
    assert text.count("vllm-report 30d --repo vllm-project/vllm") == 5


async def test_without_thread_permission_sections_follow_up(
    bot: ReportClient, fake: FakeDiscord, core: ReportCore
) -> None:
    """When the bot may not start a thread, the sections arrive as follow-ups instead."""
    expected = render_discord(await _digest_post(core))
    fake.fail_next(
        "POST", THREAD_FROM_MESSAGE, 403, {"message": "Missing Permissions", "code": 50013}
    )
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await fake.wait_for(lambda calls: len(fake.find("POST", WEBHOOK)) == len(expected.messages))
    follow_ups = fake.find("POST", WEBHOOK)
    assert [embeds(c.body) for c in follow_ups] == [
        m.to_dict()["embeds"] for m in expected.messages
    ]
    assert all(c.flags == 0 for c in follow_ups)


async def test_a_burst_of_digests_is_limited_and_another_member_still_gets_theirs(
    start_bot: StartBot, fake: FakeDiscord, core: ReportCore
) -> None:
    """Twenty distinct /vllm-report from one member: ten posted, ten refused to that member
    only (ephemeral) with the limit and when to try again; another member's digest then
    arrives in full."""
    state = SQLiteState(":memory:", clock=lambda: DEFAULT_NOW)
    try:
        await start_bot(core, limiter=Limiter(state, LimitSettings().rules(), lambda: DEFAULT_NOW))
        for day in range(1, 21):
            await fake.command("vllm-report", {"window": f"2026-01-{day:02d}"})

        def refusals() -> list[dict[str, Any]]:
            return [
                payload(c)
                for c in fake.find("POST", WEBHOOK)
                if "limit of digests" in (payload(c).get("content") or "")
            ]

        def parents() -> list[Call]:
            return fake.find("POST", THREAD_FROM_MESSAGE)

        await fake.wait_for(lambda calls: len(refusals()) == 10 and len(parents()) == 10)
        assert all(r["flags"] == EPHEMERAL for r in refusals())
        assert all(
            r["content"].startswith("You have reached your limit of digests (10 per 10 minutes)")
            for r in refusals()
        )
        expected = render_discord(await _digest_post(core))
        await fake.command("vllm-report", {"window": "2026-01-31"}, who=user(USER_ID + 1, "bob"))
        await fake.wait_for(
            lambda calls: (
                len(parents()) == 11
                and len(in_channel(fake, thread_ids(fake)[-1])) == len(expected.thread)
            )
        )
        assert len(refusals()) == 10
        theirs = in_channel(fake, thread_ids(fake)[-1])
        assert [embeds(payload(c)) for c in theirs] == [
            m.to_dict()["embeds"] for m in expected.thread
        ]
    finally:
        await state.close()
