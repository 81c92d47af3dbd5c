"""What each narrative section gives the model: items chosen by the analysis ranking, and facts.

One function per kind of section (bound to its kind in ``kinds.py``); each returns None when
the data gives the section nothing to write, and the template's text stands.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from digest.analysis.excerpts import excerpt_sentences, whole
from digest.analysis.facts import identifiers, measured
from digest.analysis.kinds import kind_of
from digest.analysis.people import affiliation_of, is_maintainer, role_of
from digest.analysis.text import strip_tags
from digest.analysis.types import Analysis, HotDiscussion
from digest.i18n import topic_title
from digest.i18n.glossary import entries, found
from digest.llm.cards import Source
from digest.models import Comment, Item, Lang


@dataclass(frozen=True, slots=True)
class SectionInput:
    """The data of one section's request."""

    section_id: str
    sources: tuple[Source, ...]  # best first
    facts: dict[str, Any]
    keep: int  # the fewest cards worth asking about
    counts: dict[str, int]  # the window's five counts, which a summary must state


def _dedupe(items: list[Item]) -> list[Item]:
    return list({item.number: item for item in reversed(items)}.values())[::-1]


def _comments(analysis: Analysis) -> dict[int, tuple[Comment, ...]]:
    by_item: dict[int, list[Comment]] = defaultdict(list)
    window = analysis.data.window
    for comment in analysis.data.comments:
        if window.contains(comment.created_at):
            by_item[comment.item_number].append(comment)
    return {number: tuple(found) for number, found in by_item.items()}


def _people(analysis: Analysis, item: Item, comments: tuple[Comment, ...]) -> dict[str, Any]:
    """Each person of an item's thread: their role there and their organisation, if known."""
    out: dict[str, dict[str, str]] = {}
    for login in dict.fromkeys([item.author, *(c.author for c in comments)]):
        role = role_of(login, item, comments).value
        if login == item.author and is_maintainer(item.author_association):
            role = "maintainer"
        person = {"role": role}
        org = affiliation_of(login, analysis.organisations, analysis.companies)
        if org:
            person["affiliation"] = org
        out[login] = person
    return out


def item_facts(analysis: Analysis, item: Item) -> dict[str, Any]:
    """What the template knows of an item, for the model to write 内容 and 影响 from: its kind,
    the glossary areas it touches (with their Chinese names), the numbers and identifiers its
    description gives, the excerpt of its change part, and its author's role and affiliation."""
    glossary = entries(analysis.glossary)
    excerpt = whole(excerpt_sentences(item.body_excerpt, item.is_pr), 300)
    areas = found(f"{strip_tags(item.title)} {excerpt}", glossary)[:4]
    facts: dict[str, Any] = {"change_kind": kind_of(item)}
    if areas:
        facts["areas"] = [{"en": a.en, "zh": a.zh} for a in areas]
    numbers = measured(item.body_excerpt)
    if numbers:
        facts["numbers"] = list(numbers)
    names = identifiers(item.body_excerpt)
    if names:
        facts["identifiers"] = list(names)
    if excerpt:
        facts["change_excerpt"] = excerpt
    facts["author_role"] = (
        "maintainer"
        if is_maintainer(item.author_association)
        else ("author" if item.is_pr else "reporter")
    )
    org = affiliation_of(item.author, analysis.organisations, analysis.companies)
    if org:
        facts["author_affiliation"] = org
    return facts


def _source(
    analysis: Analysis, item: Item, comments: tuple[Comment, ...], extra: dict[str, Any]
) -> Source:
    return Source(
        item, comments, extra, _people(analysis, item, comments), item_facts(analysis, item)
    )


def _sources(analysis: Analysis, items: list[Item], **extra: Any) -> tuple[Source, ...]:
    comments = _comments(analysis)
    return tuple(
        _source(analysis, item, comments.get(item.number, ()), dict(extra)) for item in items
    )


def thread_facts(hot: HotDiscussion) -> dict[str, Any]:
    """Where a hot thread stands, as the template reads it."""
    state = hot.state
    out: dict[str, Any] = {
        "comments_in_window": hot.heat,
        "participants": list(hot.participants[:8]),
        "thread_status": state.status,
    }
    if hot.boilerplate:
        out["routine_comments_not_counted"] = hot.boilerplate
    if state.finding is not None:
        out["status_from"] = state.finding.author
    if state.question is not None:
        out["open_question_from"] = state.question.author
    return out


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


