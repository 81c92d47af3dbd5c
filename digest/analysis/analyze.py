"""The analysis of one window: every fact the writers need, from pure functions."""

from __future__ import annotations

from collections.abc import Sequence

from digest.analysis.activity import activity
from digest.analysis.counts import count_lists, lists
from digest.analysis.followups import followups
from digest.analysis.hot import hot_discussions
from digest.analysis.key_changes import key_changes
from digest.analysis.siblings import siblings
from digest.analysis.substance import discussion, substance, template_lines
from digest.analysis.topics import match_topics
from digest.analysis.trends import against_history, trends, with_topics
from digest.analysis.types import Analysis, WindowData
from digest.analysis.watch import worth_watching
from digest.models import Item, Organisation, Topic


def active_items(data: WindowData) -> tuple[Item, ...]:
    """The items of ``data`` touched in its window: created, closed, merged or commented on."""
    window = data.window
    commented = {c.item_key for c in data.comments if window.contains(c.created_at)}
    unique = {item.key: item for item in data.items}
    return tuple(
        item
        for key, item in sorted(unique.items())
        if key in commented
        or window.contains(item.created_at)
        or window.contains(item.closed_at)
        or window.contains(item.merged_at)
    )


def analyze(
    data: WindowData,
    topics: Sequence[Topic],
    *,
    organisations: Sequence[Organisation] = (),
    glossary: Sequence[tuple[str, str]] = (),
) -> Analysis:
    """Counts, lists, topics, hot discussions, trends, key changes, watch list, activity, and
    the follow-ups of the previous window's items (when ``data`` carries that window).

    ``organisations`` is the affiliation map and ``glossary`` the configuration's extra
    glossary entries; both are handed to the writers."""
    window = data.window
    items = active_items(data)
    found = lists(items, window)
    by_key = {item.key: item for item in items}
    in_window = [c for c in data.comments if window.contains(c.created_at)]
    talk = discussion(in_window, window)
    template = template_lines(items)
    hot = hot_discussions(by_key, in_window, window)
    matches = match_topics(items, topics)

    def weigh(item: Item) -> float:
        return substance(item, talk, template)

    found_trends = with_topics(trends(items, weigh=weigh), matches, weigh)
    return Analysis(
        data=data,
        items=items,
        counts=count_lists(found),
        lists=found,
        topics=matches,
        hot=hot,
        trends=against_history(found_trends, data.history),
        key_changes=key_changes(found.merged_prs, talk, template=template),
        watch=worth_watching(items, {h.item.key for h in hot}, talk, template=template),
        activity=activity(found, in_window),
        followups=followups(data),
        organisations=tuple(organisations),
        glossary=tuple(glossary),
        siblings=siblings(items),
    )
