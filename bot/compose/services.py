"""What ``serve`` runs on a runtime: the Slack and Discord front ends, the daily poster and
scheduler, the command-thread journal, the mirror refresh loop and the metrics.

The clients come from :mod:`bot.compose`; :func:`build_services` wires these from them. A
command of the command line loads none of this.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bot.commands import messages
from bot.commands.buttons import ButtonSigner, DigestButtons
from bot.commands.defaults import DefaultsStore
from bot.commands.runner import ReportCore
from bot.commands.subscriptions import (
    ChannelCheck,
    ChannelSubscriptions,
    ScheduledRequests,
    SeedableStore,
)
from bot.compose import Runtime, db_path, utcnow
from bot.connection import Connection
from bot.process.metrics import ErrorCounter, Metrics
from bot.process.refresh import MirrorSync, followed_repos
from config.settings import AppConfig, Settings
from digest.builder import DigestBuilder
from digest.mirror.pacing import Pacer
from digest.mirror.store import Sync
from digest.mirror.sync import Syncer
from digest.models import Digest
from digest.schedule.command_threads import CommandThreads, OpenThread
from digest.schedule.ledger import PostLedger
from digest.schedule.scheduler import PartFn, PostFn, Scheduler
from digest.schedule.subscription import Subscription
from digest.state.base import SharedState
from digest.windows import format_window

if TYPE_CHECKING:
    from slack_bolt.async_app import AsyncApp
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.discord.app import ReportClient
    from bot.site.chat import ChatExtras
    from bot.site.publish import SitePublisher


ChannelPost = Callable[[str, Digest | str, tuple[str, ...], PartFn], Awaitable[None]]
"""One platform's daily post in a channel: (channel, digest or quiet-day line, ids of the parts
already out, part_sent); see :class:`~digest.schedule.scheduler.PostFn`."""


class PlatformUnavailable(RuntimeError):
    """The subscription's platform is not configured in this process."""


class DailyPoster:
    """The scheduler's poster (``PostFn``): each daily post goes to its platform's front end."""

    def __init__(self, posts: Mapping[str, ChannelPost]) -> None:
        self._posts = dict(posts)

    async def __call__(
        self,
        subscription: Subscription,
        digest: Digest,
        *,
        late: bool,
        quiet: bool,
        done: tuple[str, ...],
        part_sent: PartFn,
    ) -> None:
        post = self._posts.get(subscription.platform)
        if post is None:
            raise PlatformUnavailable(f"{subscription.platform} is not configured here")
        content = messages.daily_post(digest, late=late, quiet=quiet)
        await post(subscription.channel, content, done, part_sent)


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


class ServeRuntime(Protocol):
    """What the services of ``serve`` are built on (a :class:`Runtime`, or a test's)."""

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
    def sync(self) -> Sync | None: ...


@dataclass(slots=True)
class SlackFrontEnd:
    """The Slack app with its Web API client, and how it is served."""

    app: AsyncApp
    web_client: AsyncWebClient
    app_token: str | None  # Socket Mode with it, HTTP mode (on ``port``) without
    port: int
    ping_s: float = 10.0  # Socket Mode's ping interval (and reconnect pace)
    link: Connection = field(default_factory=Connection)  # the session, or the endpoint, is up


