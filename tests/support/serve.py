"""Shared pieces of the daily-post and serve tests: a real digest of the sample day."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from bot.commands.runner import ReportCore
from bot.compose.questions import question_asker
from config.settings import DiscordSettings, Settings, SlackSettings, load_config
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestBuilder, DigestRequest
from digest.github.parse import comment_from_api, item_from_api
from digest.models import Digest, Window
from digest.schedule.ledger import StateLedger
from digest.schedule.subscription import Subscription, run_window
from digest.schedule.subscriptions import StateSubscriptions
from digest.writers.template import TemplateWriter
from tests.fakes.discord import TOKEN as DISCORD_TOKEN
from tests.fakes.slack import FakeSlack
from tests.support.clock import Clock
from tests.support.paths import SAMPLE as DATA

REPO = "vllm-project/vllm"
SCHEDULED = datetime(2026, 2, 1, 3, 21, tzinfo=UTC)  # 11:21 in Shanghai


def sample() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text("utf-8"))
    return data


async def sample_store() -> SQLiteStore:
    data = sample()
    store = SQLiteStore(":memory:")
    await store.upsert_items([item_from_api(r, REPO) for r in data["issues"]])
    await store.upsert_comments([comment_from_api(r, REPO) for r in data["comments"]])
    return store


def subscription(platform: str = "slack", channel: str = "C0000001", **kw: Any) -> Subscription:
    fields: dict[str, Any] = {
        "platform": platform,
        "channel": channel,
        "repo": REPO,
        "time": "11:21",
        "timezone": "Asia/Shanghai",
    }
    fields.update(kw)
    return Subscription(**fields)


async def sample_digest(window: Window | None = None, lang: str = "en") -> Digest:
    """The template writer's digest of the sample day (or of an empty ``window``)."""
    store = await sample_store()
    try:
        builder = DigestBuilder(
            store=store, sync=None, writers={"template": TemplateWriter()}, clock=lambda: SCHEDULED
        )
        sub = subscription()
        request = DigestRequest(
            REPO,
            window or run_window(sub, SCHEDULED),
            lang,
            "template",
            load_config().topics_for(REPO),
            display_name="vLLM",
        )
        return await builder.build(request)
    finally:
        await store.close()


Before = Callable[[web.Request, bool], Awaitable[web.StreamResponse | None]]


async def fake_slack_before(before: Before) -> tuple[FakeSlack, web.AppRunner]:
    """A fake Slack that awaits ``before(request, is_thread_reply)`` ahead of every Web API call,
    to hold it or to answer instead of the fake (say, after cutting the connection); stop it
    with ``runner.cleanup()``."""
    fake = FakeSlack()

    @web.middleware
    async def first(request: web.Request, handler: Any) -> web.StreamResponse:
        instead = await before(request, b'"thread_ts"' in await request.read())
        response: web.StreamResponse = instead or await handler(request)
        return response

    app = web.Application(middlewares=[first])
    for route in fake.app().router.routes():
        app.router.add_route(route.method, route.resource.canonical, route.handler)  # type: ignore[union-attr]
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    fake.port = runner.addresses[0][1]
    return fake, runner


def front_end_settings(
    *, slack: str | None = None, discord: bool = False, **slack_kw: Any
) -> Settings:
    """Settings with only the given front ends' tokens (fake endpoints filled in by tests)."""
    s = SlackSettings(**slack_kw)
    if slack == "socket":
        s = SlackSettings(bot_token="xoxb-serve", app_token="xapp-1-test", **slack_kw)
    elif slack == "http":
        s = SlackSettings(bot_token="xoxb-serve", signing_secret="shh", mode="http", **slack_kw)
    d = DiscordSettings(token=DISCORD_TOKEN) if discord else DiscordSettings()
    return Settings(slack=s, discord=d, http_port=0)


@dataclass
class ServeParts:
    """The parts of the composition root's runtime that ``serve`` uses, over the sample day;
    what a test runtime lacks is None: no mirror sync, no mirror to chart, publish or repair,
    no GitHub to pace by, no Redis."""

    core: ReportCore
    state: SQLiteState
    ledger: StateLedger
    subscriptions: StateSubscriptions
    builder: DigestBuilder
    clock: Clock  # the one the state and the core read; tests move it
    sync: None = None
    store: None = None
    github: None = None
    redis_reachable: None = None
    access: None = None


@asynccontextmanager
async def serve_parts(now: datetime) -> AsyncIterator[ServeParts]:
    """The parts over the sample day's mirror and fresh SQLite state, the clock at ``now``."""
    clock = Clock(now)
    store = await sample_store()
    state = SQLiteState(":memory:", clock=clock)
    builder = DigestBuilder(
        store=store, sync=None, writers={"template": TemplateWriter()}, clock=clock
    )
    config = load_config()
    core = ReportCore(
        config=config,
        get_digest=builder.build,
        clock=clock,
        asker=question_asker(config, store, clock=clock),
    )
    try:
        yield ServeParts(core, state, StateLedger(state), StateSubscriptions(state), builder, clock)
    finally:
        await state.close()
        await store.close()
