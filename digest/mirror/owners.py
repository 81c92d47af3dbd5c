"""An owner's repositories active in a window: what a scope's ``owner/*`` entry stands for.

GitHub lists an owner's repositories most recently pushed first (``/orgs/{owner}/repos``, or
``/users/{owner}/repos`` for a user); the listing is read page by page until a repository
was last pushed to before the window began. Archived, private and issue-less repositories
are left out. Each owner's listing is kept for ``ttl``, with how far back it reached, so a
repeat within it costs no request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from digest.errors import NotFound, RepoRefused
from digest.models import Window
from digest.scope import Picked, Scope

# the pages of one owner's listing read at most (100 repositories each)
MAX_PAGES = 5


class OwnerClient(Protocol):
    """:meth:`digest.github.client.GitHubClient.owner_repos`."""

    def owner_repos(self, owner: str, *, user: bool = False) -> Any: ...


@dataclass(frozen=True, slots=True)
class _Listing:
    """An owner's repositories (name, last push) as far back as ``reached`` (None: all)."""

    repos: tuple[tuple[str, datetime], ...]
    reached: datetime | None
    fetched: datetime


def _parse(moment: str | None) -> datetime | None:
    return None if not moment else datetime.fromisoformat(moment.replace("Z", "+00:00"))


def _kept(row: dict[str, Any]) -> bool:
    return not row.get("archived") and not row.get("private") and row.get("has_issues", True)


class OwnerRepos:
    """Resolves the ``owner/*`` entries of a scope for a window, over ``client``."""

    def __init__(
        self,
        client: OwnerClient,
        clock: Callable[[], datetime],
        *,
        ttl: timedelta = timedelta(minutes=10),
    ) -> None:
        self._client = client
        self._clock = clock
        self._ttl = ttl
        self._listings: dict[str, _Listing] = {}
        self._lock = asyncio.Lock()

    async def resolve(self, scope: Scope, window: Window) -> Scope:
        """``scope`` with its ``owner/*`` entries replaced by their active repositories; an
        owner GitHub does not have is ``RepoRefused(owner/*, "missing")``."""
        if not scope.owners:
            return scope
        picks = []
        for owner in scope.owners:
            active = await self.active(owner, window.start)
            picks.append(Picked(owner, active[: scope.owner_cap], len(active), scope.owner_cap))
        return scope.resolved(tuple(picks))

    async def active(self, owner: str, since: datetime) -> tuple[str, ...]:
        """The owner's repositories pushed to at or after ``since``, most recent first (as far
        as the listing's pages reach)."""
        async with self._lock:
            listing = self._listings.get(owner.lower())
            fresh = listing is not None and self._clock() - listing.fetched < self._ttl
            if not fresh or (listing and listing.reached and listing.reached > since):
                listing = await self._list(owner, since)
                self._listings[owner.lower()] = listing
        assert listing is not None
        return tuple(name for name, pushed in listing.repos if pushed >= since)

    async def _list(self, owner: str, since: datetime) -> _Listing:
        fetched = self._clock()
        try:
            return await self._read(owner, since, fetched, user=False)
        except NotFound:
            pass
        try:
            return await self._read(owner, since, fetched, user=True)
        except NotFound as exc:
            raise RepoRefused(f"{owner}/*", "missing") from exc

    async def _read(
        self, owner: str, since: datetime, fetched: datetime, *, user: bool
    ) -> _Listing:
        repos: list[tuple[str, datetime]] = []
        pages = 0
        async for page in self._client.owner_repos(owner, user=user):
            pages += 1
            oldest: datetime | None = None
            for row in page.rows:
                pushed = _parse(row.get("pushed_at"))
                if pushed is None:
                    continue
                oldest = pushed if oldest is None else min(oldest, pushed)
                if _kept(row):
                    repos.append((str(row["full_name"]), pushed))
            if oldest is not None and oldest < since:
                return _Listing(tuple(repos), oldest, fetched)
            if not page.has_next:
                return _Listing(tuple(repos), None, fetched)
            if pages >= MAX_PAGES:  # as far as it is read: later calls need go no further
                return _Listing(tuple(repos), None, fetched)
        return _Listing(tuple(repos), None, fetched)
