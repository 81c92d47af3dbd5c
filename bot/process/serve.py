"""The ``serve`` process: chat front ends, daily scheduler and mirror sync, run together.

:class:`BotProcess` runs the :class:`Services` the composition root built
(:func:`bot.compose.services.serve`): every front end with its tokens (Slack in Socket Mode or
HTTP mode, Discord over its gateway); a token that Slack or Discord refuses at start-up ends the
process with exit code 1. ``/healthz`` and ``/metrics``
listen on ``VLLM_REPORT_HTTP_HOST:VLLM_REPORT_HTTP_PORT`` (127.0.0.1 unless told), within the
limits of :mod:`bot.listen`. SIGTERM (or SIGINT) stops new work at once; posts in flight
get ``drain_s`` seconds to finish, and a daily post still in flight by then is released with
the parts of its thread that are out recorded, so the next run (here or on another replica)
completes it.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.subscriptions import ChannelCheck, SeedableStore, seed_subscriptions
from bot.connection import Connection
from bot.listen import HttpLimits
from bot.process.health import HealthServer, health_app, start_health
from bot.process.metrics import Metrics
from bot.process.refresh import MirrorSync
from bot.slack import run_http, run_socket_mode
from bot.slack.jobs import Jobs
from bot.slack.post import slack_error
from bot.slack.run import SLACK_LIMITS
from config.settings import AppConfig
from digest.errors import DigestError
from digest.schedule.command_threads import ThreadRecovery
from digest.schedule.scheduler import Scheduler

if TYPE_CHECKING:
    from bot.discord.app import ReportClient
    from bot.site.publish import SitePublisher

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
DRAIN_S = 25.0


@dataclass(slots=True)
class SlackFrontEnd:
    """The Slack app with its Web API client and its bot's work in flight, and how it is
    served."""

    app: AsyncApp
    web_client: AsyncWebClient
    jobs: Jobs  # what the bot does after acknowledging; drained on stop
    signed: bool  # built with a signing secret: HTTP requests can be verified
    app_token: str | None  # Socket Mode with it, HTTP mode (on ``host:port``) without
    port: int
    host: str = "127.0.0.1"
    limits: HttpLimits = SLACK_LIMITS
    ping_s: float = 10.0  # Socket Mode's ping interval (and reconnect pace)
    link: Connection = field(default_factory=Connection)  # the session, or the endpoint, is up


@dataclass(slots=True)
class Services:
    """Everything ``serve`` runs, built on a runtime; ``serve`` only starts and stops them."""

    front_ends: tuple[str, ...]  # "slack-socket" | "slack-http", "discord"
    config: AppConfig
    clock: Callable[[], datetime]
    subscriptions: SeedableStore
    channel_checks: Mapping[str, ChannelCheck]  # for the configuration file's subscriptions
    scheduler: Scheduler
    threads: ThreadRecovery  # completes the command threads a replica left short
    metrics: Metrics
    http_port: int
    http_host: str = "127.0.0.1"
    http_limits: HttpLimits = field(default_factory=HttpLimits)
    slack: SlackFrontEnd | None = None
    discord: ReportClient | None = None
    discord_token: str | None = None
    refresh: MirrorSync | None = None
    site: SitePublisher | None = None  # rebuilds the report website after each daily post
    site_root: Path | None = None  # the website ``serve`` serves at /reports/ (None: it does not)
    redis_reachable: Callable[[], Awaitable[bool]] | None = None  # None: no Redis
    health_grace_s: float = 60.0

    @property
    def links(self) -> dict[str, Connection]:
        """Each front end's link to its platform."""
        found: dict[str, Connection] = {}
        if self.slack is not None:
            found["slack"] = self.slack.link
        if self.discord is not None:
            found["discord"] = self.discord.gateway
        return found


class TokenRejected(RuntimeError):
    """A chat platform refused one of our tokens; restarting will not help."""


async def check_slack_tokens(client: AsyncWebClient, app_token: str | None) -> None:
    """Raise ``TokenRejected`` when Slack refuses the bot or app token.

    Socket Mode retries a refused app token forever, so both are tried once before it starts.
    Network failures are left to the front end's own retries.
    """
    checks: list[tuple[str, Callable[[], Awaitable[Any]]]] = [("SLACK_BOT_TOKEN", client.auth_test)]
    if app_token is not None:
        checks.append(
            ("SLACK_APP_TOKEN", lambda: client.apps_connections_open(app_token=app_token))
        )
    for name, call in checks:
        try:
            await call()
        except SlackApiError as exc:
            code = slack_error(exc)
            if code == "ratelimited":
                continue
            log.error("serve.token_rejected", extra={"token": name, "error": code})
            raise TokenRejected(f"Slack rejected {name} ({code})") from None
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("serve.token_unchecked", extra={"token": name, "error": repr(exc)})
            return


