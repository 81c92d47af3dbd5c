"""The chat front ends: which ones the tokens allow, and the daily poster over them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.runner import ReportCore
from bot.commands.subscriptions import ChannelSubscriptions, ScheduledRequests
from bot.compose.front_ends import (
    ChatParts,
    DailyPoster,
    PlatformUnavailable,
    discord_front_end,
    plan,
    slack_front_end,
)
from bot.slack import start_http
from bot.slack.post import SlackDaily, SlackPoster
from config.settings import Settings, SlackSettings, load_config
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestRequest
from digest.errors import ConfigError
from digest.models import Digest
from digest.schedule.command_threads import CommandThreads
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


async def never(request: DigestRequest) -> Digest:
    raise AssertionError("no digest is built here")


def chat_parts(state: SQLiteState) -> ChatParts:
    """What the front ends are built with, over ``state`` and a core that builds nothing."""
    config = load_config()
    subscriptions = StateSubscriptions(state)
    return ChatParts(
        core=ReportCore(config=config, get_digest=never, clock=lambda: SCHEDULED),
        state=state,
        channels=ChannelSubscriptions(subscriptions, lambda: SCHEDULED),
        directory=subscriptions.all_subscriptions,
        clock=lambda: SCHEDULED,
        threads=CommandThreads(StateLedger(state), clock=lambda: SCHEDULED),
    )


@pytest.mark.parametrize(("mode", "signed"), [("http", True), ("socket", False)])
async def test_slack_serves_http_only_when_it_can_verify_requests(mode: str, signed: bool) -> None:
    """With a signing secret the Slack front end is signed and its HTTP endpoint starts;
    without one (Socket Mode) it is not, and an HTTP endpoint refuses to start."""
    made = front_end_settings(slack=mode)
    state = SQLiteState(":memory:", clock=lambda: SCHEDULED)
    try:
        slack = slack_front_end(made, plan(made), chat_parts(state), pace_s=0, ping_s=1)
        assert slack is not None and slack.platform == "slack"
        front = slack.front_end
        assert front.signed is signed and (front.app_token is None) is signed
        if not signed:
            with pytest.raises(ConfigError, match="SLACK_SIGNING_SECRET"):
                await start_http(
                    front.app, 0, jobs=front.jobs, signed=front.signed, host="127.0.0.1"
                )
            return
        server = await start_http(
            front.app, 0, jobs=front.jobs, signed=front.signed, host="127.0.0.1"
        )
        await server.stop(drain_s=1)
    finally:
        await state.close()


async def test_a_platform_without_its_tokens_has_no_front_end() -> None:
    """Neither front end is made for settings without its tokens."""
    made = front_end_settings()
    state = SQLiteState(":memory:", clock=lambda: SCHEDULED)
    try:
        chat = chat_parts(state)
        assert slack_front_end(made, plan(made), chat, pace_s=0, ping_s=1) is None
        assert discord_front_end(made, plan(made), chat) is None
    finally:
        await state.close()
