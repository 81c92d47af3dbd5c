"""The follow-ups section: what happened to the previous window's hot and watched items."""

from __future__ import annotations

from digest.i18n import phrase
from digest.models import Block, BulletList, Paragraph, Text
from digest.spans import Part, Spans, say
from digest.writers.template.context import Context


def followups_section(ctx: Context) -> tuple[Block, ...]:
    """One line per earlier item: fixed by #M, merged, closed, fix proposed, discussed, stuck."""
    lang = ctx.lang
    entries: list[Spans] = []
    for follow in ctx.analysis.followups:
        parts: dict[str, Part] = {
            "item": ctx.item(follow.item, 80),
            "was": Text(phrase(f"followups.was.{follow.was}", lang)),
        }
        if follow.by is not None and follow.status in ("fixed", "fix_proposed"):
            parts["by"] = ctx.item(follow.by, 80)
        if follow.status == "discussed":
            parts["n_comments"] = ctx.count(follow.comments, "comment")
        entries.append(say(f"followups.{follow.status}", lang, **parts))
    return (Paragraph(say("followups.intro", lang)), BulletList(tuple(entries)))
