"""The template answer: a one-line summary, then linked bullets grouped by what happened."""

from __future__ import annotations

from collections.abc import Sequence

from digest.analysis.types import WindowData
from digest.ask.question import Kind, Question
from digest.ask.retrieve import GROUPS, Found, Hit
from digest.models import (
    Answer,
    Block,
    BulletList,
    Inline,
    ItemRef,
    Paragraph,
    Pointer,
    Subheading,
    Text,
    Topic,
)
from digest.spans import item_ref, user_ref
from digest.windows import format_window

MAX_ITEMS = 15  # bullets shown in full
MAX_MORE = 60  # further items linked by number only
MORE_PER_BLOCK = 20

_HEADINGS = {
    "en": {
        "merged": "Merged",
        "review": "In review",
        "new": "New issues",
        "closed": "Closed",
        "discussion": "Discussions",
    },
    "zh": {
        "merged": "已合并",
        "review": "审核中",
        "new": "新 Issue",
        "closed": "已关闭",
        "discussion": "讨论中",
    },
}
_NARROW = {
    "en": ". Narrow the question with a time or a kind, e.g. “this week” or “merged”",
    "zh": "。可以加上时间或类型缩小范围，例如“本周”“已合并”",
}
_KIND_ADJ = {
    "en": {
        Kind.NEW: "new",
        Kind.OPEN: "open",
        Kind.CLOSED: "closed",
        Kind.MERGED: "merged",
        Kind.HOT: "discussed",
    },
    "zh": {
        Kind.NEW: "新",
        Kind.OPEN: "未关闭的",
        Kind.CLOSED: "已关闭的",
        Kind.MERGED: "已合并的",
        Kind.HOT: "有讨论的",
    },
}


def more_pointer(question: Question, default_repo: str) -> Pointer | None:
    """The digest that shows everything the answer had no room for, if there is one."""
    if question.topic is None and not question.general:
        return None
    repo = None if question.repo.lower() == default_repo.lower() else question.repo
    topic = question.topic.name if question.topic else None
    return Pointer(window=question.when.window, topic=topic, repo=repo)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _counts(hits: Sequence[Hit], lang: str) -> str:
    by_group = {g: sum(1 for h in hits if h.group == g) for g in GROUPS}
    if lang == "zh":
        names = {
            "merged": "已合并 PR {} 个",
            "review": "审核中 PR {} 个",
            "new": "新 Issue {} 个",
            "closed": "已关闭 {} 项",
            "discussion": "讨论中 {} 项",
        }
        return "，".join(names[g].format(n) for g, n in by_group.items() if n)
    words = {
        "merged": ("merged PR", "merged PRs"),
        "review": ("PR in review", "PRs in review"),
        "new": ("new issue", "new issues"),
        "closed": ("closed", "closed"),
        "discussion": ("discussion", "discussions"),
    }
    return ", ".join(_plural(n, *words[g]) for g, n in by_group.items() if n)


def _kind_phrase(kinds: frozenset[Kind], lang: str) -> str:
    """``open issues``, ``merged PRs``, ``discussed items``; ``""`` without filters."""
    if not kinds:
        return ""
    adjectives = [word for kind, word in _KIND_ADJ[lang].items() if kind in kinds]
    if lang == "zh":
        noun = "PR" if Kind.PR in kinds else "Issue" if Kind.ISSUE in kinds else "条目"
        return f"{''.join(adjectives)}{noun}"
    noun = "PRs" if Kind.PR in kinds else "issues" if Kind.ISSUE in kinds else "items"
    return " ".join([*adjectives, noun])


def _kinds(question: Question, lang: str) -> str:
    """The filters, as a suffix to a topic or search terms."""
    phrase = _kind_phrase(question.kinds, lang)
    if not phrase or question.general:
        return ""
    return f"（仅{phrase}）" if lang == "zh" else f" (only {phrase})"


def _term_spans(terms: Sequence[str], lang: str) -> list[Inline]:
    spans: list[Inline] = []
    for index, term in enumerate(terms):
        if index:
            spans.append(Text("、" if lang == "zh" else ", "))
        spans.append(Text(f"#{term}" if term.isdigit() else term, "code"))
    return spans


def _subject(question: Question, lang: str) -> list[Inline]:
    """What was asked about: the topic, the search terms, or everything."""
    topic, terms = question.topic, question.terms
    if lang == "zh":
        if topic is not None and terms:
            return [Text(f"{topic.title_zh}中提到 "), *_term_spans(terms, lang), Text(" 的条目")]
        if topic is not None:
            return [Text(topic.title_zh)]
        if terms:
            return [Text("与 "), *_term_spans(terms, lang), Text(" 相关的动态")]
        return [Text(_kind_phrase(question.kinds, lang) or "全部动态")]
    if topic is not None and terms:
        return [Text(f"{topic.title_en} mentioning "), *_term_spans(terms, lang)]
    if topic is not None:
        return [Text(topic.title_en)]
    if terms:
        return _term_spans(terms, lang)
    phrase = _kind_phrase(question.kinds, lang)
    return [Text(phrase[:1].upper() + phrase[1:] if phrase else "All activity")]


