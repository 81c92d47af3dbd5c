"""The hot-discussions section: core issue, who said what, the point of contention, status."""

from __future__ import annotations

import re
from collections import Counter

from digest.analysis.text import shorten
from digest.analysis.threads import act_of, comment_substance, comment_text
from digest.analysis.types import HotDiscussion
from digest.i18n import phrase, state_of
from digest.models import Block, BulletList, Comment, Lang, Paragraph, Text
from digest.spans import Spans, quoted, say, tidy
from digest.writers.template.context import Context
from digest.writers.template.describe import content

VIEWS_LIMIT = 4
QUOTE_LIMIT = 200
ZH_QUOTE_SHARE = 0.3  # Han characters a comment needs for the zh report to quote it
_HAN = re.compile(r"[\u3400-\u9fff]")
_PUSHBACK = re.compile(
    r"\b(?:i\s+(?:do\s*n[o']t|don't|dont)\s+think|disagree|not\s+sure|not\s+convinced|"
    r"concern(?:ed|s)?|instead(?!\s+of\s+\w+ing)|rather\s+than|i'?d\s+rather|should\s*n[o']t|shouldn't|"
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


def _about(ctx: Context, text: str) -> Spans:
    """``，涉及 注意力后端、`cuda.py``` in zh; "" when the text names nothing."""
    facts = ctx.facts(text)
    return say("hot.about", ctx.lang, terms=facts) if facts and ctx.lang == Lang.ZH else ()


def _chinese(text: str) -> bool:
    return len(_HAN.findall(text)) >= ZH_QUOTE_SHARE * len(text.replace(" ", ""))


def _words(ctx: Context, text: str) -> Spans:
    """``text`` quoted, when the report may quote it: always in English, in Chinese only
    when the words are Chinese (an English sentence is never quoted in zh prose)."""
    if not text or (ctx.lang == Lang.ZH and not _chinese(text)):
        return ()
    if ctx.lang == Lang.ZH:
        return say("hot.quote_zh", ctx.lang, quote=quoted(text.rstrip("。"), ctx.lang))
    return quoted(text, ctx.lang)


def _original(ctx: Context, text: str) -> Spans:
    """The words the zh line summarises by their act, when it does not quote them: kept as
    ``original`` (collapsed on the site, a quoted tail in chat), never as prose."""
    if ctx.lang != Lang.ZH or not text or _chinese(text):
        return ()
    return (Text(text, "original"),)


def _quote(ctx: Context, comment: Comment, skip: frozenset[str] = frozenset()) -> Spans:
    """The comment's most telling words, quoted where the report's language allows."""
    return _words(ctx, ctx.quote(comment, QUOTE_LIMIT, skip=skip))


def _views(ctx: Context, hot: HotDiscussion, skip: frozenset[str]) -> list[Spans]:
    """One line per participant, most active first: their role, what their most substantive
    comment does (复现确认, 给出方案…) and, in English, its words (``skip``: quoted later)."""
    lang = ctx.lang
    tally = Counter(c.author for c in hot.comments)
    lines: list[Spans] = []
    for login in hot.participants[:VIEWS_LIMIT]:
        own = [c for c in hot.comments if c.author == login]
        best = max(own, key=comment_substance)
        ref = ctx.person(login, hot.item)
        quote = _quote(ctx, best, skip)
        line = say(
            "hot.view" if quote or ctx.lang == Lang.ZH else "hot.view_bare",
            lang,
            user=ref,
            tag=ctx.tag(ref),
            n_comments=ctx.count(tally[login], "comment"),
            act=phrase(f"act.{act_of(best)}", lang),
            about=_about(ctx, comment_text(best)),
            quote=quote,
        )
        if not quote:
            line = (*line, *_original(ctx, ctx.quote(best, QUOTE_LIMIT, skip=skip)))
        lines.append(line)
    return lines


def _status(ctx: Context, hot: HotDiscussion) -> Spans:
    """``当前状态：已关闭；@x给出了规避方案。`` from the thread's last substantive comments."""
    lang, item, state = ctx.lang, hot.item, hot.state
    who = state.finding.author if state.finding is not None else hot.comments[-1].author
    key = f"status.{state.status}"
    if state.status == "fixed":
        key = "status.fixed_by" if state.finding is not None else "status.fixed"
    status = say(key, lang, user=ctx.named(who, item))
    line = say("hot.status", lang, state=state_of(item, lang), status=status)
    return (*line, *ctx.fix_note(item))


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
    head = [*title, *say("common.paren", lang, text=meta)]
    if hot.boilerplate:
        head.extend(say("hot.boilerplate", lang, n=hot.boilerplate))
    points: list[Spans] = [say("hot.core", lang, what=content(ctx, item))]
    focus = _pushback(ctx, hot.comments)
    question = hot.state.question
    points.extend(_views(ctx, hot, frozenset({focus[1]}) if focus else frozenset()))
    if focus is not None:
        comment, sentence = focus
        quote = _words(ctx, shorten(sentence, QUOTE_LIMIT))
        said = say(
            "hot.contention",
            lang,
            user=ctx.named(comment.author, item),
            about=_about(ctx, sentence),
            quote=quote,
        )
        if not quote:
            said = (*said, *_original(ctx, shorten(sentence, QUOTE_LIMIT)))
        points.append(said)
    elif question is not None:
        points.append(
            say(
                "hot.question",
                lang,
                user=ctx.named(question.author, item),
                act=phrase(f"act.{act_of(question)}", lang),
                about=_about(ctx, comment_text(question)),
                quote=_quote(ctx, question) or phrase(f"act.{act_of(question)}", lang),
            )
        )
    else:
        points.append(say("hot.agreement", lang))
    points.append(_status(ctx, hot))
    return (Paragraph(tidy(head)), BulletList(tuple(tidy(p) for p in points)))


def hot_section(ctx: Context) -> tuple[Block, ...]:
    """The 3-5 most debated items of the window."""
    if not ctx.analysis.hot:
        return (Paragraph(say("hot.empty", ctx.lang)),)
    blocks: list[Block] = []
    for rank, hot in enumerate(ctx.analysis.hot, start=1):
        blocks.extend(discussion(ctx, rank, hot))
    return tuple(blocks)
