"""The template answer: a one-line summary, then linked bullets grouped by what happened."""

from __future__ import annotations

from collections.abc import Sequence

from digest.analysis.types import WindowData
from digest.ask.question import Kind, Question
from digest.ask.retrieve import GROUPS, Found, Hit
from digest.i18n import cased, latin_gap, pick, spaced, t, topic_title
from digest.models import (
    Answer,
    Block,
    BulletList,
    Inline,
    ItemRef,
    Lang,
    Paragraph,
    Pointer,
    Subheading,
    Text,
    Topic,
)
from digest.spans import item_ref, say, user_ref
from digest.windows import format_window

MAX_ITEMS = 15  # bullets shown in full
MAX_MORE = 60  # further items linked by number only
MORE_PER_BLOCK = 20

_KIND_WORDS = (
    (Kind.NEW, "new"),
    (Kind.OPEN, "open"),
    (Kind.CLOSED, "closed"),
    (Kind.MERGED, "merged"),
    (Kind.HOT, "hot"),
)


def more_pointer(question: Question, default_repo: str) -> Pointer | None:
    """The digest that shows everything the answer had no room for, if there is one."""
    if question.topic is None and not question.general:
        return None
    repo = None if question.repo.lower() == default_repo.lower() else question.repo
    topic = question.topic.name if question.topic else None
    return Pointer(window=question.when.window, topic=topic, repo=repo)


def _counts(hits: Sequence[Hit], lang: Lang) -> str:
    by_group = {g: sum(1 for h in hits if h.group == g) for g in GROUPS}
    parts = [t(f"answer.count.{g}", lang, n, n=n) for g, n in by_group.items() if n]
    return t("answer.count.sep", lang).join(parts)


def _kind_phrase(kinds: frozenset[Kind], lang: Lang) -> str:
    """``open issues``, ``merged PRs``, ``discussed items``; ``""`` without filters."""
    if not kinds:
        return ""
    adjectives = [t(f"answer.kind.{word}", lang) for kind, word in _KIND_WORDS if kind in kinds]
    noun = "pr" if Kind.PR in kinds else "issue" if Kind.ISSUE in kinds else "item"
    words = [*adjectives, t(f"answer.noun.{noun}", lang)]
    return (" " if spaced(lang) else "").join(words)


def _kinds(question: Question, lang: Lang) -> str:
    """The filters, as a suffix to a topic or search terms."""
    phrase = _kind_phrase(question.kinds, lang)
    if not phrase or question.general:
        return ""
    return t("answer.kinds.only", lang, kinds=phrase)


def _term_spans(terms: Sequence[str], lang: Lang) -> list[Inline]:
    spans: list[Inline] = []
    for index, term in enumerate(terms):
        if index:
            spans.append(Text(t("answer.term_sep", lang)))
        spans.append(Text(f"#{term}" if term.isdigit() else term, "code"))
    return spans


def _subject(question: Question, lang: Lang) -> list[Inline]:
    """What was asked about: the topic, the search terms, or everything."""
    topic, terms = question.topic, question.terms
    title = None if topic is None else topic_title(topic, lang)
    if title is not None and terms:
        return list(
            say("answer.subject.topic_terms", lang, topic=title, terms=_term_spans(terms, lang))
        )
    if title is not None:
        return [Text(title)]
    if terms:
        return list(say("answer.subject.terms", lang, terms=_term_spans(terms, lang)))
    phrase = _kind_phrase(question.kinds, lang)
    if cased(lang):
        phrase = phrase[:1].upper() + phrase[1:]
    return [Text(phrase or t("answer.subject.all", lang))]


def _bullet(hit: Hit, lang: Lang, repo_url: str) -> tuple[Inline, ...]:
    item = hit.item
    notes: list[str] = []
    if hit.group == "closed" and item.is_pr:
        notes.append(t("answer.note.unmerged", lang))
    elif hit.group == "new" and item.closed_at is not None and item.closed_at <= hit.last_active:
        notes.append(t("answer.note.closed", lang))
    if item.draft and hit.group == "review":
        notes.append(t("answer.note.draft", lang))
    if hit.heat:
        notes.append(t("answer.note.comments", lang, hit.heat, n=hit.heat))
    spans: list[Inline] = [
        item_ref(item),
        Text(" — "),
        user_ref(repo_url, item.author),
    ]
    if notes:
        spans.append(Text(t("answer.notes", lang, notes=t("answer.note_sep", lang).join(notes))))
    return tuple(spans)


def _grouped(hits: Sequence[Hit], lang: Lang, repo_url: str) -> list[Block]:
    blocks: list[Block] = []
    for group in GROUPS:
        chosen = [h for h in hits if h.group == group]
        if chosen:
            blocks.append(Subheading(t(f"answer.group.{group}", lang)))
            blocks.append(BulletList(tuple(_bullet(h, lang, repo_url) for h in chosen)))
    return blocks


