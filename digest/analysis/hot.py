"""Hot discussions: the items most debated by people within the window."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from digest.analysis.threads import substantive, thread_state
from digest.analysis.types import HotDiscussion
from digest.models import Comment, Item, ItemKey, Window

HOT_LIMIT = 5
MIN_COMMENTS = 2


def human_comments(comments: Iterable[Comment], window: Window) -> list[Comment]:
    """Comments posted in ``window`` by people (bots excluded), oldest first."""
    found = [c for c in comments if not c.author_is_bot and window.contains(c.created_at)]
    return sorted(found, key=lambda c: (c.created_at, c.id))


def participants(comments: Iterable[Comment]) -> tuple[str, ...]:
    """Distinct commenters, most active first (ties: who spoke first)."""
    ordered = list(comments)
    tally = Counter(c.author for c in ordered)
    first = {c.author: i for i, c in reversed(list(enumerate(ordered)))}
    return tuple(sorted(tally, key=lambda login: (-tally[login], first[login])))


def hot_discussions(
    items: Mapping[ItemKey, Item],
    comments: Iterable[Comment],
    window: Window,
    limit: int = HOT_LIMIT,
    min_comments: int = MIN_COMMENTS,
) -> tuple[HotDiscussion, ...]:
    """The ``limit`` items with the most substantive human comments in ``window``.

    Boilerplate ("LGTM", "rebased", "CI failure looks unrelated", "+1") is no heat: an item
    needs ``min_comments`` substantive comments. Ranked by those, then distinct participants,
    then the most recent number. The lifetime ``comments_total`` of an item plays no part.
    """
    by_item: dict[ItemKey, list[Comment]] = {}
    for comment in human_comments(comments, window):
        if comment.item_key in items:
            by_item.setdefault(comment.item_key, []).append(comment)
    found = []
    for number, thread in by_item.items():
        said = substantive(thread)
        if len(said) < min_comments:
            continue
        found.append(
            HotDiscussion(
                item=items[number],
                comments=said,
                participants=participants(said),
                boilerplate=len(thread) - len(said),
                state=thread_state(items[number], thread),
            )
        )
    found.sort(key=lambda hot: (-hot.heat, -len(hot.participants), -hot.item.number))
    return tuple(found[:limit])
