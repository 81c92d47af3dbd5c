"""Renamed repositories: GitHub answers a renamed repository's old name with a 301 (the lists
follow it) but its Search API refuses the old name (422).

Once a redirect or a refused search shows the rename, the mirror moves to the new name (its
cursors too: the sync goes on where it was, when the store can move it) and the new name is
kept in the old name's sync state, an alias: commands and subscriptions may go on naming the
old one, and the sync, the mirror and the report use the new one.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Protocol, runtime_checkable

from digest.errors import RateLimited, SourceUnavailable
from digest.github.client import GitHubClient
from digest.mirror.store import Store, SyncState

log = logging.getLogger(__name__)

RENAMED = "renamed-to"  # the sync-state key of what an old name is called now
_HOPS = 5  # renamed, renamed again: at most this many names followed


@runtime_checkable
class Movable(Protocol):
    """A mirror that can move a repository's rows to another name (both backends)."""

    async def rename_repo(self, old: str, new: str) -> bool: ...


class Renames:
    """What a repository is called now, from the aliases kept and GitHub's redirects."""

    def __init__(self, client: GitHubClient, store: Store) -> None:
        self._client = client
        self._store = store
        self._checked: set[str] = set()  # names whose redirect was looked into

    async def current(self, repo: str) -> str:
        """``repo``, or the name it was last known to be renamed to."""
        name = repo
        for _ in range(_HOPS):
            new = (await self._store.get_sync_state(name)).etags.get(RENAMED)
            if not new or new.lower() == name.lower():
                break
            name = new
        return name

    async def moved(self, repo: str) -> str | None:
        """The new name of ``repo`` when a redirect of its paths showed it moved (one look-up
        of the repository per name and process); ``None`` when it is still ``repo``."""
        key = repo.lower()
        if key not in self._client.redirected or key in self._checked:
            return None
        try:
            row = await self._client.repository(repo)
        except (RateLimited, SourceUnavailable):  # looked into again by a later sync
            return None
        self._checked.add(key)
        full = str(row.get("full_name") or repo)
        return full if full.lower() != key else None

    async def record(self, old: str, new: str) -> None:
        """Move the mirror of ``old`` to ``new`` (unless ``new`` has one already, or the store
        cannot) and keep ``new`` as what ``old`` is called now."""
        store = self._store
        state = await store.get_sync_state(old)
        if isinstance(store, Movable) and await store.rename_repo(old, new):
            log.info("sync.mirror_moved", extra={"repo": old, "now": new})
            state = SyncState()
        await store.set_sync_state(old, replace(state, etags={**state.etags, RENAMED: new}))
        self._checked.add(new.lower())
        log.warning("sync.repo_renamed", extra={"repo": old, "now": new})
