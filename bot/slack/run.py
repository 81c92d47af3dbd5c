"""Running the Slack app: Socket Mode (the default) or HTTP, with a graceful stop."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

from bot.connection import Connection
from bot.listen import listen
from bot.slack.jobs import Jobs
from digest.errors import ConfigError

log = logging.getLogger(__name__)

DRAIN_S = 30.0
EVENTS_PATH = "/slack/events"


async def _until(stop: asyncio.Event | None) -> None:
    if stop is None:
        await asyncio.Event().wait()  # until cancelled
    else:
        await stop.wait()


async def _finish(jobs: Jobs, drain_s: float) -> None:
    await jobs.drain(drain_s)
    log.info("slack.stopped")


async def run_socket_mode(
    app: AsyncApp,
    app_token: str,
    *,
    jobs: Jobs,
    stop: asyncio.Event | None = None,
    drain_s: float = DRAIN_S,
    ping_interval: float = 10.0,
    connection: Connection | None = None,
    watch_s: float = 1.0,
) -> None:
    """Serve ``app`` over Socket Mode until ``stop`` is set (or the task is cancelled).

    Every ``watch_s`` seconds whether the session is open goes to ``connection`` (slack_sdk
    reconnects by itself). On stop the WebSocket closes first, so nothing new arrives, then posts
    in flight (the bot's ``jobs``) get up to ``drain_s`` seconds to finish.
    """
    handler = AsyncSocketModeHandler(
        app, app_token, web_client=app.client, ping_interval=ping_interval
    )
    link = connection or Connection()
    try:
        await handler.connect_async()  # type: ignore[no-untyped-call]
        log.info("slack.socket_mode_connected")
        link.up()
        while not await _until_or(stop, watch_s):
            if await handler.client.is_connected():
                if not link.is_up:
                    log.info("slack.socket_mode_reconnected")
                link.up()
            else:
                if link.is_up:
                    log.warning("slack.socket_mode_disconnected")
                link.down()
    finally:
        link.down()
        await handler.close_async()  # type: ignore[no-untyped-call]
        await _finish(jobs, drain_s)


async def _until_or(stop: asyncio.Event | None, seconds: float) -> bool:
    """Wait for ``stop`` at most ``seconds``; whether it is set."""
    if stop is None:
        await asyncio.sleep(seconds)
        return False
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        return False
    return True


@dataclass(slots=True)
class HttpServer:
    """A running HTTP endpoint for Slack's requests."""

    runner: web.AppRunner
    port: int
    app: AsyncApp
    jobs: Jobs  # the bot's work in flight

    async def stop(self, drain_s: float = DRAIN_S) -> None:
        """Stop accepting requests, then let posts in flight finish."""
        await self.runner.cleanup()
        await _finish(self.jobs, drain_s)


async def start_http(
    app: AsyncApp,
    port: int,
    *,
    jobs: Jobs,
    signed: bool,
    host: str = "0.0.0.0",
    path: str = EVENTS_PATH,
) -> HttpServer:
    """Start serving ``app``'s HTTP endpoint at ``path``; ``port`` 0 picks a free port.

    ``signed`` says whether ``app`` was built with a signing secret: without one no request
    could be verified, and the endpoint does not start.
    """
    if not signed:
        raise ConfigError("Slack HTTP mode needs SLACK_SIGNING_SECRET to verify requests")
    runner, bound = await listen(app.web_app(path=path, port=port), host, port)
    log.info("slack.http_listening", extra={"host": host, "port": bound, "path": path})
    return HttpServer(runner, bound, app, jobs)


async def run_http(
    app: AsyncApp,
    port: int,
    *,
    jobs: Jobs,
    signed: bool,
    host: str = "0.0.0.0",
    path: str = EVENTS_PATH,
    stop: asyncio.Event | None = None,
    drain_s: float = DRAIN_S,
    connection: Connection | None = None,
) -> None:
    """Serve ``app`` over HTTP until ``stop`` is set (or the task is cancelled); ``connection``
    is up while the endpoint listens."""
    server = await start_http(app, port, jobs=jobs, signed=signed, host=host, path=path)
    link = connection or Connection()
    link.up()
    try:
        await _until(stop)
    finally:
        link.down()
        await server.stop(drain_s)
