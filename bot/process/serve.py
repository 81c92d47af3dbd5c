"""``vllm-report serve``: chat front ends, daily scheduler and mirror sync in one process.

Every front end with its tokens runs (Slack in Socket Mode or HTTP mode, Discord over its
gateway); with none it says what to configure and exits non-zero, and a token that Slack or
Discord refuses at start-up ends the process with exit code 1. ``/healthz`` and ``/metrics``
listen on ``VLLM_REPORT_HTTP_PORT``. SIGTERM (or SIGINT) stops new work at once; posts in flight
get ``drain_s`` seconds to finish, and a daily post whose parent message is not out by then is
released, so the next run (here or on another replica) makes it.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TextIO

import aiohttp
from pydantic import SecretStr
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.commands.runner import ReportCore
from bot.commands.subscriptions import ChannelSubscriptions, ScheduledRequests, seed_subscriptions
from bot.compose import ChannelPost, DailyPoster
from bot.discord import build_discord_client
from bot.discord.post import DiscordDaily
from bot.process.health import HealthServer, health_app, start_health
from bot.process.logs import configure
from bot.process.metrics import ErrorCounter, Metrics
from bot.process.refresh import MirrorSync, followed_repos
from bot.slack import build_slack_app, run_http, run_socket_mode, slack_bot
from bot.slack.post import SlackDaily, slack_error
from config.settings import AppConfig, Settings
from digest.backends.redis.ledger import RedisLedger
from digest.backends.redis.state import RedisState
from digest.builder import DigestBuilder
from digest.errors import DigestError
from digest.mirror.store import Sync
from digest.schedule.ledger import PostLedger, StateLedger
from digest.schedule.scheduler import Scheduler
from digest.schedule.subscriptions import StateSubscriptions
from digest.state.base import SharedState

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CONFIG = 6
DRAIN_S = 25.0

NO_FRONT_END = """\
vllm-report serve: no chat front end is configured, so there is nothing to serve.
Set the tokens of at least one (see docs/deploy.md):
  Slack, Socket Mode (default):  SLACK_BOT_TOKEN and SLACK_APP_TOKEN
  Slack, HTTP mode:              SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and SLACK_MODE=http
  Discord:                       DISCORD_TOKEN
"""


class Runtime(Protocol):
    """What serve needs from the composition root's runtime."""

    @property
    def core(self) -> ReportCore: ...

    @property
    def state(self) -> SharedState: ...

    @property
    def builder(self) -> DigestBuilder: ...

    @property
    def sync(self) -> Sync | None: ...


@dataclass(frozen=True, slots=True)
class Plan:
    """Which front ends run, and what is missing for the others."""

    slack: str | None  # "socket" | "http" | None
    discord: bool
    problems: tuple[str, ...] = ()

    @property
    def front_ends(self) -> tuple[str, ...]:
        return (
            *((f"slack-{self.slack}",) if self.slack else ()),
            *(("discord",) if self.discord else ()),
        )


def plan(settings: Settings) -> Plan:
    """The front ends that ``settings`` has tokens for."""
    slack, problems = None, []
    s = settings.slack
    if s.bot_token is not None:
        if s.mode == "socket" and s.app_token is not None:
            slack = "socket"
        elif s.signing_secret is not None and (s.mode == "http" or s.app_token is None):
            slack = "http"
        elif s.mode == "http":
            problems.append("Slack HTTP mode needs SLACK_SIGNING_SECRET")
        else:
            problems.append(
                "Slack Socket Mode needs SLACK_APP_TOKEN (or set "
                "SLACK_SIGNING_SECRET and SLACK_MODE=http)"
            )
    elif s.app_token is not None or s.signing_secret is not None:
        problems.append("Slack needs SLACK_BOT_TOKEN")
    return Plan(slack, settings.discord.token is not None, tuple(problems))


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


def ledger_for(state: SharedState) -> PostLedger:
    """The post ledger on the same storage as ``state``: Redis for replicas, else the state's."""
    if isinstance(state, RedisState):
        return RedisLedger(state.client, prefix=state.prefix)
    return StateLedger(state)


_SCHEDULER_COUNTERS = (
    ("daily_digests_built", "digests_built", "Digest builds requested by the daily scheduler."),
    ("posts_made", "posts_made", "Daily posts made."),
    (
        "posts_incomplete",
        "posts_incomplete",
        "Daily posts whose thread broke off after the parent message was out.",
    ),
    ("post_errors", "post_errors", "Daily posts that failed and were released for a retry."),
    ("build_errors", "build_errors", "Daily digest builds that failed."),
    ("claims_lost", "claims_lost", "Daily posts given up because another replica took over."),
)


