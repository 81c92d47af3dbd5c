"""Running the Slack app: Socket Mode (the default) or HTTP, with a graceful stop.

In HTTP mode ``/slack/events`` faces the internet, so it is bounded like every server of the
process (:mod:`bot.listen`), with its own body cap (``SLACK_MAX_BODY_BYTES``), and a request
that fails Slack's signature check costs one short log line a minute at most
(``slack.request_unverified``, with how many were refused), never its body; a body that does
not even parse is refused with 400 the same way, not with a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

from bot.connection import Connection
from bot.listen import HttpLimits, Listener, bounded_app, listen
from bot.slack.jobs import Jobs
from digest.errors import ConfigError

log = logging.getLogger(__name__)

DRAIN_S = 30.0
EVENTS_PATH = "/slack/events"
SLACK_LIMITS = HttpLimits(max_body=256 * 1024)  # a button's payload carries its whole message
UNVERIFIED_LOG_S = 60.0


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


class _Unverified:
    """Counts the requests that fail the signature check; logs one line a minute at most."""

    def __init__(self, every_s: float = UNVERIFIED_LOG_S) -> None:
        self._every_s = every_s
        self._last: float | None = None
        self._count = 0

    def refused(self, size: int) -> None:
        self._count += 1
        now = time.monotonic()
        if self._last is None or now - self._last >= self._every_s:
            log.warning("slack.request_unverified", extra={"refused": self._count, "bytes": size})
            self._last, self._count = now, 0


def events_app(
    app: AsyncApp, path: str = EVENTS_PATH, limits: HttpLimits = SLACK_LIMITS
) -> web.Application:
    """The aiohttp application of Slack's endpoint: ``POST path`` dispatched to ``app``."""
    unverified = _Unverified()

    async def events(request: web.Request) -> web.Response:
        try:
            bolt_request = await to_bolt_request(request)
        except ValueError:  # not the JSON or form body it says it is: nothing Slack sends
            unverified.refused(len(await request.read()))
            raise web.HTTPBadRequest() from None
        response = await app.async_dispatch(bolt_request)
        if response.status == 401:
            unverified.refused(len(bolt_request.raw_body))
        return await to_aiohttp_response(response)

    web_app = bounded_app(limits)
    web_app.router.add_post(path, events)
    return web_app


@dataclass(slots=True)
class HttpServer:
    """A running HTTP endpoint for Slack's requests."""

    listener: Listener
    app: AsyncApp
    jobs: Jobs  # the bot's work in flight

    @property
    def port(self) -> int:
        return self.listener.port

    async def stop(self, drain_s: float = DRAIN_S) -> None:
        """Stop accepting requests, then let posts in flight finish."""
        await self.listener.close()
        await _finish(self.jobs, drain_s)


async def start_http(
    app: AsyncApp,
    port: int,
    *,
    jobs: Jobs,
    signed: bool,
    host: str = "127.0.0.1",
    path: str = EVENTS_PATH,
    limits: HttpLimits = SLACK_LIMITS,
) -> HttpServer:
    """Start serving ``app``'s HTTP endpoint at ``path`` on ``host``; ``port`` 0 picks a free
    port.

    ``signed`` says whether ``app`` was built with a signing secret: without one no request
    could be verified, and the endpoint does not start.
    """
    if not signed:
        raise ConfigError("Slack HTTP mode needs SLACK_SIGNING_SECRET to verify requests")
    listener = await listen(events_app(app, path, limits), host, port, limits)
    log.info("slack.http_listening", extra={"host": host, "port": listener.port, "path": path})
    return HttpServer(listener, app, jobs)


async def run_http(
    app: AsyncApp,
    port: int,
    *,
    jobs: Jobs,
    signed: bool,
    host: str = "127.0.0.1",
    path: str = EVENTS_PATH,
    limits: HttpLimits = SLACK_LIMITS,
    stop: asyncio.Event | None = None,
    drain_s: float = DRAIN_S,
    connection: Connection | None = None,
) -> None:
    """Serve ``app`` over HTTP until ``stop`` is set (or the task is cancelled); ``connection``
    is up while the endpoint listens."""
    server = await start_http(
        app, port, jobs=jobs, signed=signed, host=host, path=path, limits=limits
    )
    link = connection or Connection()
    link.up()
    try:
        await _until(stop)
    finally:
        link.down()
        await server.stop(drain_s)
