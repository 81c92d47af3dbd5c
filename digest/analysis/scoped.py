"""A scope's window: its repositories' windows as one, its filters applied, and what the
report then says of each repository."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from digest.analysis.analyze import active_items
from digest.analysis.counts import count_lists, lists
from digest.analysis.types import Lists, WindowData
from digest.models import (
    Counts,
    Inline,
    Item,
    ItemKey,
    ItemRef,
    Section,
    map_spans,
)
from digest.scope import Filters


def merged(windows: Sequence[WindowData], repos: Sequence[str]) -> WindowData:
    """One window over the windows of several repositories (the same window each): their
    items and comments together, the previous window and history when every one has them,
    and their later fates, each naming its repository. One window is returned as it is."""
    if len(windows) == 1:
        return windows[0]
    first = windows[0]
    comments = sorted(
        (c for data in windows for c in data.comments), key=lambda c: (c.created_at, c.repo, c.id)
    )
    previous = None
    if all(data.previous is not None for data in windows):
        previous = merged([data.previous for data in windows if data.previous], repos)
    history: tuple[tuple[Item, ...], ...] = ()
    if windows and all(len(data.history) == len(first.history) for data in windows):
        history = tuple(
            tuple(item for data in windows for item in data.history[k])
            for k in range(len(first.history))
        )
    later = tuple(
        replace(f, repo=data.repo) if not f.repo else f for data in windows for f in data.later
    )
    return replace(
        first,
        items=tuple(sorted((i for data in windows for i in data.items), key=lambda i: i.key)),
        comments=tuple(comments),
        synced_at=min((d.synced_at for d in windows if d.synced_at), default=None),
        previous=previous,
        history=history,
        later=later,
        repos=tuple(repos),
    )


def filtered(data: WindowData, filters: Filters) -> WindowData:
    """``data`` without the items ``filters`` leave out, their comments, and the comments of
    authors they leave out (the previous window and the history alike)."""
    if filters.empty:
        return data
    items = tuple(item for item in data.items if filters.admits(item))
    kept = {item.key for item in items}
    comments = tuple(c for c in data.comments if c.item_key in kept and filters.admits_comment(c))
    previous = None if data.previous is None else filtered(data.previous, filters)
    history = tuple(tuple(i for i in window if filters.admits(i)) for window in data.history)
    numbers = {key.number for key in kept}
    later = tuple(
        f
        for f in data.later
        if ItemKey(f.repo, f.number) in kept or (not f.repo and f.number in numbers)
    )
    return replace(
        data, items=items, comments=comments, previous=previous, history=history, later=later
    )


def window_counts(data: WindowData) -> Counts:
    """The five counts of ``data``'s window."""
    return count_lists(lists(active_items(data), data.window))


def per_repo(found: Lists, repos: Iterable[str]) -> tuple[tuple[str, Counts], ...]:
    """The five counts of each repository of ``repos`` in the lists ``found``."""
    out = []
    for repo in repos:
        low = repo.lower()

        def own(items: tuple[Item, ...], low: str = low) -> tuple[Item, ...]:
            return tuple(i for i in items if i.repo.lower() == low)

        mine = Lists(*(own(items) for _key, items in found.pairs()))
        out.append((repo, count_lists(mine)))
    return tuple(out)


def qualified(sections: Iterable[Section], items: Iterable[Item]) -> tuple[Section, ...]:
    """``sections`` with every link to one of ``items`` naming its repository (a scope of
    several repositories: ``owner/name#N``)."""
    repo_of: Mapping[str, str] = {item.url: item.repo for item in items}

    def spans(given: tuple[Inline, ...]) -> tuple[Inline, ...]:
        return tuple(
            replace(s, repo=repo_of[s.url])
            if isinstance(s, ItemRef) and not s.repo and s.url in repo_of
            else s
            for s in given
        )

    return tuple(replace(s, blocks=map_spans(s.blocks, spans)) for s in sections)


def all_items(data: WindowData) -> list[Item]:
    """Every item ``data`` knows: its window's, the previous window's and the history's."""
    found = list(data.items)
    if data.previous is not None:
        found += all_items(data.previous)
    for window in data.history:
        found += window
    return found
