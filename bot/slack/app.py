"""The bolt app: listeners of a few lines each, delegating to :class:`SlackBot`."""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any
from weakref import WeakKeyDictionary, WeakSet

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.buttons import DigestButtons
from bot.commands.defaults import DefaultsStore
from bot.commands.dispatch import Core
from bot.commands.subscriptions import Directory, Subscriptions
from bot.commands.tracking import ThreadJournal
from bot.slack.dedup import Claims
from bot.slack.handlers import SlackBot
from bot.slack.home import SUBSCRIBE_ACTION, SUBSCRIBE_VIEW
from bot.slack.post import ChartFn, SlackPoster, Sleep

log = logging.getLogger(__name__)

COMMAND = "/vllm-report"
_BOTS: WeakKeyDictionary[AsyncApp, SlackBot] = WeakKeyDictionary()
_SIGNED: WeakSet[AsyncApp] = WeakSet()


def build_slack_app(
    core: Core,
    web_client: AsyncWebClient,
    *,
    signing_secret: str | None,
    state: Claims | None = None,
    clock: Callable[[], datetime],
    subscriptions: Subscriptions | None = None,
    defaults: DefaultsStore | None = None,
    buttons: DigestButtons | None = None,
    directory: Directory | None = None,
    chart: ChartFn | None = None,
    threads: ThreadJournal | None = None,
    command: str = COMMAND,
    pace_s: float = 1.0,
    sleep: Sleep = asyncio.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> AsyncApp:
    """The Slack app answering ``command``, mentions and DMs through ``core``.

    ``web_client`` carries the bot token and ``SLACK_API_URL``; ``state`` (anything with
    ``claim``) de-duplicates retried deliveries across replicas, in-process when ``None``.
    ``signing_secret`` is required for HTTP mode only; ``defaults`` keeps the channels' and
    the workspace's ``settings``; ``threads`` keeps each digest's thread as it goes out, so
    another replica completes it when this one dies.
    """
    app = AsyncApp(
        client=web_client,
        # Without a secret no HTTP request can be verified: an unguessable one rejects them all.
        signing_secret=signing_secret or secrets.token_hex(32),
        logger=logging.getLogger("slack_bolt"),
        name="vllm-report",
    )
    poster = SlackPoster(web_client, pace_s=pace_s, sleep=sleep, monotonic=monotonic)
    bot = SlackBot(
        core,
        poster,
        clock=clock,
        claims=state,
        subscriptions=subscriptions,
        defaults=defaults,
        buttons=buttons,
        directory=directory,
        chart=chart,
        threads=threads,
    )
    _BOTS[app] = bot
    if signing_secret:
        _SIGNED.add(app)

    @app.command(command)
    async def on_command(ack: Any, body: Mapping[str, Any]) -> None:
        await ack(**await bot.on_command(body))

    @app.action(re.compile(r"^vr_(prev|next|lang)$"))
    async def on_button(ack: Any, body: Mapping[str, Any]) -> None:
        await ack()  # within 3 s: the digest is built and posted in the background
        await bot.on_button(body)

    @app.action("vr_web")
    async def on_web_button(ack: Any) -> None:
        await ack()  # a link button: Slack opens the page itself

    @app.event("app_home_opened")
    async def on_home(event: Mapping[str, Any]) -> None:
        await bot.on_home_opened(event)

    @app.action(SUBSCRIBE_ACTION)
    async def on_home_subscribe(ack: Any, body: Mapping[str, Any]) -> None:
        await ack()
        await bot.on_home_subscribe(body)

    @app.view(SUBSCRIBE_VIEW)
    async def on_subscribe_submitted(ack: Any, body: Mapping[str, Any]) -> None:
        answer = await bot.on_subscribe_submitted(body)
        await ack(**answer) if answer else await ack()

    @app.event("app_mention")
    async def on_mention(body: Mapping[str, Any], event: Mapping[str, Any]) -> None:
        await bot.on_message(body, event)

    @app.event("message")
    async def on_direct_message(body: Mapping[str, Any], event: Mapping[str, Any]) -> None:
        if event.get("channel_type") == "im":
            await bot.on_message(body, event)

    return app


def slack_bot(app: AsyncApp) -> SlackBot:
    """The :class:`SlackBot` behind an app made by :func:`build_slack_app`."""
    return _BOTS[app]


def has_signing_secret(app: AsyncApp) -> bool:
    """Whether ``app`` was built with a signing secret (needed to serve HTTP)."""
    return app in _SIGNED
