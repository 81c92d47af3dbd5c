"""The worth-watching section: open items that deserve attention, each with its reason."""

from __future__ import annotations

from collections import Counter

from digest.analysis.hot import human_comments
from digest.i18n import has_phrase, spaced, state_of
from digest.models import Block, BulletList, Paragraph, Text
from digest.spans import Spans, say
from digest.writers.template.context import Context
from digest.writers.template.describe import describe


def watch_section(ctx: Context) -> tuple[Block, ...]:
    """Open items that deserve attention, each with its reason."""
    lang = ctx.lang
    if not ctx.analysis.watch:
        return (Paragraph(say("watch.empty", lang)),)
    data = ctx.analysis.data
    talk = Counter(c.item_key for c in human_comments(data.comments, data.window))
    talk.update({hot.item.key: hot.heat - talk[hot.item.key] for hot in ctx.analysis.hot})
    entries: list[Spans] = []
    for watched in ctx.analysis.watch:
        item = watched.item
        key = f"reason.{watched.reason}"
        n = item.comments_total if watched.reason == "busy_bug" else talk[item.key]
        if not has_phrase(key):
            key = "reason.other"
        reason = say(key, lang, n_comments=ctx.count(n, "comment"))
        entry = say(
            "watch.entry",
            lang,
            item=ctx.item(item),
            state=state_of(item, lang),
            author=ctx.author(item),
            reason=reason,
        )
        gap = (Text(" "),) if spaced(lang) else ()
        entries.append((*entry, *ctx.fix_note(item), *gap, *describe(ctx, item)))
    return (BulletList(tuple(entries)),)
