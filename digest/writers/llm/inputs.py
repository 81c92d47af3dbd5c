"""What each narrative section gives the model: items chosen by the analysis ranking, and facts."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from digest.analysis.types import Analysis
from digest.llm.cards import Source
from digest.models import Comment, Item
from digest.writers.llm.schemas import kind_of

# The share of the digest's token budget each kind of section gets.
WEIGHTS = {
    "summary": 1.0,
    "topic": 1.6,
    "hot": 1.6,
    "trends": 0.9,
    "key_changes": 1.3,
    "activity": 0.5,
    "watch": 1.0,
}


@dataclass(frozen=True, slots=True)
class SectionInput:
    """The data of one section's request."""

    section_id: str
    sources: tuple[Source, ...]  # best first
    facts: dict[str, Any]
    keep: int  # the fewest cards worth asking about

    @property
    def kind(self) -> str:
        return kind_of(self.section_id)


def _dedupe(items: list[Item]) -> list[Item]:
    return list({item.number: item for item in reversed(items)}.values())[::-1]


def _comments(analysis: Analysis) -> dict[int, tuple[Comment, ...]]:
    by_item: dict[int, list[Comment]] = defaultdict(list)
    window = analysis.data.window
    for comment in analysis.data.comments:
        if window.contains(comment.created_at):
            by_item[comment.item_number].append(comment)
    return {number: tuple(found) for number, found in by_item.items()}


def _activity(analysis: Analysis) -> dict[str, Any]:
    activity = analysis.activity
    return {
        "distinct_authors_of_new_items": activity.authors,
        "distinct_commenters": activity.commenters,
        "human_comments": activity.comments,
        "bot_comments": activity.bot_comments,
        "merge_rate_percent": round(activity.merge_rate * 100),
        "new_prs_still_open": activity.open_new_prs,
        "top_contributors": [
            {"login": login, "items": count} for login, count in activity.top_contributors[:8]
        ],
        "first_time_contributors": list(activity.first_time[:8]),
    }


def section_input(section_id: str, analysis: Analysis, lang: str) -> SectionInput | None:
    """The input of a narrative section, or None when the data gives it nothing to write."""
    kind = kind_of(section_id)
    comments = _comments(analysis)

    def source(item: Item, **extra: Any) -> Source:
        return Source(item, comments.get(item.number, ()), extra)

    counts = analysis.counts.as_dict()
    if not any(counts.values()) and not analysis.activity.comments:
        return None  # a quiet window: the template's sentence says it all
    facts: dict[str, Any]
    if kind == "summary":
        picked = _dedupe(
            [hot.item for hot in analysis.hot[:3]]
            + list(analysis.key_changes[:4])
            + [t.item for match in analysis.topics for t in match.items[:3]]
            + [w.item for w in analysis.watch[:3]]
        )[:14]
        facts = {
            "counts": counts,
            "activity": _activity(analysis),
            "topics": [
                {
                    "topic": m.topic.title_zh if lang == "zh" else m.topic.title_en,
                    "items": len(m.items),
                }
                for m in analysis.topics
            ],
            "trends": [trend.term for trend in analysis.trends[:8]],
        }
        return SectionInput(section_id, tuple(source(i) for i in picked), facts, keep=12)
    if kind == "topic":
        name = section_id.split(":", 1)[1] if ":" in section_id else ""
        match = next((m for m in analysis.topics if m.topic.name == name), None)
        if match is None or not match.items:
            return None
        facts = {
            "topic": match.topic.title_zh if lang == "zh" else match.topic.title_en,
            "items_in_topic": len(match.items),
        }
        sources = tuple(source(t.item, group=t.group) for t in match.items[:20])
        return SectionInput(section_id, sources, facts, keep=10)
    if kind == "hot":
        if not analysis.hot:
            return None
        sources = tuple(
            Source(
                hot.item,
                hot.comments,
                {"comments_in_window": hot.heat, "participants": list(hot.participants[:8])},
            )
            for hot in analysis.hot[:5]
        )
        return SectionInput(section_id, sources, {}, keep=len(sources))
    if kind == "trends":
        if not analysis.trends:
            return None
        trends = analysis.trends[:8]
        facts = {
            "trends": [
                {"term": t.term, "kind": t.kind, "items": [i.number for i in t.items[:5]]}
                for t in trends
            ]
        }
        picked = _dedupe([i for t in trends for i in t.items[:3]])[:16]
        return SectionInput(section_id, tuple(source(i) for i in picked), facts, keep=8)
    if kind == "key_changes":
        if not analysis.key_changes:
            return None
        sources = tuple(source(i) for i in analysis.key_changes[:8])
        return SectionInput(section_id, sources, {}, keep=5)
    if kind == "activity":
        facts = {"counts": counts, "activity": _activity(analysis)}
        return SectionInput(section_id, (), facts, keep=0)
    if kind == "watch":
        if not analysis.watch:
            return None
        sources = tuple(source(w.item, reason=w.reason) for w in analysis.watch[:8])
        return SectionInput(section_id, sources, {}, keep=5)
    return None
