"""The store's item window queries, each one timestamp column of a single query."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from typing import Literal

from digest.models import Item

Column = Literal["created_at", "closed_at", "merged_at", "updated_at"]


class ItemWindows(ABC):
    """``items_created``, ``items_closed``, ``items_merged`` and ``items_updated`` of a store."""

    __slots__ = ()

    @abstractmethod
    async def _items_between(
        self, column: Column, repo: str, start: datetime, end: datetime
    ) -> list[Item]:
        """The repository's items whose ``column`` is in ``[start, end)``, by it then number."""

    async def items_created(self, repo: str, start: datetime, end: datetime) -> list[Item]:
        return await self._items_between("created_at", repo, start, end)

    async def items_closed(self, repo: str, start: datetime, end: datetime) -> list[Item]:
        return await self._items_between("closed_at", repo, start, end)

    async def items_merged(self, repo: str, start: datetime, end: datetime) -> list[Item]:
        return await self._items_between("merged_at", repo, start, end)

    async def items_updated(self, repo: str, start: datetime, end: datetime) -> list[Item]:
        return await self._items_between("updated_at", repo, start, end)
