"""The daily summary section: volume, what the window focused on, the merges that stand out."""

from __future__ import annotations

from collections import Counter

from digest.analysis.types import TOPIC_GROUPS, TopicMatch
from digest.i18n import cased, duration, group_title, join_words, latin_gap, topic_noun
from digest.models import Block, Inline, Item, ItemKey, Paragraph, Text
from digest.spans import Spans, append_sentence, join, say, tidy
from digest.writers.template.context import Context
from digest.writers.template.describe import subject

SUMMARY_TERMS = 3
SUMMARY_MERGES = 2
THEME_AREAS = 2
THEME_ITEMS = 3
# what an item weighs in the day's story, by where the report shows it
_WEIGHTS = (("hot", 3.0), ("watch", 2.0), ("key", 2.0), ("topic", 1.0))


def theme(ctx: Context) -> tuple[list[str], list[Item]]:
    """The day's story: the glossary areas that the hot, worth-watching, key and focus items
    share most (at most ``THEME_AREAS``, each named by two items or more), and those items,
    weightiest first."""
    a = ctx.analysis
    weight: dict[ItemKey, float] = {}
    for where, items in (
        ("hot", [h.item for h in a.hot]),
        ("watch", [w.item for w in a.watch]),
        ("key", list(a.key_changes)),
        ("topic", [hit.item for m in a.topics for hit in m.items]),
    ):
        value = dict(_WEIGHTS)[where]
        for item in items:
            weight[item.key] = weight.get(item.key, 0.0) + value
    areas: dict[str, list[ItemKey]] = {}
    for number in weight:
        for area in ctx.areas(subject(ctx, ctx.known[number]), 4):
            areas.setdefault(area, []).append(number)
    ranked = sorted(
        (pair for pair in areas.items() if len(pair[1]) >= 2),
        key=lambda pair: (-sum(weight[n] for n in pair[1]), -len(pair[1]), pair[0]),
    )[:THEME_AREAS]
    if not ranked:
        return [], []
    numbers = dict.fromkeys(n for _, ns in ranked for n in ns)
    chosen = sorted(numbers, key=lambda n: (-weight[n], n))[:THEME_ITEMS]
    return [area for area, _ in ranked], [ctx.known[n] for n in chosen]


def topic_groups(ctx: Context, match: TopicMatch) -> Spans:
    """``性能与内核 1 条、生态与需求 2 条`` / ``1 performance & kernels, 2 ecosystem & …``."""
    tally = Counter(hit.group for hit in match.items)
    parts = [
        say(
            "summary.group",
            ctx.lang,
            group=_group_word(ctx, g),
            n=tally[g],
            n_items=ctx.count(tally[g], "item"),
        )
        for g in TOPIC_GROUPS
        if tally[g]
    ]
    return join(parts, ctx.lang, last=False)


def _group_word(ctx: Context, group: str) -> str:
    title = group_title(group, ctx.lang)
    return title.lower() if cased(ctx.lang) else title


def summary(ctx: Context) -> tuple[Block, ...]:
    """Volume, what the window focused on, the biggest merges, the liveliest discussion."""
    a, lang = ctx.analysis, ctx.lang
    span = duration(a.data.window.days, lang)
    counts = a.counts
    out: list[Inline] = []
    if not any(counts.as_dict().values()) and not a.hot:
        return (Paragraph(say("summary.empty", lang, span=span)),)
    areas, shared = theme(ctx)
    if areas:
        refs = [(ctx.item(item),) for item in shared]
        append_sentence(
            out,
            say(
                "summary.theme",
                lang,
                len(shared),
                areas=latin_gap(areas[0], lang) + join_words(areas, lang),
                items=join(refs, lang),
            ),
            lang,
        )
    append_sentence(
        out,
        say(
            "summary.volume" if counts.closed_unmerged_prs else "summary.volume_all_merged",
            lang,
            span=span,
            new_issues=ctx.count(counts.new_issues, "issue"),
            closed_issues=counts.closed_issues,
            new_prs=ctx.count(counts.new_prs, "pr"),
            merged=counts.merged_prs,
            unmerged=counts.closed_unmerged_prs,
        ),
        lang,
    )
    terms = [t for t in a.trends if t.kind != "theme"][:SUMMARY_TERMS]
    if terms:
        parts = [
            say(
                "summary.term",
                lang,
                term=ctx.term_name(t.term),
                n_items=ctx.count(len(t.items), "item"),
            )
            for t in terms
        ]
        listed = join(parts, lang)
        gap = latin_gap(listed[0].text, lang) if isinstance(listed[0], Text) else ""
        append_sentence(out, say("summary.focus", lang, terms=(Text(gap), *listed)), lang)
    for match in a.topics:
        noun = topic_noun(match.topic, lang)
        if match.items:
            append_sentence(
                out,
                say(
                    "summary.topic",
                    lang,
                    len(match.items),
                    topic=noun,
                    n=len(match.items),
                    n_items=ctx.count(len(match.items), "item"),
                    groups=topic_groups(ctx, match),
                ),
                lang,
            )
        else:
            append_sentence(out, say("summary.topic_none", lang, topic=noun), lang)
    merges = a.key_changes[:SUMMARY_MERGES]
    if merges:
        refs = [(ctx.item(item),) for item in merges]
        append_sentence(out, say("summary.merges", lang, len(merges), items=join(refs, lang)), lang)
    if a.hot:
        top = a.hot[0]
        append_sentence(
            out,
            say(
                "summary.hot",
                lang,
                item=ctx.item(top.item),
                n_comments=ctx.count(top.heat, "comment"),
                n_people=ctx.count(len(top.participants), "participant"),
            ),
            lang,
        )
    if a.watch:
        n = len(a.watch)
        append_sentence(out, say("summary.watch", lang, n, n_items=ctx.count(n, "item")), lang)
    return (Paragraph(tidy(out)),)
