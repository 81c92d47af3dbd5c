"""Make a repository's mirror cover a window: incremental streams, bounded backfill, search.

Three streams feed the mirror (:mod:`~digest.mirror.streams`): issues and PRs, conversation
comments and inline review comments, each with its own cursor and ETag.

The mirror is complete from ``SyncState.covered_since`` up to the stream cursors. A first sync
backfills from the window's start (at most ``backfill_days`` back); later syncs continue from
each cursor minus a small overlap, sending the stored ETag (a 304 costs no rate limit). A window
that reaches back from the mirror extends it (down to the cap). The part of a window before
the mirror and the cap, or a window wholly older than the mirror, is fetched through the
Search API, and its comments through the comments stream when that fits the request budget;
the few older items most discussed in it are then fetched one by one
(:mod:`~digest.mirror.old_windows`, :mod:`~digest.mirror.old_comments`). A sync the rate limit
stops says what is missing and when it can complete (:mod:`~digest.mirror.completion`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from digest.errors import RateLimited
from digest.github.client import GitHubClient
from digest.i18n import Note
from digest.mirror.completion import estimate
from digest.mirror.old_comments import OldComments
from digest.mirror.old_windows import OldWindows
from digest.mirror.reach import Reach
from digest.mirror.reconciliation import Reconciler, RepoNames
from digest.mirror.report import SyncReport, Tally
from digest.mirror.store import Store, SyncState
from digest.mirror.streams import STREAMS, Stream, Streams, cursor_of
from digest.models import Lang, Window

log = logging.getLogger(__name__)


class Syncer:
    """Keeps the store's mirror of each repository in step with GitHub.

    ``discussed`` and ``min_comments`` size the fetch of old items discussed in an old window:
    the most commented ``discussed`` items with at least ``min_comments`` comments. The pages of
    an old window's comments scale with the rate limit left (``old_comment_share``), capped by
    ``old_comment_pages`` when given.

    With ``reach_windows`` N, the mirror is made to cover the N windows of the same length
    before the one asked for too (what its follow-ups and trends compare against), through the
    streams, when the rate limit left allows it (:class:`~digest.mirror.reach.Reach`).
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
        reach_windows: int = 0,
    ) -> None:
        self._client = client
        self._store = store
        self._clock = clock
        self._backfill = timedelta(days=backfill_days)
        self._locks: dict[str, asyncio.Lock] = {}
        names = RepoNames(client)
        self._streams = Streams(client, store, clock=clock, overlap=overlap, web_url=web_url)
        self._reach = Reach(client, self._streams, windows=reach_windows)
        comments = OldComments(
            client,
            store,
            names,
            clock=clock,
            web_url=web_url,
            pages=old_comment_pages,
            share=old_comment_share,
            discussed=discussed,
            min_comments=min_comments,
        )
        self._old_windows = OldWindows(client, store, comments, clock=clock, web_url=web_url)
        self._reconciler = Reconciler(client, store, names, clock=clock, web_url=web_url)

    async def ensure(self, repo: str, window: Window) -> SyncReport:
        """Sync ``repo`` so that the store answers window queries over ``window``.

        Raises ``NotFound``, ``RateLimited`` or ``SourceUnavailable``; pages stored before
        an interruption stay stored and the cursors record them.
        """
        lock = self._locks.setdefault(repo, asyncio.Lock())
        async with lock:
            before = self._client.requests_made
            tally = Tally()
            try:
                state, synced_at = await self._ensure(repo, window, tally)
            except RateLimited as exc:
                state, synced_at = await self._interrupted(repo, window, tally, exc)
            covered = state.covered_since
            if covered is not None and window.end >= covered:  # no gap between window and mirror
                covered = min(covered, window.start)
            report = tally.report(
                requests=self._client.requests_made - before,
                synced_at=synced_at,
                covered_from=covered,
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

    async def reconcile(self, repo: str, *, days: int = 7, budget: int = 10) -> list[int]:
        """Remove the items GitHub no longer has in ``repo``, re-reading up to ``budget`` of
        those updated in the last ``days`` days (see :class:`Reconciler`); returns their
        numbers."""
        return await self._reconciler.reconcile(repo, days=days, budget=budget)

    async def _ensure(
        self, repo: str, window: Window, tally: Tally
    ) -> tuple[SyncState, datetime | None]:
        now = self._clock()
        cap = now - self._backfill
        state = await self._store.get_sync_state(repo)
        start = max(window.start, cap)
        covered = state.covered_since
        state, reach = await self._reach.plan(repo, window, state, tally)
        if reach is not None:  # what the report compares against fits the budget: stream it
            state = await self._streams.mirror(repo, state, reach, tally)
        elif covered is None:
            if window.end > cap:  # first sync: backfill from the window's start, capped
                state = await self._streams.mirror(repo, state, start, tally)
        elif window.end >= covered:  # reaching back from the mirror: extend it, capped
            state = await self._streams.mirror(repo, state, min(covered, start), tally)
        else:  # entirely older than the mirror: keep the mirror current, search the window
            state = await self._streams.mirror(repo, state, covered, tally)
        synced_at = state.synced_at
        search_end = (
            window.end if state.covered_since is None else min(window.end, state.covered_since)
        )
        if window.start < search_end:
            state = await self._old_windows.fetch(repo, state, window.start, search_end, tally)
            synced_at = self._clock()
        return state, synced_at

    async def _interrupted(
        self, repo: str, window: Window, tally: Tally, exc: RateLimited
    ) -> tuple[SyncState, datetime | None]:
        """After the rate limit stopped a sync: keep what was stored (the next sync resumes
        from the cursors) and say precisely what is missing and when the limit resets. Raises
        ``exc`` again when nothing of the window could be stored."""
        state = await self._store.get_sync_state(repo)
        if state.items_cursor is None or state.items_cursor < window.start:
            raise exc
        missing: dict[Stream, datetime] = {}
        for stream in STREAMS:
            if stream in tally.done:
                continue
            cursor = cursor_of(state, stream)
            since = window.start if cursor is None or cursor < window.start else cursor
            missing[stream] = since
            tally.notes.append(
                Note("sync.behind", (("what", f"stream.{stream}"), ("since", _shown(since))))
            )
        if missing and exc.reset_at is not None:
            status = self._client.rate.get("core")
            tally.completion = await estimate(
                self._store,
                repo,
                state,
                tally,
                missing,
                now=self._clock(),
                reset=exc.reset_at,
                limit=status.limit if status is not None else None,
            )
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


def _shown(moment: datetime) -> str:
    """``2026-03-10 06:00 UTC``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
