"""Make a repository's mirror cover a window: incremental streams, bounded backfill, search.

Three streams feed the mirror: issues and PRs, conversation comments and inline review
comments, each with its own cursor and ETag. A new review comment moves its PR's
``updated_at``, so the review stream is read only when the mirror holds a PR updated after the
newest update the mirror knew when the stream was last read in full: an unchanged repository
costs two 304s. (An edit of a review comment that leaves its PR untouched waits for the PR's
next update.)

The mirror is complete from ``SyncState.covered_since`` up to the stream cursors. A first sync
backfills from the window's start (at most ``backfill_days`` back); later syncs continue from
each cursor minus a small overlap, sending the stored ETag (a 304 costs no rate limit). A window
that reaches back from the mirror extends it (down to the cap). The part of a window before
the mirror and the cap, or a window wholly older than the mirror, is fetched through the
Search API, and its comments through the comments stream when that fits the request budget;
the few older items most discussed in it are then fetched one by one.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from digest.errors import NotFound, RateLimited
from digest.github.client import (
    PER_PAGE,
    GitHubClient,
    ItemKindName,
    Page,
    SearchField,
    github_time,
)
from digest.github.parse import (
    comment_from_api,
    item_from_api,
    parse_time,
    review_comment_from_api,
)
from digest.i18n import Note
from digest.mirror.store import Completion, Store, SyncState
from digest.models import CommentKind, Item, Lang, Window

log = logging.getLogger(__name__)

Stream = Literal["issues", "comments", "review_comments"]
CommentStream = Literal["comments", "review_comments"]
_CURSOR = {
    "issues": "items_cursor",
    "comments": "comments_cursor",
    "review_comments": "review_comments_cursor",
}
# A searched window is trusted this long even without a mirror tracking later changes.
SEARCH_FRESH = timedelta(minutes=10)
# How far back the mirror's rows give a stream's pace, for one a stopped sync did not read.
PACE_SPAN = timedelta(days=7)
# GitHub's hourly limit without a token, when no answer has said the limit yet.
ANONYMOUS_LIMIT = 60
# Requests kept in hand when spending the rate limit on old comments.
RESERVE = 2
MAX_MARKERS = 32
# Old comments are read this far past the window, to keep those edited soon after posting.
EDIT_SLACK = timedelta(hours=6)
_SECOND = timedelta(seconds=1)
_QUERIES: tuple[tuple[ItemKindName, SearchField], ...] = (
    ("issue", "created"),
    ("issue", "closed"),
    ("pr", "created"),
    ("pr", "closed"),
)


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one ``ensure`` did: requests, distinct items and comments stored, visible gaps.

    ``covered_from`` is the earliest moment from which the store now answers every window up
    to now (``None`` when only the window asked for was fetched, through the Search API).
    ``requests_by_stream`` splits ``requests`` by stream: ``issues``, ``comments``,
    ``review_comments``, ``search`` and ``items`` (old items fetched one by one).
    """

    requests: int
    items: int
    comments: int
    synced_at: datetime | None
    used_search: bool = False
    notes: tuple[Note, ...] = ()
    covered_from: datetime | None = None
    review_comments: int = 0
    requests_by_stream: dict[str, int] = field(default_factory=dict)
    completion: Completion | None = None


@dataclass(slots=True)
class _Tally:
    items: set[int] = field(default_factory=set)  # numbers upserted
    comments: set[int] = field(default_factory=set)  # conversation comment ids upserted
    review_comments: set[int] = field(default_factory=set)  # review comment ids upserted
    requests: Counter[str] = field(default_factory=Counter)  # requests made, by stream
    done: set[str] = field(default_factory=set)  # streams read to their end
    used_search: bool = False
    notes: list[Note] = field(default_factory=list)
    began: dict[str, datetime] = field(default_factory=dict)  # where each stream's read began
    completion: Completion | None = None