def _more(rest: Sequence[Hit], more: Pointer | None, lang: Lang, link: bool) -> list[Block]:
    """ "…and N more", every further item linked by number when there are not too many."""
    listed = link and len(rest) <= MAX_MORE
    head: list[Inline] = [Text(t("answer.more", lang, n=len(rest)))]
    tail: list[Inline] = []
    if more:
        tail += [Text(t("answer.full_list", lang)), more, Text(t("answer.full_stop", lang))]
    elif not listed:
        tail.append(Text(t("answer.narrow", lang)))
    if not listed:
        return [Paragraph((*head, Text(t("answer.more.stop", lang)), *tail))]
    blocks: list[Block] = []
    for start in range(0, len(rest), MORE_PER_BLOCK):
        spans: list[Inline] = [*head, Text(t("answer.more.list", lang))] if not start else []
        for index, hit in enumerate(rest[start : start + MORE_PER_BLOCK]):
            if index:
                spans.append(Text(t("answer.more.sep", lang)))
            spans.append(ItemRef(hit.item.number, hit.item.url))
        blocks.append(Paragraph(tuple(spans)))
    if tail:
        blocks.append(Paragraph(tuple(tail)))
    return blocks


def _where(question: Question, lang: Lang) -> str:
    when = pick((question.when.zh, question.when.en), lang)
    window = format_window(question.when.window)
    return t("answer.where", lang, name=question.display_name, when=when, window=window)


def _topics_hint(topics: Sequence[Topic], lang: Lang) -> Paragraph:
    if not topics:
        return Paragraph((Text(t("answer.topics.none", lang)),))
    spans: list[Inline] = [Text(t("answer.topics.lead", lang))]
    for index, topic in enumerate(topics):
        if index:
            spans.append(Text(t("answer.topics.sep", lang)))
        spans.append(Text(topic.name, "code"))
        also = [s for s in topic.synonyms if s.lower() != topic.name.lower()][:6]
        title = topic_title(topic, lang)
        key = "answer.topics.detail_also" if also else "answer.topics.detail"
        spans.append(Text(t(key, lang, title=title, also=", ".join(also))))
    spans.append(Text(t("answer.topics.example_lead", lang)))
    spans.append(Pointer(question=t("answer.topics.example", lang, name=topics[0].name)))
    return Paragraph(tuple(spans))


def _nothing(question: Question, found: Found, topics: Sequence[Topic], lang: Lang) -> list[Block]:
    where = _where(question, lang)
    if found.searched == 0:
        return [Paragraph((Text(t("answer.nothing.quiet", lang, where=where)),))]
    spans: list[Inline] = [Text(t("answer.nothing.lead", lang, where=where))]
    spans.extend(_subject(question, lang))
    spans.append(Text(_kinds(question, lang)))
    n = found.searched
    spans.append(Text(t("answer.nothing.searched", lang, n, n=n, where=where)))
    blocks: list[Block] = [Paragraph(tuple(spans))]
    if question.terms and question.topic is None:
        blocks.append(_topics_hint(topics, lang))
    return blocks


def template_answer(
    question: Question,
    found: Found,
    data: WindowData,
    *,
    topics: Sequence[Topic],
    default_repo: str,
    notes: Sequence[str] = (),
) -> Answer:
    """The answer built from the data alone."""
    lang = question.lang
    hits = found.hits
    if not hits:
        blocks = _nothing(question, found, topics, lang)
    else:
        subject = _subject(question, lang)
        summary: list[Inline] = []
        when = pick((question.when.zh, question.when.en), lang)
        first = subject[0].text if isinstance(subject[0], Text) else ""
        lead = t(
            "answer.summary.lead",
            lang,
            name=question.display_name,
            when=when,
            gap=latin_gap(first, lang),
        )
        if lead:  # zh opens with where (vLLM 本周的…), en ends with it
            summary.append(Text(lead))
        summary.extend(subject)
        summary.append(Text(_kinds(question, lang)))
        n, counts = len(hits), _counts(hits, lang)
        summary.append(
            Text(
                t(
                    "answer.summary.tail",
                    lang,
                    n,
                    n=n,
                    counts=counts,
                    name=question.display_name,
                    when=when,
                )
            )
        )
        blocks = [Paragraph(tuple(summary))]
        if found.partial:
            blocks.append(Paragraph((Text(t("answer.partial", lang)),)))
        shown = hits[:MAX_ITEMS]
        blocks.extend(_grouped(shown, lang, data.repo_url))
        if len(hits) > len(shown):
            link = not question.general
            blocks.extend(
                _more(hits[len(shown) :], more_pointer(question, default_repo), lang, link)
            )
    return Answer(
        repo=question.repo,
        question=question.text,
        window=question.when.window,
        lang=lang,
        blocks=tuple(blocks),
        repo_url=data.repo_url,
        topic=question.topic.name if question.topic else None,
        writer="template",
        notes=tuple(dict.fromkeys(notes)),
    )
