"""The Slack app wired as the composition root wires it: a bot on one paced poster, its app,
and the endpoint or socket that serves them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.dispatch import Core
from bot.slack import HttpServer, SlackBot, SlackPoster, build_slack_app, start_http
from bot.slack.dedup import Claims
from bot.slack.jobs import Jobs


@dataclass(frozen=True, slots=True)
class SlackApp:
    """A bolt app with the bot behind it, and whether it can verify HTTP requests."""

    app: AsyncApp
    bot: SlackBot
    signed: bool

    @property
    def jobs(self) -> Jobs:
        """The bot's work after acknowledging (``await app.jobs.idle()`` waits for it)."""
        return self.bot.jobs


def slack_app(
    core: Core,
    web_client: AsyncWebClient,
    *,
    signing_secret: str | None,
    clock: Callable[[], datetime],
    state: Claims | None = None,
    pace_s: float = 1.0,
    **options: Any,
) -> SlackApp:
    """The app answering through ``core``; ``options`` go to :class:`SlackBot`."""
    poster = SlackPoster(web_client, pace_s=pace_s)
    bot = SlackBot(core, poster, clock=clock, claims=state, **options)
    app = build_slack_app(bot, web_client, signing_secret=signing_secret)
    return SlackApp(app, bot, signed=bool(signing_secret))


async def serve_http(made: SlackApp, port: int = 0, host: str = "127.0.0.1") -> HttpServer:
    """``made``'s HTTP endpoint, started (stop it with ``await server.stop()``)."""
    return await start_http(made.app, port, jobs=made.jobs, signed=made.signed, host=host)
