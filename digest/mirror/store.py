"""The store interface: a mirror of items and comments per repository, plus sync state.

Conversation and review comments are stored side by side (their ids are unique per kind):
``upsert_comments`` takes both, ``comments_created`` returns both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from digest.models import Comment, Item, Window

if TYPE_CHECKING:
    from digest.i18n import Note


@dataclass(frozen=True, slots=True)
class SyncState:
    """Where the mirror of one repository stands.

    ``cursor`` is the newest ``updated_at`` seen on each stream (issues, conversation comments,
    review comments); ``review_comments_checked`` is the items cursor as it stood when the
    review stream was last read in full; ``covered_since`` is the earliest moment from which
    the mirror is complete; ``synced_at`` is when the last sync finished.
    """

    items_cursor: datetime | None = None
    comments_cursor: datetime | None = None
    review_comments_cursor: datetime | None = None
    review_comments_checked: datetime | None = None
    covered_since: datetime | None = None
    synced_at: datetime | None = None
    etags: dict[str, str] = field(default_factory=dict)


class Store(Protocol):
    """Mirror storage. Window queries use indexes, never scans of the whole mirror."""

    async def upsert_items(self, items: Sequence[Item]) -> None: ...

    async def upsert_comments(self, comments: Sequence[Comment]) -> None: ...

    async def delete_items(self, repo: str, numbers: Sequence[int]) -> None:
        """Remove items (deleted or transferred on GitHub) and every comment on them."""
        ...

    async def items_created(self, repo: str, start: datetime, end: datetime) -> list[Item]: ...

    async def items_closed(self, repo: str, start: datetime, end: datetime) -> list[Item]: ...

    async def items_merged(self, repo: str, start: datetime, end: datetime) -> list[Item]: ...

    async def items_updated(self, repo: str, start: datetime, end: datetime) -> list[Item]: ...

    async def comments_created(
        self, repo: str, start: datetime, end: datetime
    ) -> list[Comment]: ...

    async def items_by_number(self, repo: str, numbers: Sequence[int]) -> list[Item]: ...

    async def get_sync_state(self, repo: str) -> SyncState: ...

    async def set_sync_state(self, repo: str, state: SyncState) -> None: ...

    async def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Completion:
    """When a sync the rate limit stopped can complete: the requests it still needs, at the
    limit's hourly rate from its reset on, the last hour's worth starting ``at``."""

    at: datetime
    requests: int
    per_hour: int


class SyncResult(Protocol):
    """What a sync reports: when it finished, visible gaps, what the store now covers and, for
    a sync the rate limit stopped, when it can complete."""

    @property
    def synced_at(self) -> datetime | None: ...

    @property
    def notes(self) -> tuple[Note, ...]: ...

    @property
    def covered_from(self) -> datetime | None:
        """The earliest moment from which the store answers every window up to now; ``None``
        when it answers only the window asked for."""
        ...

    @property
    def repo(self) -> str | None:
        """What the repository is called now when the sync found it renamed (its mirror is
        under that name), else ``None``."""
        ...

    @property
    def completion(self) -> Completion | None: ...


class Sync(Protocol):
    """Brings the mirror up to date for a window."""

    async def ensure(self, repo: str, window: Window) -> SyncResult: ...
