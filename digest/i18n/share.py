"""How Chinese a zh text is: the share of Chinese characters once names are set aside.

Titles (item links), logins (user links), URLs and code are removed; what remains is counted
as Chinese characters against Chinese characters plus the Latin text: an English word counts
its letters, a name (a word with a capital or a digit: ROCm, MI300X, TTFT, 412) counts one,
as a name is what zh keeps in English. Punctuation and spaces count for neither. The template
writer's sections and the LLM writer's zh answers are held to the same measure (40 %).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from digest.models import Block, ItemRef, Text, UserRef, iter_spans

_HAN = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z0-9]")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._'+-]*")
_NAME = re.compile(r"[A-Z0-9]")
_URL = re.compile(r"https?://\S+")
_MENTION = re.compile(r"@[\w-]+")
_REF = re.compile(r"#\d+")
_SENTENCE = re.compile(r"[“\"]([^”\"]*[A-Za-z][^”\"]*)[”\"]")


def prose(blocks: Iterable[Block]) -> str:
    """The prose of ``blocks``: plain and emphasised text, without links, code and the
    original words of comments (collapsed on the site, a quoted tail in chat)."""
    parts: list[str] = []
    for span in iter_spans(tuple(blocks)):
        if isinstance(span, Text) and span.style not in ("code", "original"):
            parts.append(span.text)
        elif isinstance(span, ItemRef | UserRef):
            parts.append(" ")
    return "".join(parts)


def latin_weight(text: str) -> int:
    """What the Latin text of ``text`` weighs: each English word its letters, each name one."""
    return sum(
        1 if _NAME.search(token) else len(_LATIN.findall(token)) for token in _TOKEN.findall(text)
    )


def chinese_share(text: str, *, names: bool = True) -> float:
    """Chinese characters / (Chinese characters + the Latin text's weight) of ``text`` with
    URLs, @logins and #numbers removed; 1.0 for a text with neither. ``names=False`` weighs
    every Latin letter and digit alike (the measure the first reviews used)."""
    text = _REF.sub(" ", _MENTION.sub(" ", _URL.sub(" ", text)))
    han = len(_HAN.findall(text))
    latin = latin_weight(text) if names else len(_LATIN.findall(text))
    return han / (han + latin) if han + latin else 1.0


def english_quotes(text: str, words: int = 4) -> list[str]:
    """The quoted passages of ``text`` that are English sentences (``words`` or more Latin
    words and no Chinese character)."""
    return [
        quote
        for quote in _SENTENCE.findall(text)
        if not _HAN.search(quote) and len(re.findall(r"[A-Za-z]+", quote)) >= words
    ]
