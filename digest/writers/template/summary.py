"""The daily summary section: volume, what the window focused on, the merges that stand out."""

from __future__ import annotations

from collections import Counter

from digest.analysis.types import TOPIC_GROUPS, TopicMatch
from digest.i18n import cased, duration, group_title, topic_noun
from digest.models import Block, Inline, Paragraph
from digest.spans import Spans, append_sentence, join, say, tidy
from digest.writers.template.context import Context

SUMMARY_TERMS = 3
SUMMARY_MERGES = 2


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
            say("summary.term", lang, term=t.term, n_items=ctx.count(len(t.items), "item"))
            for t in terms
        ]
        append_sentence(out, say("summary.focus", lang, terms=join(parts, lang)), lang)
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
