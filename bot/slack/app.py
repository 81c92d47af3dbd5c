"""The bolt app: listeners of a few lines each, delegating to :class:`SlackBot`."""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Mapping
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.handlers import SlackBot
from bot.slack.home import SUBSCRIBE_ACTION, SUBSCRIBE_VIEW

COMMAND = "/vllm-report"


def build_slack_app(
    bot: SlackBot,
    web_client: AsyncWebClient,
    *,
    signing_secret: str | None,
    command: str = COMMAND,
) -> AsyncApp:
    """The Slack app answering ``command``, mentions and DMs through ``bot``.

    ``web_client`` carries the bot token and ``SLACK_API_URL`` (the one ``bot`` posts with);
    ``signing_secret`` is required for HTTP mode only: without one, no HTTP request verifies.
    """
    app = AsyncApp(
        client=web_client,
        # Without a secret no HTTP request can be verified: an unguessable one rejects them all.
        signing_secret=signing_secret or secrets.token_hex(32),
        logger=logging.getLogger("slack_bolt"),
        name="vllm-report",
    )
    # Bolt logs a refused request's whole body at INFO: its summary line is ours (run.py).
    logging.getLogger("slack_bolt.RequestVerification").setLevel(logging.WARNING)

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
