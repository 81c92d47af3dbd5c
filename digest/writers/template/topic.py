"""A focus-topic section of the template writer: grouped items and a takeaway."""

from __future__ import annotations

from digest.analysis.people import affiliation_of
from digest.analysis.types import TOPIC_GROUPS, TopicItem, TopicMatch
from digest.i18n import (
    fill,
    group_title,
    join_words,
    latin_gap,
    phrase,
    spaced,
    state_of,
    topic_noun,
)
from digest.models import (
    Block,
    BulletList,
    Inline,
    ItemKey,
    ItemState,
    Paragraph,
    Subheading,
    Text,
)
from digest.spans import Part, Spans, join, say, tidy
from digest.writers.template.context import Context
from digest.writers.template.describe import content, describe
from digest.writers.template.summary import topic_groups

GROUP_LIMIT = 12
_FOLLOW_GROUPS = ("fixes", "ecosystem", "performance")


def entry(
    ctx: Context,
    hit: TopicItem,
    said: set[str] | None = None,
    among: frozenset[ItemKey] | None = None,
) -> Spans:
    """``#N title（state，@author）：what it is about``.

    The explanation is the description's first sentence; when there is none, or ``said``
    (the explanations already given in the section) holds it, what the item does instead.
    """
    item = hit.item
    what = content(ctx, item)
    key = "".join(s.text for s in what if isinstance(s, Text))
    if said is not None:
        if key in said:
            what = describe(ctx, item)
        said.add(key)
    parts: dict[str, Part] = {
        "item": ctx.item(item),
        "state": state_of(item, ctx.lang),
        "author": ctx.author(item),
    }
    entry = say("topic.entry", ctx.lang, what=what, **parts)
    return (*entry, *ctx.fix_note(item), *ctx.sibling_note(item, among))


def _follow(match: TopicMatch) -> TopicItem | None:
    """The open item most worth following: fixes first, then requests, then performance."""
    for group in _FOLLOW_GROUPS:
        for hit in match.items:
            if hit.group == group and hit.item.state is ItemState.OPEN:
                return hit
    return None


def org_of(ctx: Context, login: str) -> str:
    """The organisation of ``login``, by login or by the company on their profile; ""."""
    return affiliation_of(login, ctx.analysis.organisations, ctx.analysis.companies)


def organisation_share(ctx: Context, match: TopicMatch) -> Spans:
    """How many of the topic's items came from its own organisation, and how they are told."""
    lang = ctx.lang
    org = next((o for o in ctx.analysis.organisations if o.name == match.topic.organisation), None)
    if org is None:
        return ()
    patterns = [
        *(fill(phrase("topic.org_suffix", lang), {"s": s}) for s in org.suffixes),
        *(fill(phrase("topic.org_prefix", lang), {"s": s}) for s in org.prefixes),
    ]
    if org.logins:
        patterns.append(fill(phrase("topic.org_listed", lang), {"n": len(org.logins)}))
    rule = fill(phrase("topic.org_rule", lang), {"patterns": join_words(patterns, lang)})
    authors = [hit.item.author for hit in match.items]
    n = sum(1 for login in authors if org_of(ctx, login) == org.name)
    by_profile = {a for a in authors if not org.has(a) and org_of(ctx, a) == org.name}
    if by_profile:
        rule += fill(phrase("topic.org_profile", lang), {"n": len(by_profile)})
    if not n:
        return say("topic.org_none", lang, org=org.name, rule=rule)
    return say("topic.org", lang, n, n=n, n_items=ctx.count(n, "item"), org=org.name, rule=rule)


def takeaway(ctx: Context, match: TopicMatch) -> Spans:
    """The closing 小结 / Takeaway line."""
    lang = ctx.lang
    merged = sum(1 for hit in match.items if hit.item.is_merged)
    still_open = sum(1 for hit in match.items if hit.item.state is ItemState.OPEN)
    closed = len(match.items) - merged - still_open
    status = [
        say(key, lang, n=n)
        for key, n in (
            ("topic.merged", merged),
            ("topic.closed", closed),
            ("topic.open", still_open),
        )
        if n
    ]
    groups = topic_groups(ctx, match)
    first = groups[0] if groups else None
    if isinstance(first, Text) and (gap := latin_gap(first.text, lang)):
        groups = (Text(gap), *groups)  # 其中 Bug 修复…, but 其中性能与内核…
    out: list[Inline] = list(
        say(
            "topic.takeaway",
            lang,
            len(match.items),
            topic=topic_noun(match.topic, lang),
            n=len(match.items),
            n_items=ctx.count(len(match.items), "item"),
            groups=groups,
            status=join(status, lang, last=False),
        )
    )
    follow = _follow(match)
    landed = [hit for hit in match.items if hit.item.is_merged]
    closing: Spans = ()
    if follow is not None:
        closing = say("topic.follow", lang, item=ctx.item(follow.item))
    elif landed:
        best = max(landed, key=lambda hit: hit.score)
        closing = say("topic.landed", lang, item=ctx.item(best.item))
    for extra in (organisation_share(ctx, match), closing):
        if extra and spaced(lang):
            out.append(Text(" "))
        out.extend(extra)
    return tidy(out)


def topic_section(ctx: Context, match: TopicMatch) -> tuple[Block, ...]:
    """The items of one topic, grouped, each with a one-line explanation, then a takeaway."""
    lang = ctx.lang
    noun = topic_noun(match.topic, lang)
    if not match.items:
        return (Paragraph(say("topic.empty", lang, topic=noun)),)
    n = len(match.items)
    blocks: list[Block] = [
        Paragraph(say("topic.intro", lang, n, n=n, n_items=ctx.count(n, "item"), topic=noun))
    ]
    said: set[str] = set()
    for group in TOPIC_GROUPS:
        hits = sorted(
            (h for h in match.items if h.group == group), key=lambda h: (-h.score, -h.item.number)
        )
        if not hits:
            continue
        blocks.append(Subheading(group_title(group, lang)))
        own = frozenset(h.item.key for h in match.items)
        entries = [entry(ctx, hit, said, own) for hit in hits[:GROUP_LIMIT]]
        if len(hits) > GROUP_LIMIT:
            entries.append(say("common.more", lang, n=len(hits) - GROUP_LIMIT))
        blocks.append(BulletList(tuple(entries)))
    blocks.append(Paragraph(takeaway(ctx, match)))
    return tuple(blocks)
