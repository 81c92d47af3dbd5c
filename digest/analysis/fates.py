"""Items as they stood when a window closed, and what became of them later.

A digest built after its window closed shows each item as it was at the window's end (a later
merge or close undone; titles and labels stay as they are now), and keeps each later fate (for
an issue a merged PR closed, that PR) for its sections to note (:mod:`digest.writers.later`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta

from digest.analysis.followups import as_of, fixers
from digest.analysis.types import WindowData
from digest.models import Item, ItemKey, Later

FIX_GAP = timedelta(minutes=5)  # a fixing PR's merge and its issue's close, at most this apart


def later_of(item: Item, end: datetime) -> Later | None:
    """What became of ``item`` at or after ``end``: its merge or close, else ``None``."""
    if item.closed_at is None or item.closed_at < end:
        return None
    if item.merged_at is not None:
        return Later(item.number, "merged", item.merged_at, None, item.is_pr)
    return Later(item.number, "closed", item.closed_at, item.state_reason, item.is_pr)


def at_end(data: WindowData) -> WindowData:
    """``data`` as it stood when its window closed: every item (of the previous window and
    the history too) with a later merge or close undone, and those fates in ``later``."""
    end = data.window.end
    fates: dict[ItemKey, Later] = {}

    def seen(items: Iterable[Item]) -> tuple[Item, ...]:
        out = []
        for item in items:
            found = later_of(item, end)
            if found is not None:
                fates.setdefault(item.key, found)
                item = as_of(item, end)
            out.append(item)
        return tuple(out)

    previous = data.previous
    if previous is not None:
        previous = replace(previous, items=seen(previous.items))
    history = tuple(seen(items) for items in data.history)
    items = seen(data.items)
    later = tuple(fates[k] for k in sorted(fates))
    return replace(data, items=items, previous=previous, history=history, later=later)


def fixing(later: Later, prs: Iterable[Item], repo: str) -> Later:
    """``later`` naming the PR that closed it, for an issue of ``repo`` closed as completed (or
    without a reason): among ``prs``, a merged PR of its repository that says it fixes it
    (``Fixes #N``) and was merged at most :data:`FIX_GAP` before or after the close (GitHub
    closes the issue seconds after the merge), the one merged nearest the close (of two as
    near, the newer PR). ``later`` as it is otherwise."""
    if later.is_pr or later.event != "closed" or later.reason not in (None, "completed"):
        return later
    found = [
        (abs(pr.merged_at - later.at), pr.number)
        for pr in fixers(prs).get(ItemKey(later.repo or repo, later.number), [])
        if pr.merged_at is not None and abs(pr.merged_at - later.at) <= FIX_GAP
    ]
    if not found:
        return later
    return replace(later, by=min(found, key=lambda f: (f[0], -f[1]))[1])


def fixed_later(data: WindowData, prs: Iterable[Item]) -> WindowData:
    """``data`` with each issue's later close naming the PR of ``prs`` that closed it
    (:func:`fixing`)."""
    prs = list(prs)
    later = tuple(fixing(f, prs, data.repo) for f in data.later)
    return data if later == data.later else replace(data, later=later)
