"""The activity section: contributors, merge rate, review load, notable contributors."""

from __future__ import annotations

from collections import Counter

from digest.analysis.activity import is_stale_close
from digest.analysis.hot import human_comments
from digest.i18n import percent
from digest.models import Block, Inline, Paragraph
from digest.spans import append_sentence, join, say, tidy
from digest.writers.template.context import Context


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
    if act.review_comments:
        append_sentence(
            people,
            say(
                "activity.reviews",
                lang,
                n_reviews=ctx.count(act.review_comments, "review_comment"),
            ),
            lang,
        )
    if act.bot_comments:
        append_sentence(
            people,
            say("activity.bots", lang, n_bots=ctx.count(act.bot_comments, "bot_comment")),
            lang,
        )
    blocks.append(Paragraph(tidy(people)))
    work: list[Inline] = []
    if counts.merged_prs or counts.closed_unmerged_prs:
        append_sentence(
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
        append_sentence(work, say("activity.no_merge", lang), lang)
    if counts.new_prs:
        key = "activity.review" if act.open_new_prs else "activity.review_none"
        n_prs = ctx.count(counts.new_prs, "pr")
        append_sentence(
            work, say(key, lang, counts.new_prs, open=act.open_new_prs, n_prs=n_prs), lang
        )
    stale = sum(1 for item in a.lists.closed_issues if is_stale_close(item))
    if stale:
        append_sentence(
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
        append_sentence(people_lines, say("activity.top", lang, users=join(entries, lang)), lang)
    talkers = _top_commenters(ctx)
    if talkers:
        entries = [
            say("activity.talker", lang, user=ctx.user(login), n_items=ctx.count(n, "comment"))
            for login, n in talkers
        ]
        append_sentence(
            people_lines, say("activity.commenters", lang, users=join(entries, lang)), lang
        )
    if act.first_time:
        users = join([(ctx.user(login),) for login in act.first_time], lang)
        append_sentence(people_lines, say("activity.first_time", lang, users=users), lang)
    if people_lines:
        blocks.append(Paragraph(tidy(people_lines)))
    return tuple(blocks)


def _top_commenters(ctx: Context, limit: int = 3) -> list[tuple[str, int]]:
    data = ctx.analysis.data
    tally = Counter(c.author for c in human_comments(data.comments, data.window))
    ranked = sorted(tally.items(), key=lambda e: (-e[1], e[0].lower()))
    return [(login, n) for login, n in ranked[:limit] if n >= 2]
