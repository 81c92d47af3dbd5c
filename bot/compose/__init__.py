"""The composition root: builds every client from the settings and wires the core together.

:func:`build_runtime` builds what every command needs (GitHub, the storage bundle, the writers,
the digest service, the command runner); on a runtime,
:func:`bot.compose.services.build_services` builds what ``serve`` runs, which a command of the
command line never loads. The one clock of a process is :func:`utcnow`. Storage is chosen here
and only here: Redis when ``REDIS_URL`` is set, else SQLite files.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
from pydantic import ValidationError

from bot.commands.runner import ReportCore
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
from digest.mirror.store import Store, Sync
from digest.mirror.sync import Syncer
from digest.schedule.ledger import PostLedger, StateLedger
from digest.schedule.subscriptions import StateSubscriptions
from digest.service import DigestService
from digest.state.base import SharedState
from digest.writers.base import Writer
from digest.writers.template import TemplateWriter

if TYPE_CHECKING:
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


def db_path(db: str) -> str:
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
    db = db_path(settings.db)
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
