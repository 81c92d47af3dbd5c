"""Finding the items that answer a question in a window's data, best first."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from digest.analysis.analyze import active_items
from digest.analysis.topics import match_topic
from digest.analysis.types import WindowData
from digest.ask.question import Kind, Question
from digest.ask.terms import match_terms, needed
from digest.models import Item, ItemState, Window
from digest.windows import zone

GROUPS = ("merged", "review", "new", "closed", "discussion")


@dataclass(frozen=True, slots=True)
class Hit:
    """An item that answers the question, and why."""

    item: Item
    group: str  # one of GROUPS
    relevance: float
    heat: int  # human comments in the window
    last_active: datetime  # the item's latest event in the window
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Found:
    """The answer's items, best first, and how the search went."""

    hits: tuple[Hit, ...]
    searched: int  # items of the window looked at
    partial: bool = False  # no item mentioned every term; these mention most of them


def group_of(item: Item, window: Window) -> str:
    """Where an item goes in an answer: merged, in review, new issue, closed or discussion."""
    if item.is_pr:
        if window.contains(item.merged_at):
            return "merged"
        if window.contains(item.closed_at):
            return "closed"
        return "review"
    if window.contains(item.created_at):
        return "new"
    if window.contains(item.closed_at):
        return "closed"
    return "discussion"


def _open_at_end(item: Item, window: Window) -> bool:
    if item.closed_at is None:
        return item.state is ItemState.OPEN
    return item.closed_at >= window.end


def _keep(item: Item, group: str, kinds: frozenset[Kind], window: Window, heat: int) -> bool:
    checks = {
        Kind.MERGED: group == "merged",
        Kind.OPEN: _open_at_end(item, window) and not window.contains(item.merged_at),
        Kind.CLOSED: window.contains(item.closed_at) and not window.contains(item.merged_at),
        Kind.NEW: window.contains(item.created_at),
        Kind.ISSUE: not item.is_pr,
        Kind.PR: item.is_pr,
        Kind.HOT: heat > 0,
    }
    return all(checks[kind] for kind in kinds)


def _last_active(item: Item, window: Window, commented: datetime | None) -> datetime:
    moments = [
        m
        for m in (item.created_at, item.closed_at, item.merged_at)
        if m is not None and window.contains(m)
    ]
    if commented is not None:
        moments.append(commented)
    return max(moments, default=item.updated_at)


def find(data: WindowData, question: Question) -> Found:
    """The window's items that answer ``question``: ranked by relevance, then recency (by
    day), then discussion heat."""
    window = data.window
    heat: Counter[int] = Counter()
    latest: dict[int, datetime] = {}
    for comment in data.comments:
        if comment.author_is_bot or not window.contains(comment.created_at):
            continue
        heat[comment.item_number] += 1
        seen = latest.get(comment.item_number)
        latest[comment.item_number] = max(seen, comment.created_at) if seen else comment.created_at

    scored: list[tuple[Item, float, tuple[str, ...], int]] = []  # item, relevance, why, terms
    items = active_items(data)
    for item in items:
        relevance = 0.0
        reasons: tuple[str, ...] = ()
        if question.topic is not None:
            match = match_topic(item, question.topic)
            if match is None:
                continue
            relevance, reasons = match.score, match.reasons
        matched = 0
        if question.terms:
            terms = match_terms(item, question.terms)
            if not terms.matched:
                continue
            matched = len(terms.matched)
            relevance += terms.score
            reasons += tuple(f"term:{t}" for t in terms.matched)
        scored.append((item, relevance, reasons, matched))

    partial = False
    if question.terms:
        full = [row for row in scored if row[3] == len(question.terms)]
        if full or len(question.terms) < 3:
            scored = full
        else:
            scored = [row for row in scored if row[3] >= needed(len(question.terms))]
            partial = bool(scored)

    hits: list[Hit] = []
    for item, relevance, reasons, _ in scored:
        group = group_of(item, window)
        if not _keep(item, group, question.kinds, window, heat[item.number]):
            continue
        hits.append(
            Hit(
                item,
                group,
                relevance,
                heat[item.number],
                _last_active(item, window, latest.get(item.number)),
                reasons,
            )
        )

    tz = zone(window.timezone)

    def rank(hit: Hit) -> tuple[float, ...]:
        day = hit.last_active.astimezone(tz).date().toordinal()
        by_relevance: tuple[float, ...] = (-round(hit.relevance, 2), -day, -hit.heat)
        if Kind.HOT in question.kinds:
            by_relevance = (-hit.heat, -round(hit.relevance, 2), -day)
        return (*by_relevance, -hit.last_active.timestamp(), -hit.item.number)

    hits.sort(key=rank)
    return Found(tuple(hits), len(items), partial)
