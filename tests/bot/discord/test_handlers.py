"""The Discord front end's command threads: kept in the journal as they go out, completed by
another replica (through the bot's own channel access) when the one posting them dies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from bot.commands.grammar import DigestCommand
from bot.commands.runner import ReportCore
from bot.discord import ReportClient, render_discord
from bot.discord.post import DiscordThreads
from bot.discord.render import DiscordPost
from digest.backends.sqlite.state import SQLiteState
from digest.schedule.command_threads import ThreadRecovery
from digest.schedule.ledger import StateLedger
from tests.bot.discord.conftest import NOW, StartBot
from tests.fakes.discord import BOT_ID, CHANNEL_ID, FakeDiscord
from tests.support.clock import Clock
from tests.support.command_threads import journal
from tests.support.command_threads import recovery as threads_recovery
from tests.support.discord_helpers import embeds, in_channel, payload, thread_ids


@pytest.fixture
async def ledger() -> AsyncIterator[tuple[StateLedger, Clock]]:
    clock = Clock(NOW)
    state = SQLiteState(":memory:", clock=clock)
    yield StateLedger(state), clock
    await state.close()


def recovery(
    ledger: StateLedger, clock: Clock, core: ReportCore, owner: str, client: ReportClient
) -> ThreadRecovery:
    return threads_recovery(ledger, clock, core, owner, {"discord": DiscordThreads(client)})


async def posted_in_full(fake: FakeDiscord, expected: int) -> None:
    await fake.wait_for(
        lambda calls: (
            bool(thread_ids(fake)) and len(in_channel(fake, thread_ids(fake)[0])) == expected
        )
    )


async def left_short(
    fake: FakeDiscord, core: ReportCore, store: StateLedger, clock: Clock, parts: int
) -> tuple[DiscordPost, int]:
    """``/vllm-report 2026-01-31`` posted in full, then a thread of the same digest recorded by a
    replica that died after its first ``parts`` parts (the parent, then the thread's messages):
    the expected post and the thread's id."""
    request = core.request("2026-01-31")
    expected = render_discord(await core.build(request))
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await posted_in_full(fake, len(expected.thread))
    (parent_call,) = fake.find("POST", r"webhooks/\d+/[^/]+$")
    thread = thread_ids(fake)[0]
    ids = [parent_call.response["id"], *(c.response["id"] for c in in_channel(fake, thread))]
    dead = journal(store, clock, "dead")
    tracked = await dead.open(
        platform="discord", channel=str(CHANNEL_ID), user="1", request=request
    )
    for index in range(parts):
        await tracked.sent(index, str(ids[index]))
    return expected, thread


async def test_a_command_thread_is_recorded_part_by_part_and_closed(
    start_bot: StartBot,
    fake: FakeDiscord,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    store, clock = ledger
    threads = journal(store, clock, "a")
    await start_bot(core, threads=threads)
    expected = render_discord(await core.digest(DigestCommand("2026-01-31")))
    await fake.command("vllm-report", {"window": "2026-01-31"})
    await posted_in_full(fake, len(expected.thread))
    async with asyncio.timeout(5):
        while threads.counters["threads_completed"] == 0:  # noqa: ASYNC110 - no event to wait on
            await asyncio.sleep(0.01)
    assert await store.open_threads() == {}
    assert threads.counters["threads_opened"] == 1


async def test_a_thread_left_short_is_completed_in_the_parents_thread(
    start_bot: StartBot,
    fake: FakeDiscord,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    """A replica recorded the parent and the thread's first message, then died: once its claim
    expires another replica posts the remaining sections into the thread started from that
    parent, with the bot's own channel access (the interaction's follow-ups are gone)."""
    store, clock = ledger
    client = await start_bot(core)
    expected, thread = await left_short(fake, core, store, clock, parts=2)
    before = len(in_channel(fake, thread))
    clock.advance(timedelta(minutes=11))
    other = recovery(store, clock, core, "b", client)
    assert await other.recover() == 1
    resumed = in_channel(fake, thread)[before:]
    assert [embeds(payload(c)) for c in resumed] == [
        m.to_dict()["embeds"] for m in expected.thread[1:]
    ]
    assert len(thread_ids(fake)) == 1  # no second thread
    assert await store.open_threads() == {}


async def test_a_stale_thread_tells_its_requester_in_the_thread(
    start_bot: StartBot,
    fake: FakeDiscord,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    store, clock = ledger
    client = await start_bot(core)
    _, thread = await left_short(fake, core, store, clock, parts=1)
    before = len(in_channel(fake, thread))
    clock.advance(timedelta(hours=2))
    assert await recovery(store, clock, core, "b", client).recover() == 1
    (note,) = in_channel(fake, thread)[before:]
    assert payload(note)["content"] == "cut short after 1"
    assert payload(note)["allowed_mentions"]["parse"] == []


async def test_a_mention_digest_left_short_is_completed_in_its_thread(
    start_bot: StartBot,
    fake: FakeDiscord,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    """A digest asked for in a mention goes into a thread started from that message and is
    recorded; a replica completing it after a crash posts the missing parts into that thread."""
    store, clock = ledger
    threads = journal(store, clock, "a")
    client = await start_bot(core, threads=threads)
    request = core.request("2026-01-31")
    expected = render_discord(await core.build(request))
    asked = await fake.mention(f"<@{BOT_ID}> 2026-01-31")
    await fake.wait_for(lambda calls: len(in_channel(fake, asked)) == len(expected.messages))
    async with asyncio.timeout(5):
        while threads.counters["threads_completed"] == 0:  # noqa: ASYNC110 - no event to wait on
            await asyncio.sleep(0.01)
    assert await store.open_threads() == {}
    out = in_channel(fake, asked)
    dead = journal(store, clock, "dead")
    tracked = await dead.open(
        platform="discord", channel=str(CHANNEL_ID), user="1", request=request, thread=str(asked)
    )
    for index, call in enumerate(out[:3]):
        await tracked.sent(index, str(call.response["id"]))
    clock.advance(timedelta(minutes=11))
    assert await recovery(store, clock, core, "b", client).recover() == 1
    resumed = in_channel(fake, asked)[len(out) :]
    assert [embeds(payload(c)) for c in resumed] == [
        m.to_dict()["embeds"] for m in expected.messages[3:]
    ]
