"""Substance checks: a grounded answer is kept only if it says something of the data.

A weak model, a misconfigured endpoint or a model that echoes its prompt can return an answer
that parses and cites nothing unknown, yet is no section: the answer format's placeholders
("one paragraph of 3-5 sentences"), the task copied back, a single word, a wall of text, the
wrong language. Each check returns the problems it finds, worded for the retry request; the
loop asks once more, then falls back with the first problem's reason.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from digest.i18n import cjk_script
from digest.i18n.share import chinese_share, english_quotes
from digest.llm.grounding import Grounds
from digest.llm.reasons import Reason
from digest.models import Inline, Lang, Text

_WORD = re.compile(r"[a-z0-9]+")
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CODE = re.compile(r"`[^`\n]*`")
_REF = re.compile(r"(?:https?://|www\.)\S+|[#＃]\d+|[@＠][A-Za-z0-9_.\[\]-]+")
_LOWER_WORD = re.compile(r"(?<![A-Za-z0-9_.-])[a-z]{2,}(?![A-Za-z0-9_.-])")
_NAMES = {Lang.ZH: "Simplified Chinese (简体中文)", Lang.EN: "English"}  # for the retry request
_PLACEHOLDER_TOKENS = re.compile(
    r"#NUMBER\b|(?<![A-Za-z0-9_])@login\b|</?(?:task|facts|item_data|answer_format|question)>",
)
COPIED_WORDS = 8  # this many consecutive words of the instructions is a copy


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason not to keep an answer, worded for the model."""

    reason: Reason
    text: str


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def descriptions(schema: Mapping[str, Any]) -> list[str]:
    """The field descriptions of a JSON schema: the placeholders of its answer format."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            description = node.get("description")
            if isinstance(description, str):
                found.append(description)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return list(dict.fromkeys(found))


def _shingles(words: list[str], size: int) -> Iterator[tuple[str, ...]]:
    for start in range(len(words) - size + 1):
        yield tuple(words[start : start + size])


@dataclass(frozen=True, slots=True)
class Prompt:
    """What an answer must not echo: the answer format's placeholders and the instructions."""

    placeholders: tuple[str, ...]
    instructions: frozenset[tuple[str, ...]]

    @classmethod
    def of(cls, schema: Mapping[str, Any], instructions: Iterable[str]) -> Prompt:
        placeholders = (*descriptions(schema), "text")
        shingles = frozenset(
            shingle for text in instructions for shingle in _shingles(_words(text), COPIED_WORDS)
        )
        return cls(tuple(" ".join(_words(p)) for p in placeholders), shingles)

    def echoes(self, texts: Iterable[str]) -> list[Problem]:
        """Placeholders of the answer format or instructions copied into ``texts``."""
        problems: dict[str, Problem] = {}
        for text in texts:
            words = _words(text)
            said = " ".join(words)
            if not said:
                continue
            for placeholder in self.placeholders:
                long = placeholder.count(" ") >= 4 and f" {placeholder} " in f" {said} "
                if said == placeholder or long:
                    problems.setdefault(
                        placeholder,
                        Problem(
                            Reason.ECHO,
                            f'"{text[:80]}" repeats the answer format\'s placeholder; write '
                            "the content itself",
                        ),
                    )
            token = _PLACEHOLDER_TOKENS.search(text)
            if token:
                problems.setdefault(
                    token.group(0),
                    Problem(Reason.ECHO, f"{token.group(0)} is a placeholder of the prompt"),
                )
            if any(s in self.instructions for s in _shingles(words, COPIED_WORDS)):
                problems.setdefault(
                    "copied",
                    Problem(Reason.ECHO, "the answer copies the instructions instead of the data"),
                )
        return list(problems.values())


def _prose(text: str) -> str:
    """``text`` without code, references and links: what the language check reads."""
    return _REF.sub(" ", _CODE.sub(" ", text))


# A zh answer's Chinese share, measured as the template's sections are (digest.i18n.share:
# references, links and code aside; a name such as ROCm, MI300X or Qwen3.5 counts one).
ZH_SHARE = 0.4


def language(texts: Iterable[str], lang: Lang) -> list[Problem]:
    """Whether ``texts`` are in ``lang``: zh mostly Chinese script (names, code and English
    proper nouns aside), ``ZH_SHARE`` Chinese at least by the template's measure
    (:func:`digest.i18n.share.chinese_share`) and quoting no English sentence; en mostly not
    Chinese."""
    texts = list(texts)
    prose = _prose(" ".join(texts))
    cjk = len(_CJK.findall(prose))
    english = len(_LOWER_WORD.findall(prose))
    latin = sum(len(w) for w in _LOWER_WORD.findall(prose))
    wrong = cjk < max(english, 1) if cjk_script(lang) else cjk > max(latin, 4)
    if wrong:
        return [Problem(Reason.LANGUAGE, f"the answer is not in {_NAMES[lang]}")]
    if cjk_script(lang):
        quotes = english_quotes(" ".join(texts))
        if quotes:
            return [
                Problem(
                    Reason.LANGUAGE,
                    f'"{quotes[0][:60]}" quotes English; say in Chinese what it says or does',
                )
            ]
        if chinese_share(prose) < ZH_SHARE:
            return [
                Problem(
                    Reason.LANGUAGE,
                    "the answer is mostly English; write Chinese prose, keeping only names, "
                    "identifiers and code in English",
                )
            ]
    return []


def size(text: str) -> int:
    """The length of ``text`` in English characters: a Chinese character counts two."""
    visible = "".join(text.split())
    return len(visible) + len(_CJK.findall(visible))


def length(texts: Iterable[str], *, least: int, most: int, field_most: int) -> list[Problem]:
    """Whether the answer is neither a word nor a wall."""
    sizes = [size(t) for t in texts]
    if sum(sizes) < least:
        return [Problem(Reason.LENGTH, "the answer is too short; write full sentences")]
    if sum(sizes) > most or any(s > field_most for s in sizes):
        return [Problem(Reason.LENGTH, "the answer is too long; keep to the lengths asked for")]
    return []


def _stated(text: str, number: int) -> bool:
    return re.search(rf"(?<![\d.#＃,]){number}(?![\d])", text.replace(",", "")) is not None


def counts(text: str, given: Mapping[str, int]) -> list[Problem]:
    """Whether ``text`` states every count of the window that is not zero, as given."""
    missing = [f"{key}={n}" for key, n in given.items() if n and not _stated(text, n)]
    if missing:
        return [
            Problem(
                Reason.COUNTS,
                "the summary must state the window's counts exactly as given in <facts>: "
                + ", ".join(missing),
            )
        ]
    return []


def cites(cited: Iterable[Hashable], given: Iterable[Hashable]) -> list[Problem]:
    """Whether the answer cites at least one of the items it was given."""
    offered = set(given)
    if offered and not offered & set(cited):
        return [Problem(Reason.CITES, "the answer cites none of the items in <item_data>")]
    return []


def form(texts: Sequence[str], *, prompt: Prompt, grounds: Grounds, lang: Lang) -> list[Problem]:
    """The checks every model-written text passes, in order: it shows something, echoes
    nothing of the prompt, cites only the data, and is in the requested language."""
    if not any(_shows(grounds.spans(text)) for text in texts):
        return [Problem(Reason.EMPTY, "the answer is empty")]
    problems = prompt.echoes(texts)
    problems += [Problem(Reason.UNGROUNDED, text) for text in grounds.problems(texts)]
    return problems + language(texts, lang)


def _shows(spans: Iterable[Inline]) -> bool:
    return any(not isinstance(s, Text) or s.text.strip() for s in spans)
