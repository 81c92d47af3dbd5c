"""Subscriptions made in chat reach the scheduler; the configuration file seeds them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands import messages
from bot.commands.dispatch import SubscriptionCommand, SubscriptionCommands, granted
from bot.commands.grammar import (
    ListSubscriptionsCommand,
    Options,
    SubscribeCommand,
    UnsubscribeCommand,
    parse,
)
from bot.commands.subscriptions import (
    ChannelSubscriptions,
    ScheduledRequests,
    new_subscription,
    seed_subscriptions,
)
from bot.compose.front_ends import DailyPoster
from bot.discord.post import channel_id
from bot.slack import SlackPoster
from bot.slack.managers import is_manager
from bot.slack.post import SlackDaily
from config.settings import AppConfig, load_config
from digest.backends.sqlite.state import SQLiteState
from digest.models import Window
from digest.schedule.ledger import StateLedger
from digest.schedule.scheduler import Scheduler
from digest.schedule.subscription import Subscription
from digest.schedule.subscriptions import StateSubscriptions
from tests.fakes.slack import start_fake_slack, stop_fake_slack
from tests.support.clock import Clock
from tests.support.scope_core import scope_config
from tests.support.scopes import scope_rig
from tests.support.serve import sample_digest

NOW = datetime(2026, 2, 1, 2, 0, tzinfo=UTC)


@pytest.fixture
async def state() -> AsyncIterator[SQLiteState]:
    opened = SQLiteState(":memory:", clock=lambda: NOW)
    yield opened
    await opened.close()


def entry(channel: str = "C1", **kw: Any) -> Subscription:
    """A Slack channel's subscription as a command makes it, the defaults filled in."""
    return new_subscription(load_config(), "slack", channel, **kw)


async def test_added_subscription_gets_the_repository_defaults(state: SQLiteState) -> None:
    """A bare subscribe stores the default repository's daily cut-off and timezone."""
    store = StateSubscriptions(state)
    await ChannelSubscriptions(store, lambda: NOW).add(entry())
    (sub,) = await store.all_subscriptions()
    assert (sub.repo, sub.time, sub.timezone, sub.lang) == (
        "vllm-project/vllm",
        "11:21",
        "Asia/Shanghai",
        "en",
    )
    assert sub.since == NOW and sub.writer is None and sub.topics is None


async def test_list_and_remove_by_channel_and_repository(state: SQLiteState) -> None:
    """A channel lists only its own subscriptions and removes one repository or all."""
    subs = ChannelSubscriptions(StateSubscriptions(state), lambda: NOW)
    await subs.add(entry("C1"))
    await subs.add(entry("C1", repo="sgl-project/sglang", time="08:00", timezone="UTC", lang="zh"))
    await subs.add(entry("C2"))
    listed = await subs.list("slack", "C1")
    assert [(s.repo, s.time, s.lang) for s in listed] == [
        ("sgl-project/sglang", "08:00", "zh"),
        ("vllm-project/vllm", "11:21", "en"),
    ]
    assert await subs.remove("slack", "C1", "SGL-project/sglang") == ["sgl-project/sglang"]
    assert await subs.remove("slack", "C1") == ["vllm-project/vllm"]
    assert await subs.list("slack", "C1") == []
    assert len(await subs.list("slack", "C2")) == 1


async def test_resubscribing_replaces_the_subscription(state: SQLiteState) -> None:
    """Subscribing twice to one repository in one channel keeps one subscription, the last."""
    subs = ChannelSubscriptions(StateSubscriptions(state), lambda: NOW)
    await subs.add(entry(time="09:00"))
    await subs.add(entry(time="10:00"))
    assert [s.time for s in await subs.list("slack", "C1")] == ["10:00"]


async def test_configuration_file_seeds_missing_subscriptions_only(state: SQLiteState) -> None:
    """Seeding stores the file's subscriptions once and never overrides a change made in chat."""
    config = AppConfig.model_validate(
        {
            **load_config().model_dump(),
            "subscriptions": [
                {"platform": "slack", "channel": "C1", "time": "09:00"},
                {"platform": "discord", "channel": "42", "lang": "zh"},
            ],
        }
    )
    store = StateSubscriptions(state)
    assert await seed_subscriptions(store, config, lambda: NOW) == 2
    await ChannelSubscriptions(store, lambda: NOW).add(entry(time="07:30"))
    assert await seed_subscriptions(store, config, lambda: NOW) == 0
    by_channel = {s.channel: s for s in await store.all_subscriptions()}
    assert by_channel["C1"].time == "07:30" and by_channel["42"].lang == "zh"