class _Components:
    """Named background tasks, watched for an early exit."""

    def __init__(self) -> None:
        self.tasks: dict[str, asyncio.Task[Any]] = {}

    def start(self, name: str, work: Awaitable[Any]) -> None:
        self.tasks[name] = asyncio.ensure_future(work)

    def status(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, task in self.tasks.items():
            if not task.done():
                out[name] = "running"
            elif task.cancelled() or task.exception() is None:
                out[name] = "stopped"
            else:
                out[name] = "failed"
        return out


class BotProcess:
    """Runs the services the composition root built, watches them and stops them."""

    def __init__(
        self,
        services: Services,
        *,
        stop: asyncio.Event,
        drain_s: float = DRAIN_S,
    ) -> None:
        self.services = services
        self.scheduler = services.scheduler
        self.sync = services.refresh
        self.metrics = services.metrics
        self.discord_client = services.discord
        self.stop = stop
        self.drain_s = drain_s
        self.components = _Components()
        self.health: HealthServer | None = None
        self.started = asyncio.Event()

    async def run(self) -> int:
        """Run until ``stop`` is set (0) or a component fails (1)."""
        services = self.services
        try:
            await seed_subscriptions(
                services.subscriptions,
                services.config,
                services.clock,
                checks=services.channel_checks,
            )
        except DigestError as exc:
            log.warning("serve.seed_failed", extra={"error": str(exc)})
        if services.slack is not None:
            self.components.start("slack", self._run_slack(services.slack))
        if services.discord is not None and services.discord_token is not None:
            self.components.start("discord", services.discord.start(services.discord_token))
        self.components.start("scheduler", self.scheduler.run_forever(self.stop))
        self.components.start("threads", services.threads.run_forever(self.stop))
        if self.sync is not None:
            self.components.start("sync", self.sync.run_forever(self.stop))
        if services.site is not None:
            self.components.start("site", services.site.run(self.stop))
        app = health_app(self.health_report, self.metrics, services.http_limits)
        if services.site_root is not None:
            from bot.site.publish import add_site_routes

            add_site_routes(app, services.site_root)
        self.health = await start_health(
            app, services.http_host, services.http_port, services.http_limits
        )
        log.info(
            "serve.started",
            extra={"front_ends": list(services.front_ends), "http_port": self.health.port},
        )
        self.started.set()
        failed = await self._watch()
        await self._shutdown()
        return EXIT_FAILED if failed else EXIT_OK

    async def _run_slack(self, slack: SlackFrontEnd) -> None:
        """Check the tokens, then serve Slack in Socket Mode (with an app token) or HTTP mode."""
        await check_slack_tokens(slack.web_client, slack.app_token)
        if slack.app_token is not None:
            await run_socket_mode(
                slack.app,
                slack.app_token,
                jobs=slack.jobs,
                stop=self.stop,
                drain_s=self.drain_s,
                ping_interval=slack.ping_s,
                connection=slack.link,
                watch_s=min(1.0, slack.ping_s),
            )
        else:
            await run_http(
                slack.app,
                slack.port,
                jobs=slack.jobs,
                signed=slack.signed,
                host=slack.host,
                limits=slack.limits,
                stop=self.stop,
                drain_s=self.drain_s,
                connection=slack.link,
            )

    @property
    def links(self) -> dict[str, Connection]:
        return self.services.links

    async def health_report(self) -> tuple[bool, dict[str, Any]]:
        """``/healthz``: unhealthy when a component ended or a front end has been disconnected
        for longer than ``VLLM_REPORT_HEALTH_GRACE_SECONDS``; Redis, the mirror sync and the last
        daily post are reported (a Redis outage degrades, it does not stop the bot)."""
        services = self.services
        components = self.components.status()
        healthy = all(state == "running" for state in components.values())
        front_ends: dict[str, Any] = {}
        for name, link in services.links.items():
            down = link.down_for()
            front_ends[name] = {"connected": link.is_up, "down_for_s": round(down, 1)}
            healthy = healthy and (link.is_up or down <= services.health_grace_s)
        now = services.clock()
        reachable, sync, last = services.redis_reachable, self.sync, self.scheduler.last_post
        synced = sync.last_success if sync is not None else None
        body: dict[str, Any] = {
            "components": components,
            "front_ends": front_ends,
            "redis": {"reachable": await reachable()} if reachable is not None else None,
            "mirror_sync": {
                "last_success_age_s": (
                    round((now - synced).total_seconds(), 1) if synced is not None else None
                )
            },
            "daily_post": (
                {"last": last[0], "age_s": round((now - last[1]).total_seconds(), 1)}
                if last is not None
                else None
            ),
        }
        return healthy, body

    # -- running and stopping ---------------------------------------------------------------

    async def _watch(self) -> bool:
        """Wait for ``stop`` or for a component to end; whether one failed."""
        stopper = asyncio.ensure_future(self.stop.wait())
        try:
            waiting = {stopper, *self.components.tasks.values()}
            done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not stopper.done():
                stopper.cancel()
        if stopper in done:
            log.info("serve.stopping")
            return False
        for name, task in self.components.tasks.items():
            if task.done():
                error = None if task.cancelled() else task.exception()
                log.error(
                    "serve.component_ended",
                    extra={"component": name, "error": repr(error) if error else None},
                )
        self.stop.set()
        return True

    async def _shutdown(self) -> None:
        """Posts in flight first (Slack drains, the scheduler ends its pass), then Discord."""
        self.stop.set()
        tasks = self.components.tasks
        pending: set[asyncio.Task[Any]] = set()
        draining = [task for name, task in tasks.items() if name != "discord"]
        if draining:
            _, pending = await asyncio.wait(draining, timeout=self.drain_s)
        if self.discord_client is not None:
            await self.discord_client.close()
            if "discord" in tasks:
                _, late = await asyncio.wait([tasks["discord"]], timeout=5.0)
                pending |= late
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for name, task in tasks.items():
            if task in pending:
                log.warning("serve.component_cancelled", extra={"component": name})
        if self.health is not None:
            await self.health.stop()
        log.info("serve.stopped")


def install_signals(stop: asyncio.Event) -> Callable[[], None]:
    """SIGTERM and SIGINT set ``stop``; the function returned removes the handlers."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)

    def remove() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return remove
