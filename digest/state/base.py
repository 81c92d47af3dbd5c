"""Shared state: cached values, claims and subscriptions, the same across every replica.

Two implementations: :class:`digest.backends.redis.state.RedisState` (shared by replicas) and
:class:`digest.backends.sqlite.state.SQLiteState` (one process; a file keeps it across restarts,
``":memory:"`` is in-process only).

The API, and what each front end uses it for:

``get(key)`` / ``set(key, value, ttl)``
    A string value that expires after ``ttl``: the digest cache, sync records.
``claim(key, ttl) -> token | None``
    Take ``key`` if nobody holds it (``SET NX PX``): the token proves ownership, ``None``
    means someone else holds it. A claim expires after ``ttl``, after which anyone may claim
    the key again (takeover when a holder dies). Uses:

    - lock: ``claim`` with a short ttl, ``renew`` while working, ``release`` when done;
    - "posted" marker: ``claim(f"posted:{sub}:{window.start}", ttl=days)`` before posting,
      ``release`` if the post fails, keep it once the post succeeded;
    - event de-duplication: ``claim(f"slack-event:{event_id}", ttl=hour)``; a ``None`` means
      the event was already handled.
``renew(key, token, ttl) -> bool`` / ``release(key, token) -> bool``
    Extend or drop a claim, only when ``token`` still owns it (``False`` otherwise).
``take(key, capacity, period) -> wait``
    Take one token from the token bucket ``key``, which holds ``capacity`` tokens and refills
    evenly, ``capacity`` per ``period``: ``None`` when a token was taken, else how long until
    one is available (nothing is taken then). Atomic, so replicas share one bucket: the rate
    limits of chat commands (:mod:`digest.state.limiter`).
``put_subscription`` / ``delete_subscription`` / ``subscriptions``
    JSON documents keyed by ``(platform, channel, key)``: subscriptions of chat channels.
    ``subscriptions()`` lists them all (the scheduler), filtered by platform and/or channel.

Every method may raise :class:`~digest.errors.StateUnavailable` (Redis down); callers decide
how to degrade (answer without cache, skip a post until the next attempt, ...).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class SubscriptionDoc:
    """One stored subscription document of a chat channel."""

    platform: str  # "slack" | "discord"
    channel: str
    key: str  # e.g. the repository, so a channel may follow several
    doc: Mapping[str, Any] = field(default_factory=dict)


class SharedState(Protocol):
    """Cached values, claims and subscriptions; see the module docstring."""

    async def get(self, key: str) -> str | None: ...

    async def set(self, key: str, value: str, ttl: timedelta) -> None: ...

    async def claim(self, key: str, ttl: timedelta) -> str | None: ...

    async def renew(self, key: str, token: str, ttl: timedelta) -> bool: ...

    async def release(self, key: str, token: str) -> bool: ...

    async def take(self, key: str, capacity: int, period: timedelta) -> timedelta | None: ...

    async def put_subscription(
        self, platform: str, channel: str, key: str, doc: Mapping[str, Any]
    ) -> None: ...

    async def delete_subscription(self, platform: str, channel: str, key: str) -> bool: ...

    async def subscriptions(
        self, platform: str | None = None, channel: str | None = None
    ) -> list[SubscriptionDoc]: ...


def new_token() -> str:
    """A random claim token."""
    return secrets.token_hex(16)


def ttl_ms(ttl: timedelta) -> int:
    """A positive time-to-live in whole milliseconds."""
    millis = int(ttl.total_seconds() * 1000)
    if millis <= 0:
        raise ValueError(f"a time-to-live must be positive, not {ttl}")
    return millis


def bucket_take(
    tokens: float | None, at_ms: int | None, now_ms: int, capacity: int, period_ms: int
) -> tuple[float, int]:
    """The tokens left in a bucket after taking one at ``now_ms`` (full when it is new), and
    the milliseconds to wait when none is left (0: taken). The Redis script does the same."""
    rate = capacity / period_ms
    held = capacity if tokens is None or at_ms is None else tokens
    held = min(capacity, held + max(0, now_ms - (at_ms or now_ms)) * rate)
    if held >= 1:
        return held - 1, 0
    return held, max(1, math.ceil((1 - held) * period_ms / capacity - 1e-6))