async def test_unsubscribing_a_seeded_subscription_survives_a_restart(state: SQLiteState) -> None:
    """A channel that unsubscribes in chat is not subscribed again by the next start's seeding."""
    config = AppConfig.model_validate(
        {
            **load_config().model_dump(),
            "subscriptions": [{"platform": "slack", "channel": "C1", "time": "09:00"}],
        }
    )
    store = StateSubscriptions(state)
    assert await seed_subscriptions(store, config, lambda: NOW) == 1
    assert await ChannelSubscriptions(store, lambda: NOW).remove("slack", "C1") == [
        "vllm-project/vllm"
    ]
    assert await seed_subscriptions(store, config, lambda: NOW) == 0
    assert await store.all_subscriptions() == []


async def test_unusable_seed_entry_is_skipped_and_the_others_are_stored(
    state: SQLiteState, caplog: pytest.LogCaptureFixture
) -> None:
    """An unknown topic or a Discord channel name is logged and skipped; the rest is seeded."""
    config = AppConfig.model_validate(
        {
            **load_config().model_dump(),
            "subscriptions": [
                {"platform": "slack", "channel": "C1", "topics": ["no-such-topic"]},
                {"platform": "discord", "channel": "#general"},
                {"platform": "discord", "channel": "42"},
            ],
        }
    )
    store = StateSubscriptions(state)
    checks = {"discord": channel_id}  # the Discord front end's
    assert await seed_subscriptions(store, config, lambda: NOW, checks=checks) == 1
    assert [s.channel for s in await store.all_subscriptions()] == ["42"]
    skipped = [r for r in caplog.records if r.getMessage() == "schedule.seed_skipped"]
    assert ["no-such-topic" in r.error for r in skipped] == [True, False]  # type: ignore[attr-defined]
    assert "numeric id" in skipped[1].error  # type: ignore[attr-defined]


def test_scheduled_request_follows_configuration_and_available_writers() -> None:
    """Repository topics by default; an unavailable writer falls back to the default one."""
    config = load_config()
    window = Window(NOW - timedelta(days=1), NOW, "Asia/Shanghai")
    requests = ScheduledRequests(config, default_writer="template", writers=("template",))
    sub = Subscription(
        "slack", "C1", "vllm-project/vllm", "11:21", "Asia/Shanghai", writer="llm", lang="zh"
    )
    request = requests(sub, window)
    assert request.writer == "template" and request.lang == "zh"
    assert [t.name for t in request.topics] == ["rocm"]
    assert request.display_name == "vLLM" and request.window == window


async def test_subscribe_in_slack_then_the_scheduler_posts_there(state: SQLiteState) -> None:
    """A `subscribe` in a Slack DM leads to the daily post in that channel at its time."""
    fake = await start_fake_slack()
    try:
        client = AsyncWebClient(token="xoxb-test", base_url=fake.api_url)
        clock = Clock(NOW)
        store = StateSubscriptions(state)
        commands = SubscriptionCommands(
            ChannelSubscriptions(store, clock),
            load_config(),
            platform="slack",
            clock=clock,
        )

        async def handle(command: SubscriptionCommand, *, channel: str, user: str) -> str:
            reply = await commands.reply(
                command, channel=channel, can_manage=lambda: is_manager(client, channel, user)
            )
            return reply.text

        command = SubscribeCommand(time="11:21", timezone="Asia/Shanghai")
        reply = await handle(command, channel="D0000001", user="U1")
        assert reply == (
            "Subscribed: a vllm-project/vllm digest in en, daily at 11:21 (Asia/Shanghai), in "
            "this channel. Next post: 2026-02-01 11:21 (UTC+8)."
        )
        listed = await handle(ListSubscriptionsCommand(), channel="D0000001", user="U2")
        assert "vllm-project/vllm: daily at 11:21 (Asia/Shanghai)" in listed

        async def build(request: object) -> object:
            return await sample_digest()

        scheduler = Scheduler(
            subscriptions=store,
            ledger=StateLedger(state),
            request=ScheduledRequests(load_config(), default_writer="template"),
            build=build,  # type: ignore[arg-type]
            post=DailyPoster({"slack": SlackDaily(SlackPoster(client, pace_s=0.0))}),
            clock=clock,
        )
        assert await scheduler.tick() == 0
        clock.now = datetime(2026, 2, 1, 3, 21, tzinfo=UTC)
        assert await scheduler.tick() == 1
        assert fake.posts[0]["channel"] == "D0000001" and len(fake.posts) > 1
        gone = await handle(UnsubscribeCommand(Options()), channel="D0000001", user="U1")
        assert gone == messages.unsubscribed("vllm-project/vllm")
        clock.now += timedelta(days=1)
        assert await scheduler.tick() == 0
    finally:
        await stop_fake_slack(fake)