def _reader(counters: Mapping[str, int], key: str) -> Callable[[], float]:
    """A metric callback reading ``counters[key]`` when scraped."""
    return lambda: float(counters[key])


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
    """Builds the front ends, the scheduler and the sync on a runtime, runs them, stops them."""

    def __init__(
        self,
        settings: Settings,
        config: AppConfig,
        runtime: Runtime,
        *,
        clock: Callable[[], datetime],
        stop: asyncio.Event,
        drain_s: float = DRAIN_S,
        http_host: str = "0.0.0.0",
        metrics: Metrics | None = None,
        errors: ErrorCounter | None = None,
        slack_pace_s: float = 1.0,
    ) -> None:
        self.settings = settings
        self.slack_pace_s = slack_pace_s
        self.config = config
        self.runtime = runtime
        self.clock = clock
        self.stop = stop
        self.drain_s = drain_s
        self.http_host = http_host
        self.metrics = metrics or Metrics()
        self.errors = errors
        self.plan = plan(settings)
        self.components = _Components()
        self.subscriptions = StateSubscriptions(runtime.state)
        self.channel_subscriptions = ChannelSubscriptions(self.subscriptions, config, clock)
        self.scheduler: Scheduler | None = None
        self.sync: MirrorSync | None = None
        self.health: HealthServer | None = None
        self.started = asyncio.Event()
        self.discord_client: Any = None

    async def run(self) -> int:
        """Run until ``stop`` is set (0) or a component fails (1)."""
        try:
            await seed_subscriptions(self.subscriptions, self.config, self.clock)
        except DigestError as exc:
            log.warning("serve.seed_failed", extra={"error": str(exc)})
        posters = self._start_front_ends()
        self._start_scheduler(posters)
        self._start_sync()
        self._register_metrics()
        self.health = await start_health(
            health_app(self.components.status, self.metrics),
            self.http_host,
            self.settings.http_port,
        )
        log.info(
            "serve.started",
            extra={"front_ends": list(self.plan.front_ends), "http_port": self.health.port},
        )
        self.started.set()
        failed = await self._watch()
        await self._shutdown()
        return EXIT_FAILED if failed else EXIT_OK

    # -- components -------------------------------------------------------------------------

    def _start_front_ends(self) -> dict[str, ChannelPost]:
        posters: dict[str, ChannelPost] = {}
        core, settings = self.runtime.core, self.settings
        if self.plan.slack:
            token = settings.slack.bot_token
            assert token is not None
            web_client = AsyncWebClient(
                token=token.get_secret_value(), base_url=settings.slack.api_url
            )
            secret = settings.slack.signing_secret
            app = build_slack_app(
                core,
                web_client,
                signing_secret=secret.get_secret_value() if secret is not None else None,
                state=self.runtime.state,
                clock=self.clock,
                subscriptions=self.channel_subscriptions,
                pace_s=self.slack_pace_s,
            )
            app_token = settings.slack.app_token if self.plan.slack == "socket" else None
            self.components.start("slack", self._run_slack(app, web_client, app_token))
            posters["slack"] = SlackDaily(slack_bot(app).poster)  # one pace per channel
        if self.plan.discord:
            discord_token = settings.discord.token
            assert discord_token is not None
            client = build_discord_client(
                core, settings.discord, subscriptions=self.channel_subscriptions, clock=self.clock
            )
            self.discord_client = client
            self.components.start("discord", client.start(discord_token.get_secret_value()))
            posters["discord"] = DiscordDaily(client)
        return posters

    async def _run_slack(
        self, app: AsyncApp, web_client: AsyncWebClient, app_token: SecretStr | None
    ) -> None:
        """Check the tokens, then serve Slack in Socket Mode (with an app token) or HTTP mode."""
        token = app_token.get_secret_value() if app_token is not None else None
        await check_slack_tokens(web_client, token)
        if token is not None:
            await run_socket_mode(app, token, stop=self.stop, drain_s=self.drain_s)
        else:
            port = self.settings.slack.port
            await run_http(app, port, stop=self.stop, drain_s=self.drain_s)

    def _start_scheduler(self, posters: dict[str, ChannelPost]) -> None:
        core = self.runtime.core
        self.scheduler = Scheduler(
            subscriptions=self.subscriptions,
            ledger=ledger_for(self.runtime.state),
            request=ScheduledRequests(
                self.config,
                default_writer=core.default_writer,
                writers=self.runtime.builder.writer_names,
            ),
            build=core.build,
            post=DailyPoster(posters),
            clock=self.clock,
            grace=timedelta(hours=self.settings.schedule_grace_hours),
            platforms=tuple(posters),
        )
        self.components.start("scheduler", self.scheduler.run_forever(self.stop))

    def _start_sync(self) -> None:
        syncer = self.runtime.sync
        if syncer is None:
            return
        config = self.config

        async def repos() -> Iterable[str]:
            subs = await self.subscriptions.all_subscriptions()
            return followed_repos(config.default_repo, config.repos, (s.repo for s in subs))

        self.sync = MirrorSync(
            syncer,
            repos,
            clock=self.clock,
            interval=timedelta(minutes=self.settings.sync_interval_minutes),
        )
        self.components.start("sync", self.sync.run_forever(self.stop))

    def _register_metrics(self) -> None:
        m, sched, sync, builder = self.metrics, self.scheduler, self.sync, self.runtime.builder
        assert sched is not None
        m.counter(
            "digests_built",
            "Digests built (cache misses), on demand and daily.",
            lambda: float(builder.builds),
        )
        for name, key, text in _SCHEDULER_COUNTERS:
            m.counter(name, text, _reader(sched.counters, key))
        m.gauge(
            "subscriptions",
            "Subscriptions seen by the scheduler's last pass.",
            lambda: sched.subscription_count,
        )
        m.gauge(
            "scheduler_last_tick_timestamp_seconds",
            "When the scheduler last ran a pass.",
            lambda: sched.last_tick.timestamp() if sched.last_tick else 0.0,
        )
        m.counter(
            "sync_requests",
            "Background mirror syncs started.",
            lambda: sync.counters["sync_requests"] if sync else 0.0,
        )
        m.counter(
            "sync_errors",
            "Background mirror syncs that failed.",
            lambda: sync.counters["sync_errors"] if sync else 0.0,
        )
        errors = self.errors
        m.counter(
            "errors",
            "Error records logged by the process.",
            lambda: errors.count if errors else 0.0,
        )
        m.gauge(
            "front_ends",
            "Chat front ends configured in this process.",
            lambda: float(len(self.plan.front_ends)),
        )

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


