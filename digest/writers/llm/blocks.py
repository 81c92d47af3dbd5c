"""A model's validated answer as the blocks of a section, with every reference linked."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from pydantic import BaseModel

from digest.analysis.types import TOPIC_GROUPS
from digest.i18n import group_title, phrase
from digest.llm.grounding import Grounds, given_key
from digest.models import (
    Block,
    BulletList,
    Inline,
    ItemKey,
    ItemRef,
    Lang,
    Paragraph,
    Subheading,
    Text,
)
from digest.spans import item_ref
from digest.writers.llm.answers import (
    ActivityAnswer,
    HotAnswer,
    KeyChangesAnswer,
    Numbered,
    SummaryAnswer,
    TopicAnswer,
    TrendsAnswer,
    WatchListAnswer,
)

_N = TypeVar("_N", bound=Numbered)

_DASH = " — "


def nodes(value: object) -> Iterator[object]:
    """``value`` and, depth first, every model, list and value inside it."""
    yield value
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from nodes(getattr(value, name))
    elif isinstance(value, list):
        for entry in value:
            yield from nodes(entry)


def texts(answer: BaseModel) -> list[str]:
    """Every string of an answer, for the grounding check."""
    return [node for node in nodes(answer) if isinstance(node, str)]


def visible(spans: Iterable[Inline]) -> bool:
    """Whether ``spans`` show anything: a link, or text that is not blank."""
    return any(not isinstance(s, Text) or s.text.strip() for s in spans)


class Builder:
    """Turns one section's answer into blocks for ``lang``."""

    def __init__(
        self, grounds: Grounds, lang: Lang, keys: frozenset[ItemKey] = frozenset()
    ) -> None:
        self._grounds = grounds
        self._keys = keys  # the items the model was given, which its numbers name first
        self._lang = lang
        self._sep = phrase("common.colon", lang)

    def _spans(self, text: str) -> tuple[Inline, ...]:
        return self._grounds.spans(text)

    def _has(self, text: str) -> bool:
        return visible(self._spans(text))

    def _label(self, key: str) -> Text:
        """``小结：`` / ``Takeaway: ``, in bold."""
        return Text(phrase(f"label.{key}", self._lang) + self._sep, "bold")

    def _labelled(self, key: str, text: str) -> tuple[Inline, ...]:
        return (self._label(key), *self._spans(text))

    def _item(self, number: int) -> ItemRef:
        key = given_key(self._keys, number) or self._grounds.key(number)
        if key is None:  # the answer's check refused such a number
            raise KeyError(f"#{number} names no one item")
        return item_ref(self._grounds.items[key])

    def _paragraphs(self, text: str) -> list[Block]:
        spans = (self._spans(p) for p in text.split("\n\n"))
        return [Paragraph(found) for found in spans if visible(found)]

    def _entry(self, number: int, text: str) -> tuple[Inline, ...]:
        return (self._item(number), Text(_DASH), *self._spans(text))

    def summary(self, answer: SummaryAnswer) -> list[Block]:
        return self._paragraphs(answer.summary)

    def topic(self, answer: TopicAnswer, groups: dict[int, str]) -> list[Block]:
        blocks = self._paragraphs(answer.overview)
        lines = _unique((line.number, line.line) for line in answer.items if self._has(line.line))
        for group in TOPIC_GROUPS:
            entries = [self._entry(n, text) for n, text in lines if groups.get(n) == group]
            if entries:
                blocks += [Subheading(group_title(group, self._lang)), BulletList(tuple(entries))]
        if self._has(answer.takeaway):
            blocks.append(Paragraph(self._labelled("takeaway", answer.takeaway)))
        return blocks

    def hot(self, answer: HotAnswer) -> list[Block]:
        blocks: list[Block] = []
        for entry in _unique_by_number(answer.discussions):
            views = [
                (self._grounds.user(v.login), Text(self._sep), *self._spans(v.view))
                for v in entry.viewpoints
                if self._has(v.view)
            ]
            rows = (
                [self._labelled("core_issue", entry.core_issue)]
                if self._has(entry.core_issue)
                else []
            )
            if views:
                rows.append((self._label("viewpoints"),))
            rows += views
            if self._has(entry.contention):
                rows.append(self._labelled("contention", entry.contention))
            if self._has(entry.status):
                rows.append(self._labelled("status", entry.status))
            if rows:
                blocks += [Paragraph((self._item(entry.number),)), BulletList(tuple(rows))]
        return blocks

    def trends(self, answer: TrendsAnswer) -> list[Block]:
        blocks = self._paragraphs(answer.overview)
        rows = [
            (Text(t.term, "bold"), Text(self._sep), *self._spans(t.analysis))
            for t in answer.trends
            if t.term and self._has(t.analysis)
        ]
        if rows:
            blocks.append(BulletList(tuple(rows)))
        return blocks

    def key_changes(self, answer: KeyChangesAnswer) -> list[Block]:
        rows = [
            (
                *self._entry(c.number, c.change),
                Text(" "),
                self._label("impact"),
                *self._spans(c.impact),
            )
            for c in _unique_by_number(answer.changes)
            if self._has(c.change)
        ]
        return [BulletList(tuple(rows))] if rows else []

    def activity(self, answer: ActivityAnswer) -> list[Block]:
        blocks = self._paragraphs(answer.overview)
        rows = [self._spans(h) for h in answer.highlights if self._has(h)]
        if rows:
            blocks.append(BulletList(tuple(rows)))
        return blocks

    def watch(self, answer: WatchListAnswer) -> list[Block]:
        rows = [
            self._entry(w.number, w.why)
            for w in _unique_by_number(answer.items)
            if self._has(w.why)
        ]
        return [BulletList(tuple(rows))] if rows else []


def _unique(pairs: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    out: dict[int, str] = {}
    for number, text in pairs:
        out.setdefault(number, text)
    return list(out.items())


def _unique_by_number(entries: Iterable[_N]) -> list[_N]:
    out: dict[int, _N] = {}
    for entry in entries:
        out.setdefault(entry.number, entry)
    return list(out.values())