async def test_a_scope_subscription_posts_its_thread_once_and_its_quiet_days_as_chosen() -> None:
    """`subscribe scope:serving` (and `quiet:skip` in another channel) made in chat: two
    replicas on one SQLite state post the scope's report once in each channel, built against
    the fake GitHub over both repositories; on the quiet day after, the default channel gets
    the one-line note and the skipping one nothing."""
    fake = await start_fake_slack()
    try:
        async with scope_rig() as rig:
            clock = rig.clock
            clock.now = datetime(2026, 3, 11, 0, 0, tzinfo=UTC)  # before the day's post
            state = SQLiteState(":memory:", clock=clock)
            config = scope_config()
            store = StateSubscriptions(state)
            commands = SubscriptionCommands(
                ChannelSubscriptions(store, clock), config, platform="slack", clock=clock
            )
            for channel, text in (
                ("C1", "subscribe scope:serving"),
                ("C2", "subscribe scope:serving quiet:skip"),
            ):
                command = parse(text)
                assert isinstance(command, SubscribeCommand)
                reply = await commands.reply(command, channel=channel, can_manage=granted(True))
                assert reply.text.startswith(
                    "Subscribed: a scope serving digest in en, daily at 11:21"
                )
            [skipping] = await store.channel_subscriptions("slack", "C2")
            assert (skipping.scope, skipping.quiet_days) == ("serving", "skip")
            client = AsyncWebClient(token="xoxb-test", base_url=fake.api_url)
            requests = ScheduledRequests(config, default_writer="template")
            replicas = [
                Scheduler(
                    subscriptions=store,
                    ledger=StateLedger(state),
                    request=requests,
                    build=rig.service.get_digest,
                    post=DailyPoster({"slack": SlackDaily(SlackPoster(client, pace_s=0.0))}),
                    clock=clock,
                )
                for _ in range(2)
            ]
            clock.set(datetime(2026, 3, 11, 3, 21, tzinfo=UTC))
            assert [await r.tick() for r in replicas] == [2, 0]
            parents = [p for p in fake.posts if "thread_ts" not in p]
            assert sorted(p["channel"] for p in parents) == ["C1", "C2"]
            assert all(
                p["blocks"][0]["text"]["text"] == "Serving Development Report - 2026-03-10"
                for p in parents
            )
            text = json.dumps(fake.posts)
            assert "https://github.com/sgl-project/sglang/issues/1" in text
            assert "https://github.com/vllm-project/vllm/issues/1" in text
            before = len(fake.posts)
            clock.set(datetime(2026, 3, 12, 3, 21, tzinfo=UTC))
            assert [await r.tick() for r in replicas[::-1]] == [1, 0]
            [quiet] = fake.posts[before:]
            assert quiet["channel"] == "C1"
            assert quiet["text"].startswith(
                "Quiet day in Serving: no new or closed issues or pull requests in "
                "vllm-project/vllm and sgl-project/sglang in 2026-03-11"
            )
            assert replicas[1].counters["quiet_skipped"] == 1
            gone = await commands.reply(
                UnsubscribeCommand(parse("unsubscribe scope:serving").options),
                channel="C2",
                can_manage=granted(True),
            )
            assert gone.text == messages.unsubscribed("scope serving")
            assert [s.channel for s in await store.all_subscriptions()] == ["C1"]
            await state.close()
    finally:
        await stop_fake_slack(fake)
