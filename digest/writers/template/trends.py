"""The trends section: recurring themes across the window's items."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from digest.analysis.kinds import kind_of
from digest.analysis.watch import watch_reason
from digest.i18n import phrase, trend_kind
from digest.models import Block, BulletList, Item, ItemState, Paragraph, Text
from digest.spans import Spans, join, say, tidy
from digest.writers.template.context import Context

TREND_REFS = 4
REF_TITLE_LIMIT = 60


def trends_section(ctx: Context) -> tuple[Block, ...]:
    """Recurring model, feature, hardware and theme names, each with its items."""
    lang = ctx.lang
    if not ctx.analysis.trends:
        return (Paragraph(say("trends.empty", lang)),)
    entries: list[Spans] = []
    named: set[str] = set()
    for trend in ctx.analysis.trends:
        if ctx.term_name(trend.term) in named:
            continue  # two names of one theme in this language (MI300X, ROCm: AMD ROCm 平台)
        named.add(ctx.term_name(trend.term))
        refs: list[Spans] = [
            (ctx.item(item, REF_TITLE_LIMIT),) for item in trend.items[:TREND_REFS]
        ]
        extra = len(trend.items) - TREND_REFS
        if extra > 0:
            refs.append(say("common.more", lang, n=extra))
        entry = say(
            "trends.entry",
            lang,
            term=Text(ctx.term_name(trend.term), "bold"),
            kind=trend_kind(trend.kind, lang),
            mix=_mix(ctx, trend.items),
            reading=phrase(f"trends.read.{reading(trend.items)}", lang),
            items=join(refs, lang, last=False),
        )
        if trend.change is not None:
            entry = (*entry, *say(f"trends.{trend.change}", lang, avg=f"{trend.baseline:g}"))
        entries.append((*entry, *meaning(ctx, trend.items, ctx.term_name(trend.term))))
    return (Paragraph(say("trends.intro", lang)), BulletList(tuple(entries)))


BLOCKING = frozenset({"blocker", "regression", "crash"})  # watch reasons that block users
MEANING_AREAS = 2


def meaning(ctx: Context, items: Sequence[Item], name: str) -> Spans:
    """One sentence on what a theme's items are, from facts: how many block users, how many
    PRs fix something, how many are still open, and the areas they touch most (the theme's
    own name aside); empty when there is nothing to say."""
    lang = ctx.lang
    blockers = sum(1 for item in items if watch_reason(item, ()) in BLOCKING)
    fixes = sum(1 for item in items if item.is_pr and kind_of(item) == "fix")
    still_open = sum(1 for item in items if item.state is ItemState.OPEN)
    parts = [
        say(key, lang, n, n=n)
        for key, n in (
            ("trends.blockers", blockers),
            ("trends.fixes", fixes),
            ("trends.still_open", still_open),
        )
        if n
    ]
    tally = Counter(
        area for item in items for area in ctx.areas(item.title, 4) if area.lower() != name.lower()
    )
    areas = [area for area, n in tally.most_common(MEANING_AREAS) if n >= 2]
    named = join([(Text(a),) for a in areas], lang) if areas else ()
    if parts:
        where = say("trends.areas", lang, areas=named) if areas else ()
        return say("trends.meaning", lang, parts=join(parts, lang), areas=where)
    return say("trends.meaning_areas", lang, areas=named) if areas else ()


def reading(items: Sequence[Item]) -> str:
    """What a theme's items say together: ``landing`` (half its PRs or more merged),
    ``reports`` (mostly open issues), ``closed`` (mostly closed) or ``work`` (in progress)."""
    prs = [item for item in items if item.is_pr]
    if prs and 2 * sum(1 for item in prs if item.is_merged) >= len(prs):
        return "landing"
    still_open = [item for item in items if item.state is ItemState.OPEN]
    if 2 * sum(1 for item in still_open if not item.is_pr) > len(items):
        return "reports"
    if 2 * len(still_open) < len(items):
        return "closed"
    return "work"


def _mix(ctx: Context, items: Sequence[Item]) -> Spans:
    """``共 54 条，其中 12 个 Issue、42 个 PR（已合并 8 个）`` / ``2 PRs (1 merged)``."""
    prs = [item for item in items if item.is_pr]
    merged = sum(1 for item in prs if item.is_merged)
    issues = len(items) - len(prs)
    if issues and prs:
        mix = say(
            "trends.mix",
            ctx.lang,
            n_items=ctx.count(len(items), "item"),
            issues=ctx.count(issues, "issue"),
            prs=ctx.count(len(prs), "pr"),
        )
    else:
        mix = (Text(ctx.count(len(prs), "pr") if prs else ctx.count(issues, "issue")),)
    return tidy([*mix, *say("trends.merged", ctx.lang, n=merged)]) if merged else mix