def _install_signals(stop: asyncio.Event) -> Callable[[], None]:
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


def utc_now() -> datetime:
    return datetime.now(UTC)


async def serve(
    settings: Settings,
    config: AppConfig,
    *,
    clock: Callable[[], datetime] = utc_now,
    stop: asyncio.Event | None = None,
    handle_signals: bool = True,
    drain_s: float = DRAIN_S,
    http_host: str = "0.0.0.0",
    err: TextIO | None = None,
    errors: ErrorCounter | None = None,
) -> int:
    """Run the bot process until SIGTERM/SIGINT (or ``stop``); returns the exit code."""
    chosen = plan(settings)
    if not chosen.front_ends:
        stream = err or sys.stderr
        stream.write(NO_FRONT_END)
        for problem in chosen.problems:
            stream.write(f"  problem: {problem}\n")
        return EXIT_CONFIG
    for problem in chosen.problems:
        log.warning("serve.front_end_skipped", extra={"problem": problem})
    stop = stop or asyncio.Event()
    remove_signals = _install_signals(stop) if handle_signals else (lambda: None)
    from bot.compose import build_runtime

    try:
        async with build_runtime(settings, config, clock=clock) as runtime:
            process = BotProcess(
                settings,
                config,
                runtime,
                clock=clock,
                stop=stop,
                drain_s=drain_s,
                http_host=http_host,
                errors=errors,
            )
            return await process.run()
    finally:
        remove_signals()


def serve_main(
    config_path: str | None = None, *, verbose: bool = False, err: TextIO | None = None
) -> int:
    """The ``vllm-report serve`` entry point: settings from the environment, logs, then serve."""
    from bot.compose import load_settings

    settings, config = load_settings(config_path)
    level = logging.DEBUG if verbose else logging.INFO
    configure(json_lines=settings.log_json, level=level, stream=err)
    errors = ErrorCounter()
    root = logging.getLogger()
    root.addHandler(errors)
    try:
        return asyncio.run(serve(settings, config, err=err, errors=errors))
    finally:
        root.removeHandler(errors)
