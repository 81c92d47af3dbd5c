"""What ``serve`` runs on a runtime, and ``serve`` itself: the Slack and Discord front ends, the
daily poster and scheduler, the recovery of command threads, the mirror refresh loop and the
metrics, built here and handed to :class:`~bot.process.serve.BotProcess`, which runs them.

The clients come from :mod:`bot.compose.runtime`; :func:`build_services` wires these from them.
A command of the command line loads none of this.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from bot.commands import messages
from bot.commands.following import FollowedSubscriptions
from bot.commands.runner import ReportCore
from bot.commands.subscriptions import ChannelSubscriptions, ScheduledRequests, SeedableStore
from bot.compose.counters import register_metrics
from bot.compose.front_ends import (
    ChannelPost,
    ChatParts,
    DailyCorrector,
    DailyPoster,
    discord_front_end,
    http_limits,
    plan,
    slack_front_end,
)
from bot.compose.runtime import build_runtime, load_settings, utcnow
from bot.compose.site import site_publisher
from bot.process.collector import pace_collector
from bot.process.logs import configure
from bot.process.metrics import ErrorCounter, Metrics
from bot.process.refresh import MirrorSync, followed_repos
from bot.process.serve import DRAIN_S, BotProcess, Services, install_signals
from config.settings import AppConfig, Settings
from digest.builder import DigestBuilder
from digest.errors import ConfigError
from digest.github.client import GitHubClient
from digest.mirror.access import RepoAccess
from digest.mirror.pacing import Pacer
from digest.mirror.pruning import Prunable, prune
from digest.mirror.store import Store, Sync
from digest.mirror.sync import Syncer
from digest.schedule.command_threads import CommandThreads, OpenThread, ThreadPost, ThreadRecovery
from digest.schedule.ledger import PostLedger
from digest.schedule.scheduler import PostFn, Scheduler
from digest.schedule.subscription import Subscription
from digest.state.base import SharedState
from digest.state.limiter import Limiter
from digest.windows import format_window

if TYPE_CHECKING:
    from bot.site.chat import ChatExtras
    from bot.site.publish import SitePublisher

EXIT_CONFIG = 6

NO_FRONT_END = """\
vllm-report serve: no chat front end is configured, so there is nothing to serve.
Set the tokens of at least one (see docs/deploy.md):
  Slack, Socket Mode (default):  SLACK_BOT_TOKEN and SLACK_APP_TOKEN
  Slack, HTTP mode:              SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and SLACK_MODE=http
  Discord:                       DISCORD_TOKEN
