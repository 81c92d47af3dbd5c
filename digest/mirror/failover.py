"""A mirror and its sync that turn to a local mirror while the shared one (Redis) is down.

Reads go to the shared store and, when it raises :class:`~digest.errors.StateUnavailable`, to
the local store; a sync goes through the shared sync and, on the same error, through the local
mirror's own sync. Writes go to the shared store only: each mirror is written by its own sync.
Used for questions, which read the mirror directly; digests fail over as a whole in
:class:`~digest.service.DigestService`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TypeVar

from digest.errors import StateUnavailable
from digest.mirror.store import Store, Sync, SyncResult, SyncState
from digest.models import Comment, Item, Window

_T = TypeVar("_T")


class FailoverStore:
    """A :class:`~digest.mirror.store.Store` that reads ``local`` while ``shared`` is down."""

    def __init__(self, shared: Store, local: Store) -> None:
        self._shared = shared
        self._local = local

    async def _read(self, query: Callable[[Store], Awaitable[_T]]) -> _T:
        try:
            return await query(self._shared)
        except StateUnavailable:
            return await query(self._local)

    async def upsert_items(self, items: Sequence[Item]) -> None:
        await self._shared.upsert_items(items)

    async def upsert_comments(self, comments: Sequence[Comment]) -> None:
        await self._shared.upsert_comments(comments)

    async def delete_items(self, repo: str, numbers: Sequence[int]) -> None:
        await self._shared.delete_items(repo, numbers)

    async def items_created(self, repo: str, start: datetime, end: datetime) -> list[Item]:
        return await self._read(lambda s: s.items_created(repo, start, end))

    async def items_closed(self, repo: str, start: datetime, end: datetime) -> list[Item]:
        return await self._read(lambda s: s.items_closed(repo, start, end))

    async def items_merged(self, repo: str, start: datetime, end: datetime) -> list[Item]:
        return await self._read(lambda s: s.items_merged(repo, start, end))

    async def items_updated(self, repo: str, start: datetime, end: datetime) -> list[Item]:
        return await self._read(lambda s: s.items_updated(repo, start, end))

    async def comments_created(self, repo: str, start: datetime, end: datetime) -> list[Comment]:
        return await self._read(lambda s: s.comments_created(repo, start, end))

    async def items_by_number(self, repo: str, numbers: Sequence[int]) -> list[Item]:
        return await self._read(lambda s: s.items_by_number(repo, numbers))

    async def get_sync_state(self, repo: str) -> SyncState:
        return await self._read(lambda s: s.get_sync_state(repo))

    async def set_sync_state(self, repo: str, state: SyncState) -> None:
        await self._shared.set_sync_state(repo, state)

    async def close(self) -> None:
        """Nothing to release: both stores belong to the caller."""


class FailoverSync:
    """A :class:`~digest.mirror.store.Sync` that syncs ``local`` while ``shared`` is down."""

    def __init__(self, shared: Sync, local: Sync) -> None:
        self._shared = shared
        self._local = local

    async def ensure(self, repo: str, window: Window) -> SyncResult:
        try:
            return await self._shared.ensure(repo, window)
        except StateUnavailable:
            return await self._local.ensure(repo, window)
