"""One place where Redis failures become :class:`~digest.errors.StateUnavailable`.

Every Redis call of the store and of the shared state runs through a :class:`RedisGuard`:
it bounds the call with a timeout, translates connection failures, logs ``state.degraded``
once when an outage starts and ``state.recovered`` when a call succeeds again. After a failure
it fails fast for ``retry_after`` seconds, then lets the next call try the server again, so
service resumes without a restart.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError as RedisOutOfMemory
from redis.exceptions import TimeoutError as RedisTimeoutError

from digest.errors import StateUnavailable

log = logging.getLogger("digest.state")

_T = TypeVar("_T")
# A Redis at its ``maxmemory`` with ``noeviction`` refuses writes: unavailable, like one down.
_FAILURES = (RedisConnectionError, RedisTimeoutError, RedisOutOfMemory, TimeoutError, OSError)


class RedisGuard:
    """Timeouts, error translation and outage tracking for one Redis client."""

    def __init__(
        self, *, component: str, server: str = "", timeout: float = 1.0, retry_after: float = 0.5
    ) -> None:
        self._component = component
        self._server = server
        self._timeout = timeout
        self._retry_after = retry_after
        self._down_since: float | None = None
        self._retry_at = 0.0

    @property
    def degraded(self) -> bool:
        """Whether the last call failed (the next one may still succeed)."""
        return self._down_since is not None

    async def run(self, op: str, call: Callable[[], Awaitable[_T]]) -> _T:
        """Await ``call()``; raise ``StateUnavailable`` when Redis cannot answer it."""
        if self._down_since is not None and time.monotonic() < self._retry_at:
            raise StateUnavailable(f"{self._component}: Redis unavailable (retrying shortly)")
        try:
            async with asyncio.timeout(self._timeout):
                result = await call()
        except _FAILURES as exc:
            self._failed(op, exc)
            raise StateUnavailable(f"{self._component}: Redis unavailable") from exc
        if self._down_since is not None:
            log.warning(
                "state.recovered",
                extra={
                    "component": self._component,
                    "server": self._server,
                    "outage_seconds": round(time.monotonic() - self._down_since, 3),
                },
            )
            self._down_since = None
        return result

    def _failed(self, op: str, exc: BaseException) -> None:
        now = time.monotonic()
        self._retry_at = now + self._retry_after
        if self._down_since is None:
            self._down_since = now
            log.warning(
                "state.degraded",
                extra={
                    "component": self._component,
                    "server": self._server,
                    "op": op,
                    "error": type(exc).__name__,
                    "retry_after_seconds": self._retry_after,
                },
            )


def server_of(client: object) -> str:
    """``host:port`` of a ``redis.asyncio.Redis`` client, for logs (never credentials)."""
    pool = getattr(client, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", {}) or {}
    if "path" in kwargs:
        return str(kwargs["path"])
    return f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"
