"""The runtime every command needs: GitHub, the storage bundle, the writers, the digest service
and the command runner, built once from the settings; and the one clock of a process.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
from pydantic import ValidationError

from bot.commands.following import Following, trusted
from bot.commands.runner import ReportCore
from bot.compose.following import caps, repo_access
from bot.compose.llm import llm_writers
from bot.compose.questions import question_asker
from bot.compose.storage import build_storage
from config.settings import (
    AppConfig,
    Settings,
    load_config,
    settings_error,
    warn_unknown_variables,
)
from digest.analysis.hot import HOT_LIMIT, MIN_COMMENTS
from digest.analysis.types import HISTORY_WINDOWS
from digest.backends.sqlite.state import SQLiteState
from digest.builder import BuildSlots, DigestBuilder
from digest.errors import ConfigError
from digest.github.client import GitHubClient
from digest.github.retry import RetryPolicy
from digest.mirror.access import GuardedSync, RepoAccess
from digest.mirror.failover import FailoverStore, FailoverSync
from digest.mirror.gate import SyncGate
from digest.mirror.owners import OwnerRepos
from digest.mirror.profiles import Profiles, ProfileStore
from digest.mirror.store import Store, Sync
from digest.mirror.sync import Syncer
from digest.schedule.ledger import PostLedger
from digest.schedule.subscriptions import StateSubscriptions
from digest.service import DigestService
from digest.state.base import SharedState
from digest.writers.base import Writer
from digest.writers.template import TemplateWriter

log = logging.getLogger(__name__)

USER_AGENT = "vllm-report/0.1 (+https://github.com/vllm-report)"


def utcnow() -> datetime:
    """The one clock of a process: now, in UTC."""
    return datetime.now(UTC)


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
    redis_reachable: Callable[[], Awaitable[bool]] | None = None  # None: no Redis
    access: RepoAccess | None = None  # what may be followed: checks, lapses, last asked


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
            reserve=gh.reserve_share,
        )
        storage = await build_storage(settings, stack, clock)
        store, state, local_store = storage.store, storage.state, storage.local
        fresh = timedelta(seconds=settings.sync_fresh_seconds)
        access = repo_access(settings, config, github, state, clock)
        own = trusted(config)

        def gate_for(mirror: Store, shared: SharedState) -> SyncGate:
            syncer = Syncer(
                github,
                mirror,
                clock=clock,
                backfill_days=gh.backfill_days,
                web_url=gh.web_url,
                discussed=HOT_LIMIT,
                min_comments=MIN_COMMENTS,
                reach_windows=HISTORY_WINDOWS,
            )
            guarded = GuardedSync(syncer, access, trusted=own)
            return SyncGate(guarded, shared, clock, fresh_for=fresh)

        gate = gate_for(store, state)
        template = TemplateWriter()
        writers: dict[str, Writer] = {"template": template}
        llm_writer, answerer = llm_writers(settings, stack, template)
        if llm_writer is not None:
            writers["llm"] = llm_writer
        slots = BuildSlots(settings.max_builds)  # shared by the builder and its fallback

        def profiles_in(kept: ProfileStore | None) -> Profiles | None:
            if kept is None:
                return None
            return Profiles(kept, github, clock=clock, share=gh.reserve_share)

        builder = DigestBuilder(
            store=store,
            sync=gate,
            writers=writers,
            clock=clock,
            web_url=gh.web_url,
            slots=slots,
            profiles=profiles_in(storage.profiles),
        )
        fallback = None
        mirror: Store = store  # what questions read and the background sync refreshes
        mirror_sync: Sync = gate
        if local_store is not None:  # Redis: a local mirror answers while it is down
            local_state = SQLiteState(":memory:", clock=clock)
            stack.push_async_callback(local_state.close)
            local_gate = gate_for(local_store, local_state)
            fallback = DigestBuilder(
                store=local_store,
                sync=local_gate,
                writers=writers,
                clock=clock,
                web_url=gh.web_url,
                slots=slots,
                profiles=profiles_in(storage.local_profiles),
            )
            mirror = FailoverStore(store, local_store)
            mirror_sync = FailoverSync(gate, local_gate)
        service = DigestService(
            builder,
            storage.cache or state,  # the digest cache and its build locks: evictable
            clock,
            store=store,
            sync=gate,
            fallback=fallback,
            writer_names={key: writer.name for key, writer in writers.items()},
            memo_bytes=settings.digest_cache_bytes,
            owners=OwnerRepos(github, clock),
        )
        core = ReportCore(
            config=config,
            get_digest=service.get_digest,
            clock=clock,
            default_writer="llm" if llm_writer is not None else "template",
            asker=question_asker(
                config, mirror, clock=clock, sync=mirror_sync, writer=answerer, web_url=gh.web_url
            ),
            site_url=settings.site_url,
            allow=access.allow,
            following=Following(
                access, storage.subscriptions.all_subscriptions, caps(settings), trusted=own
            ),
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
            redis_reachable=storage.redis_reachable,
            access=access,
        )
