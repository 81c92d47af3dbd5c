"""How far back a sync reaches: the window and the windows its report compares against.

A digest's follow-ups look at the window before it and its trends at the seven before that;
a digest is a function of its window only when the mirror holds those too. The streams give
them at the cost of every row updated since their start: :class:`Reach` reads the first page
of each stream (which the reach reads first anyway), learns from its ``rel="last"`` link the
pages still to come, and goes on when they fit a share of the rate limit left
(:data:`~digest.mirror.tuning.REACH_SHARE`, beyond what is kept for commands); when they do
not, it says precisely what the digest lacks (the pages read stay stored: a later reach
resumes after them).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from digest.github.client import GitHubClient
from digest.i18n import Note
from digest.mirror.markers import whole_second
from digest.mirror.pacing import KEEP_SHARE
from digest.mirror.report import Tally
from digest.mirror.store import SyncState
from digest.mirror.streams import Streams
from digest.mirror.tuning import REACH_SHARE, UNSAID_PAGES
from digest.models import Window


def spare_requests(client: GitHubClient, share: float = 1.0) -> int:
    """``share`` of the core requests GitHub says are left beyond what is kept for commands
    (``UNSAID_PAGES`` before it has said)."""
    status = client.rate.get("core")
    if status is None or status.remaining is None:
        return UNSAID_PAGES
    keep = math.ceil((status.limit or 0) * KEEP_SHARE)
    return max(0, math.floor((status.remaining - keep) * share))


class Reach:
    """Decides whether a sync streams the mirror back to what a window's report compares
    against: ``windows`` windows of its length before it (none when 0)."""

    def __init__(
        self,
        client: GitHubClient,
        streams: Streams,
        *,
        windows: int,
        share: float = REACH_SHARE,
    ) -> None:
        self._client = client
        self._streams = streams
        self._windows = windows
        self._share = share

    def since(self, window: Window) -> datetime:
        """The start of the earliest window the report of ``window`` compares against."""
        return whole_second(window.start - self._windows * (window.end - window.start))

    async def plan(
        self, repo: str, window: Window, state: SyncState, tally: Tally
    ) -> tuple[SyncState, datetime | None]:
        """The state after the first pages, and the moment to stream the mirror from when it
        does not cover the reach of ``window`` yet and the rate limit allows; else ``None``
        (with a note saying what the digest lacks when the limit is what stops it)."""
        if self._windows <= 0:
            return state, None
        since = self.since(window)
        covered = state.covered_since
        if covered is not None and covered <= since:
            return state, None
        state, needed = await self._streams.peek(repo, state, since, tally)
        spare = spare_requests(self._client, self._share)
        if needed <= spare:
            return state, since
        lacking = window.start if covered is None else min(covered, window.start)
        tally.notes.append(
            Note(
                "sync.reach_skipped",
                (
                    ("start", _shown(since)),
                    ("end", _shown(lacking)),
                    ("n", str(needed)),
                    ("left", str(spare)),
                ),
            )
        )
        return state, None


def _shown(moment: datetime) -> str:
    """``2026-03-10 06:00 UTC``."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
