"""The key technical changes section: the merged PRs that matter, what changed, the impact."""

from __future__ import annotations

from dataclasses import replace

from digest.analysis.text import strip_tags, words, words_in
from digest.analysis.topics import group_of
from digest.analysis.trends import Term, mentions
from digest.i18n import join_words, phrase, spaced
from digest.models import Block, BulletList, Inline, Item, Paragraph, Text
from digest.spans import Part, Spans, say, tidy
from digest.writers.template.context import Context
from digest.writers.template.describe import content, effect

TOUCHED_TERMS = 3


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


_ISSUE_IMPACT = {"performance": "issue_perf", "fixes": "issue_fix", "ecosystem": "issue_ask"}


def impact_kind(item: Item) -> str:
    """What an item does: a PR's fix, refactor, perf or support (of models, hardware or
    features) from its title's verbs, else its group; an issue's kind from its group."""
    if not item.is_pr:
        return _ISSUE_IMPACT[group_of(item)]
    title = strip_tags(item.title)
    kind = next((k for k, verbs in _IMPACT_WORDS if words_in(title, verbs)), None)
    kind = kind or _GROUP_IMPACT[group_of(item)]
    if kind == "support":
        named = {t.kind for t in _title_terms(item)}
        kind = next((f"support_{k}" for k in ("model", "hardware") if k in named), kind)
    return kind


def _title_terms(item: Item) -> tuple[Term, ...]:
    return mentions(replace(item, body_excerpt=""))


def touched(item: Item, limit: int = TOUCHED_TERMS) -> list[str]:
    """The model, feature and hardware names an item touches, those in its title first."""
    found = dict.fromkeys(
        t.term for t in (*_title_terms(item), *mentions(item)) if t.kind != "theme"
    )
    return list(found)[:limit]


def impact_text(ctx: Context, item: Item) -> Spans:
    """``性能优化，涉及 ROCm、Qwen3`` from the title's verbs and the terms it names."""
    lang = ctx.lang
    terms = touched(item)
    touches = say("changes.touches", lang, terms=join_words(terms, lang)) if terms else ()
    return (Text(phrase(f"impact.{impact_kind(item)}", lang)), *touches)


def impact(ctx: Context, item: Item) -> Spans:
    """``影响：性能优化，涉及 ROCm、Qwen3。``."""
    return say("changes.impact", ctx.lang, impact=impact_text(ctx, item))


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
        what = content(ctx, item)
        parts: dict[str, Part] = {"item": ctx.item(item), "author": ctx.author(item)}
        line: list[Inline] = list(say("changes.entry", lang, what=what, **parts))
        if spaced(lang):
            line.append(Text(" "))
        line.extend(effect(ctx, item))
        line.extend(ctx.fix_note(item))
        line.extend(ctx.sibling_note(item))
        entries.append(tidy(line))
    intro = say("changes.intro", lang, n_prs=ctx.count(merged, "pr"))
    return (Paragraph(intro), BulletList(tuple(entries)))
