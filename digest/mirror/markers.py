"""Markers of old windows fetched, kept beside the stream ETags in a repository's sync state.

``search START..END`` and ``old-comments START..END`` hold when the items (Search API) or the
comments of a window older than the mirror were fetched in full; ``partial-{stream}
START..END`` holds when a read of that comment stream for the window stopped, how far it got
and the pages it still needed. Only the newest ``MAX_MARKERS`` are kept.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from digest.github.client import github_time
from digest.github.parse import parse_time
from digest.mirror.store import SyncState
from digest.mirror.streams import CommentStream
from digest.mirror.tuning import MAX_MARKERS, SEARCH_FRESH

_SECOND = timedelta(seconds=1)
_PREFIXES = ("search ", "old-comments ", "partial-")


def whole_second(moment: datetime, *, up: bool = False) -> datetime:
    """``moment`` at GitHub's precision: down (or ``up``) to a whole second."""
    whole = moment.replace(microsecond=0)
    return whole + _SECOND if up and whole != moment else whole


def span_of(key: str, kind: str) -> tuple[datetime, datetime] | None:
    """The ``[start, end)`` of a ``"{kind} START..END"`` marker key, else ``None``."""
    prefix = f"{kind} "
    if not key.startswith(prefix) or ".." not in key:
        return None
    first, _, last = key[len(prefix) :].partition("..")
    start, end = parse_time(first), parse_time(last)
    return None if start is None or end is None else (start, end)


def trusted(state: SyncState, kind: str, start: datetime, end: datetime, now: datetime) -> bool:
    """Whether an old window fetched earlier (a ``kind`` marker) covers ``[start, end)`` and
    is still current: a mirror has streamed every change since it was made, or it is recent."""
    for key, value in state.etags.items():
        fetched = span_of(key, kind)
        stamp = parse_time(value) if fetched else None
        if fetched is None or stamp is None:
            continue
        if not (fetched[0] <= start and end <= fetched[1]):
            continue
        tracked = state.covered_since is not None and state.covered_since <= stamp
        if tracked or now - stamp < SEARCH_FRESH:
            return True
    return False


def mark(state: SyncState, key: str, moment: datetime) -> SyncState:
    """Record that an old window was fetched at ``moment``, keeping the newest markers only."""
    etags = dict(state.etags)
    etags[key] = github_time(moment)
    return _trimmed(replace(state, etags=etags))


def partial_of(
    state: SyncState, stream: CommentStream, start: datetime, end: datetime
) -> tuple[datetime, datetime, int] | None:
    """When an earlier read of ``stream`` for a window holding this one stopped, how far it
    had got and how many pages it still needed (the furthest such read); else ``None``."""
    best: tuple[datetime, datetime, int] | None = None
    for key, value in state.etags.items():
        span = span_of(key, f"partial-{stream}")
        if span is None or not (span[0] <= start and end <= span[1]):
            continue
        attempted, reached, left = [*value.split(" "), "", "", ""][:3]
        when, upto = parse_time(attempted or None), parse_time(reached or None)
        if when is not None and upto is not None and (best is None or upto > best[1]):
            best = (when, upto, int(left) if left.isdigit() else 0)
    return best


def mark_partial(
    state: SyncState,
    stream: CommentStream,
    start: datetime,
    end: datetime,
    moment: datetime,
    reached: datetime,
    left: int,
) -> SyncState:
    """Record that a read of ``stream`` for ``[start, end)`` made at ``moment`` got as far as
    ``reached`` and still needed ``left`` pages."""
    etags = dict(state.etags)
    key = f"partial-{stream} {github_time(start)}..{github_time(end)}"
    etags[key] = f"{github_time(moment)} {github_time(reached)} {left}"
    return _trimmed(replace(state, etags=etags))


def _trimmed(state: SyncState) -> SyncState:
    """The state with its newest ``MAX_MARKERS`` old-window markers only."""
    etags = dict(state.etags)
    markers = sorted((k for k in etags if k.startswith(_PREFIXES)), key=lambda k: etags[k])
    for stale in markers[:-MAX_MARKERS]:
        del etags[stale]
    return replace(state, etags=etags)
