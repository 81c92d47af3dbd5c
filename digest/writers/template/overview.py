"""The summary and activity sections of the template writer."""

from __future__ import annotations

from collections import Counter

from digest.analysis.activity import is_stale_close
from digest.analysis.hot import human_comments
from digest.analysis.types import TOPIC_GROUPS, TopicMatch
from digest.i18n import duration, group_title, percent, topic_noun
from digest.models import Block, Inline, Paragraph, Text
from digest.spans import Spans, join, say, tidy
from digest.writers.template.context import Context

SUMMARY_TERMS = 3
SUMMARY_MERGES = 2


def _sentence(out: list[Inline], spans: Spans, lang: str) -> None:
    if out and lang == "en":
        out.append(Text(" "))
    out.extend(spans)


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
    return title.lower() if ctx.lang == "en" else title


def summary(ctx: Context) -> tuple[Block, ...]:
    """Volume, what the window focused on, the biggest merges, the liveliest discussion."""
    a, lang = ctx.analysis, ctx.lang
    span = duration(a.data.window.days, lang)
    counts = a.counts
    out: list[Inline] = []
    if not any(counts.as_dict().values()) and not a.hot:
        return (Paragraph(say("summary.empty", lang, span=span)),)
    _sentence(
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
        _sentence(out, say("summary.focus", lang, terms=join(parts, lang)), lang)
    for match in a.topics:
        noun = topic_noun(match.topic, lang)
        if match.items:
            _sentence(
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
            _sentence(out, say("summary.topic_none", lang, topic=noun), lang)
    merges = a.key_changes[:SUMMARY_MERGES]
    if merges:
        refs = [(ctx.item(item),) for item in merges]
        _sentence(out, say("summary.merges", lang, len(merges), items=join(refs, lang)), lang)
    if a.hot:
        top = a.hot[0]
        _sentence(
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
        _sentence(out, say("summary.watch", lang, n, n_items=ctx.count(n, "item")), lang)
    return (Paragraph(tidy(out)),)


def activity(ctx: Context) -> tuple[Block, ...]:
    """Contributors, comments, merge rate, review load, stale closes, notable contributors."""
    a, lang = ctx.analysis, ctx.lang
    act, counts = a.activity, a.counts
    if not (
        act.authors
        or act.commenters
        or counts.merged_prs
        or counts.closed_issues
        or counts.closed_unmerged_prs
    ):
        return (Paragraph(say("activity.empty", lang)),)
    blocks: list[Block] = []
    people: list[Inline] = list(
        say(
            "activity.people",
            lang,
            n_authors=ctx.count(act.authors, "person"),
            n_commenters=ctx.count(act.commenters, "person"),
            n_comments=ctx.count(act.comments, "comment"),
        )
    )
    if act.bot_comments:
        _sentence(
            people,
            say("activity.bots", lang, n_bots=ctx.count(act.bot_comments, "bot_comment")),
            lang,
        )
    blocks.append(Paragraph(tidy(people)))
    work: list[Inline] = []
    if counts.merged_prs or counts.closed_unmerged_prs:
        _sentence(
            work,
            say(
                "activity.merge",
                lang,
                rate=percent(act.merge_rate),
                merged=counts.merged_prs,
                unmerged=counts.closed_unmerged_prs,
            ),
            lang,
        )
    else:
        _sentence(work, say("activity.no_merge", lang), lang)
    if counts.new_prs:
        key = "activity.review" if act.open_new_prs else "activity.review_none"
        n_prs = ctx.count(counts.new_prs, "pr")
        _sentence(work, say(key, lang, counts.new_prs, open=act.open_new_prs, n_prs=n_prs), lang)
    stale = sum(1 for item in a.lists.closed_issues if is_stale_close(item))
    if stale:
        _sentence(
            work,
            say(
                "activity.stale",
                lang,
                stale=stale,
                n_issues=ctx.count(counts.closed_issues, "issue"),
            ),
            lang,
        )
    blocks.append(Paragraph(tidy(work)))
    people_lines: list[Inline] = []
    top = [(login, n) for login, n in act.top_contributors if n >= 2]
    if top:
        entries = [say("activity.top_entry", lang, user=ctx.user(login), n=n) for login, n in top]
        _sentence(people_lines, say("activity.top", lang, users=join(entries, lang)), lang)
    talkers = _top_commenters(ctx)
    if talkers:
        entries = [
            say("activity.talker", lang, user=ctx.user(login), n_items=ctx.count(n, "comment"))
            for login, n in talkers
        ]
        _sentence(people_lines, say("activity.commenters", lang, users=join(entries, lang)), lang)
    if act.first_time:
        users = join([(ctx.user(login),) for login in act.first_time], lang)
        _sentence(people_lines, say("activity.first_time", lang, users=users), lang)
    if people_lines:
        blocks.append(Paragraph(tidy(people_lines)))
    return tuple(blocks)


def _top_commenters(ctx: Context, limit: int = 3) -> list[tuple[str, int]]:
    data = ctx.analysis.data
    tally = Counter(c.author for c in human_comments(data.comments, data.window))
    ranked = sorted(tally.items(), key=lambda e: (-e[1], e[0].lower()))
    return [(login, n) for login, n in ranked[:limit] if n >= 2]
