"""The post ledger: claims and "posted" markers shared by every replica.

:class:`StateLedger` works with any shared state (SQLite for one process, Redis for several),
with the state's own expiry; :class:`~digest.backends.redis.ledger.RedisLedger` is the Redis ledger
whose expiry follows the scheduler's clock.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Protocol

from digest.state.base import SharedState

log = logging.getLogger(__name__)


class PostLedger(Protocol):
    """Claims and "posted" markers shared by every replica.

    Expiry follows the ``now`` passed in (the scheduler's clock), so a claim held by a dead
    replica frees up after ``ttl`` of scheduled time.
    """

    async def claim(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        """Take ``key`` unless it is posted or held by a claim that has not expired."""
        ...

    async def extend(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        """Renew ``owner``'s claim; false when the claim was lost (expired and taken)."""
        ...

    async def release(self, key: str, owner: str) -> None:
        """Drop ``owner``'s claim so the run can be retried; never drops a posted marker."""
        ...

    async def mark_posted(self, key: str, owner: str, now: datetime, keep: timedelta) -> None:
        """Record that the run was posted; kept for ``keep``."""
        ...

    async def is_posted(self, key: str) -> bool: ...


class StateLedger:
    """A :class:`~digest.schedule.scheduler.PostLedger` made of shared-state claims and values."""

    def __init__(self, state: SharedState) -> None:
        self._state = state
        self._tokens: dict[tuple[str, str], str] = {}

    async def claim(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        token = await self._state.claim(f"run:{key}", ttl)
        if token is None:
            return False
        if await self.is_posted(key):
            await self._state.release(f"run:{key}", token)
            return False
        self._tokens[(key, owner)] = token
        return True

    async def extend(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        token = self._tokens.get((key, owner))
        return token is not None and await self._state.renew(f"run:{key}", token, ttl)

    async def release(self, key: str, owner: str) -> None:
        token = self._tokens.pop((key, owner), None)
        if token is not None:
            await self._state.release(f"run:{key}", token)

    async def mark_posted(self, key: str, owner: str, now: datetime, keep: timedelta) -> None:
        await self._state.set(f"posted:{key}", owner, keep)
        await self.release(key, owner)

    async def is_posted(self, key: str) -> bool:
        return await self._state.get(f"posted:{key}") is not None
