"""The storage bundle, chosen here and only here: Redis when ``REDIS_URL`` is set, else SQLite.

Redis is shared by replicas (the mirror, shared state, the post ledger, subscriptions), with a
local SQLite mirror that answers while it is down; SQLite files serve one process alone.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from config.settings import Settings
from digest.backends.sqlite.mirror import SQLiteStore
from digest.backends.sqlite.state import SQLiteState
from digest.errors import ConfigError
from digest.mirror.profiles import ProfileStore
from digest.mirror.store import Store
from digest.schedule.ledger import PostLedger, StateLedger
from digest.schedule.subscriptions import StateSubscriptions
from digest.state.base import SharedState


@dataclass(slots=True)
class Storage:
    """Everything kept, on one backend: the mirror, shared state, post ledger, subscriptions."""

    store: Store
    state: SharedState
    ledger: PostLedger
    subscriptions: StateSubscriptions
    local: Store | None = None  # with Redis: the local mirror that answers while it is down
    local_profiles: ProfileStore | None = None  # and the profiles it keeps meanwhile
    cache: SharedState | None = (
        None  # the digest cache's state when not ``state`` (REDIS_CACHE_URL)
    )
    redis_reachable: Callable[[], Awaitable[bool]] | None = None  # with Redis: whether it answers
    profiles: ProfileStore | None = None  # where the GitHub profiles of named people are kept


def db_path(db: str) -> str:
    return db if db == ":memory:" else os.path.expanduser(db)


def _state_path(db: str) -> str:
    if db == ":memory:":
        return db
    path = Path(db).expanduser()
    return str(path.with_name(path.stem + "-state" + path.suffix))


def _redis(kind: Any, url: SecretStr, name: str, password: SecretStr | None) -> Any:
    """A ``redis.asyncio.Redis`` client of ``url`` (``REDIS_PASSWORD`` unless the URL has one);
    a malformed URL is a configuration error naming the variable, never repeating it."""
    secret = password.get_secret_value() if password is not None else None
    try:
        return kind.from_url(
            url.get_secret_value(), socket_connect_timeout=1.0, socket_timeout=2.0, password=secret
        )
    except ValueError as exc:
        raise ConfigError(
            f"{name} is not a Redis URL (redis://HOST:PORT/DB, rediss://… or unix://…)"
        ) from exc


async def build_storage(
    settings: Settings, stack: AsyncExitStack, clock: Callable[[], datetime]
) -> Storage:
    """The storage bundle: Redis when ``REDIS_URL`` is set (for replicas), else SQLite files."""
    db = db_path(settings.db)
    if settings.redis.url is not None:
        from redis.asyncio import Redis

        from digest.backends.redis.ledger import RedisLedger
        from digest.backends.redis.mirror import RedisStore
        from digest.backends.redis.state import RedisState

        client = _redis(Redis, settings.redis.url, "REDIS_URL", settings.redis.password)
        stack.push_async_callback(client.aclose)
        cache: SharedState | None = None
        if settings.redis.cache_url is not None:
            cache_client = _redis(
                Redis, settings.redis.cache_url, "REDIS_CACHE_URL", settings.redis.password
            )
            stack.push_async_callback(cache_client.aclose)
            cache = RedisState(cache_client)
        local = SQLiteStore(db)
        stack.push_async_callback(local.close)
        shared = RedisState(client)
        mirror = RedisStore(client)
        return Storage(
            store=mirror,
            state=shared,
            ledger=RedisLedger(client, prefix=shared.prefix),
            subscriptions=StateSubscriptions(shared),
            local=local,
            local_profiles=local,
            cache=cache,
            redis_reachable=shared.reachable,
            profiles=mirror,
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
        profiles=store,
    )
