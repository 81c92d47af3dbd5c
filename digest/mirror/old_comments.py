"""The comments of a window older than the mirror, within budget, and its most discussed items.

The comment streams run oldest update first from a window's start, so reading an old window's
comments costs every page from there on: the pages read scale with the rate limit left. An
old open item commented on in the window was neither created nor closed in it, so the Search
API did not bring it; the few that can rank among the hot discussions are fetched one by one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from contextlib import aclosing
from datetime import datetime

from digest.errors import NotFound
from digest.github.client import GitHubClient, github_time
from digest.github.parse import item_from_api
from digest.i18n import Note
from digest.mirror.markers import mark_partial, partial_of
from digest.mirror.reconciliation import RepoNames
from digest.mirror.report import Tally
from digest.mirror.store import Store, SyncState
from digest.mirror.streams import CommentStream, upsert_page
from digest.mirror.tuning import EDIT_SLACK, SEARCH_FRESH, old_comment_budget, spendable


class OldComments:
    """Reads old windows' comments and fetches the old items most discussed in them.

    The pages of an old window's comments scale with the rate limit left (``share``), capped
    by ``pages`` when given. ``discussed`` and ``min_comments`` size the fetch of old items: the
    most commented ``discussed`` items with at least ``min_comments`` comments.
    """

    def __init__(
        self,
        client: GitHubClient,
        store: Store,
        names: RepoNames,
        *,
        clock: Callable[[], datetime],
        web_url: str,
        pages: int | None,
        share: float,
        discussed: int,
        min_comments: int,
    ) -> None:
        self._client = client
        self._store = store
        self._names = names
        self._clock = clock
        self._web_url = web_url
        self._pages = pages
        self._share = share
        self._discussed = discussed
        self._min_comments = min_comments

    def _budget(self) -> int:
        """Pages a comment stream may read now, from the limit GitHub says is left."""
        remaining = self._client.remaining("core")
        return old_comment_budget(remaining, share=self._share, cap=self._pages)

    async def read(
        self,
        repo: str,
        state: SyncState,
        stream: CommentStream,
        start: datetime,
        end: datetime,
        tally: Tally,
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
        partial = partial_of(state, stream, start, end)
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
        budget = self._budget()
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
                newest = await upsert_page(
                    self._store, repo, stream, page, tally, web_url=self._web_url
                )
                reached = newest or reached
                if not page.has_next or (reached is not None and reached >= end + EDIT_SLACK):
                    done = end + EDIT_SLACK
                    return mark_partial(state, stream, start, end, self._clock(), done, 0), True
                needed = _pages_needed(since, end + EDIT_SLACK, reached, pages)
                left = self._budget()  # from the limit GitHub says is left now
                if self._pages is not None:
                    left = min(left, self._pages - pages)
                if needed - pages > left or left <= 0:
                    break
        reached = max(reached or since, since)
        tally.notes.append(_missing_note(what, gap, reached, start))
        owed = max(0, needed - pages)
        return mark_partial(state, stream, start, end, self._clock(), reached, owed), False

    async def fetch_discussed(
        self, repo: str, start: datetime, end: datetime, tally: Tally
    ) -> None:
        """Fetch the most discussed items of ``[start, end)`` that the search did not bring,
        one request each, skipping those deleted or transferred since."""
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
        allowed = spendable(self._client.remaining("core"), len(missing))
        for number in missing[:allowed]:
            try:
                row = await self._client.issue(repo, number)
            except NotFound:  # deleted since (410, or 404)
                continue
            if not await self._names.belongs(row, repo):  # transferred: redirected elsewhere
                continue
            await self._store.upsert_items([item_from_api(row, repo, self._web_url)])
            tally.items.add(number)
        if allowed < len(missing):
            span = f"{github_time(start)}..{github_time(end)}"
            skipped = (("n", str(len(missing) - allowed)), ("span", span))
            tally.notes.append(Note("sync.items_skipped", skipped))


def _missing_note(what: str, gap: str, reached: datetime, start: datetime) -> Note:
    if reached <= start:
        return Note("sync.comments_skipped", (("what", what), ("span", gap)))
    since = (("since", github_time(reached)),)
    return Note("sync.comments_after", (("what", what), ("span", gap), *since))


def _pages_needed(start: datetime, end: datetime, reached: datetime | None, pages: int) -> int:
    """Pages needed to reach ``end`` at the pace of the ``pages`` read so far."""
    if reached is None or reached <= start:
        return pages + 1
    pace = (reached - start) / pages
    return math.ceil((end - start) / pace)
