"""The three streams that feed the mirror, each read from its cursor with its ETag.

Issues and PRs, conversation comments and inline review comments come from the
repository-wide list endpoints, sorted by ``updated_at``; each stream's cursor is the newest
``updated_at`` it stored. A new review comment moves its PR's ``updated_at``, so the review
stream is read only when the mirror holds a PR updated after the newest update the mirror knew
when the stream was last read in full: an unchanged repository costs two 304s. (An edit of a
review comment that leaves its PR untouched waits for the PR's next update.)
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
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
REACH = "reach-"  # the prefix of the markers of a reach back in progress
_DONE = "done"
_TAIL = " tail"  # a review stream read to its end, whose tail is read again after the issues
# called after each page a stream stored (the backfill's progress and pacing)
OnPage = Callable[[Stream, Page], Awaitable[None]]


def reach_key(stream: Stream, since: datetime) -> str:
    """The marker of a read of ``stream`` from ``since`` in progress: where it got to."""
    return f"{REACH}{stream} {github_time(since)}"


def reach_progress(state: SyncState, stream: Stream, since: datetime) -> datetime | bool | None:
    """Where an interrupted read of ``stream`` from ``since`` (or from earlier) got to:
    ``True`` when it was read to its end, ``None`` when none was begun."""
    best: datetime | None = None
    for key, value in state.etags.items():
        kind, _, begun = key.partition(" ")
        if kind != f"{REACH}{stream}":
            continue
        moment = parse_time(begun)
        if moment is None or moment > since:
            continue
        if value == _DONE:
            return True
        reached = parse_time(value.removesuffix(_TAIL))
        if reached is not None and (best is None or reached > best):
            best = reached
    return best


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
    tally.pages[stream] += 1
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

    async def mirror(
        self,
        repo: str,
        state: SyncState,
        since: datetime,
        tally: Tally,
        *,
        on_page: OnPage | None = None,
    ) -> SyncState:
        """Stream the three endpoints so the mirror covers ``[since, now)``.

        A first sync, or one reaching back from the mirror, keeps where each stream got to
        (``reach-{stream} SINCE`` markers), so one the rate limit or an interruption stopped
        resumes there; coverage is marked once every stream is complete.
        """
        first = state.covered_since is None
        extend = not first and since < (state.covered_since or since)
        reaching = first or extend
        if reaching:
            state = _begun(state, since)
        for stream in ("issues", "comments"):
            start = self._since(state, stream, since, reaching)
            if start is not None:
                state = await self._stream(repo, stream, start, state, tally, reaching, on_page)
            else:
                tally.done.add(stream)
        reviews_since = self._since(state, "review_comments", since, reaching)
        if reviews_since is not None and (reaching or await self._reviews_due(repo, state)):
            known = state.items_cursor
            state = await self._stream(
                repo, "review_comments", reviews_since, state, tally, reaching, on_page
            )
            state = replace(state, review_comments_checked=known)
        else:
            tally.done.add("review_comments")  # nothing new there: no PR moved
        if reaching:
            etags = {k: v for k, v in state.etags.items() if not k.startswith(REACH)}
            state = replace(state, covered_since=since, etags=etags)
        state = replace(state, synced_at=self._clock())
        await self._store.set_sync_state(repo, state)
        return state

    async def peek(
        self, repo: str, state: SyncState, since: datetime, tally: Tally
    ) -> tuple[SyncState, int]:
        """The first page of each stream of a reach back to ``since`` (from where an
        interrupted one got to), stored as :meth:`mirror` stores it, and the pages the streams
        still need after those (from their ``rel="last"`` links): what :meth:`mirror` from
        ``since`` will cost, for nothing more than the pages it reads first anyway."""
        state = _begun(state, since)
        left = 0
        for stream in STREAMS:
            start = self._since(state, stream, since, True)
            if start is None:
                continue
            marker = next(k for k in state.etags if k.startswith(f"{REACH}{stream} "))
            if state.etags[marker].endswith(_TAIL):  # read to its end by an earlier peek
                left += 1
                continue
            before = self._client.requests_made
            tally.began.setdefault(stream, start)
            try:
                async with aclosing(self._fetch(stream)(repo, start)) as pages:
                    page = await anext(pages, None)
            finally:
                tally.requests[stream] += self._client.requests_made - before
            if page is None:
                continue
            newest = await upsert_page(
                self._store, repo, stream, page, tally, web_url=self._web_url
            )
            state = _advance(state, stream, newest)
            if page.has_next and newest is not None:
                reached = github_time(max(start, newest - _SECOND))
                left += max(1, (page.last or 2) - 1)
            elif stream == "review_comments":
                # read its tail again after the issues, so that the items cursor it is checked
                # against (``review_comments_checked``) is the one the mirror ends with
                tail = start if newest is None else max(start, newest - _SECOND)
                reached = github_time(tail) + _TAIL
                left += 1
            else:
                reached = _DONE
            state = replace(state, etags={**state.etags, marker: reached})
            await self._store.set_sync_state(repo, state)
        return state, left

    def _fetch(self, stream: Stream) -> Callable[..., AsyncGenerator[Page, None]]:
        return {
            "issues": self._client.issues,
            "comments": self._client.comments,
            "review_comments": self._client.review_comments,
        }[stream]

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

    def _since(
        self, state: SyncState, stream: Stream, start: datetime, reaching: bool
    ) -> datetime | None:
        """Where a stream resumes: for a reach back, where an interrupted one got to (``None``
        when it was read to its end); else the cursor less the overlap, or earlier at the start
        of the last query whose ETag is kept (so an unchanged repository answers 304)."""
        cursor = cursor_of(state, stream)
        if reaching:
            got = reach_progress(state, stream, start)
            if got is True:
                return None
            return got if isinstance(got, datetime) and got > start else start
        if cursor is None:
            return start
        since = cursor - self._overlap
        kept = [parse_time(k.split("=", 1)[1]) for k in state.etags if k.startswith(f"{stream}?")]
        anchor = max((moment for moment in kept if moment is not None), default=None)
        return anchor if anchor is not None and anchor <= since else since

    async def _stream(
        self,
        repo: str,
        stream: Stream,
        since: datetime,
        state: SyncState,
        tally: Tally,
        reaching: bool = False,
        on_page: OnPage | None = None,
    ) -> SyncState:
        before = self._client.requests_made
        tally.began.setdefault(stream, since)
        marker = next(
            (k for k in state.etags if reaching and k.startswith(f"{REACH}{stream} ")), None
        )
        try:
            state = await self._read(repo, stream, since, state, tally, marker, on_page)
        finally:
            tally.requests[stream] += self._client.requests_made - before
        if marker is not None:
            state = replace(state, etags={**state.etags, marker: _DONE})
            await self._store.set_sync_state(repo, state)
        tally.done.add(stream)
        return state

    async def _read(
        self,
        repo: str,
        stream: Stream,
        since: datetime,
        state: SyncState,
        tally: Tally,
        marker: str | None = None,
        on_page: OnPage | None = None,
    ) -> SyncState:
        """One endpoint from ``since``: upsert page by page, advance the cursor, keep an ETag.

        After each full page the query restarts from that page's newest ``updated_at`` (less a
        second) instead of following the page-number Link: an item updated mid-sync moves to
        the end of the list and would shift an unseen row onto a page already read. The Link
        is followed only when one second holds a whole page.

        The ETag of the last query is kept when its answer was one page that was not full:
        new updates sort last, so a 304 for that query proves nothing changed.
        """
        fetch = self._fetch(stream)
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
                    if marker is not None and not page.has_next:
                        state = replace(state, etags={**state.etags, marker: _DONE})
                    elif marker is not None and newest is not None:
                        reached = github_time(max(anchor, newest - _SECOND))
                        state = replace(state, etags={**state.etags, marker: reached})
                    if on_page is not None:
                        await self._store.set_sync_state(repo, state)
                        await on_page(stream, page)
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


def _begun(state: SyncState, since: datetime) -> SyncState:
    """``state`` with a reach back to ``since`` begun on every stream that has none in
    progress from ``since`` or earlier."""
    etags = dict(state.etags)
    for stream in STREAMS:
        if reach_progress(state, stream, since) is None:
            etags[reach_key(stream, since)] = github_time(since)
    return replace(state, etags=etags)


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
