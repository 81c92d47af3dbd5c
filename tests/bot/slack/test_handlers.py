"""The Slack front end's command threads: kept in the journal as they go out, completed by
another replica when the one posting them dies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.runner import ReportCore
from bot.slack.handlers import SlackBot
from bot.slack.post import SlackPoster, SlackThreads, command_post
from digest.backends.sqlite.state import SQLiteState
from digest.schedule.command_threads import ThreadRecovery
from digest.schedule.ledger import StateLedger
from tests.bot.slack.conftest import NOW
from tests.fakes.slack import FakeSlack
from tests.support.clock import Clock
from tests.support.command_threads import journal
from tests.support.command_threads import recovery as threads_recovery


@pytest.fixture
async def ledger() -> AsyncIterator[tuple[StateLedger, Clock]]:
    clock = Clock(NOW)
    state = SQLiteState(":memory:", clock=clock)
    yield StateLedger(state), clock
    await state.close()


def recovery(
    ledger: StateLedger, clock: Clock, core: ReportCore, owner: str, poster: SlackPoster
) -> ThreadRecovery:
    return threads_recovery(ledger, clock, core, owner, {"slack": SlackThreads(poster)})


def replica(
    web_client: AsyncWebClient, core: ReportCore, store: StateLedger, clock: Clock, pace_s: float
) -> SlackBot:
    """The replica answering commands, its threads in the journal under owner ``a``."""
    poster = SlackPoster(web_client, pace_s=pace_s)
    return SlackBot(core, poster, clock=clock, threads=journal(store, clock, "a"))


def command(channel: str = "C1", text: str = "2026-01-31") -> dict[str, str]:
    return {"channel_id": channel, "user_id": "U1", "text": text, "trigger_id": f"t-{channel}"}


async def test_a_command_thread_posted_in_full_leaves_nothing_open(
    fake: FakeSlack,
    web_client: AsyncWebClient,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    store, clock = ledger
    poster = SlackPoster(web_client, pace_s=0)
    threads = journal(store, clock, "a")
    bot = SlackBot(core, poster, clock=clock, threads=threads)
    await bot.on_command(command())
    await bot.jobs.idle()
    assert len(fake.posts) > 2
    assert await store.open_threads() == {}
    assert threads.counters["threads_opened"] == threads.counters["threads_completed"] == 1
    clock.advance(timedelta(hours=1))
    assert await recovery(store, clock, core, "b", poster).recover() == 0


async def test_a_thread_cut_by_a_stop_is_completed_by_another_replica(
    fake: FakeSlack,
    web_client: AsyncWebClient,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    """The replica answering the command stops (its drain ran out) after three messages;
    another replica posts the rest of the same digest at once, in order, under the same
    parent, and nothing twice."""
    store, clock = ledger
    bot = replica(web_client, core, store, clock, pace_s=1.0)
    await bot.on_command(command())
    await fake.wait_until(lambda: len(fake.posts) >= 3)
    await asyncio.sleep(0.3)  # waiting for its turn to post the fourth
    await bot.jobs.drain(0)  # cancelled mid-thread
    cut = len(fake.posts)
    other = recovery(store, clock, core, "b", SlackPoster(web_client, pace_s=0))
    assert await other.recover() == 1
    digest = await core.build(core.request("2026-01-31"))  # the command's digest
    expected = command_post(digest, site_url=None).messages
    texts = [p["text"] for p in fake.posts]
    assert texts == [m.get("text", "") for m in expected]
    parent = fake.posts[0]
    assert "thread_ts" not in parent
    assert all(p["thread_ts"] == parent["_ts"] for p in fake.posts[1:])
    assert 3 <= cut < len(texts)
    assert await store.open_threads() == {}


async def test_a_mention_thread_is_completed_in_the_thread_it_was_asked_in(
    fake: FakeSlack,
    web_client: AsyncWebClient,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    store, clock = ledger
    bot = replica(web_client, core, store, clock, pace_s=0.3)
    event = {"type": "app_mention", "channel": "C1", "user": "U1", "text": "<@UBOT> 2026-01-31"}
    event["ts"] = "1700000000.000100"
    await bot.on_message({"event": event}, event)
    await fake.wait_until(lambda: len(fake.posts) >= 2)
    await bot.jobs.drain(0)
    other = recovery(store, clock, core, "b", SlackPoster(web_client, pace_s=0))
    assert await other.recover() == 1
    assert len(fake.posts) > 3
    assert all(p["thread_ts"] == "1700000000.000100" for p in fake.posts)


async def test_a_thread_slack_refused_is_not_completed_later(
    fake: FakeSlack,
    web_client: AsyncWebClient,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    """Slack refusing a reply ends the thread where it is (the requester is told, as before);
    no replica posts the rest of it later."""
    store, clock = ledger
    bot = replica(web_client, core, store, clock, pace_s=0.3)
    await bot.on_command(command())
    await fake.wait_until(lambda: len(fake.posts) >= 2)
    fake.fail("chat.postMessage", "msg_too_long", times=50)
    await bot.jobs.idle()
    out = len(fake.posts)
    clock.advance(timedelta(minutes=20))
    assert await recovery(store, clock, core, "b", bot.poster).recover() == 0
    assert len(fake.posts) == out
    assert await store.open_threads() == {}


async def test_a_stale_thread_tells_its_requester_under_its_parent(
    fake: FakeSlack,
    web_client: AsyncWebClient,
    core: ReportCore,
    ledger: tuple[StateLedger, Clock],
) -> None:
    """Cut by a stop and found only an hour later: the rest of the digest is not posted, a note
    under the parent says how far it got."""
    store, clock = ledger
    bot = replica(web_client, core, store, clock, pace_s=1.0)
    await bot.on_command(command())
    await fake.wait_until(lambda: len(fake.posts) >= 2)
    await asyncio.sleep(0.3)
    await bot.jobs.drain(0)
    out = len(fake.posts)
    clock.advance(timedelta(hours=1))
    assert await recovery(store, clock, core, "b", bot.poster).recover() == 1
    (note,) = fake.posts[out:]
    assert note["text"] == f"cut short after {out}"
    assert note["thread_ts"] == fake.posts[0]["_ts"]