@dataclass(slots=True)
class Services:
    """Everything ``serve`` runs, built on a runtime; ``serve`` only starts and stops them."""

    plan: Plan
    config: AppConfig
    clock: Callable[[], datetime]
    subscriptions: SeedableStore
    channel_checks: Mapping[str, ChannelCheck]  # for the configuration file's subscriptions
    scheduler: Scheduler
    threads: CommandThreads  # the command threads in chat, completed after a replica dies
    metrics: Metrics
    http_port: int
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
    the background mirror refresh and the metrics that read them all."""
    chosen = plan(settings)
    from bot.discord.post import channel_id

    channels = ChannelSubscriptions(runtime.subscriptions, clock)
    posts: dict[str, ChannelPost] = {}
    core = runtime.core
    owner = uuid.uuid4().hex[:12]  # this replica, in the ledger's claims
    threads = CommandThreads(
        runtime.ledger, build=core.build, note=cut_short_note, clock=clock, owner=owner
    )
    extras = _chat_extras(settings, config, runtime)
    publisher, site_root = _site(settings, config, runtime)
    chat = _Chat(runtime, channels, clock, posts, threads, extras)
    slack = _slack(settings, chosen, chat, slack_pace_s)
    if slack is not None:
        slack.ping_s = slack_ping_s
    discord, discord_token = _discord(settings, chosen, chat)
    daily: PostFn = DailyPoster(posts)
    if publisher is not None:
        from bot.site.publish import publishing

        daily = publishing(daily, publisher)
    scheduler = Scheduler(
        subscriptions=runtime.subscriptions,
        ledger=runtime.ledger,
        request=ScheduledRequests(
            config, default_writer=core.default_writer, writers=runtime.builder.writer_names
        ),
        build=core.build,
        post=daily,
        clock=clock,
        grace=timedelta(hours=settings.schedule_grace_hours),
        owner=owner,
        platforms=tuple(posts),
    )
    refresh = _refresh(settings, config, runtime, clock)
    made = metrics or Metrics()
    _register_metrics(made, runtime.builder, scheduler, threads, refresh, errors, chosen)
    return Services(
        plan=chosen,
        config=config,
        clock=clock,
        subscriptions=runtime.subscriptions,
        channel_checks={"discord": channel_id},
        scheduler=scheduler,
        threads=threads,
        metrics=made,
        http_port=settings.http_port,
        slack=slack,
        discord=discord,
        discord_token=discord_token,
        refresh=refresh,
        site=publisher,
        site_root=site_root,
        redis_reachable=_redis_check(runtime.state),
        health_grace_s=settings.health_grace_seconds,
    )


def _site(
    settings: Settings, config: AppConfig, runtime: ServeRuntime
) -> tuple[SitePublisher | None, Path | None]:
    """The report website's publisher when ``VLLM_REPORT_SITE_URL`` or ``_SITE_DIR`` is set.

    With ``VLLM_REPORT_SITE_DIR`` the site is only written there (an external server serves
    it); otherwise it is written beside the mirror and served at ``/reports/``.
    """
    if not isinstance(runtime, Runtime) or not (settings.site_url or settings.site_dir):
        return None, None
    from bot.site import SiteOptions, site_builder
    from bot.site.publish import SitePublisher

    if settings.site_dir:
        out, served = Path(settings.site_dir).expanduser(), None
    else:
        mirror = Path(db_path(settings.db)) if settings.db != ":memory:" else None
        home = mirror.parent if mirror is not None else Path.home() / ".cache" / "vllm-report"
        out = served = home / "site"
    repos = tuple(dict.fromkeys((*config.repos, config.default_repo)))
    options = SiteOptions(out=out, repos=repos, site_url=settings.site_url)
    return SitePublisher(site_builder(runtime), options), served


def _chat_extras(settings: Settings, config: AppConfig, runtime: ServeRuntime) -> ChatExtras | None:
    """The day's chart and page link for the daily posts, over the runtime's mirror."""
    if not isinstance(runtime, Runtime):
        return None
    from bot.site.chat import ChatExtras

    return ChatExtras(store=runtime.store, config=config, site_url=settings.site_url)


def _redis_check(state: SharedState) -> Callable[[], Awaitable[bool]] | None:
    """Whether Redis answers, for ``/healthz``; None without Redis."""
    from digest.backends.redis.state import RedisState

    return state.reachable if isinstance(state, RedisState) else None


def cut_short_note(thread: OpenThread, parts: int) -> str:
    """The note in a command's thread that was cut short and is too old to complete."""
    request = thread.request
    window = format_window(request.window)
    return messages.cut_short(request.display_name or request.repo, window, parts, request.lang)


@dataclass(frozen=True, slots=True)
class _Chat:
    """What every chat front end is built with."""

    runtime: ServeRuntime
    channels: ChannelSubscriptions
    clock: Callable[[], datetime]
    posts: dict[str, ChannelPost]  # each front end adds its daily post
    threads: CommandThreads  # each front end adds its completer of command threads
    extras: ChatExtras | None = None


def _slack(settings: Settings, chosen: Plan, chat: _Chat, pace_s: float) -> SlackFrontEnd | None:
    if not chosen.slack:
        return None
    from bot.slack import build_slack_app, slack_bot
    from bot.slack.post import SlackDaily, SlackThreads
    from bot.slack.web import web_client as slack_web_client

    runtime, channels, clock, extras = chat.runtime, chat.channels, chat.clock, chat.extras

    token = settings.slack.bot_token
    assert token is not None
    web_client = slack_web_client(token.get_secret_value(), settings.slack.api_url)
    secret = settings.slack.signing_secret
    buttons = DigestButtons(
        ButtonSigner.from_secret(token.get_secret_value()),
        runtime.core.config,
        clock,
        page_url=extras.page_url if extras is not None else None,
    )
    app = build_slack_app(
        runtime.core,
        web_client,
        signing_secret=secret.get_secret_value() if secret is not None else None,
        state=runtime.state,
        clock=clock,
        subscriptions=channels,
        defaults=DefaultsStore(runtime.state),
        buttons=buttons,
        directory=runtime.subscriptions.all_subscriptions,
        chart=extras.chart if extras is not None else None,
        threads=chat.threads,
        pace_s=pace_s,
    )
    poster = slack_bot(app).poster  # one pace per channel
    chat.posts["slack"] = SlackDaily(
        poster,
        chart=extras.chart if extras is not None else None,
        page_url=extras.page_url if extras is not None else None,
        site_url=settings.site_url,
        buttons=buttons,
    )
    chat.threads.posts["slack"] = SlackThreads(poster, site_url=settings.site_url, buttons=buttons)
    app_token = settings.slack.app_token if chosen.slack == "socket" else None
    return SlackFrontEnd(
        app,
        web_client,
        app_token.get_secret_value() if app_token is not None else None,
        settings.slack.port,
    )