def quiet(analysis: Analysis) -> bool:
    """A window without activity: the template's sentences say it all."""
    return not any(analysis.counts.as_dict().values()) and not analysis.activity.comments


def _input(
    section_id: str,
    analysis: Analysis,
    sources: tuple[Source, ...],
    facts: dict[str, Any],
    keep: int,
) -> SectionInput:
    return SectionInput(section_id, sources, facts, keep, analysis.counts.as_dict())


def summary(analysis: Analysis, section_id: str, lang: Lang) -> SectionInput | None:
    """The day's most notable items, the counts, the activity, the topics and the trends."""
    picked = _dedupe(
        [hot.item for hot in analysis.hot[:3]]
        + list(analysis.key_changes[:4])
        + [t.item for match in analysis.topics for t in match.items[:3]]
        + [w.item for w in analysis.watch[:3]]
    )[:14]
    facts = {
        "counts": analysis.counts.as_dict(),
        "activity": _activity(analysis),
        "topics": [
            {"topic": topic_title(m.topic, lang), "items": len(m.items)} for m in analysis.topics
        ],
        "trends": [trend.term for trend in analysis.trends[:8]],
    }
    return _input(section_id, analysis, _sources(analysis, picked), facts, keep=12)


def topic(analysis: Analysis, section_id: str, lang: Lang) -> SectionInput | None:
    """The focus topic's items, best first, with their group."""
    name = section_id.split(":", 1)[1] if ":" in section_id else ""
    match = next((m for m in analysis.topics if m.topic.name == name), None)
    if match is None or not match.items:
        return None
    facts = {
        "topic": topic_title(match.topic, lang),
        "items_in_topic": len(match.items),
    }
    comments = _comments(analysis)
    sources = tuple(
        _source(analysis, t.item, comments.get(t.item.number, ()), {"group": t.group})
        for t in match.items[:20]
    )
    org = match.topic.organisation
    if org:
        facts["organisation"] = org
        facts["items_from_organisation"] = sum(
            1
            for t in match.items
            if affiliation_of(t.item.author, analysis.organisations, analysis.companies) == org
        )
    return _input(section_id, analysis, sources, facts, keep=10)


def hot(analysis: Analysis, section_id: str, lang: Lang) -> SectionInput | None:
    """The most debated items, with their comments and participants."""
    if not analysis.hot:
        return None
    sources = tuple(
        _source(analysis, hot.item, hot.comments, thread_facts(hot)) for hot in analysis.hot[:5]
    )
    return _input(section_id, analysis, sources, {}, keep=len(sources))


def trends(analysis: Analysis, section_id: str, lang: Lang) -> SectionInput | None:
    """The recurring themes and a few items of each."""
    if not analysis.trends:
        return None
    chosen = analysis.trends[:8]
    facts = {
        "trends": [
            {"term": t.term, "kind": t.kind, "items": [i.number for i in t.items[:5]]}
            for t in chosen
        ]
    }
    picked = _dedupe([i for t in chosen for i in t.items[:3]])[:16]
    return _input(section_id, analysis, _sources(analysis, picked), facts, keep=8)


def key_changes(analysis: Analysis, section_id: str, lang: Lang) -> SectionInput | None:
    """The most important merged pull requests."""
    if not analysis.key_changes:
        return None
    sources = _sources(analysis, list(analysis.key_changes[:8]))
    return _input(section_id, analysis, sources, {}, keep=5)


def activity(analysis: Analysis, section_id: str, lang: Lang) -> SectionInput | None:
    """The counts and the activity figures; no items."""
    facts = {"counts": analysis.counts.as_dict(), "activity": _activity(analysis)}
    return _input(section_id, analysis, (), facts, keep=0)


def watch(analysis: Analysis, section_id: str, lang: Lang) -> SectionInput | None:
    """The open items worth watching, with why each was picked."""
    if not analysis.watch:
        return None
    comments = _comments(analysis)
    sources = tuple(
        _source(analysis, w.item, comments.get(w.item.number, ()), {"reason": w.reason})
        for w in analysis.watch[:8]
    )
    return _input(section_id, analysis, sources, {}, keep=5)
