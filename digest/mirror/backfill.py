"""A long reach back: the mirror from a given day (a repository's first, say) to now.

The three streams are read from ``since`` as a sync reaches back (:meth:`Streams.mirror`),
page by page, each page stored before the next is asked for and where each stream got to kept
in the sync state: a backfill the rate limit or an interruption stopped resumes there, asking
for no page twice. It is paced by ``X-RateLimit-Remaining``: when what is left falls to the
share kept for commands and daily posts, it stops with the reset time (or, with ``wait``,
sleeps until the reset and goes on). The first page of each stream says, through its
``rel="last"`` link, how many pages are to come: the estimate progress is shown against.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from digest.errors import RateLimited
from digest.github.client import GitHubClient, Page
from digest.mirror.markers import whole_second
from digest.mirror.pacing import KEEP_SHARE
from digest.mirror.report import Tally
from digest.mirror.store import Store
from digest.mirror.streams import Stream, Streams

_AFTER_RESET = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a backfill stands: requests made of those estimated, rows stored, the rate
    limit left and, when known, when it is done (``eta``)."""

    requests: int
    estimated: int
    items: int
    comments: int
    review_comments: int
    stream: str
    remaining: int | None
    reset_at: datetime | None
    eta: datetime | None
    waiting_until: datetime | None = None  # asleep until the limit resets


@dataclass(frozen=True, slots=True)
class BackfillResult:
    """What a backfill did; ``stopped_until`` is set when the rate limit stopped it (run it
    again after that moment: it resumes where it stopped)."""

    complete: bool
    requests: int
    items: int
    comments: int
    review_comments: int
    covered_since: datetime | None
    stopped_until: datetime | None = None


OnProgress = Callable[[Progress], None]


class _Paced(Exception):
    """The share of the limit kept for others is reached."""

    def __init__(self, reset_at: datetime | None) -> None:
        super().__init__("paced")
        self.reset_at = reset_at


class Backfill:
    """Reaches a repository's mirror back to a day, resumably, within the rate limit.

    ``keep`` is the share of the hourly limit left for commands and daily posts: the backfill
    stops (or waits) when ``X-RateLimit-Remaining`` falls to it.
    """

    def __init__(
        self,
        client: GitHubClient,
        store: Store,
        *,
        clock: Callable[[], datetime],
        sleep: Callable[[float], Awaitable[None]],
        keep: float = KEEP_SHARE,
        overlap: timedelta = timedelta(minutes=2),
        web_url: str = "https://github.com",
    ) -> None:
        self._client = client
        self._store = store
        self._clock = clock
        self._sleep = sleep
        self._keep = keep
        self._streams = Streams(client, store, clock=clock, overlap=overlap, web_url=web_url)

    async def run(
        self,
        repo: str,
        since: datetime,
        *,
        wait: bool = False,
        on_progress: OnProgress | None = None,
    ) -> BackfillResult:
        """Mirror ``repo`` from ``since`` to now; raises ``NotFound``, ``SourceUnavailable``
        (what it stored stays stored and resumable), never ``RateLimited``: a stop by the limit
        is a result with ``stopped_until``."""
        since = whole_second(since)
        client = self._client
        start = client.requests_made
        tally = Tally()
        estimated = 0

        def report(stream: str, waiting: datetime | None = None) -> None:
            if on_progress is None:
                return
            done = client.requests_made - start
            status = client.rate.get("core")
            on_progress(
                Progress(
                    requests=done,
                    estimated=max(estimated, done),
                    items=len(tally.items),
                    comments=len(tally.comments),
                    review_comments=len(tally.review_comments),
                    stream=stream,
                    remaining=status.remaining if status else None,
                    reset_at=status.reset_at if status else None,
                    eta=self._eta(max(0, estimated - done), started, done),
                    waiting_until=waiting,
                )
            )

        async def paced(stream: Stream, page: Page) -> None:
            report(stream)
            status = client.rate.get("core")
            if status is None or status.remaining is None:
                return
            if status.remaining > math.ceil((status.limit or 0) * self._keep):
                return
            if not wait:
                raise _Paced(status.reset_at)
            await self._wait(status.reset_at, stream, report)

        started = self._clock()
        while True:
            try:
                state = await self._store.get_sync_state(repo)
                covered = state.covered_since
                if covered is not None and covered <= since:  # covered: bring it up to date
                    state = await self._streams.mirror(repo, state, covered, tally)
                else:
                    state, left = await self._streams.peek(repo, state, since, tally)
                    estimated = client.requests_made - start + left
                    report("issues")
                    state = await self._streams.mirror(repo, state, since, tally, on_page=paced)
                report("done")
                return self._result(tally, start, state.covered_since, None)
            except (_Paced, RateLimited) as exc:
                if not wait or exc.reset_at is None:
                    return self._result(tally, start, None, exc.reset_at or self._clock())
                await self._wait(exc.reset_at, "issues", report)

    async def _wait(
        self, reset_at: datetime | None, stream: str, report: Callable[..., None]
    ) -> None:
        until = (reset_at or self._clock()) + _AFTER_RESET
        report(stream, until)
        await self._sleep(max(0.0, (until - self._clock()).total_seconds()))

    def _eta(self, left: int, started: datetime, done: int) -> datetime | None:
        """When ``left`` more requests are made: at this run's pace while the limit lasts,
        then an hour's limit an hour from each reset."""
        now = self._clock()
        status = self._client.rate.get("core")
        if not done:
            return None
        pace = (now - started) / done
        if status is None or status.remaining is None or status.reset_at is None:
            return now + pace * left
        spare = max(0, status.remaining - math.ceil((status.limit or 0) * self._keep))
        if left <= spare:
            return now + pace * left
        per_hour = max(1, (status.limit or 0) - math.ceil((status.limit or 0) * self._keep))
        hours = math.ceil((left - spare) / per_hour)
        return status.reset_at + timedelta(hours=hours - 1) + pace * min(left - spare, per_hour)

    def _result(
        self,
        tally: Tally,
        start: int,
        covered: datetime | None,
        stopped: datetime | None,
    ) -> BackfillResult:
        return BackfillResult(
            complete=stopped is None,
            requests=self._client.requests_made - start,
            items=len(tally.items),
            comments=len(tally.comments),
            review_comments=len(tally.review_comments),
            covered_since=covered,
            stopped_until=stopped,
        )