def _discord(
    settings: Settings, chosen: Plan, chat: _Chat
) -> tuple[ReportClient | None, str | None]:
    token = settings.discord.token
    if not chosen.discord or token is None:
        return None, None
    from bot.discord import build_discord_client
    from bot.discord.post import DiscordDaily, DiscordThreads

    runtime, channels, clock, extras = chat.runtime, chat.channels, chat.clock, chat.extras

    buttons = DigestButtons(
        ButtonSigner.from_secret(token.get_secret_value()),
        runtime.core.config,
        clock,
        page_url=extras.page_url if extras is not None else None,
    )
    client = build_discord_client(
        runtime.core,
        settings.discord,
        subscriptions=channels,
        defaults=DefaultsStore(runtime.state),
        buttons=buttons,
        chart=extras.chart if extras is not None else None,
        threads=chat.threads,
        clock=clock,
    )
    chat.posts["discord"] = DiscordDaily(
        client,
        gateway=client.gateway,
        chart=extras.chart if extras is not None else None,
        page_url=extras.page_url if extras is not None else None,
        site_url=settings.site_url,
        buttons=buttons,
    )
    chat.threads.posts["discord"] = DiscordThreads(
        client, gateway=client.gateway, site_url=settings.site_url, buttons=buttons
    )
    return client, token.get_secret_value()


def _refresh(
    settings: Settings, config: AppConfig, runtime: ServeRuntime, clock: Callable[[], datetime]
) -> MirrorSync | None:
    syncer = runtime.sync
    if syncer is None:
        return None
    subscriptions = runtime.subscriptions

    async def repos() -> Iterable[str]:
        subs = await subscriptions.all_subscriptions()
        return followed_repos(config.default_repo, config.repos, (s.repo for s in subs))

    pacer = Pacer(runtime.github) if isinstance(runtime, Runtime) else None
    repair = (
        Syncer(runtime.github, runtime.store, clock=clock, web_url=settings.github.web_url)
        if isinstance(runtime, Runtime)
        else None
    )
    return MirrorSync(
        syncer,
        repos,
        clock=clock,
        interval=timedelta(minutes=settings.sync_interval_minutes),
        pacer=pacer,
        reconcile=repair.reconcile if repair is not None else None,
    )


_SCHEDULER_COUNTERS = (
    ("daily_digests_built", "digests_built", "Digest builds requested by the daily scheduler."),
    ("posts_made", "posts_made", "Daily posts made."),
    (
        "posts_incomplete",
        "posts_incomplete",
        "Daily posts whose thread broke off after a part was out; resumed on a later pass.",
    ),
    (
        "posts_resumed",
        "posts_resumed",
        "Daily posts whose interrupted thread was completed from its next part.",
    ),
    ("post_errors", "post_errors", "Daily posts that failed and were released for a retry."),
    ("build_errors", "build_errors", "Daily digest builds that failed."),
    ("claims_lost", "claims_lost", "Daily posts given up because another replica took over."),
)


_THREAD_COUNTERS = (
    ("command_threads_opened", "threads_opened", "Digest threads commands started in chat."),
    ("command_threads_completed", "threads_completed", "Command threads posted in full."),
    (
        "command_threads_resumed",
        "threads_resumed",
        "Command threads a replica left short and this one completed.",
    ),
    (
        "command_threads_cut_short",
        "threads_cut_short",
        "Command threads too old to complete: the requester was told instead.",
    ),
)


def _reader(counters: Mapping[str, int], key: str) -> Callable[[], float]:
    """A metric callback reading ``counters[key]`` when scraped."""
    return lambda: float(counters[key])


def _register_metrics(
    m: Metrics,
    builder: DigestBuilder,
    sched: Scheduler,
    threads: CommandThreads,
    sync: MirrorSync | None,
    errors: ErrorCounter | None,
    chosen: Plan,
) -> None:
    m.counter(
        "digests_built",
        "Digests built (cache misses), on demand and daily.",
        lambda: float(builder.builds),
    )
    for name, key, text in _SCHEDULER_COUNTERS:
        m.counter(name, text, _reader(sched.counters, key))
    for name, key, text in _THREAD_COUNTERS:
        m.counter(name, text, _reader(threads.counters, key))
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
    m.counter(
        "errors",
        "Error records logged by the process.",
        lambda: errors.count if errors else 0.0,
    )
    m.gauge(
        "front_ends",
        "Chat front ends configured in this process.",
        lambda: float(len(chosen.front_ends)),
    )
