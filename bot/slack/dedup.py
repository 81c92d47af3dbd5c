"""De-duplication of Slack deliveries through claims on a shared state."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Protocol

from digest.errors import StateUnavailable

log = logging.getLogger(__name__)

DELIVERY_TTL = timedelta(hours=2)


class Claims(Protocol):
    """Anything that claims a key once: ``SharedState`` or :class:`MemoryClaims`."""

    async def claim(self, key: str, ttl: timedelta) -> str | None: ...


class MemoryClaims:
    """In-process claims: enough for one bot process."""

    def __init__(self, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._until: dict[str, float] = {}

    async def claim(self, key: str, ttl: timedelta) -> str | None:
        now = self._monotonic()
        if len(self._until) > 10_000:
            self._until = {k: t for k, t in self._until.items() if t > now}
        if self._until.get(key, 0.0) > now:
            return None
        self._until[key] = now + ttl.total_seconds()
        return key


class Deliveries:
    """Says whether a delivery is new; falls back to in-process claims when the state is down."""

    def __init__(self, claims: Claims | None = None) -> None:
        self._local = MemoryClaims()
        self._claims: Claims = claims or self._local

    async def first(self, *keys: str) -> bool:
        """Whether none of ``keys`` was seen before (and claim them all)."""
        fresh = True
        for key in keys:
            try:
                token = await self._claims.claim(f"slack-delivery:{key}", DELIVERY_TTL)
            except StateUnavailable as exc:
                log.warning("slack.dedup_degraded", extra={"key": key, "error": str(exc)})
                token = await self._local.claim(f"slack-delivery:{key}", DELIVERY_TTL)
            fresh = fresh and token is not None
        return fresh