def _bullet(hit: Hit, lang: str, repo_url: str) -> tuple[Inline, ...]:
    item = hit.item
    notes: list[str] = []
    if hit.group == "closed" and item.is_pr:
        notes.append("未合并即关闭" if lang == "zh" else "closed without merging")
    elif hit.group == "new" and item.closed_at is not None and item.closed_at <= hit.last_active:
        notes.append("已关闭" if lang == "zh" else "already closed")
    if item.draft and hit.group == "review":
        notes.append("草稿" if lang == "zh" else "draft")
    if hit.heat:
        notes.append(
            f"{hit.heat} 条评论" if lang == "zh" else _plural(hit.heat, "comment", "comments")
        )
    spans: list[Inline] = [
        item_ref(item),
        Text(" — "),
        user_ref(repo_url, item.author),
    ]
    if notes:
        spans.append(Text(f"（{'，'.join(notes)}）" if lang == "zh" else f" ({', '.join(notes)})"))
    return tuple(spans)


def _grouped(hits: Sequence[Hit], lang: str, repo_url: str) -> list[Block]:
    blocks: list[Block] = []
    for group in GROUPS:
        chosen = [h for h in hits if h.group == group]
        if chosen:
            blocks.append(Subheading(_HEADINGS[lang][group]))
            blocks.append(BulletList(tuple(_bullet(h, lang, repo_url) for h in chosen)))
    return blocks


def _more(rest: Sequence[Hit], more: Pointer | None, lang: str, link: bool) -> list[Block]:
    """ "…and N more", every further item linked by number when there are not too many."""
    zh = lang == "zh"
    listed = link and len(rest) <= MAX_MORE
    head: list[Inline] = [Text(f"……另有 {len(rest)} 项" if zh else f"…and {len(rest)} more")]
    tail: list[Inline] = []
    if more:
        tail += [
            Text("完整列表：" if zh else "Full list: "),
            more,
            Text("。" if zh else "."),
        ]
    elif not listed:
        tail.append(Text(_NARROW[lang]))
    if not listed:
        return [Paragraph((*head, Text("。" if zh else ". "), *tail))]
    blocks: list[Block] = []
    for start in range(0, len(rest), MORE_PER_BLOCK):
        spans: list[Inline] = [*head, Text("：" if zh else ": ")] if not start else []
        for index, hit in enumerate(rest[start : start + MORE_PER_BLOCK]):
            if index:
                spans.append(Text("、" if zh else ", "))
            spans.append(ItemRef(hit.item.number, hit.item.url))
        blocks.append(Paragraph(tuple(spans)))
    if tail:
        blocks.append(Paragraph(tuple(tail)))
    return blocks


def _where(question: Question, lang: str) -> str:
    window = format_window(question.when.window)
    if lang == "zh":
        return f"{question.display_name} {question.when.zh}（{window}）"
    return f"{question.display_name} {question.when.en} ({window})"


def _topics_hint(topics: Sequence[Topic], lang: str) -> Paragraph:
    zh = lang == "zh"
    if not topics:
        return Paragraph((Text("没有配置主题。" if zh else "No topics are configured."),))
    spans: list[Inline] = [Text("已配置的主题：" if zh else "Configured topics: ")]
    for index, topic in enumerate(topics):
        if index:
            spans.append(Text("；" if zh else "; "))
        spans.append(Text(topic.name, "code"))
        also = [s for s in topic.synonyms if s.lower() != topic.name.lower()][:6]
        title = topic.title_zh if zh else topic.title_en
        detail = (
            f"{title}，也可以说 {', '.join(also)}"
            if zh and also
            else (f"{title}; also {', '.join(also)}" if also else title)
        )
        spans.append(Text(f"（{detail}）" if zh else f" ({detail})"))
    name = topics[0].name
    example = f"{name} 最近有什么进展？" if zh else f"what's new in {name}?"
    spans.append(Text("。例如：" if zh else ". For example: "))
    spans.append(Pointer(question=example))
    return Paragraph(tuple(spans))


def _nothing(question: Question, found: Found, topics: Sequence[Topic], lang: str) -> list[Block]:
    zh = lang == "zh"
    where = _where(question, lang)
    if found.searched == 0:
        text = (
            f"{where}没有任何动态：镜像中没有在此期间创建、关闭、合并或评论的条目。"
            if zh
            else f"No activity in {where}: no item was created, closed, merged or commented on "
            "in that window."
        )
        return [Paragraph((Text(text),))]
    spans: list[Inline] = [Text(f"{where}没有找到" if zh else "Nothing found for ")]
    spans.extend(_subject(question, lang))
    spans.append(Text(_kinds(question, lang)))
    spans.append(
        Text(
            f"（检索了 {found.searched} 项的标题、标签和描述）。"
            if zh
            else f" in {where}; searched the titles, labels and descriptions of "
            f"{_plural(found.searched, 'item', 'items')}."
        )
    )
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
    lang = "zh" if question.lang == "zh" else "en"
    zh = lang == "zh"
    hits = found.hits
    if not hits:
        blocks = _nothing(question, found, topics, lang)
    else:
        subject = _subject(question, lang)
        summary: list[Inline] = []
        if zh:
            first = subject[0].text if isinstance(subject[0], Text) else ""
            gap = " " if first[:1].isascii() else ""
            summary.append(Text(f"{question.display_name} {question.when.zh}的{gap}"))
        summary.extend(subject)
        summary.append(Text(_kinds(question, lang)))
        summary.append(
            Text(
                f"：共 {len(hits)} 项——{_counts(hits, lang)}。"
                if zh
                else f" in {question.display_name} {question.when.en}: "
                f"{_plural(len(hits), 'item', 'items')} — {_counts(hits, lang)}."
            )
        )
        blocks = [Paragraph(tuple(summary))]
        if found.partial:
            blocks.append(
                Paragraph(
                    (
                        Text(
                            "没有条目同时提到所有关键词，以下条目提到了其中大部分。"
                            if zh
                            else "No item mentions every word searched; these mention most of them."
                        ),
                    )
                )
            )
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
