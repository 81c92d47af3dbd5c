"""The composition root: builds every client from the settings and wires the core together.

:func:`build_runtime` builds what every command needs (GitHub, the storage bundle, the writers,
the digest service, the command runner); :func:`build_services` builds, on a runtime, what
``serve`` runs (the Slack and Discord front ends, the daily poster and scheduler, the mirror
refresh loop, the metrics). The one clock of a process is :func:`utcnow`. Storage is chosen
here and only here: Redis when ``REDIS_URL`` is set, else SQLite files.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import httpx
from pydantic import ValidationError

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
from bot.connection import Connection
from bot.process.metrics import ErrorCounter, Metrics
from bot.process.refresh import MirrorSync, followed_repos
from config.settings import (
    AppConfig,
    Settings,
    load_config,
    settings_error,
    warn_unknown_variables,
)
from digest.analysis.hot import HOT_LIMIT, MIN_COMMENTS
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.builder import DigestBuilder
from digest.errors import ConfigError
from digest.github.client import GitHubClient
from digest.github.retry import RetryPolicy
from digest.mirror.failover import FailoverStore, FailoverSync
from digest.mirror.gate import SyncGate
from digest.mirror.pacing import Pacer
from digest.mirror.store import Store, Sync
from digest.mirror.sync import Syncer
from digest.models import Digest
from digest.schedule.ledger import PostLedger, StateLedger
from digest.schedule.scheduler import PartFn, PostFn, Scheduler
from digest.schedule.subscription import Subscription
from digest.schedule.subscriptions import StateSubscriptions
from digest.schedule.threads import CommandThreads, OpenThread
from digest.service import DigestService
from digest.state.base import SharedState
from digest.windows import format_window
from digest.writers.base import Writer
from digest.writers.template import TemplateWriter

if TYPE_CHECKING:
    from slack_bolt.async_app import AsyncApp
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.discord.client import ReportClient
    from bot.site.chat import ChatExtras
    from bot.site.publish import SitePublisher
    from digest.ask import AnswerWriter

log = logging.getLogger(__name__)

USER_AGENT = "vllm-report/0.1 (+https://github.com/vllm-report)"


def utcnow() -> datetime:
    """The one clock of a process: now, in UTC."""
    return datetime.now(UTC)


@dataclass(slots=True)
class Storage:
    """Everything kept, on one backend: the mirror, shared state, post ledger, subscriptions."""

    store: Store
    state: SharedState
    ledger: PostLedger
    subscriptions: StateSubscriptions
    local: Store | None = None  # with Redis: the local mirror that answers while it is down


@dataclass(slots=True)
class Runtime:
    """Every long-lived object of a process, built once."""

    settings: Settings
    config: AppConfig
    clock: Callable[[], datetime]
    github: GitHubClient
    store: Store
    state: SharedState
    ledger: PostLedger
    subscriptions: StateSubscriptions
    sync: Sync  # the shared mirror's gate; with Redis, it fails over to the local mirror
    builder: DigestBuilder
    service: DigestService
    core: ReportCore
    writers: dict[str, Writer]


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


def load_settings(config_path: str | None = None) -> tuple[Settings, AppConfig]:
    """Settings from the environment and the configuration from ``config_path`` (or the env).

    A malformed setting is a ``ConfigError`` naming the setting (never its value); a variable
    with one of our prefixes that no setting reads is logged as a warning.
    """
    warn_unknown_variables(os.environ)
    try:
        settings = Settings()
    except ValidationError as exc:
        raise ConfigError(f"invalid environment setting: {settings_error(exc)}") from exc
    return settings, load_config(config_path or settings.config)


def _db_path(db: str) -> str:
    return db if db == ":memory:" else os.path.expanduser(db)


def _state_path(db: str) -> str:
    if db == ":memory:":
        return db
    path = Path(db).expanduser()
    return str(path.with_name(path.stem + "-state" + path.suffix))


def _llm(
    settings: Settings, stack: AsyncExitStack, fallback: TemplateWriter
) -> tuple[Writer | None, AnswerWriter | None]:
    """The LLM writer and answerer when an endpoint is configured, else ``(None, None)``."""
    llm = settings.llm
    if not (llm.base_url and llm.model):
        return None, None
    from openai import AsyncOpenAI

    from digest.ask.llm import LLMAnswerer
    from digest.writers.llm import LLMWriter

    key = llm.api_key.get_secret_value() if llm.api_key else "not-needed"
    client = AsyncOpenAI(
        base_url=llm.base_url, api_key=key, timeout=llm.timeout, max_retries=llm.max_retries
    )
    stack.push_async_callback(client.close)
    writer = LLMWriter(
        client,
        llm.model,
        fallback=fallback,
        concurrency=llm.concurrency,
        section_tokens=llm.section_tokens,
        digest_tokens=llm.digest_tokens,
        max_output_tokens=llm.max_output_tokens,
        timeout=llm.timeout,
    )
    answerer = LLMAnswerer(
        client, llm.model, max_output_tokens=llm.max_output_tokens, timeout=llm.timeout
    )
    return writer, answerer


@asynccontextmanager
async def build_runtime(
    settings: Settings,
    config: AppConfig,
    *,
    clock: Callable[[], datetime] = utcnow,
    transport: httpx.AsyncBaseTransport | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> AsyncIterator[Runtime]:
    """Build every client from ``settings`` and close them all on exit.

    ``sleep`` is what the GitHub client waits with (backoff, ``Retry-After``).
    """
    async with AsyncExitStack() as stack:
        gh = settings.github
        http = httpx.AsyncClient(
            base_url=gh.api_url.rstrip("/"),
            timeout=gh.timeout,
            headers={
                "User-Agent": USER_AGENT,
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
            },
            transport=transport,
        )
        stack.push_async_callback(http.aclose)
        github = GitHubClient(
            http,
            token=gh.token.get_secret_value() if gh.token else None,
            policy=RetryPolicy(attempts=max(1, gh.max_retries + 1)),
            sleep=sleep,
            clock=clock,
        )
        storage = await _storage(settings, stack, clock)
        store, state, local_store = storage.store, storage.state, storage.local
        fresh = timedelta(seconds=settings.sync_fresh_seconds)

        def gate_for(mirror: Store, shared: SharedState) -> SyncGate:
            syncer = Syncer(
                github,
                mirror,
                clock=clock,
                backfill_days=gh.backfill_days,
                web_url=gh.web_url,
                discussed=HOT_LIMIT,
                min_comments=MIN_COMMENTS,
            )
            return SyncGate(syncer, shared, clock, fresh_for=fresh)

        gate = gate_for(store, state)
        template = TemplateWriter()
        writers: dict[str, Writer] = {"template": template}
        llm_writer, answerer = _llm(settings, stack, template)
        if llm_writer is not None:
            writers["llm"] = llm_writer
        builder = DigestBuilder(
            store=store, sync=gate, writers=writers, clock=clock, web_url=gh.web_url
        )
        fallback = None
        mirror: Store = store  # what questions read and the background sync refreshes
        mirror_sync: Sync = gate
        if local_store is not None:  # Redis: a local mirror answers while it is down
            local_state = SQLiteState(":memory:", clock=clock)
            stack.push_async_callback(local_state.close)
            local_gate = gate_for(local_store, local_state)
            fallback = DigestBuilder(
                store=local_store, sync=local_gate, writers=writers, clock=clock, web_url=gh.web_url
            )
            mirror = FailoverStore(store, local_store)
            mirror_sync = FailoverSync(gate, local_gate)
        service = DigestService(
            builder,
            state,
            clock,
            store=store,
            sync=gate,
            fallback=fallback,
            writer_names={key: writer.name for key, writer in writers.items()},
            memo_bytes=settings.digest_cache_bytes,
        )
        core = ReportCore(
            config=config,
            get_digest=service.get_digest,
            clock=clock,
            default_writer="llm" if llm_writer is not None else "template",
            store=mirror,
            sync=mirror_sync,
            answerer=answerer,
            web_url=gh.web_url,
            site_url=settings.site_url,
        )
        log.info("runtime.ready", extra={"store": type(store).__name__, "writers": sorted(writers)})
        yield Runtime(
            settings=settings,
            config=config,
            clock=clock,
            github=github,
            store=store,
            state=state,
            ledger=storage.ledger,
            subscriptions=storage.subscriptions,
            sync=mirror_sync,
            builder=builder,
            service=service,
            core=core,
            writers=writers,
        )


async def _storage(
    settings: Settings, stack: AsyncExitStack, clock: Callable[[], datetime]
) -> Storage:
    """The storage bundle: Redis when ``REDIS_URL`` is set (for replicas), else SQLite files."""
    db = _db_path(settings.db)
    if settings.redis.url:
        from redis.asyncio import Redis

        from digest.backends.redis.ledger import RedisLedger
        from digest.backends.redis.mirror import RedisStore
        from digest.backends.redis.state import RedisState

        try:
            client = Redis.from_url(
                settings.redis.url, socket_connect_timeout=1.0, socket_timeout=2.0
            )
        except ValueError as exc:  # the URL is not repeated: it may hold a password
            raise ConfigError(
                "REDIS_URL is not a Redis URL (redis://HOST:PORT/DB, rediss://… or unix://…)"
            ) from exc
        stack.push_async_callback(client.aclose)
        local = SQLiteStore(db)
        stack.push_async_callback(local.close)
        shared = RedisState(client)
        return Storage(
            store=RedisStore(client),
            state=shared,
            ledger=RedisLedger(client, prefix=shared.prefix),
            subscriptions=StateSubscriptions(shared),
            local=local,
        )
    store = SQLiteStore(db)
    stack.push_async_callback(store.close)
    state = SQLiteState(_state_path(db), clock=clock)
    stack.push_async_callback(state.close)
    return Storage(
        store=store,
        state=state,
        ledger=StateLedger(state),
        subscriptions=StateSubscriptions(state),
    )


# -- what serve runs ---------------------------------------------------------------------------


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
        mirror = Path(_db_path(settings.db)) if settings.db != ":memory:" else None
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
    from bot.slack.client import web_client as slack_web_client
    from bot.slack.post import SlackDaily, SlackThreads

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