class Syncer:
    """Keeps the store's mirror of each repository in step with GitHub.

    ``discussed`` and ``min_comments`` size the fetch of old items discussed in an old window:
    the most commented ``discussed`` items with at least ``min_comments`` comments. The pages of
    an old window's comments scale with the rate limit left (``old_comment_share``), capped by
    ``old_comment_pages`` when given.
    """

    def __init__(
        self,
        client: GitHubClient,
        store: Store,
        *,
        clock: Callable[[], datetime],
        backfill_days: int = 14,
        overlap: timedelta = timedelta(minutes=2),
        web_url: str = "https://github.com",
        old_comment_pages: int | None = None,
        old_comment_share: float = 0.5,
        discussed: int = 5,
        min_comments: int = 2,
    ) -> None:
        self._client = client
        self._store = store
        self._clock = clock
        self._backfill = timedelta(days=backfill_days)
        self._overlap = overlap
        self._web_url = web_url
        self._old_comment_pages = old_comment_pages
        self._old_comment_share = old_comment_share
        self._discussed = discussed
        self._min_comments = min_comments
        self._locks: dict[str, asyncio.Lock] = {}
        self._names: dict[str, str] = {}  # repository -> its current name, once looked up

    async def ensure(self, repo: str, window: Window) -> SyncReport:
        """Sync ``repo`` so that the store answers window queries over ``window``.

        Raises ``NotFound``, ``RateLimited`` or ``SourceUnavailable``; pages stored before
        an interruption stay stored and the cursors record them.
        """
        lock = self._locks.setdefault(repo, asyncio.Lock())
        async with lock:
            before = self._client.requests_made
            tally = _Tally()
            try:
                state, synced_at = await self._ensure(repo, window, tally)
            except RateLimited as exc:
                state, synced_at = await self._interrupted(repo, window, tally, exc)
            covered = state.covered_since
            if covered is not None and window.end >= covered:  # no gap between window and mirror
                covered = min(covered, window.start)
            report = SyncReport(
                requests=self._client.requests_made - before,
                items=len(tally.items),
                comments=len(tally.comments),
                synced_at=synced_at,
                used_search=tally.used_search,
                notes=tuple(tally.notes),
                covered_from=covered,
                review_comments=len(tally.review_comments),
                requests_by_stream=dict(tally.requests),
                completion=tally.completion,
            )
        log.info(
            "sync.done",
            extra={
                "repo": repo,
                "requests": report.requests,
                "items": report.items,
                "comments": report.comments,
                "review_comments": report.review_comments,
                "used_search": report.used_search,
                "covered_since": str(state.covered_since),
            },
        )
        return report

    async def _interrupted(
        self, repo: str, window: Window, tally: _Tally, exc: RateLimited
    ) -> tuple[SyncState, datetime | None]:
        """After the rate limit stopped a sync: keep what was stored (the next sync resumes
        from the cursors) and say precisely what is missing and when the limit resets. Raises
        ``exc`` again when nothing of the window could be stored."""
        state = await self._store.get_sync_state(repo)
        if state.items_cursor is None or state.items_cursor < window.start:
            raise exc
        missing: dict[Stream, datetime] = {}
        for stream in _STREAMS:
            if stream in tally.done:
                continue
            cursor: datetime | None = getattr(state, _CURSOR[stream])
            since = window.start if cursor is None or cursor < window.start else cursor
            missing[stream] = since
            tally.notes.append(
                Note("sync.behind", (("what", f"stream.{stream}"), ("since", _shown(since))))
            )
        if missing and exc.reset_at is not None:
            tally.completion = await self._completion(repo, state, tally, missing, exc.reset_at)
        if not tally.notes:  # the mirror is current; the search of an older window stopped
            span = (("start", _shown(window.start)), ("end", _shown(window.end)))
            tally.notes.append(Note("sync.unsearched", span))
        if exc.reset_at is not None:
            tally.notes.append(Note("sync.resets", (("when", _shown(exc.reset_at)),)))
        log.warning(
            "sync.interrupted",
            extra={
                "repo": repo,
                "reset_at": str(exc.reset_at),
                "missing": [note.text(Lang.EN) for note in tally.notes],
            },
        )
        return replace(state, covered_since=None), state.synced_at

    async def _completion(
        self,
        repo: str,
        state: SyncState,
        tally: _Tally,
        missing: dict[Stream, datetime],
        reset: datetime,
    ) -> Completion:
        """When the streams in ``missing`` (each from its moment) can be read to now: their
        pages at the pace this sync read them, else at the pace of the rows the mirror holds
        from the week before (one page for a stream it holds nothing of), spent at the
        limit's hourly rate from its reset on."""
        paces: dict[str, timedelta | None] = {}
        for stream in _CURSOR:
            began, cursor = tally.began.get(stream), getattr(state, _CURSOR[stream])
            pages = tally.requests[stream]
            if began is not None and cursor is not None and cursor > began and pages:
                paces[stream] = (cursor - began) / pages
        now = self._clock()
        needed = 0
        for stream, since in missing.items():
            pace = paces.get(stream) or await self._stored_pace(repo, stream, since)
            left = now - since
            needed += max(1, math.ceil(left / pace)) if pace and left > timedelta(0) else 1
        status = self._client.rate.get("core")
        per_hour = (status.limit if status is not None else None) or ANONYMOUS_LIMIT
        hours = math.ceil(needed / per_hour)
        return Completion(reset + timedelta(hours=hours - 1), needed, per_hour)

    async def _stored_pace(self, repo: str, stream: Stream, until: datetime) -> timedelta | None:
        """The span a page of ``stream`` covers in the rows the mirror holds of the week before
        ``until`` (from the oldest of them)."""
        since = until - PACE_SPAN
        if stream == "issues":
            moments = [i.updated_at for i in await self._store.items_updated(repo, since, until)]
        else:
            kind = CommentKind.REVIEW if stream == "review_comments" else CommentKind.CONVERSATION
            found = await self._store.comments_created(repo, since, until)
            moments = [c.created_at for c in found if c.kind is kind]
        if not moments or min(moments) >= until:
            return None
        return (until - min(moments)) / (len(moments) / PER_PAGE)

    async def _ensure(
        self, repo: str, window: Window, tally: _Tally
    ) -> tuple[SyncState, datetime | None]:
        now = self._clock()
        cap = now - self._backfill
        state = await self._store.get_sync_state(repo)
        start = max(window.start, cap)
        covered = state.covered_since
        if covered is None:
            if window.end > cap:  # first sync: backfill from the window's start, capped
                state = await self._mirror(repo, state, start, tally)
        elif window.end >= covered:  # reaching back from the mirror: extend it, capped
            state = await self._mirror(repo, state, min(covered, start), tally)
        else:  # entirely older than the mirror: keep the mirror current, search the window
            state = await self._mirror(repo, state, covered, tally)
        synced_at = state.synced_at
        search_end = (
            window.end if state.covered_since is None else min(window.end, state.covered_since)
        )
        if window.start < search_end:
            state = await self._old_window(repo, state, window.start, search_end, tally)
            synced_at = self._clock()
        return state, synced_at

    # -- the mirror -------------------------------------------------------------------------

    async def _mirror(
        self, repo: str, state: SyncState, since: datetime, tally: _Tally
    ) -> SyncState:
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
        cursor: datetime | None = getattr(state, _CURSOR[stream])
        if extend or cursor is None:
            return start
        since = cursor - self._overlap
        kept = [parse_time(k.split("=", 1)[1]) for k in state.etags if k.startswith(f"{stream}?")]
        anchor = max((moment for moment in kept if moment is not None), default=None)
        return anchor if anchor is not None and anchor <= since else since

    async def _stream(
        self, repo: str, stream: Stream, since: datetime, state: SyncState, tally: _Tally
    ) -> SyncState:
        before = self._client.requests_made
        tally.began.setdefault(stream, since)
        try:
            state = await self._read_stream(repo, stream, since, state, tally)
        finally:
            tally.requests[stream] += self._client.requests_made - before
        tally.done.add(stream)
        return state

    async def _read_stream(
        self, repo: str, stream: Stream, since: datetime, state: SyncState, tally: _Tally
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
                    newest = await self._upsert(repo, stream, page, tally)
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

    async def _upsert(
        self, repo: str, stream: Stream, page: Page, tally: _Tally
    ) -> datetime | None:
        """Store one page; returns its newest ``updated_at``."""
        if stream == "issues":
            items = [item_from_api(row, repo, self._web_url) for row in page.rows]
            await self._store.upsert_items(items)
            tally.items.update(i.number for i in items)
            return max((i.updated_at for i in items), default=None)
        parse = review_comment_from_api if stream == "review_comments" else comment_from_api
        comments = [parse(row, repo, self._web_url) for row in page.rows]
        await self._store.upsert_comments(comments)
        seen = tally.review_comments if stream == "review_comments" else tally.comments
        seen.update(c.id for c in comments)
        return max((c.updated_at for c in comments), default=None)

    def _old_comment_budget(self) -> int:
        """Pages an old window's comment stream may read: a share of the requests GitHub says
        are left (half: 2,500 pages with a fresh token, 30 without one), never the last
        ``RESERVE``; at most ``old_comment_pages`` when set; 20 before GitHub has said."""
        remaining = self._client.remaining("core")
        cap = self._old_comment_pages
        if remaining is None:
            return cap if cap is not None else 20
        budget = min(_scaled(remaining, self._old_comment_share), remaining - RESERVE)
        return budget if cap is None else min(cap, budget)

    # -- reconciliation ---------------------------------------------------------------------

    async def _belongs(self, row: dict[str, object], repo: str) -> bool:
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

    async def reconcile(self, repo: str, *, days: int = 7, budget: int = 10) -> list[int]:
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
        remaining = self._client.remaining("core")
        allowed = budget if remaining is None else max(0, min(budget, remaining - RESERVE))
        gone: list[int] = []
        last = after
        for number in turn[:allowed]:
            try:
                row = await self._client.issue(repo, number)
            except NotFound:
                gone.append(number)
            except RateLimited:
                break
            else:
                if await self._belongs(row, repo):
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

    # -- windows older than the mirror ------------------------------------------------------

    async def _old_window(
        self, repo: str, state: SyncState, start: datetime, end: datetime, tally: _Tally
    ) -> SyncState:
        """Items of ``[start, end)`` through the Search API, comments when within budget."""
        # markers hold whole seconds (GitHub's precision): widen the window to whole seconds so
        # that a later check of the same window compares like with like
        start, end = _whole_second(start), _whole_second(end, up=True)
        span = f"{github_time(start)}..{github_time(end)}"
        items_key, comments_key = f"search {span}", f"old-comments {span}"
        if not self._trusted(state, "search", start, end):
            tally.used_search = True
            before = self._client.requests_made
            found = await self._search(repo, start, end, tally)
            tally.requests["search"] += self._client.requests_made - before
            if found:
                state = _mark(state, items_key, self._clock())
            else:
                tally.notes.append(Note("sync.search_incomplete", (("span", span),)))
        if not self._trusted(state, "old-comments", start, end):
            complete = True
            fetched = False
            for stream in ("comments", "review_comments"):
                before = self._client.requests_made
                state, done = await self._old_comments(repo, state, stream, start, end, tally)
                tally.requests[stream] += self._client.requests_made - before
                fetched = fetched or self._client.requests_made > before
                complete = complete and done
            if fetched:
                before = self._client.requests_made
                await self._discussed_items(repo, start, end, tally)
                tally.requests["items"] += self._client.requests_made - before
            if complete:
                state = _mark(state, comments_key, self._clock())
        await self._store.set_sync_state(repo, state)
        return state

    def _trusted(self, state: SyncState, kind: str, start: datetime, end: datetime) -> bool:
        """Whether an old window fetched earlier covers ``[start, end)`` and is still current.

        A fetch is current when a mirror has streamed every change since it was made, or it
        is recent.
        """
        for key, value in state.etags.items():
            fetched = _span_of(key, kind)
            stamp = parse_time(value) if fetched else None
            if fetched is None or stamp is None:
                continue
            if not (fetched[0] <= start and end <= fetched[1]):
                continue
            tracked = state.covered_since is not None and state.covered_since <= stamp
            if tracked or self._clock() - stamp < SEARCH_FRESH:
                return True
        return False

    async def _search(self, repo: str, start: datetime, end: datetime, tally: _Tally) -> bool:
        """Issues and PRs created or closed in the window (a merge closes its PR too)."""
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

    async def _discussed_items(
        self, repo: str, start: datetime, end: datetime, tally: _Tally
    ) -> None:
        """Fetch the most discussed items of ``[start, end)`` that the search did not bring.

        An old open item commented on in the window was neither created nor closed in it; one
        request each brings the few that can rank among the hot discussions.
        """
        talk = Counter(
            c.item_number
            for c in await self._store.comments_created(repo, start, end)
            if not c.author_is_bot
        )
        ranked = sorted(talk, key=lambda n: (-talk[n], -n))
        limit = self._discussed
        floor = max(self._min_comments, talk[ranked[limit - 1]] if len(ranked) >= limit else 0)
        wanted = [n for n in ranked if talk[n] >= floor][: 2 * limit]
        known = {item.number for item in await self._store.items_by_number(repo, wanted)}
        missing = [n for n in wanted if n not in known]
        remaining = self._client.remaining("core")
        allowed = len(missing) if remaining is None else max(0, remaining - RESERVE)
        for number in missing[:allowed]:
            try:
                row = await self._client.issue(repo, number)
            except NotFound:  # deleted since (410, or 404)
                continue
            if not await self._belongs(row, repo):  # transferred: redirected to its new home
                continue
            await self._store.upsert_items([item_from_api(row, repo, self._web_url)])
            tally.items.add(number)
        if allowed < len(missing):
            span = f"{github_time(start)}..{github_time(end)}"
            skipped = (("n", str(len(missing) - allowed)), ("span", span))
            tally.notes.append(Note("sync.items_skipped", skipped))

    async def _old_comments(
        self,
        repo: str,
        state: SyncState,
        stream: CommentStream,
        start: datetime,
        end: datetime,
        tally: _Tally,
    ) -> tuple[SyncState, bool]:
        """Comments of ``stream`` updated from ``start`` until it passes ``end``, within budget.

        The stream runs oldest update first, so reading a little past ``end`` (``EDIT_SLACK``)
        keeps every comment posted in the window except those edited much later. Each read
        leaves a ``partial-{stream}`` marker (when, and how far it got): a complete stream is
        not read again; one the budget stopped is not read again for ``SEARCH_FRESH``, then
        goes on from where it stopped if the budget can read the rest at the pace it saw.
        Returns the state and whether the stream is complete for the window.
        """
        gap = f"{github_time(start)}..{github_time(end)}"
        what = f"stream.{stream}"
        partial = _partial_of(state, stream, start, end)
        since = start
        owed = 0  # pages an earlier read still needed
        if partial is not None:
            attempted, reached_before, owed = partial
            since = max(start, reached_before)
            if since >= end + EDIT_SLACK:  # this stream is complete, the other one was not
                return state, True
            if self._clock() - attempted < SEARCH_FRESH:
                tally.notes.append(_missing_note(what, gap, since, start))
                return state, False
        budget = self._old_comment_budget()
        if budget <= 0 or owed > budget:  # the rest cannot be read within the budget
            tally.notes.append(_missing_note(what, gap, since, start))
            return state, False
        pages = needed = 0
        reached: datetime | None = None
        client = self._client
        fetch = client.review_comments if stream == "review_comments" else client.comments
        async with aclosing(fetch(repo, since)) as stream_pages:
            async for page in stream_pages:
                pages += 1
                reached = await self._upsert(repo, stream, page, tally) or reached
                if not page.has_next or (reached is not None and reached >= end + EDIT_SLACK):
                    done = end + EDIT_SLACK
                    return _mark_partial(state, stream, start, end, self._clock(), done, 0), True
                needed = _pages_needed(since, end + EDIT_SLACK, reached, pages)
                left = self._old_comment_budget()  # from the limit GitHub says is left now
                if self._old_comment_pages is not None:
                    left = min(left, self._old_comment_pages - pages)
                if needed - pages > left or left <= 0:
                    break
        reached = max(reached or since, since)
        tally.notes.append(_missing_note(what, gap, reached, start))
        owed = max(0, needed - pages)
        return _mark_partial(state, stream, start, end, self._clock(), reached, owed), False


def _whole_second(moment: datetime, *, up: bool = False) -> datetime:
    """``moment`` at GitHub's precision: down (or ``up``) to a whole second."""
    whole = moment.replace(microsecond=0)
    return whole + _SECOND if up and whole != moment else whole


def _missing_note(what: str, gap: str, reached: datetime, start: datetime) -> Note:
    if reached <= start:
        return Note("sync.comments_skipped", (("what", what), ("span", gap)))
    since = (("since", github_time(reached)),)
    return Note("sync.comments_after", (("what", what), ("span", gap), *since))


def _partial_key(stream: CommentStream, start: datetime, end: datetime) -> str:
    return f"partial-{stream} {github_time(start)}..{github_time(end)}"


def _partial_of(
    state: SyncState, stream: CommentStream, start: datetime, end: datetime
) -> tuple[datetime, datetime, int] | None:
    """When an earlier read of ``stream`` for a window holding this one stopped, how far it
    had got and how many pages it still needed (the furthest such read); else ``None``."""
    best: tuple[datetime, datetime, int] | None = None
    for key, value in state.etags.items():
        span = _span_of(key, f"partial-{stream}")
        if span is None or not (span[0] <= start and end <= span[1]):
            continue
        attempted, reached, left = [*value.split(" "), "", "", ""][:3]
        when, upto = parse_time(attempted or None), parse_time(reached or None)
        if when is not None and upto is not None and (best is None or upto > best[1]):
            best = (when, upto, int(left) if left.isdigit() else 0)
    return best


def _mark_partial(
    state: SyncState,
    stream: CommentStream,
    start: datetime,
    end: datetime,
    moment: datetime,
    reached: datetime,
    left: int,
) -> SyncState:
    etags = dict(state.etags)
    value = f"{github_time(moment)} {github_time(reached)} {left}"
    etags[_partial_key(stream, start, end)] = value
    return _trim_markers(replace(state, etags=etags))


_RECONCILED = "reconciled-after"
_STREAMS: tuple[Stream, ...] = ("issues", "comments", "review_comments")


def _shown(moment: datetime) -> str:
    """``2026-03-10 06:00 UTC``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _repo_of(row: dict[str, object]) -> str | None:
    """``owner/name`` (lower case) of an issue row, from its API or web URL."""
    api = str(row.get("repository_url") or "")
    if "/repos/" in api:
        return api.split("/repos/", 1)[1].strip("/").lower()
    web = str(row.get("html_url") or "")
    parts = web.split("://", 1)[-1].split("/")
    return f"{parts[1]}/{parts[2]}".lower() if len(parts) >= 4 else None


def _scaled(remaining: int, share: float) -> int:
    return max(1, math.ceil(remaining * share)) if remaining > RESERVE else 0


def _pages_needed(start: datetime, end: datetime, reached: datetime | None, pages: int) -> int:
    """Pages needed to reach ``end`` at the pace of the ``pages`` read so far."""
    if reached is None or reached <= start:
        return pages + 1
    pace = (reached - start) / pages
    return math.ceil((end - start) / pace)


def _etag_key(stream: Stream, since: datetime) -> str:
    return f"{stream}?since={github_time(since)}"


def _advance(state: SyncState, stream: Stream, newest: datetime | None) -> SyncState:
    if newest is None:
        return state
    current: datetime | None = getattr(state, _CURSOR[stream])
    moved = newest if current is None else max(current, newest)
    if stream == "issues":
        return replace(state, items_cursor=moved)
    if stream == "comments":
        return replace(state, comments_cursor=moved)
    return replace(state, review_comments_cursor=moved)


def _span_of(key: str, kind: str) -> tuple[datetime, datetime] | None:
    """The ``[start, end)`` of a ``"{kind} START..END"`` marker key, else ``None``."""
    prefix = f"{kind} "
    if not key.startswith(prefix) or ".." not in key:
        return None
    first, _, last = key[len(prefix) :].partition("..")
    start, end = parse_time(first), parse_time(last)
    return None if start is None or end is None else (start, end)


def _mark(state: SyncState, key: str, moment: datetime) -> SyncState:
    """Record that an old window was fetched at ``moment``, keeping the newest markers only."""
    etags = dict(state.etags)
    etags[key] = github_time(moment)
    return _trim_markers(replace(state, etags=etags))


def _trim_markers(state: SyncState) -> SyncState:
    """The state with its newest ``MAX_MARKERS`` old-window markers only."""
    etags = dict(state.etags)
    markers = sorted(
        (k for k in etags if k.startswith(("search ", "old-comments ", "partial-"))),
        key=lambda k: etags[k],
    )
    for stale in markers[:-MAX_MARKERS]:
        del etags[stale]
    return replace(state, etags=etags)
