"""The completion estimate of a sync the rate limit stopped: when its missing streams are read.

The streams still missing are read to now at the pace this sync read them, else at the pace of
the rows the mirror holds from the week before (one page for a stream it holds nothing of); the
requests that takes are spent at the limit's hourly rate from its reset on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timedelta

from digest.github.client import PER_PAGE
from digest.mirror.report import Tally
from digest.mirror.store import Completion, Store, SyncState
from digest.mirror.streams import STREAMS, Stream, cursor_of
from digest.mirror.tuning import ANONYMOUS_LIMIT, PACE_SPAN
from digest.models import CommentKind


async def estimate(
    store: Store,
    repo: str,
    state: SyncState,
    tally: Tally,
    missing: Mapping[Stream, datetime],
    *,
    now: datetime,
    reset: datetime,
    limit: int | None,
) -> Completion:
    """When the streams in ``missing`` (each from its moment) can be read to ``now``, with
    the rate limit resetting at ``reset`` to ``limit`` requests an hour (GitHub's limit
    without a token when it has not said)."""
    paces: dict[str, timedelta] = {}
    for stream in STREAMS:
        began, cursor = tally.began.get(stream), cursor_of(state, stream)
        pages = tally.requests[stream]
        stored = tally.pages[stream]  # none: the pace is not this sync's (it read nothing)
        if began is not None and cursor is not None and cursor > began and pages and stored:
            paces[stream] = (cursor - began) / pages
    needed = 0
    for stream, since in missing.items():
        pace = paces.get(stream) or await _stored_pace(store, repo, stream, since)
        left = now - since
        needed += max(1, math.ceil(left / pace)) if pace and left > timedelta(0) else 1
    per_hour = limit or ANONYMOUS_LIMIT
    hours = math.ceil(needed / per_hour)
    return Completion(reset + timedelta(hours=hours - 1), needed, per_hour)


async def _stored_pace(
    store: Store, repo: str, stream: Stream, until: datetime
) -> timedelta | None:
    """The span a page of ``stream`` covers in the rows the mirror holds of the week before
    ``until`` (from the oldest of them)."""
    since = until - PACE_SPAN
    if stream == "issues":
        moments = [i.updated_at for i in await store.items_updated(repo, since, until)]
    else:
        kind = CommentKind.REVIEW if stream == "review_comments" else CommentKind.CONVERSATION
        found = await store.comments_created(repo, since, until)
        moments = [c.created_at for c in found if c.kind is kind]
    if not moments or min(moments) >= until:
        return None
    return (until - min(moments)) / (len(moments) / PER_PAGE)
