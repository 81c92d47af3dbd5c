"""The post ledger: claims, thread progress and "posted" markers shared by every replica.

A run's thread is recorded part by part as it goes out (the parent's id, then each reply's),
under the claim of the replica posting it; a replica that takes over an expired claim reads
those ids and completes the thread from the next part, under the same parent.

:class:`StateLedger` works with any shared state (SQLite for one process, Redis for several),
with the state's own expiry; :class:`~digest.backends.redis.ledger.RedisLedger` is the Redis ledger
whose expiry follows the scheduler's clock.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

from digest.state.base import SharedState

log = logging.getLogger(__name__)

_PARTS_KEEP = timedelta(days=3)


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

    async def record_part(
        self, key: str, owner: str, index: int, message_id: str, now: datetime, ttl: timedelta
    ) -> bool:
        """Record that part ``index`` of the run's thread is out (0 is the parent) and renew
        ``owner``'s claim; false when the claim was lost or ``index`` is not the next part."""
        ...

    async def parts(self, key: str) -> tuple[str, ...]:
        """The message ids of the run's thread recorded so far, in order (0 is the parent)."""
        ...

    async def resume(
        self, key: str, owner: str, now: datetime, ttl: timedelta
    ) -> tuple[str, ...] | None:
        """Renew ``owner``'s claim and read the thread's recorded parts; None when the claim was
        lost."""
        ...

    async def mark_posted(self, key: str, owner: str, now: datetime, keep: timedelta) -> None:
        """Record that the run was posted (its thread complete); kept for ``keep``."""
        ...

    async def is_posted(self, key: str) -> bool: ...

    async def open_thread(self, key: str, doc: Mapping[str, Any], keep: timedelta) -> None:
        """List ``key`` as a thread a command started, described by ``doc``, until it is closed
        (or ``keep`` has passed): a replica that takes over an expired claim finds it here."""
        ...

    async def open_threads(self) -> dict[str, dict[str, Any]]:
        """Every thread opened and not closed: its key and its document."""
        ...

    async def close_thread(self, key: str) -> None:
        """Take ``key`` off the open threads."""
        ...


class StateLedger:
    """A :class:`~digest.schedule.scheduler.PostLedger` made of shared-state claims and values."""

    def __init__(self, state: SharedState) -> None:
        self._state = state
        self._tokens: dict[tuple[str, str], str] = {}
        self._threads_lock = asyncio.Lock()  # one process per state: the index is read-modify-write

    async def claim(self, key: str, owner: str, now: datetime, ttl: timedelta) -> bool:
        if (key, owner) in self._tokens:  # already ours
            return await self.extend(key, owner, now, ttl)
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

    async def record_part(
        self, key: str, owner: str, index: int, message_id: str, now: datetime, ttl: timedelta
    ) -> bool:
        if not await self.extend(key, owner, now, ttl):
            return False
        done = await self.parts(key)
        if len(done) != index:
            return False
        # kept as long as a "posted" marker, so a run can be resumed for its whole grace period
        await self._state.set(f"parts:{key}", json.dumps([*done, message_id]), _PARTS_KEEP)
        return True

    async def parts(self, key: str) -> tuple[str, ...]:
        raw = await self._state.get(f"parts:{key}")
        return tuple(json.loads(raw)) if raw else ()

    async def resume(
        self, key: str, owner: str, now: datetime, ttl: timedelta
    ) -> tuple[str, ...] | None:
        if not await self.extend(key, owner, now, ttl):
            return None
        return await self.parts(key)

    async def mark_posted(self, key: str, owner: str, now: datetime, keep: timedelta) -> None:
        await self._state.set(f"posted:{key}", owner, keep)
        await self.release(key, owner)

    async def is_posted(self, key: str) -> bool:
        return await self._state.get(f"posted:{key}") is not None

    async def open_thread(self, key: str, doc: Mapping[str, Any], keep: timedelta) -> None:
        async with self._threads_lock:
            found = await self.open_threads()
            found[key] = dict(doc)
            await self._state.set("threads", json.dumps(found, sort_keys=True), keep)

    async def open_threads(self) -> dict[str, dict[str, Any]]:
        raw = await self._state.get("threads")
        found = json.loads(raw) if raw else {}
        return found if isinstance(found, dict) else {}

    async def close_thread(self, key: str) -> None:
        async with self._threads_lock:
            found = await self.open_threads()
            if found.pop(key, None) is not None:
                await self._state.set("threads", json.dumps(found, sort_keys=True), _PARTS_KEEP)
