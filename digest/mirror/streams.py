"""The three streams that feed the mirror, each read from its cursor with its ETag.

Issues and PRs, conversation comments and inline review comments come from the
repository-wide list endpoints, sorted by ``updated_at``; each stream's cursor is the newest
``updated_at`` it stored. A new review comment moves its PR's ``updated_at``, so the review
stream is read only when the mirror holds a PR updated after the newest update the mirror knew
when the stream was last read in full: an unchanged repository costs two 304s. (An edit of a
review comment that leaves its PR untouched waits for the PR's next update.)
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import aclosing
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Literal

from digest.github.client import PER_PAGE, GitHubClient, Page, github_time
from digest.github.parse import (
    comment_from_api,
    item_from_api,
    parse_time,
    review_comment_from_api,
)
from digest.mirror.report import Tally
from digest.mirror.store import Store, SyncState

Stream = Literal["issues", "comments", "review_comments"]
CommentStream = Literal["comments", "review_comments"]
STREAMS: tuple[Stream, ...] = ("issues", "comments", "review_comments")
_SECOND = timedelta(seconds=1)


def cursor_of(state: SyncState, stream: Stream) -> datetime | None:
    """The newest ``updated_at`` the mirror stored of ``stream``."""
    if stream == "issues":
        return state.items_cursor
    if stream == "comments":
        return state.comments_cursor
    return state.review_comments_cursor


async def upsert_page(
    store: Store, repo: str, stream: Stream, page: Page, tally: Tally, *, web_url: str
) -> datetime | None:
    """Store one page of ``stream``; returns its newest ``updated_at``."""
    if stream == "issues":
        items = [item_from_api(row, repo, web_url) for row in page.rows]
        await store.upsert_items(items)
        tally.items.update(i.number for i in items)
        return max((i.updated_at for i in items), default=None)
    parse = review_comment_from_api if stream == "review_comments" else comment_from_api
    comments = [parse(row, repo, web_url) for row in page.rows]
    await store.upsert_comments(comments)
    seen = tally.review_comments if stream == "review_comments" else tally.comments
    seen.update(c.id for c in comments)
    return max((c.updated_at for c in comments), default=None)


class Streams:
    """Reads the three streams into the store so that the mirror covers ``[since, now)``.

    A stream resumes from its cursor less ``overlap`` (re-seen rows are upserts).
    """

    def __init__(
        self,
        client: GitHubClient,
        store: Store,
        *,
        clock: Callable[[], datetime],
        overlap: timedelta,
        web_url: str,
    ) -> None:
        self._client = client
        self._store = store
        self._clock = clock
        self._overlap = overlap
        self._web_url = web_url

    async def mirror(self, repo: str, state: SyncState, since: datetime, tally: Tally) -> SyncState:
        """Stream the three endpoints so the mirror covers ``[since, now)``."""
        first = state.covered_since is None  # coverage is marked once every stream is complete
        extend = not first and since < (state.covered_since or since)
        items_since = self._since(state, "issues", since, extend)
        comments_since = self._since(state, "comments", since, extend)
        reviews_since = self._since(state, "review_comments", since, extend)
        state = await self._stream(repo, "issues", items_since, state, tally)
        state = await self._stream(repo, "comments", comments_since, state, tally)
        if extend or await self._reviews_due(repo, state):
            known = state.items_cursor
            state = await self._stream(repo, "review_comments", reviews_since, state, tally)
            state = replace(state, review_comments_checked=known)
        else:
            tally.done.add("review_comments")  # nothing new there: no PR moved
        if first or extend:
            state = replace(state, covered_since=since)
        state = replace(state, synced_at=self._clock())
        await self._store.set_sync_state(repo, state)
        return state

    async def _reviews_due(self, repo: str, state: SyncState) -> bool:
        """Whether the review stream may hold news: never read in full, or the mirror holds a
        PR updated after the newest update it knew when the stream was last read in full."""
        checked = state.review_comments_checked
        if checked is None or state.items_cursor is None:
            return True
        if state.items_cursor <= checked:
            return False
        after = checked + timedelta(microseconds=1)
        moved = await self._store.items_updated(repo, after, state.items_cursor + _SECOND)
        return any(item.is_pr for item in moved)

    def _since(self, state: SyncState, stream: Stream, start: datetime, extend: bool) -> datetime:
        """Where a stream resumes: the cursor less the overlap, or earlier at the start of the
        last query whose ETag is kept (so an unchanged repository answers 304)."""
        cursor = cursor_of(state, stream)
        if extend or cursor is None:
            return start
        since = cursor - self._overlap
        kept = [parse_time(k.split("=", 1)[1]) for k in state.etags if k.startswith(f"{stream}?")]
        anchor = max((moment for moment in kept if moment is not None), default=None)
        return anchor if anchor is not None and anchor <= since else since

    async def _stream(
        self, repo: str, stream: Stream, since: datetime, state: SyncState, tally: Tally
    ) -> SyncState:
        before = self._client.requests_made
        tally.began.setdefault(stream, since)
        try:
            state = await self._read(repo, stream, since, state, tally)
        finally:
            tally.requests[stream] += self._client.requests_made - before
        tally.done.add(stream)
        return state

    async def _read(
        self, repo: str, stream: Stream, since: datetime, state: SyncState, tally: Tally
    ) -> SyncState:
        """One endpoint from ``since``: upsert page by page, advance the cursor, keep an ETag.

        After each full page the query restarts from that page's newest ``updated_at`` (less a
        second) instead of following the page-number Link: an item updated mid-sync moves to
        the end of the list and would shift an unseen row onto a page already read. The Link
        is followed only when one second holds a whole page.

        The ETag of the last query is kept when its answer was one page that was not full:
        new updates sort last, so a 304 for that query proves nothing changed.
        """
        fetch = {
            "issues": self._client.issues,
            "comments": self._client.comments,
            "review_comments": self._client.review_comments,
        }[stream]
        etag = state.etags.get(_etag_key(stream, since))
        tail: tuple[datetime, Page] | None = None  # the last query's start and only page
        cursor: datetime | None = since
        while cursor is not None:
            anchor, cursor = cursor, None
            count = 0
            async with aclosing(fetch(repo, anchor, etag=etag)) as stream_pages:
                async for page in stream_pages:
                    if page.not_modified:
                        return state
                    count += 1
                    tail = (anchor, page) if count == 1 else None
                    newest = await upsert_page(
                        self._store, repo, stream, page, tally, web_url=self._web_url
                    )
                    state = _advance(state, stream, newest)
                    if not page.has_next:
                        break
                    await self._store.set_sync_state(repo, state)
                    if newest is not None and newest - _SECOND > anchor:
                        cursor = newest - _SECOND
                        break
            etag = None
        etags = {k: v for k, v in state.etags.items() if not k.startswith(f"{stream}?")}
        if tail is not None:
            anchor, page = tail
            if not page.has_next and len(page.rows) < PER_PAGE and page.etag:
                etags[_etag_key(stream, anchor)] = page.etag
        state = replace(state, etags=etags)
        await self._store.set_sync_state(repo, state)
        return state


def _etag_key(stream: Stream, since: datetime) -> str:
    return f"{stream}?since={github_time(since)}"


def _advance(state: SyncState, stream: Stream, newest: datetime | None) -> SyncState:
    if newest is None:
        return state
    current = cursor_of(state, stream)
    moved = newest if current is None else max(current, newest)
    if stream == "issues":
        return replace(state, items_cursor=moved)
    if stream == "comments":
        return replace(state, comments_cursor=moved)
    return replace(state, review_comments_cursor=moved)
