"""The exact counting rules of a window and the five lists behind them."""

from __future__ import annotations

from collections.abc import Iterable

from digest.analysis.types import Lists
from digest.models import Counts, Item, ItemState, Window


def _sorted(items: Iterable[Item]) -> tuple[Item, ...]:
    return tuple(sorted(items, key=lambda item: item.key))


def lists(items: Iterable[Item], window: Window) -> Lists:
    """The five lists of ``window`` (half-open, UTC), each sorted by repository and number.

    New issues and PRs by ``created_at``, closed issues by ``closed_at``, merged PRs by
    ``merged_at``, closed-unmerged PRs by ``closed_at`` without ``merged_at``; one item can be
    in several lists. The state is the state as known now: an item reopened since is not closed.
    Items are de-duplicated by repository and number.
    """
    unique = {item.key: item for item in items}.values()

    def closed_in(item: Item) -> bool:
        return item.state is ItemState.CLOSED and window.contains(item.closed_at)

    issues = [item for item in unique if not item.is_pr]
    prs = [item for item in unique if item.is_pr]
    return Lists(
        new_issues=_sorted(i for i in issues if window.contains(i.created_at)),
        closed_issues=_sorted(i for i in issues if closed_in(i)),
        new_prs=_sorted(p for p in prs if window.contains(p.created_at)),
        merged_prs=_sorted(p for p in prs if window.contains(p.merged_at)),
        closed_unmerged_prs=_sorted(p for p in prs if p.merged_at is None and closed_in(p)),
    )


def count_lists(found: Lists) -> Counts:
    """The counts of already computed lists."""
    return Counts(
        new_issues=len(found.new_issues),
        closed_issues=len(found.closed_issues),
        new_prs=len(found.new_prs),
        merged_prs=len(found.merged_prs),
        closed_unmerged_prs=len(found.closed_unmerged_prs),
    )


def count(items: Iterable[Item], window: Window) -> Counts:
    """The five exact counts of ``window``."""
    return count_lists(lists(items, window))
