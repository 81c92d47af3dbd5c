"""Windows older than the mirror: their items through the Search API, their comments when the
budget allows, and the markers that let a repeat reuse them.

A window fetched so is trusted while a mirror has streamed every change since, or for
``SEARCH_FRESH``; its markers hold whole seconds (GitHub's precision).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from digest.github.client import GitHubClient, ItemKindName, SearchField, github_time
from digest.github.parse import item_from_api
from digest.i18n import Note
from digest.mirror.markers import mark, trusted, whole_second
from digest.mirror.old_comments import OldComments
from digest.mirror.report import Tally
from digest.mirror.store import Store, SyncState
from digest.models import Item

_QUERIES: tuple[tuple[ItemKindName, SearchField], ...] = (
    ("issue", "created"),
    ("issue", "closed"),
    ("pr", "created"),
    ("pr", "closed"),
)


class OldWindows:
    """Fetches a window older than the mirror into the store."""

    def __init__(
        self,
        client: GitHubClient,
        store: Store,
        comments: OldComments,
        *,
        clock: Callable[[], datetime],
        web_url: str,
    ) -> None:
        self._client = client
        self._store = store
        self._comments = comments
        self._clock = clock
        self._web_url = web_url

    async def fetch(
        self, repo: str, state: SyncState, start: datetime, end: datetime, tally: Tally
    ) -> SyncState:
        """Items of ``[start, end)`` through the Search API, comments when within budget."""
        # markers hold whole seconds (GitHub's precision): widen the window to whole seconds so
        # that a later check of the same window compares like with like
        start, end = whole_second(start), whole_second(end, up=True)
        span = f"{github_time(start)}..{github_time(end)}"
        items_key, comments_key = f"search {span}", f"old-comments {span}"
        client = self._client
        if not trusted(state, "search", start, end, self._clock()):
            tally.used_search = True
            before = client.requests_made
            found = await self._search(repo, start, end, tally)
            tally.requests["search"] += client.requests_made - before
            if found:
                state = mark(state, items_key, self._clock())
            else:
                tally.notes.append(Note("sync.search_incomplete", (("span", span),)))
        if not trusted(state, "old-comments", start, end, self._clock()):
            complete = True
            fetched = False
            for stream in ("comments", "review_comments"):
                before = client.requests_made
                state, done = await self._comments.read(repo, state, stream, start, end, tally)
                tally.requests[stream] += client.requests_made - before
                fetched = fetched or client.requests_made > before
                complete = complete and done
            if fetched:
                before = client.requests_made
                await self._comments.fetch_discussed(repo, start, end, tally)
                tally.requests["items"] += client.requests_made - before
            if complete:
                state = mark(state, comments_key, self._clock())
        await self._store.set_sync_state(repo, state)
        return state

    async def _search(self, repo: str, start: datetime, end: datetime, tally: Tally) -> bool:
        """Issues and PRs created or closed in the window (a merge closes its PR too); whether
        GitHub served every match."""
        found: dict[int, Item] = {}
        complete = True
        for kind, when in _QUERIES:
            result = await self._client.search(repo, kind=kind, field=when, start=start, end=end)
            complete = complete and result.complete
            for row in result.rows:
                item = item_from_api(row, repo, self._web_url)
                found[item.number] = item
        await self._store.upsert_items(list(found.values()))
        tally.items.update(found)
        return complete
