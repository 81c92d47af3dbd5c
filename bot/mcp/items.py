"""The window's items as the ``items`` and ``item`` tools return them: pure functions of the
mirror's view of a window (no SDK, no I/O)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bot.mcp.results import Discussion, ItemRow, LinkedItem, Remark, WindowInfo
from digest.analysis.analyze import active_items, analyze
from digest.analysis.followups import fixers
from digest.analysis.hot import human_comments, participants
from digest.analysis.topics import match_topic
from digest.analysis.types import HotDiscussion, WindowData
from digest.ask.terms import match_terms
from digest.models import Comment, CommentKind, Item, ItemKind, Lang, Topic, Window
from digest.render.json import iso
from digest.render.markdown import render_blocks
from digest.windows import format_window
from digest.writers.template.context import context
from digest.writers.template.hot import discussion as hot_discussion

Kind = Literal["issue", "pr"]
State = Literal["open", "closed", "merged"]
LATEST = 5  # comments an item's discussion shows
EXCERPT = 400  # characters of each


@dataclass(frozen=True, slots=True)
class Filters:
    """What the ``items`` tool keeps of a window's items (every filter is optional)."""

    topic: Topic | None = None
    kind: Kind | None = None
    state: State | None = None
    query: str | None = None


def window_info(window: Window) -> WindowInfo:
    return WindowInfo(
        start=iso(window.start) or "",
        end=iso(window.end) or "",
        timezone=window.timezone,
        label=window.label,
        ends_now=window.ends_now,
        display=format_window(window),
    )


def state_of(item: Item) -> State:
    """``merged`` for a merged PR, else the item's own state."""
    if item.merged_at is not None:
        return "merged"
    return "open" if item.state.value == "open" else "closed"


def linked(item: Item) -> LinkedItem:
    return LinkedItem(
        number=item.number,
        kind=item.kind.value,
        title=item.title,
        state=state_of(item),
        url=item.url,
    )


def _keeps(item: Item, filters: Filters) -> bool:
    if filters.kind is not None and item.kind is not ItemKind(filters.kind):
        return False
    if filters.state is not None and state_of(item) != filters.state:
        return False
    if filters.topic is not None and match_topic(item, filters.topic) is None:
        return False
    if filters.query:
        terms = filters.query.split()
        if len(match_terms(item, terms).matched) < len(terms):
            return False
    return True


def row(item: Item, talk: Sequence[Comment]) -> ItemRow:
    """``item`` with the human comments ``talk`` of the window."""
    return ItemRow(
        number=item.number,
        kind=item.kind.value,
        title=item.title,
        state=state_of(item),
        labels=list(item.labels),
        author=item.author,
        url=item.url,
        created_at=iso(item.created_at) or "",
        closed_at=iso(item.closed_at),
        merged_at=iso(item.merged_at),
        comments=len(talk),
        review_comments=sum(1 for c in talk if c.kind is CommentKind.REVIEW),
        participants=len({c.author for c in talk}),
        comments_total=item.comments_total,
    )


def _threads(comments: Iterable[Comment], window: Window) -> dict[int, list[Comment]]:
    threads: dict[int, list[Comment]] = {}
    for comment in human_comments(comments, window):
        threads.setdefault(comment.item_number, []).append(comment)
    return threads


def matching(data: WindowData, filters: Filters) -> list[ItemRow]:
    """The items active in the window (created, closed, merged or commented on) that pass
    ``filters``, by number."""
    threads = _threads(data.comments, data.window)
    return [
        row(item, threads.get(item.number, ()))
        for item in active_items(data)
        if _keeps(item, filters)
    ]


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 1] + "…"


def summary(item: Item, data: WindowData, talk: Sequence[Comment], lang: Lang) -> str:
    """The discussion of ``item`` as the report's hot discussions write it, in Markdown."""
    if not talk:
        return ""
    known = data if any(i.number == item.number for i in data.items) else None
    shown = known or replace(data, items=(*data.items, item))
    ctx = context(analyze(shown, ()), lang)
    hot = HotDiscussion(item=item, comments=tuple(talk), participants=participants(talk))
    return render_blocks(hot_discussion(ctx, 1, hot))


def discussion(item: Item, data: WindowData, lang: Lang = Lang.EN) -> Discussion:
    """What people said about ``item`` in the window: counts, who, the latest comments and
    the report's summary of it."""
    talk = _threads(data.comments, data.window).get(item.number, [])
    return Discussion(
        comments=len(talk),
        review_comments=sum(1 for c in talk if c.kind is CommentKind.REVIEW),
        participants=list(participants(talk)),
        first_at=iso(talk[0].created_at) if talk else None,
        last_at=iso(talk[-1].created_at) if talk else None,
        latest=[
            Remark(
                author=c.author,
                at=iso(c.created_at) or "",
                kind=c.kind.value,
                excerpt=_excerpt(c.body_excerpt),
                url=c.url,
            )
            for c in talk[-LATEST:]
        ],
        summary=summary(item, data, talk, lang),
    )


def fixed_by(item: Item, data: WindowData) -> list[LinkedItem]:
    """The PRs of the window that say they fix the issue ``item``, merged ones first."""
    if item.is_pr:
        return []
    return [linked(pr) for pr in fixers(data.items).get(item.key, [])]


def thread_of(item: Item, data: WindowData) -> list[Comment]:
    """The human comments on ``item`` posted in the window, oldest first."""
    return _threads(data.comments, data.window).get(item.number, [])
