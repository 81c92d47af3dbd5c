"""The chat front ends: which ones the tokens allow, and the daily poster over them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.subscriptions import ScheduledRequests
from bot.compose.front_ends import DailyPoster, PlatformUnavailable, plan
from bot.slack.post import SlackDaily, SlackPoster
from config.settings import Settings, SlackSettings, load_config
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.models import Digest
from digest.schedule.ledger import StateLedger
from digest.schedule.scheduler import Scheduler
from digest.schedule.subscriptions import StateSubscriptions
from tests.support.clock import Clock
from tests.support.serve import (
    SCHEDULED,
    fake_slack_before,
    front_end_settings,
    sample_digest,
    subscription,
)


async def _nothing(index: int, message_id: str) -> None:
    return None


async def test_unconfigured_platform_is_an_error() -> None:
    """A subscription of a platform this process does not run is not silently dropped."""
    with pytest.raises(PlatformUnavailable):
        await DailyPoster({})(
            subscription("discord", "1"),
            await sample_digest(),
            late=False,
            quiet=False,
            done=(),
            part_sent=_nothing,
        )


async def test_thread_cut_off_after_the_parent_is_completed_under_it() -> None:
    """Slack drops the connection on every reply of the first attempt: a later pass on another
    replica completes the thread under the same parent, and no parent or reply is doubled."""
    dropping = [True]

    async def drop_replies(request: web.Request, is_reply: bool) -> web.StreamResponse | None:
        if not (is_reply and dropping[0]) or request.transport is None:
            return None
        request.transport.close()
        return web.Response(status=500)  # never arrives

    fake, runner = await fake_slack_before(drop_replies)
    clock = Clock(SCHEDULED)
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
        assert await first.tick() == 0
        assert first.counters["posts_incomplete"] == 1 and len(fake.posts) == 1
        dropping[0] = False
        clock.advance(timedelta(minutes=30))
        second = replica()
        assert await second.tick() == 1 and second.counters["posts_resumed"] == 1
        assert await first.tick() == 0 and await replica().tick() == 0
        parent, *replies = fake.posts
        assert "thread_ts" not in parent and len(replies) > 2
        assert all(r["thread_ts"] == parent["_ts"] for r in replies)
        texts = [r["text"] for r in replies]
        assert len(set(texts)) == len(texts)
    finally:
        await state.close()
        await runner.cleanup()


@pytest.mark.parametrize(
    ("made", "front_ends"),
    [
        (front_end_settings(slack="socket"), ("slack-socket",)),
        (front_end_settings(slack="http"), ("slack-http",)),
        (front_end_settings(discord=True), ("discord",)),
        (front_end_settings(slack="socket", discord=True), ("slack-socket", "discord")),
        (Settings(slack=SlackSettings(bot_token="xoxb-1", signing_secret="s")), ("slack-http",)),
        (front_end_settings(), ()),
    ],
)
def test_front_ends_follow_the_tokens(made: Settings, front_ends: tuple[str, ...]) -> None:
    """Slack runs with its Socket Mode or HTTP tokens, Discord with its token."""
    assert plan(made).front_ends == front_ends


def test_partial_slack_configuration_is_explained() -> None:
    """A bot token without an app token or signing secret names what is missing."""
    found = plan(Settings(slack=SlackSettings(bot_token="xoxb-1")))
    assert found.front_ends == ()
    assert "SLACK_APP_TOKEN" in found.problems[0]
