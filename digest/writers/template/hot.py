"""The hot-discussions section: core issue, who said what, the point of contention, status."""

from __future__ import annotations

import re
from collections import Counter

from digest.analysis.text import shorten
from digest.analysis.types import HotDiscussion
from digest.i18n import state_of
from digest.models import Block, BulletList, Comment, Paragraph, Text
from digest.spans import Spans, quoted, say, tidy
from digest.writers.template.context import Context

VIEWS_LIMIT = 4
QUOTE_LIMIT = 200
_PUSHBACK = re.compile(
    r"\b(?:i\s+(?:do\s*n[o']t|don't|dont)\s+think|disagree|not\s+sure|not\s+convinced|"
    r"concern(?:ed|s)?|instead|rather\s+than|i'?d\s+rather|should\s*n[o']t|shouldn't|"
    r"won't\s+work|doesn't\s+(?:work|make\s+sense)|however|on\s+the\s+other\s+hand|"
    r"alternative(?:ly)?|push\s*back|-1\b|nack|prefer|why\s+not|not\s+the\s+right)"
    r"|不同意|反对|不建议|不应该|有顾虑|担心|而不是|换一种",
    re.I,
)


def _pushback(ctx: Context, thread: tuple[Comment, ...]) -> tuple[Comment, str] | None:
    """The first sentence of the thread that disagrees or proposes another way."""
    for comment in thread:
        for sentence in ctx.comment_sentences(comment):
            if _PUSHBACK.search(sentence):
                return comment, sentence
    return None


def _question(ctx: Context, thread: tuple[Comment, ...]) -> tuple[Comment, str] | None:
    """The latest question asked in the thread."""
    for comment in reversed(thread):
        for sentence in reversed(ctx.comment_sentences(comment)):
            if sentence.rstrip().endswith(("?", "？")):
                return comment, sentence
    return None


def _views(ctx: Context, hot: HotDiscussion, skip: frozenset[str]) -> list[Spans]:
    """One line per participant, most active first: who said what (``skip``: quoted later)."""
    lang = ctx.lang
    tally = Counter(c.author for c in hot.comments)
    lines: list[Spans] = []
    for login in hot.participants[:VIEWS_LIMIT]:
        own = [c for c in hot.comments if c.author == login]
        quote = next((q for c in own if (q := ctx.quote(c, skip=skip))), "")
        if not quote:
            continue
        ref = ctx.person(login, hot.item)
        lines.append(
            say(
                "hot.view",
                lang,
                user=ref,
                tag=ctx.tag(ref),
                n_comments=ctx.count(tally[login], "comment"),
                quote=quoted(quote, lang),
            )
        )
    return lines


def discussion(ctx: Context, rank: int, hot: HotDiscussion) -> tuple[Block, ...]:
    """One hot discussion: a numbered title line and its bullet points."""
    lang = ctx.lang
    item = hot.item
    meta = say(
        "hot.meta",
        lang,
        state=state_of(item, lang),
        n_comments=ctx.count(hot.heat, "comment"),
        n_people=ctx.count(len(hot.participants), "participant"),
    )
    title = say("hot.title", lang, rank=Text(f"{rank}.", "bold"), item=ctx.item(item))
    head = tidy([*title, *say("common.paren", lang, text=meta)])
    points: list[Spans] = [say("hot.core", lang, what=ctx.gist(item))]
    focus = _pushback(ctx, hot.comments)
    key = "hot.contention"
    if focus is None:
        focus, key = _question(ctx, hot.comments), "hot.question"
    points.extend(_views(ctx, hot, frozenset({focus[1]}) if focus else frozenset()))
    if focus is None:
        points.append(say("hot.agreement", lang))
    else:
        comment, sentence = focus
        quote = quoted(shorten(sentence, QUOTE_LIMIT), lang)
        points.append(say(key, lang, user=ctx.named(comment.author, item), quote=quote))
    last = hot.comments[-1].author
    status = say("hot.status", lang, state=state_of(item, lang), user=ctx.named(last, item))
    points.append((*status, *ctx.fix_note(item)))
    return (Paragraph(head), BulletList(tuple(points)))


def hot_section(ctx: Context) -> tuple[Block, ...]:
    """The 3-5 most debated items of the window."""
    if not ctx.analysis.hot:
        return (Paragraph(say("hot.empty", ctx.lang)),)
    blocks: list[Block] = []
    for rank, hot in enumerate(ctx.analysis.hot, start=1):
        blocks.extend(discussion(ctx, rank, hot))
    return tuple(blocks)
