"""Reconciliation: removing from the mirror the items GitHub deleted or moved elsewhere.

The streams never say that an item is gone, so recently updated items are re-read a few at a
time. An issue row reached through a redirect still belongs to the repository when it was only
renamed (its mirror keeps its rows); one transferred elsewhere does not.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from digest.errors import NotFound, RateLimited
from digest.github.client import GitHubClient
from digest.github.parse import item_from_api
from digest.mirror.store import Store
from digest.mirror.tuning import spendable

log = logging.getLogger(__name__)

_RECONCILED = "reconciled-after"  # the sync-state key of the last number reconciled


class RepoNames:
    """What each repository is called on GitHub now, looked up once when a row needs it."""

    def __init__(self, client: GitHubClient) -> None:
        self._client = client
        self._names: dict[str, str] = {}  # repository -> its current name, once looked up

    async def belongs(self, row: dict[str, object], repo: str) -> bool:
        """Whether an issue row, perhaps reached through a redirect, is still of ``repo``: its
        repository is ``repo`` or what ``repo`` is called now (a renamed repository keeps its
        mirror); anything else was transferred."""
        found = _repo_of(row)
        if found is None or found == repo.lower():
            return True
        current = self._names.get(repo.lower())
        if current is None:
            full = (await self._client.repository(repo)).get("full_name") or repo
            current = self._names[repo.lower()] = str(full).lower()
            if current != repo.lower():
                log.warning("sync.repo_renamed", extra={"repo": repo, "now": current})
        return found == current


class Reconciler:
    """Re-reads a repository's recently updated items in turns and removes those gone."""

    def __init__(
        self,
        client: GitHubClient,
        store: Store,
        names: RepoNames,
        *,
        clock: Callable[[], datetime],
        web_url: str,
    ) -> None:
        self._client = client
        self._store = store
        self._names = names
        self._clock = clock
        self._web_url = web_url

    async def reconcile(self, repo: str, *, days: int, budget: int) -> list[int]:
        """Re-read up to ``budget`` mirrored items updated in the last ``days`` days, in turns
        (each call continues after the last number it read), and remove those GitHub no longer
        has in this repository: deleted (410 or 404) or transferred (redirected elsewhere).
        Returns the numbers removed. Reads at most ``budget`` items (fewer near the rate
        limit); a redirect costs one request more, the first transfer one look-up of the
        repository's current name."""
        now = self._clock()
        state = await self._store.get_sync_state(repo)
        recent = sorted(
            i.number for i in await self._store.items_updated(repo, now - timedelta(days=days), now)
        )
        after = int(state.etags.get(_RECONCILED, "0") or 0)
        turn = [n for n in recent if n > after] + [n for n in recent if n <= after]
        gone: list[int] = []
        last = after
        for number in turn[: spendable(self._client.remaining("core"), budget)]:
            try:
                row = await self._client.issue(repo, number)
            except NotFound:
                gone.append(number)
            except RateLimited:
                break
            else:
                if await self._names.belongs(row, repo):
                    await self._store.upsert_items([item_from_api(row, repo, self._web_url)])
                else:
                    gone.append(number)
            last = number
        if gone:
            await self._store.delete_items(repo, gone)
            log.info("sync.reconciled", extra={"repo": repo, "removed": gone})
        state = await self._store.get_sync_state(repo)  # as a sync may have left it meanwhile
        etags = {**state.etags, _RECONCILED: str(last)}
        await self._store.set_sync_state(repo, replace(state, etags=etags))
        return gone


def _repo_of(row: dict[str, object]) -> str | None:
    """``owner/name`` (lower case) of an issue row, from its API or web URL."""
    api = str(row.get("repository_url") or "")
    if "/repos/" in api:
        return api.split("/repos/", 1)[1].strip("/").lower()
    web = str(row.get("html_url") or "")
    parts = web.split("://", 1)[-1].split("/")
    return f"{parts[1]}/{parts[2]}".lower() if len(parts) >= 4 else None
