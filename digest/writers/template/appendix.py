"""The appendix: the five full lists of the window, every item with its author."""

from __future__ import annotations

from digest.i18n import list_title, t
from digest.models import Block, BulletList, Paragraph, Subheading
from digest.spans import Spans, say
from digest.writers.template.context import Context


def appendix_section(ctx: Context) -> tuple[Block, ...]:
    """New issues, closed issues, new PRs, merged PRs, PRs closed without merging."""
    lang = ctx.lang
    blocks: list[Block] = []
    for key, items in ctx.analysis.lists.pairs():
        blocks.append(
            Subheading(t("appendix.list", lang, title=list_title(key, lang), n=len(items)))
        )
        if not items:
            blocks.append(Paragraph(say("common.none", lang)))
            continue
        entries: list[Spans] = [
            say("appendix.entry", lang, item=ctx.item(item), author=ctx.user(item.author))
            for item in items
        ]
        blocks.append(BulletList(tuple(entries)))
    return tuple(blocks)