"""

log = logging.getLogger(__name__)


class ServeRuntime(Protocol):
    """What the services of ``serve`` are built on (a :class:`~bot.compose.runtime.Runtime`,
    or a test's, which says what it lacks with None)."""

    @property
    def core(self) -> ReportCore: ...

    @property
    def state(self) -> SharedState: ...

    @property
    def ledger(self) -> PostLedger: ...

    @property
    def subscriptions(self) -> SeedableStore: ...

    @property
    def builder(self) -> DigestBuilder: ...

    @property
    def sync(self) -> Sync | None: ...  # None: no background mirror refresh

    @property
    def store(self) -> Store | None: ...  # the mirror (None: no charts, site or repair)

    @property
    def github(self) -> GitHubClient | None: ...  # None: the refresh is neither paced nor repairs

    @property
    def redis_reachable(self) -> Callable[[], Awaitable[bool]] | None: ...  # None: no Redis

    @property
    def access(self) -> RepoAccess | None: ...  # None: no lapses, no pruning


def build_services(
    settings: Settings,
    config: AppConfig,
    runtime: ServeRuntime,
    *,
    clock: Callable[[], datetime] = utcnow,
    errors: ErrorCounter | None = None,
    metrics: Metrics | None = None,
    slack_pace_s: float = 1.0,
    slack_ping_s: float = 10.0,
) -> Services:
    """The front ends ``settings`` has tokens for, the daily scheduler posting through them,
    the recovery of their command threads, the background mirror refresh and the metrics
    that read them all."""
    chosen = plan(settings)
    from bot.discord.post import channel_id

    core = runtime.core
    owner = uuid.uuid4().hex[:12]  # this replica, in the ledger's claims
    journal = CommandThreads(runtime.ledger, clock=clock, owner=owner)
    limiter = Limiter(runtime.state, settings.limits.rules(config.limits), clock)
    chat = ChatParts(
        core=core,
        state=runtime.state,
        channels=ChannelSubscriptions(runtime.subscriptions, clock),
        directory=runtime.subscriptions.all_subscriptions,
        clock=clock,
        threads=journal,
        site_url=settings.site_url,
        extras=_chat_extras(settings, config, runtime),
        limiter=limiter,
    )
    slack = slack_front_end(settings, chosen, chat, pace_s=slack_pace_s, ping_s=slack_ping_s)
    discord = discord_front_end(settings, chosen, chat)
    made = [front for front in (slack, discord) if front is not None]
    daily_posts: dict[str, ChannelPost] = {front.platform: front.daily for front in made}
    thread_posts: dict[str, ThreadPost] = {front.platform: front.threads for front in made}
    recovery = ThreadRecovery(journal, posts=thread_posts, build=core.build, note=cut_short_note)
    publisher, site_root = _site(settings, config, runtime, clock)
    daily: PostFn = DailyPoster(daily_posts)
    if publisher is not None:
        from bot.site.publish import publishing

        daily = publishing(daily, publisher)
    access = runtime.access
    scheduler = Scheduler(
        subscriptions=(
            FollowedSubscriptions(runtime.subscriptions, access)
            if access is not None
            else runtime.subscriptions
        ),
        ledger=runtime.ledger,
        request=ScheduledRequests(
            config, default_writer=core.default_writer, writers=runtime.builder.writer_names
        ),
        build=core.build,
        post=daily,
        clock=clock,
        grace=timedelta(hours=settings.schedule_grace_hours),
        owner=owner,
        platforms=tuple(daily_posts),
        correct=DailyCorrector(thread_posts),
    )
    refresh = _refresh(settings, config, runtime, clock)
    registry = metrics or Metrics()
    register_metrics(
        registry,
        runtime.builder,
        scheduler,
        journal,
        refresh,
        errors,
        chosen.front_ends,
        limiter=limiter,
    )
    discord_token = settings.discord.token if discord is not None else None
    return Services(
        front_ends=chosen.front_ends,
        config=config,
        clock=clock,
        subscriptions=runtime.subscriptions,
        channel_checks={"discord": channel_id},
        scheduler=scheduler,
        threads=recovery,
        metrics=registry,
        http_port=settings.http_port,
        http_host=settings.http_host,
        http_limits=http_limits(settings),
        slack=slack.front_end if slack is not None else None,
        discord=discord.front_end if discord is not None else None,
        discord_token=discord_token.get_secret_value() if discord_token is not None else None,
        refresh=refresh,
        site=publisher,
        site_root=site_root,
        redis_reachable=runtime.redis_reachable,
        health_grace_s=settings.health_grace_seconds,
    )


def _site(
    settings: Settings, config: AppConfig, runtime: ServeRuntime, clock: Callable[[], datetime]
) -> tuple[SitePublisher | None, Path | None]:
    """The report website's publisher when ``VLLM_REPORT_SITE_URL`` or ``_SITE_DIR`` is set,
    over the runtime's mirror and its sync (both needed)."""
    store, sync = runtime.store, runtime.sync
    if store is None or sync is None or not (settings.site_url or settings.site_dir):
        return None, None
    from bot.site.build import SiteBuilder

    builder = SiteBuilder(
        config=config,
        core=runtime.core,
        store=store,
        sync=sync,
        clock=clock,
        web_url=settings.github.web_url,
    )
    return site_publisher(settings, config, builder)


def _chat_extras(settings: Settings, config: AppConfig, runtime: ServeRuntime) -> ChatExtras | None:
    """The day's chart and page link for the daily posts, over the runtime's mirror."""
    if runtime.store is None:
        return None
    from bot.site.chat import ChatExtras

    return ChatExtras(store=runtime.store, config=config, site_url=settings.site_url)


def cut_short_note(thread: OpenThread, parts: int) -> str:
    """The note in a command's thread that was cut short and is too old to complete."""
    request = thread.request
    window = format_window(request.window)
    return messages.cut_short(request.display_name or request.repo, window, parts, request.lang)


def _subject_repos(subscription: Subscription, config: AppConfig) -> tuple[str, ...]:
    """Every repository ``subscription`` reports on: its configured scope's (its first one if
    the scope is no longer configured), its list's, or its one. An ``owner/*`` entry names
    no repository ahead of its window: its repositories sync when a digest asks for them."""
    if subscription.scope:
        try:
            return tuple(r for r in config.scope(subscription.scope).repos if "/*" not in r)
        except ConfigError:
            return (subscription.repo,)
    return subscription.repos or (subscription.repo,)


def _refresh(
    settings: Settings, config: AppConfig, runtime: ServeRuntime, clock: Callable[[], datetime]
) -> MirrorSync | None:
    syncer = runtime.sync
    if syncer is None:
        return None
    subscriptions = runtime.subscriptions

    async def repos() -> Iterable[str]:
        subs = await subscriptions.all_subscriptions()
        subscribed = (repo for s in subs for repo in _subject_repos(s, config))
        return followed_repos(config.default_repo, config.repos, subscribed)

    github, store = runtime.github, runtime.store
    repair = (
        Syncer(github, store, clock=clock, web_url=settings.github.web_url)
        if github is not None and store is not None
        else None
    )
    access = runtime.access
    pruning = None
    if access is not None and settings.prune_after_days and isinstance(store, Prunable):
        mirror: Prunable = store
        checks: RepoAccess = access

        async def pruning(followed: Iterable[str]) -> list[str]:
            return await prune(mirror, checks, followed)

    return MirrorSync(
        syncer,
        repos,
        clock=clock,
        interval=timedelta(minutes=settings.sync_interval_minutes),
        pacer=Pacer(github) if github is not None else None,
        reconcile=repair.reconcile if repair is not None else None,
        lapses=access,
        prune=pruning,
    )


async def serve(
    settings: Settings,
    config: AppConfig,
    *,
    clock: Callable[[], datetime] = utcnow,
    stop: asyncio.Event | None = None,
    handle_signals: bool = True,
    drain_s: float = DRAIN_S,
    err: TextIO | None = None,
    errors: ErrorCounter | None = None,
) -> int:
    """Run the bot process until SIGTERM/SIGINT (or ``stop``); returns the exit code.

    With no front end configured it says what to set and returns :data:`EXIT_CONFIG`.
    """
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
    remove_signals = install_signals(stop) if handle_signals else (lambda: None)
    try:
        async with build_runtime(settings, config, clock=clock) as runtime:
            services = build_services(settings, config, runtime, clock=clock, errors=errors)
            process = BotProcess(services, stop=stop, drain_s=drain_s)
            return await process.run()
    finally:
        remove_signals()


def serve_main(
    config_path: str | None = None, *, verbose: bool = False, err: TextIO | None = None
) -> int:
    """The ``vllm-report serve`` entry point: settings from the environment, logs, then serve."""
    settings, config = load_settings(config_path)
    pace_collector()
    level = logging.DEBUG if verbose else logging.INFO
    configure(json_lines=settings.log_json, level=level, stream=err)
    errors = ErrorCounter()
    root = logging.getLogger()
    root.addHandler(errors)
    try:
        return asyncio.run(serve(settings, config, err=err, errors=errors))
    finally:
        root.removeHandler(errors)
