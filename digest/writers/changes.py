"""Trends, key technical changes and the worth-watching list of the template writer."""

from __future__ import annotations

from collections import Counter

from digest.analysis.text import strip_tags, words, words_in
from digest.analysis.topics import group_of
from digest.analysis.trends import mentions
from digest.i18n import has_phrase, join_words, phrase, state_of, trend_kind
from digest.models import Block, BulletList, Inline, Item, Paragraph, Text
from digest.writers.context import Context
from digest.writers.spans import Part, Spans, join, say, tidy

TREND_REFS = 4
REF_TITLE_LIMIT = 60
TOUCHED_TERMS = 3


def trends_section(ctx: Context) -> tuple[Block, ...]:
    """Recurring model, feature, hardware and theme names, each with its items."""
    lang = ctx.lang
    if not ctx.analysis.trends:
        return (Paragraph(say("trends.empty", lang)),)
    entries: list[Spans] = []
    for trend in ctx.analysis.trends:
        refs: list[Spans] = [
            (ctx.item(item, REF_TITLE_LIMIT),) for item in trend.items[:TREND_REFS]
        ]
        extra = len(trend.items) - TREND_REFS
        if extra > 0:
            refs.append(say("common.more", lang, n=extra))
        entries.append(
            say(
                "trends.entry",
                lang,
                term=Text(trend.term, "bold"),
                kind=trend_kind(trend.kind, lang),
                n_items=ctx.count(len(trend.items), "item"),
                items=join(refs, lang, last=False),
            )
        )
    return (Paragraph(say("trends.intro", lang)), BulletList(tuple(entries)))


_IMPACT_WORDS = (
    ("fix", words("fix|fixes|fixed|bug|bugfix|crash|regression|hang|error|incorrect|wrong")),
    ("refactor", words("refactor|refactors|cleanup|clean up|simplify|restructure|deprecate")),
    (
        "perf",
        words(
            "speed up|speedup|faster|optimize|optimise|optimized|perf|performance"
            "|throughput|latency|tune|tuned|tuning|fused|fuse|fusion|reduce overhead"
        ),
    ),
    ("support", words("add support|support|enable|enables|introduce|add|adds|new")),
)
_GROUP_IMPACT = {"performance": "perf", "fixes": "fix", "ecosystem": "support"}


def impact_kind(item: Item) -> str:
    """fix, refactor, perf or support: from the title's verbs, else from its group."""
    title = strip_tags(item.title)
    for kind, verbs in _IMPACT_WORDS:
        if words_in(title, verbs):
            return kind
    return _GROUP_IMPACT[group_of(item)]


def impact(ctx: Context, item: Item) -> Spans:
    """``影响：性能优化，涉及 ROCm、Qwen3。`` from the title's verbs and the terms it names."""
    lang = ctx.lang
    text = phrase(f"impact.{impact_kind(item)}", lang)
    terms = [t.term for t in mentions(item) if t.kind != "theme"][:TOUCHED_TERMS]
    touches: Spans = ()
    if terms:
        touches = say("changes.touches", lang, terms=join_words(terms, lang))
    return say("changes.impact", lang, impact=(Text(text), *touches))


def key_changes_section(ctx: Context) -> tuple[Block, ...]:
    """The most important merged PRs: what changed and its impact."""
    lang = ctx.lang
    merged = ctx.analysis.counts.merged_prs
    changes = ctx.analysis.key_changes
    if not changes:
        if not merged:
            return (Paragraph(say("changes.empty_none", lang)),)
        return (Paragraph(say("changes.empty", lang, n_prs=ctx.count(merged, "pr"))),)
    entries: list[Spans] = []
    for item in changes:
        what = ctx.what(item)
        parts: dict[str, Part] = {"item": ctx.item(item), "author": ctx.user(item.author)}
        line: list[Inline] = list(
            say("changes.entry", lang, what=what, **parts)
            if what
            else say("changes.entry_bare", lang, **parts)
        )
        line.append(Text(" " if what else ("。" if lang == "zh" else ". ")))
        line.extend(impact(ctx, item))
        entries.append(tidy(line))
    intro = say("changes.intro", lang, n_prs=ctx.count(merged, "pr"))
    return (Paragraph(intro), BulletList(tuple(entries)))


def watch_section(ctx: Context) -> tuple[Block, ...]:
    """Open items that deserve attention, each with its reason."""
    lang = ctx.lang
    if not ctx.analysis.watch:
        return (Paragraph(say("watch.empty", lang)),)
    window = ctx.analysis.data.window
    talk = Counter(
        c.item_number
        for c in ctx.analysis.data.comments
        if not c.author_is_bot and window.contains(c.created_at)
    )
    entries: list[Spans] = []
    for watched in ctx.analysis.watch:
        item = watched.item
        key = f"reason.{watched.reason}"
        n = item.comments_total if watched.reason == "busy_bug" else talk[item.number]
        if not has_phrase(key):
            key = "reason.other"
        reason = say(key, lang, n_comments=ctx.count(n, "comment"))
        entries.append(
            say(
                "watch.entry",
                lang,
                item=ctx.item(item),
                state=state_of(item, lang),
                author=ctx.user(item.author),
                reason=reason,
            )
        )
    return (BulletList(tuple(entries)),)
