"""Compact item cards: what a model reads about each item, truncated to fit a budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from digest.analysis.text import shorten
from digest.analysis.threads import act_of, comment_substance, is_boilerplate
from digest.llm.grounding import Grounds, mask
from digest.models import Comment, Item

Card = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Detail:
    """How much of an item a card carries."""

    title: int
    body: int
    comments: int
    comment: int


# From the richest card to a bare title: a section tries each until its cards fit.
DETAILS = (
    Detail(title=200, body=700, comments=6, comment=320),
    Detail(title=160, body=360, comments=4, comment=200),
    Detail(title=140, body=160, comments=2, comment=120),
    Detail(title=120, body=0, comments=0, comment=0),
)


@dataclass(frozen=True, slots=True)
class Source:
    """An item chosen for a section, with its comments and the section's notes about it."""

    item: Item
    comments: tuple[Comment, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    people: dict[str, dict[str, str]] = field(default_factory=dict)  # login -> role, affiliation
    facts: dict[str, Any] = field(default_factory=dict)  # the item's facts (kind, areas, numbers…)


_BARE_FACTS = ("change_kind", "author_role", "author_affiliation")


def _facts(facts: dict[str, Any], detail: Detail, grounds: Grounds) -> Card:
    """An item's facts at ``detail``: all of them with a body, the bare ones without; the
    excerpt cut to half the body's length."""
    if not detail.body:
        return {key: facts[key] for key in _BARE_FACTS if key in facts}
    out = dict(facts)
    if "change_excerpt" in out:
        out["change_excerpt"] = mask(clip(str(out["change_excerpt"]), detail.body // 2), grounds)
    return out


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters at a word boundary."""
    return shorten(" ".join(text.split()), limit)


def state(item: Item) -> str:
    """``open``, ``merged``, ``closed`` or ``draft``."""
    if item.is_merged:
        return "merged"
    if item.state.value == "closed":
        return "closed"
    return "draft" if item.draft else "open"


def card(source: Source, detail: Detail, grounds: Grounds) -> Card:
    """One item's card at ``detail``; its text is masked so it cites nothing outside the window."""
    item = source.item
    out: Card = {
        "number": item.number,
        **({"repo": item.repo} if grounds.several else {}),
        "kind": item.kind.value,
        "title": mask(clip(item.title, detail.title), grounds),
        "state": state(item),
        "author": item.author,
    }
    if item.labels:
        out["labels"] = list(item.labels[:6])
    if detail.body and item.body_excerpt:
        out["body"] = mask(clip(item.body_excerpt, detail.body), grounds)
    chosen = relevant(source.comments, detail.comments)
    if chosen:
        out["comments"] = [_comment_card(c, detail, grounds, source.people) for c in chosen]
    out.update(_facts(source.facts, detail, grounds))
    out.update(source.extra)
    return out


def _comment_card(
    comment: Comment,
    detail: Detail,
    grounds: Grounds,
    people: dict[str, dict[str, str]] | None = None,
) -> Card:
    """A comment as the model reads it: its author's role and affiliation, what it does in
    the thread (``act``); an inline review comment names its file."""
    out: Card = {
        "author": comment.author,
        **(people or {}).get(comment.author, {}),
        "act": act_of(comment),
        "text": mask(clip(comment.body_excerpt, detail.comment), grounds),
    }
    if comment.is_review:
        out["review_of"] = mask(clip(comment.path, 120), grounds) or "diff"
    return out


def relevant(comments: Sequence[Comment], limit: int) -> list[Comment]:
    """Up to ``limit`` human comments, oldest first: each commenter's most substantial one first,
    then the next most substantial; boilerplate ("LGTM", "rebased", "+1") never."""
    if limit <= 0:
        return []
    human = [c for c in comments if c.body_excerpt.strip() and not is_boilerplate(c)]
    ranked = sorted(human, key=comment_substance, reverse=True)
    chosen: list[Comment] = []
    seen: set[str] = set()
    for comment in ranked:
        if comment.author not in seen:
            seen.add(comment.author)
            chosen.append(comment)
    chosen.extend(c for c in ranked if c not in chosen)
    return sorted(chosen[:limit], key=lambda c: c.created_at)


def fit(
    sources: Sequence[Source],
    grounds: Grounds,
    budget: int,
    cost: Callable[[list[Card]], int],
    *,
    keep: int,
) -> list[Card]:
    """The richest cards, best-ranked first, whose prompt ``cost`` stays within ``budget``.

    Each level of detail is tried in turn until at least ``keep`` cards fit; at the last level,
    as many as fit. Returns no cards when not even one fits.
    """
    want = min(keep, len(sources))
    best: list[Card] = []
    for detail in DETAILS:
        cards: list[Card] = []
        for source in sources:
            candidate = [*cards, card(source, detail, grounds)]
            if cost(candidate) > budget:
                break
            cards = candidate
        if len(cards) > len(best):
            best = cards
        if len(cards) >= want:
            return cards
    return best
