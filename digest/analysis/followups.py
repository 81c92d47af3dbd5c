"""Follow-ups across days: what happened in this window to the previous window's hot
discussions and worth-watching items, recomputed from the mirror (no stored report)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from digest.analysis.hot import hot_discussions
from digest.analysis.substance import discussion, template_lines
from digest.analysis.types import FollowUp, WindowData
from digest.analysis.watch import worth_watching
from digest.models import Item, ItemKey, ItemState

FOLLOWUP_LIMIT = 6


def as_of(item: Item, moment: datetime) -> Item:
    """``item`` as it stood just before ``moment``: a later close or merge undone."""
    if item.closed_at is not None and item.closed_at >= moment:
        return replace(
            item, state=ItemState.OPEN, state_reason=None, closed_at=None, merged_at=None
        )
    return item


def earlier_attention(previous: WindowData) -> list[tuple[ItemKey, str]]:
    """The previous window's hot discussions, then its worth-watching items, as it saw them."""
    window = previous.window
    seen = {item.key: as_of(item, window.end) for item in previous.items}
    comments = [c for c in previous.comments if window.contains(c.created_at)]
    commented = {c.item_key for c in comments}
    active = {
        n: item
        for n, item in seen.items()
        if n in commented
        or window.contains(item.created_at)
        or window.contains(item.closed_at)
        or window.contains(item.merged_at)
    }
    hot = hot_discussions(active, comments, window)
    talk = discussion(comments, window)
    watch = worth_watching(
        sorted(active.values(), key=lambda i: i.key),
        {h.item.key for h in hot},
        talk,
        template=template_lines(list(active.values())),
    )
    found: dict[ItemKey, str] = {}
    for key, was in [
        *((h.item.key, "hot") for h in hot),
        *((w.item.key, "watch") for w in watch),
    ]:
        found.setdefault(key, was)
    return list(found.items())


def fixers(items: Iterable[Item]) -> dict[ItemKey, list[Item]]:
    """Issue -> the PRs of its repository that say they fix it, merged ones first."""
    out: dict[ItemKey, list[Item]] = {}
    for item in items:
        for number in item.fixes if item.is_pr else ():
            out.setdefault(ItemKey(item.repo, number), []).append(item)
    for prs in out.values():
        prs.sort(key=lambda p: (p.merged_at is None, p.state is not ItemState.OPEN, -p.number))
    return out


def followups(data: WindowData, limit: int = FOLLOWUP_LIMIT) -> tuple[FollowUp, ...]:
    """Each earlier item's news in ``data.window``: fixed, merged, closed, a fix proposed, new
    discussion, or still stuck. Empty when the mirror does not cover the previous window."""
    previous = data.previous
    if previous is None:
        return ()
    window = data.window
    known = {item.key: item for item in (*previous.items, *data.items)}
    fixed_by = fixers(known.values())
    talk = discussion(data.comments, window).comments
    out: list[FollowUp] = []
    for key, was in earlier_attention(previous):
        item = known.get(key)
        if item is None:
            continue
        if item.closed_at is not None and item.closed_at < window.start and not talk.get(key):
            continue  # closed before this window and quiet since: no news
        prs = fixed_by.get(key, [])
        merged_fix = next((p for p in prs if p.merged_at is not None), None)
        open_fix = next((p for p in prs if p.state is ItemState.OPEN), None)
        n = talk.get(key, 0)
        if item.is_pr and window.contains(item.merged_at):
            status, by = "merged", None
        elif (
            not item.is_pr
            and merged_fix is not None
            and (window.contains(merged_fix.merged_at) or window.contains(item.closed_at))
        ):
            status, by = "fixed", merged_fix
        elif window.contains(item.closed_at):
            status, by = "closed", None
        elif item.state is ItemState.OPEN and open_fix is not None:
            status, by = "fix_proposed", open_fix
        elif n:
            status, by = "discussed", None
        elif item.state is ItemState.OPEN:
            status, by = "stuck", None
        else:
            continue
        out.append(FollowUp(item=item, was=was, status=status, by=by, comments=n))
    return tuple(out[:limit])
