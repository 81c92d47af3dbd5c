"""The appendix: the five full lists of the window, every item with its author."""

from __future__ import annotations

from digest.i18n import list_title, t
from digest.models import Block, BulletList, Item, Paragraph, Subheading, Text
from digest.spans import Spans, say
from digest.writers.template.context import Context


def appendix_section(ctx: Context) -> tuple[Block, ...]:
    """New issues, closed issues, new PRs, merged PRs, PRs closed without merging; in a scope
    of several repositories, each list by repository."""
    lang = ctx.lang
    data = ctx.analysis.data
    blocks: list[Block] = []
    for key, items in ctx.analysis.lists.pairs():
        blocks.append(
            Subheading(t("appendix.list", lang, title=list_title(key, lang), n=len(items)))
        )
        if not items:
            blocks.append(Paragraph(say("common.none", lang)))
            continue
        if not data.several:
            blocks.append(_entries(ctx, items))
            continue
        for repo in data.repos:
            own = tuple(item for item in items if item.repo.lower() == repo.lower())
            if own:
                blocks.append(
                    Paragraph(
                        (Text(t("scope.appendix.repo", lang, repo=repo, n=len(own)), "bold"),)
                    )
                )
                blocks.append(_entries(ctx, own))
    return tuple(blocks)


def _entries(ctx: Context, items: tuple[Item, ...]) -> BulletList:
    entries: list[Spans] = [
        say("appendix.entry", ctx.lang, item=ctx.item(item), author=ctx.user(item.author))
        for item in items
    ]
    return BulletList(tuple(entries))
